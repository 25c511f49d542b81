"""outcome.lp on its own: what OME does with a selection -- the runtime used
(O5, X1, X2, X5, X7, M6) or why none (M2, M3, M4, X3, X4, O8), the X6
advisory, and where the result surfaces (O9: admission, RuntimeReady, events).

Upstream (given as facts): the query's ISVC, model and errors (lookup.lp),
the admitted runtimes (admission.lp, I9), evaluated/2 and the checks
(lookup.lp, qualification.lp, explanation.lp), qualifies/2 and the optimum
selected/2 (selection.lp, O5), check_order/2 (explanation.lp).
"""

from __future__ import annotations

from ome_asp.solver.facts import FactBuilder, const, runtime_id

from .lp import run, term, text

FILES = ("outcome.lp",)
UPSTREAM = (
    "query_model_name_wanted/2", "query_isvc/2", "query_error/2", "query_model/2", "runtime/1",
    "evaluated/2", "qualifies/2", "selected/2", "fails/4", "check_order/2", "query_outcome/3",
)

NS = "ns"
CSR = runtime_id("ClusterServingRuntime", None, "rt")
SR = runtime_id("ServingRuntime", NS, "rt")
M = term('cbm("m")')
I = term(f'isvc("{NS}","svc")')
CHECKS = (("q2", 2), ("q3", 3), ("q4", 4), ("q5", 5), ("q6", 6), ("q7", 7), ("q8", 8))
LABEL = 'label("safetensors",none,none,none,"transformers",none)'


class Case:
    """One query (number 1) in namespace `ns`, built fact by fact."""

    def __init__(self) -> None:
        self.b = FactBuilder(schema=None)
        self.fact = self.b.fact
        self.fact.query(1)
        self.fact.query_namespace(1, NS)
        for check, order in CHECKS:
            self.fact.check_order(const(check), order)

    def runtime(self, r, disabled=False):
        self.fact.runtime(r)
        if disabled:
            self.fact.runtime_disabled(r)
        return self

    def model(self, found=True, disabled=False, format_name=True):
        """--model m (lookup.lp's query_model_name_wanted) and, when found, cbm("m")."""
        self.fact.query_model_name_wanted(1, "m")
        if found:
            self.fact.query_model(1, M)
            self.fact.model_declares(M, const("format"), "safetensors")
            if disabled:
                self.fact.model_disabled(M)
            if format_name:
                self.fact.evaluated(1, M)
            else:
                self.fact.query_error(1, const("model_format_name_missing"))
        else:
            self.fact.query_error(1, term('model_not_found("m")'))
        return self

    def isvc(self, model=True, runtime=None, kind="cluster_serving_runtime", engine=False, images=(), auto_sync=True):
        """An ISVC `svc` asked with --isvc; `runtime` is spec.runtime.name;
        `images` are (runner, image) pairs of spec.engine."""
        self.fact.isvc(I)
        self.fact.query_isvc(1, I)
        if model:
            self.fact.isvc_model(I, "m")
        if runtime is not None:
            self.fact.isvc_runtime(I, runtime)
            self.fact.isvc_runtime_kind(I, const(kind))
        if not auto_sync:
            self.fact.isvc_runtime_auto_sync_off(I)
        if engine:
            self.fact.isvc_component(I, const("engine"))
        for runner, image in images:
            self.fact.isvc_runner_image(I, const(runner), image)
        return self

    def qualifying(self, r, selected=True):
        self.fact.qualifies(1, r)
        if selected:
            self.fact.selected(1, r)
        return self

    def fails(self, r, check, reason):
        self.fact.fails(1, r, const(check), term(reason))
        return self

    def answer(self):
        return run(FILES, self.b, upstream=UPSTREAM)


def shown(answer, name):
    return answer.terms(name)


R_CSR, R_SR = text(CSR), text(SR)


# --- O5: auto-selection --------------------------------------------------------------


def test_O5_the_optimum_is_used_and_O9_row_2_condition_resolved():
    a = Case().runtime(CSR).model().qualifying(CSR).answer()
    assert shown(a, "runtime_used") == {("1", R_CSR)}
    assert shown(a, "select_failure") == set()
    assert shown(a, "runtime_ready") == {("1", "true", "runtime_resolved", "none")}
    assert shown(a, "warning_event") == set()
    assert shown(a, "explicit") == set()


def test_O8_nothing_qualifies_condition_and_event_runtime_not_found():
    a = Case().runtime(CSR).model().answer()
    assert shown(a, "runtime_used") == set()
    assert shown(a, "select_failure") == {("1", "no_runtime")}
    assert shown(a, "runtime_ready") == {("1", "false", "runtime_not_found", "no_runtime")}
    assert shown(a, "warning_event") == {("1", "runtime_not_found", "no_runtime")}
    assert shown(a, "admission_denied") == set()


def test_M2_model_not_found_is_an_admission_denial():
    a = Case().model(found=False).answer()
    assert shown(a, "select_failure") == {("1", 'referenced_model_not_found("m","ns")')}
    assert shown(a, "admission_denied") == {("1", 'referenced_model_not_found("m","ns")')}
    assert shown(a, "runtime_ready") == set() and shown(a, "warning_event") == set()


def test_M3_disabled_model_stops_even_a_qualifying_selection():
    a = Case().runtime(CSR).model(disabled=True).qualifying(CSR).answer()
    assert shown(a, "runtime_used") == set()
    assert shown(a, "select_failure") == {("1", 'disabled_model("m")')}
    assert shown(a, "admission_denied") == {("1", 'disabled_model("m")')}


def test_M3_before_M4():
    a = Case().model(disabled=True, format_name=False).answer()
    assert shown(a, "select_failure") == {("1", 'disabled_model("m")')}


def test_M4_after_admission_is_a_selection_error_event_without_condition():
    a = Case().model(format_name=False).answer()
    assert shown(a, "select_failure") == {("1", "model_format_name_missing")}
    assert shown(a, "runtime_ready") == set()
    assert shown(a, "warning_event") == {
        ("1", "runtime_selection_error", 'failed_to_find_runtime("m",model_format_name_missing)')
    }


# --- X1, X2, X3, X4: the named runtime ----------------------------------------------------


def test_X2_kind_cluster_serving_runtime_prefers_the_cluster_runtime():
    """X2's example: SR rt in ns1 and CSR rt; kind ClusterServingRuntime (the
    I3 default) uses the CSR, kind ServingRuntime the SR."""
    both = Case().runtime(CSR).runtime(SR).model().isvc(runtime="rt").answer()
    assert shown(both, "runtime_used") == {("1", R_CSR)}
    assert shown(both, "explicit") == {("1",)}
    sr = Case().runtime(CSR).runtime(SR).model().isvc(runtime="rt", kind="serving_runtime").answer()
    assert shown(sr, "runtime_used") == {("1", R_SR)}


def test_X2_OQ9_cluster_kind_falls_back_to_the_serving_runtime():
    a = Case().runtime(SR).model().isvc(runtime="rt").answer()
    assert shown(a, "runtime_used") == {("1", R_SR)}


def test_X2_serving_runtime_kind_never_looks_at_cluster_scope_X3_OQ8():
    a = Case().runtime(CSR).model().isvc(runtime="rt", kind="serving_runtime").answer()
    assert shown(a, "runtime_used") == set()
    assert shown(a, "select_failure") == {("1", 'runtime_not_found(serving_runtime,"rt","ns")')}


def test_X3_not_found_with_a_model_is_denied_at_admission():
    a = Case().model().isvc(runtime="rt").answer()
    failure = ("1", 'runtime_not_found(cluster_serving_runtime,"rt","ns")')
    assert shown(a, "select_failure") == {failure}
    assert shown(a, "admission_denied") == {failure}
    assert shown(a, "runtime_ready") == set()


def test_X3_M6_not_found_without_a_model_is_runtime_not_found_after_admission():
    a = Case().isvc(model=False, runtime="rt").answer()
    message = 'runtime_not_found(cluster_serving_runtime,"rt","ns")'
    assert shown(a, "admission_denied") == set()
    assert shown(a, "runtime_ready") == {("1", "false", "runtime_not_found", message)}
    assert shown(a, "warning_event") == {("1", "runtime_not_found", message)}


def test_X1_empty_runtime_name_is_auto_selection():
    a = Case().runtime(CSR).model().isvc(runtime="").qualifying(CSR).answer()
    assert shown(a, "explicit") == set()
    assert shown(a, "runtime_used") == {("1", R_CSR)}


def test_X4_disabled_named_runtime_is_denied_at_admission():
    """Since v1.3 the webhook rejects a named disabled runtime (docs/profiles.md, v1.2.2 X4)."""
    a = Case().runtime(CSR, disabled=True).model().isvc(runtime="rt").answer()
    assert shown(a, "select_failure") == {("1", f"named_runtime_disabled({R_CSR})")}
    assert shown(a, "admission_denied") == {("1", f"named_runtime_disabled({R_CSR})")}
    assert shown(a, "warning_event") == set()


def test_X4_M6_disabled_named_runtime_without_model():
    a = Case().runtime(SR, disabled=True).isvc(model=False, runtime="rt", kind="serving_runtime").answer()
    assert shown(a, "warning_event") == {
        ("1", "runtime_validation_error", f"validation_failed({R_SR},none,named_runtime_disabled({R_SR}))")
    }


def test_X3_before_X4_before_M4_for_a_named_runtime():
    a = Case().runtime(CSR, disabled=True).model(format_name=False).isvc(runtime="rt").answer()
    assert shown(a, "select_failure") == {("1", f"named_runtime_disabled({R_CSR})")}
    a = Case().runtime(CSR).model(format_name=False).isvc(runtime="rt").answer()
    assert shown(a, "select_failure") == {("1", "model_format_name_missing")}
    assert shown(a, "warning_event") == {
        ("1", "runtime_validation_error", f'validation_failed({R_CSR},"m",model_format_name_missing)')
    }


def test_X5_X7_named_runtime_is_used_whatever_autoselect_score_or_rank():
    """Q7 and Q8 fail, another runtime is the optimum: the named one is used, no advisory."""
    other = runtime_id("ClusterServingRuntime", None, "other")
    a = (
        Case().runtime(CSR).runtime(other).model().isvc(runtime="rt").qualifying(other)
        .fails(CSR, "q7", "no_auto_select_entry").fails(CSR, "q8", "auto_select_score_zero").answer()
    )
    assert shown(a, "runtime_used") == {("1", R_CSR)}
    assert shown(a, "advisory") == set()
    assert shown(a, "runtime_ready") == {("1", "true", "runtime_resolved", "none")}


def test_M6_without_model_no_check_at_all():
    a = Case().runtime(CSR).isvc(model=False, runtime="rt", engine=True).answer()
    assert shown(a, "runtime_used") == {("1", R_CSR)}
    assert shown(a, "advisory") == set() and shown(a, "admission_path") == set()


def test_isvc_naming_neither_model_nor_runtime_cannot_be_asked():
    a = Case().isvc(model=False, runtime="", engine=True).answer()
    assert shown(a, "select_error") == {("1", 'isvc_names_nothing("svc")')}
    assert shown(a, "select_failure") == set() and shown(a, "runtime_used") == set()


def test_isvc_not_found_cannot_be_asked():
    case = Case()
    case.fact.query_error(1, term('isvc_not_found("svc")'))
    a = case.answer()
    assert shown(a, "select_error") == {("1", 'isvc_not_found("svc")')}
    assert shown(a, "select_failure") == set()


# --- X6: the advisory ------------------------------------------------------------------


def test_X6_first_failed_check_among_Q3_to_Q6_names_the_format_for_Q5_and_Q6():
    a = (
        Case().runtime(CSR).model().isvc(runtime="rt")
        .fails(CSR, "q6", 'size_out_of_range("3B","7B","8B")')
        .fails(CSR, "q5", f"format_unsupported({LABEL})").answer()
    )
    assert shown(a, "advisory") == {("1", "q5", f'does_not_support({R_CSR},"safetensors",format_unsupported({LABEL}))')}
    assert shown(a, "runtime_used") == {("1", R_CSR)}


def test_X6_accelerator_or_mode_failure_names_an_empty_model():
    a = (
        Case().runtime(CSR).model().isvc(runtime="rt")
        .fails(CSR, "q4", 'mode_mismatch(engine,"MultiNode","OMENative")')
        .fails(CSR, "q6", 'size_out_of_range("3B","7B","8B")').answer()
    )
    detail = f'does_not_support({R_CSR},"",mode_mismatch(engine,"MultiNode","OMENative"))'
    assert shown(a, "advisory") == {("1", "q4", detail)}
    assert shown(a, "select_warning") == {("1", f'compatibility_warning({R_CSR},"m",{detail})')}
    assert shown(a, "warning_event") == {
        ("1", "runtime_compatibility_advisory", f'compatibility_advisory({R_CSR},"m",{detail})')
    }
    # no spec.engine: the webhook says nothing, the event and select's warning remain
    assert shown(a, "admission_warning") == set()


def test_X6_no_advisory_event_when_auto_sync_is_false():
    """X6: "not recorded when spec.runtime.autoSync is false"; the warnings stay."""
    a = Case().runtime(CSR).model().isvc(runtime="rt", engine=True, auto_sync=False).fails(
        CSR, "q3", "accelerator_class_unsupported"
    ).answer()
    detail = f'does_not_support({R_CSR},"",accelerator_class_unsupported)'
    assert shown(a, "warning_event") == set()
    assert shown(a, "admission_warning") == {("1", f'compatibility_warning({R_CSR},"m",{detail})')}
    assert shown(a, "runtime_used") == {("1", R_CSR)}


def test_X6_webhook_warns_for_an_isvc_with_an_engine():
    a = Case().runtime(CSR).model().isvc(runtime="rt", engine=True).fails(
        CSR, "q3", "accelerator_class_unsupported"
    ).answer()
    detail = f'does_not_support({R_CSR},"",accelerator_class_unsupported)'
    assert shown(a, "admission_warning") == {("1", f'compatibility_warning({R_CSR},"m",{detail})')}
    assert shown(a, "admission_path") == set()  # a named runtime never takes O9's path


def test_X6_Q2_Q7_Q8_are_not_advisory():
    a = (
        Case().runtime(CSR).model().isvc(runtime="rt")
        .fails(CSR, "q7", "no_auto_select_entry").fails(CSR, "q8", "auto_select_score_zero").answer()
    )
    assert shown(a, "advisory") == set() and shown(a, "select_warning") == set()


# --- O9: the admission path -------------------------------------------------------------


def test_O9_engine_without_runner_resolves_at_admission_and_warns():
    a = Case().runtime(CSR).model().isvc(engine=True).qualifying(CSR).answer()
    assert shown(a, "admission_path") == {("1",)}
    assert shown(a, "admission_warning") == {("1", f'auto_selected({R_CSR},"m")')}
    assert shown(a, "select_warning") == {("1", f'auto_selected({R_CSR},"m")')}
    assert shown(a, "runtime_ready") == {("1", "true", "runtime_resolved", "none")}


def test_O9_denial_wraps_O8_and_M4_and_nothing_surfaces_after():
    a = Case().runtime(CSR).model().isvc(engine=True).answer()
    assert shown(a, "admission_denied") == {("1", 'no_supporting_runtime("m",no_runtime)')}
    assert shown(a, "runtime_ready") == set() and shown(a, "warning_event") == set()
    a = Case().model(format_name=False).isvc(engine=True).answer()
    assert shown(a, "admission_denied") == {("1", 'no_supporting_runtime("m",model_format_name_missing)')}
    assert shown(a, "warning_event") == set()


def test_O9_M2_on_the_path_is_M2s_denial():
    a = Case().model(found=False).isvc(engine=True).answer()
    assert shown(a, "admission_denied") == {("1", 'referenced_model_not_found("m","ns")')}


def runner_case(images):
    return Case().runtime(CSR).model().isvc(engine=True, images=images).qualifying(CSR).answer()


def test_O9_complete_runner_skips_the_path():
    assert shown(runner_case([("runner", "img")]), "admission_path") == set()
    assert shown(runner_case([("leader", "a"), ("worker", "b")]), "admission_path") == set()


def test_O9_incomplete_runner_takes_the_path():
    """Only the leader, or an empty image (OME checks `Image != ""`), is no runner."""
    for images in ([("leader", "a")], [("worker", "b")], [("runner", "")], [("leader", ""), ("worker", "b")]):
        assert shown(runner_case(images), "admission_path") == {("1",)}, images


def test_O9_no_engine_no_path():
    a = Case().runtime(CSR).model().isvc().qualifying(CSR).answer()
    assert shown(a, "admission_path") == set() and shown(a, "admission_warning") == set()
