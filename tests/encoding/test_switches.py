"""The profile switches (input.lp's switch/2, docs/profiles.md) on small
programs: each encoding file that reads a switch, with and without its
non-default value (a missing switch fact is the v1.3 value). Test names
carry the profile and the rule id of docs/profiles.md they check."""

from fractions import Fraction

from ome_asp.input.objects import Entry, FormatRef
from ome_asp.solver.facts import EntryTables, FactBuilder, const, runtime_id

from . import test_outcome
from .lp import optimum, run, term, text

RT = runtime_id("ClusterServingRuntime", None, "rt")
R = text(RT)
M = term('cbm("m")')
I = term('isvc("ns","chat")')


def switch(b, name, value):
    b.fact.switch(const(name), const(value))


# --- deployment.lp: Q4, D1 ---------------------------------------------------------


def mode_check(mode_filter=None, requested="OMENative", runtime_mode="MultiNode"):
    b = FactBuilder(schema=None)
    if mode_filter is not None:
        switch(b, "mode_filter", mode_filter)
    b.fact.examined(1, RT)
    b.fact.isvc(I)
    b.fact.query_isvc(1, I)
    b.fact.isvc_component(I, const("engine"))
    b.fact.isvc_mode_annotation(I, const("engine"), requested)
    b.fact.runtime_mode(RT, const("engine"), runtime_mode)
    return run(("deployment.lp",), b, upstream=("examined/2", "query_isvc/2")).rows("mode_reason")


def test_v1_3_Q4_conflict_without_switch_and_with_full():
    expected = {("1", R, 'mode_mismatch(engine,"MultiNode","OMENative")')}
    assert mode_check() == expected
    assert mode_check("full") == expected


def test_v122_D1_OMENative_is_no_mode_under_annotations():
    assert mode_check("annotations") == set()
    assert mode_check("annotations", requested="RawDeployment") == {
        ("1", R, 'mode_mismatch(engine,"MultiNode","RawDeployment")')}
    assert mode_check("annotations", requested="MultiNode", runtime_mode="OMENative") == set()


def test_code_v015_Q4_no_check_when_off():
    assert mode_check("off") == set()
    assert mode_check("off", requested="RawDeployment") == set()


# --- compatibility.lp: Q13, Q14 without schema validation --------------------------------


def compatibility(schema, declares):
    """Model M with format safetensors and framework transformers against
    signature sig(1), RT's entry 0, declaring the sides in `declares`."""
    b = FactBuilder(schema=None)
    if schema is not None:
        switch(b, "schema_validation", schema)
    b.fact.evaluated(1, M)
    b.fact.model(M)
    b.fact.model_has_framework(M)
    b.fact.model_declares(M, const("format"), "safetensors")
    b.fact.model_declares(M, const("framework"), "transformers")
    s = term("sig(1)")
    b.fact.entry(RT, 0, s, term("w(1)"))
    for side, name in declares.items():
        b.fact.sig_declares(s, const(side), name)
    upstream = ("evaluated/2", "runtime_scope/2", "query_scope/2", "version_match/3", "first_entry_wanted/2")
    return run(("compatibility.lp",), b, upstream=upstream)


def test_code_v015_Q13_entry_without_format_is_never_compatible():
    answer = compatibility("false", {"framework": "transformers"})
    assert answer.rows("compatible") == set()
    assert answer.rows("mismatch") == set()  # no format piece


def test_code_v015_Q14_entry_without_framework_against_a_model_with_one():
    answer = compatibility("false", {"format": "safetensors"})
    assert answer.rows("mismatch") == {('cbm("m")', "sig(1)", "framework", 'runtime_lacks_framework("transformers")')}


def test_v1_3_Q13_Q14_rules_need_the_switch():
    """Without the switch (schema validation on) every entry declares both
    sides (I4), so the rules for missing sides never apply."""
    assert compatibility(None, {"framework": "transformers"}).rows("mismatch") == set()
    assert compatibility(None, {"framework": "transformers"}).rows("compatible") == {('cbm("m")', "sig(1)")}


# --- scoring.lp: S2, S3 --------------------------------------------------------------------


def score(versions, piece, model_format=FormatRef("safetensors", operator="Equal", weight=1)):
    """RT's score for query 1 (S1): one entry whose signature has the
    framework mismatch `piece` (or none) with model M. scoring.lp takes the
    score per (score view, runtime): the best counted entry's, given where an
    entry counts (view_score/3); 0 when none counts above 0 (score_zero/2)."""
    b = FactBuilder(schema=None)
    if versions is not None:
        switch(b, "score_versions", versions)
    for side in ("format", "framework"):
        b.fact.side(const(side))
        b.fact.model_side(M, const(side))
    b.fact.matched(M)
    b.fact.model_has_framework(M)
    b.fact.model_declares(M, const("format"), "safetensors")
    b.fact.model_declares(M, const("framework"), "transformers")
    b.fact.evaluated(1, M)
    b.fact.examined(1, RT)
    s = term("sig(1)")
    b.fact.pair(M, s)
    if piece is not None:
        b.fact.mismatch(M, s, const("framework"), term(piece))
    tables = EntryTables(b, set())
    w = tables.weights(Entry(None, model_format, FormatRef("transformers", operator="Equal", weight=0), priority=2))
    b.fact.entry(RT, 0, s, w)
    upstream = ("examined/2", "evaluated/2", "matched/1", "model_side/2", "pair/2", "mismatch/4", "side/1")
    answer = run(("scoring.lp",), b, upstream=upstream)
    views = answer.rows("query_view")
    positive = {(q, r, k) for q, v in views for v_, r, k in answer.rows("view_score") if v_ == v and Fraction(k) > 0}
    return positive | {(q, r, "0") for q, r in answer.rows("score_zero")}


def test_code_v015_S2_one_sided_versions_count_when_lenient():
    for piece in ("runtime_lacks_version(framework)", 'model_lacks_version(framework,"4.0")'):
        assert score(None, piece) == {("1", R, "0")}
        assert score("strict", piece) == {("1", R, "0")}
        assert score("lenient", piece) == {("1", R, "12")}  # (1 + 5) x 2


def test_code_v015_S2_names_and_both_sided_versions_still_count():
    for piece in ('name_mismatch(framework,"a","b")', 'version_mismatch(framework,"1","2")',
                  'model_lacks_framework("transformers")'):
        assert score("lenient", piece) == {("1", R, "0")}
    assert score("lenient", None) == {("1", R, "12")}


def test_code_v015_S3_entry_without_format_scores_0_at_the_tag():
    """An entry without modelFormat (weights_absent): CalculateFormatScore at tag
    v0.1.5 scores it 0, its framework term (5 x 2) not counted (issue 17)."""
    assert score("lenient", None, model_format=None) == {("1", R, "0")}
    assert score("lenient", None) == {("1", R, "12")}  # with its format: (1 + 5) x 2


# --- sizes.lp: Z3, NaN, Z5 in float64 -----------------------------------------------------------


def sizes(outcome=None, bounds=(("min", "1", 1),), size=5.0, nan=False, go=False):
    b = FactBuilder(schema=None)
    if outcome is not None:
        switch(b, "one_bounded_range", outcome)
    if go:
        switch(b, "size_syntax", "go")
    b.fact.model(M)
    b.fact.evaluated(1, M)
    b.fact.runtime(RT)
    b.fact.examined(1, RT)
    value = b.exact(float("nan") if nan else size)
    b.fact.model_size(M, "s", value)
    b.fact.runtime_size_range(RT)
    for bound, written, count in bounds:
        b.fact.runtime_size_bound(RT, const(bound), written, b.exact(count))
    if len(bounds) == 2:
        low, high = bounds[0][2], bounds[1][2]
        b.fact.runtime_range_width(RT, b.exact(high - low))
        if go:
            b.fact.size_distance(value, b.exact(low), b.exact(high), b.exact(abs(low - size) + abs(high - size)))
    return run(("sizes.lp",), b, upstream=("evaluated/2", "examined/2", "runtime/1"))


def test_v122_Z3_one_bounded_range_is_unsupported_input():
    assert sizes("unsupported_input").rows("range_unsupported") == {("1", R, "unsupported_input")}
    assert sizes("unsupported_input", bounds=()).rows("range_unsupported") == {("1", R, "unsupported_input")}
    assert sizes("unsupported_input", bounds=(("min", "1", 1), ("max", "9", 9))).rows("range_unsupported") == set()


def test_code_v015_Z3_one_bounded_range_panics():
    assert sizes("panic", bounds=(("max", "9", 9),)).rows("range_unsupported") == {("1", R, "panic")}


def test_v1_3_Z3_one_bounded_range_is_supported():
    assert sizes().rows("range_unsupported") == set()
    assert sizes("supported").rows("range_unsupported") == set()


def test_code_v015_Z3_nan_size_passes_and_nan_bound_sets_no_limit():
    assert sizes(bounds=(("min", "1", 1), ("max", "2", 2)), nan=True).rows("size_outside") == set()
    assert sizes(bounds=(("min", "1", 1), ("max", "2", 2))).rows("size_outside") == {("1", R)}
    b_nan = sizes(bounds=(("min", "NaN", float("nan")),), size=0.0)
    assert b_nan.rows("size_outside") == set()


def test_code_v015_Z5_distance_is_the_given_float64_sum():
    """Under size_syntax go the two-bounded distance depends on the size (the
    float64 sum, per (size, runtime)); without the switch it is the width,
    per runtime."""
    bounds = (("min", "0.1", 0.1), ("max", "0.9", 0.9))
    answer = sizes(bounds=bounds, size=0.2, go=True)
    (row,) = answer.rows("sized_distance")
    assert float(row[0]) == 0.2 and row[1] == R
    assert float(row[2]) == abs(0.1 - 0.2) + abs(0.9 - 0.2) != 0.9 - 0.1
    assert answer.rows("runtime_distance") == set()
    exact = sizes(bounds=bounds, size=0.2)
    (row,) = exact.rows("runtime_distance")
    assert row[0] == R and float(row[1]) == 0.9 - 0.1  # the width, without the switch
    assert exact.rows("sized_distance") == set()


# --- explanation.lp: O8 -----------------------------------------------------------------------


def excluded(excluded_list):
    """Two candidates of one name, a ServingRuntime and a
    ClusterServingRuntime, both failing Q2 first (fails/4 and failed/2 stand
    for qualification.lp; explanation.lp derives the first failure), for a
    model M without entries to match; the items of the no-runtime message. explanation.lp is loaded with
    compatibility.lp, as in test_explanation.py; its other upstream is given
    (empty) as facts."""
    sr = runtime_id("ServingRuntime", "ns", "rt")
    b = FactBuilder(schema=None)
    if excluded_list is not None:
        switch(b, "excluded_list", excluded_list)
    b.fact.model(M)
    b.fact.model_declares(M, const("format"), "safetensors")
    b.fact.evaluated(1, M)
    b.fact.query_scope(1, const("cluster"))
    for r in (sr, RT):
        b.fact.runtime_scope(r, const("cluster"))
        b.fact.fails(1, r, const("q2"), const("runtime_disabled"))
        b.fact.failed(1, r)
    upstream = (
        "evaluated/2", "runtime_scope/2", "query_scope/2", "version_match/3", "mismatch/4",
        "fails/4", "failed/2",  # qualification.lp
        "rank_key/3", "sized_query/3", "distance_case/2",  # ordering.lp, sizes.lp: explain -v
        "query_view/2", "entry_score/4", "view_score_match/2", "weight_reading/3",  # scoring.lp: explain -v
    )
    return run(("compatibility.lp", "explanation.lp", "failures.lp"), b, upstream=upstream).rows("excluded_in_message")


def test_code_v015_O8_names_merge_in_a_set():
    assert excluded(None) == {("1", 'sr("ns","rt")'), ("1", R)}
    assert excluded("sorted") == {("1", 'sr("ns","rt")'), ("1", R)}
    assert excluded("set") == {("1", R)}


# --- outcome.lp: X2, X3, X6, O9 ---------------------------------------------------------------


def case(*switches):
    c = test_outcome.Case()
    for name, value in switches:
        switch(c.b, name, value)
    return c


SR = test_outcome.SR
R_SR, R_CSR = test_outcome.R_SR, test_outcome.R_CSR


def test_v122_X2_namespace_first():
    answer = case(("explicit_lookup", "namespace_first")).runtime(SR).runtime(RT).model().isvc(runtime="rt").answer()
    assert answer.terms("runtime_used") == {("1", R_SR)}
    answer = case().runtime(SR).runtime(RT).model().isvc(runtime="rt").answer()
    assert answer.terms("runtime_used") == {("1", R_CSR)}


def test_v122_X3_not_found_is_a_controller_event():
    c = case(("explicit_lookup", "namespace_first"), ("explicit_incompatible", "error"), ("failure_surface", "event"))
    answer = c.model().isvc(runtime="gone", kind="serving_runtime").answer()
    assert answer.terms("select_failure") == {("1", 'runtime_not_found(cluster_serving_runtime,"gone","ns")')}
    assert answer.terms("admission_denied") == set()
    assert answer.terms("runtime_ready") == set()
    assert answer.terms("warning_event") == {("1", "runtime_validation_error", 'validation_failed(runtime_named("gone"),"m",'
                                                    'runtime_not_found(cluster_serving_runtime,"gone","ns"))')}


def test_v122_X6_failed_check_is_an_error_and_q4_is_not_checked():
    c = case(("explicit_incompatible", "error"))
    c.runtime(RT).model().isvc(runtime="rt").fails(RT, "q6", 'size_out_of_range("3B","1B","2B")')
    answer = c.answer()
    assert answer.terms("runtime_used") == set()
    assert answer.terms("select_failure") == {("1", 'does_not_support(csr("rt"),"safetensors",size_out_of_range("3B","1B","2B"))')}
    assert answer.terms("select_warning") == set()
    c = case(("explicit_incompatible", "error"))
    c.runtime(RT).model().isvc(runtime="rt").fails(RT, "q4", 'mode_mismatch(engine,"MultiNode","RawDeployment")')
    assert c.answer().terms("runtime_used") == {("1", R_CSR)}


def test_v122_O9_failure_surface_event():
    answer = case(("failure_surface", "event")).runtime(RT).model().isvc().answer()
    assert answer.terms("runtime_ready") == set()
    assert answer.terms("warning_event") == {("1", "runtime_selection_error", 'failed_to_find_runtime("m",no_runtime)')}


def test_code_v015_M6_no_model_reference():
    answer = case(("isvc_without_model", "fails")).runtime(RT).isvc(model=False, runtime="rt").answer()
    assert answer.terms("select_failure") == {("1", "model_reference_required")}
    assert answer.terms("runtime_used") == set()


# --- admission.lp: W4, W5 -----------------------------------------------------------------------


def admission(*switches, runtimes=("a", "b"), priorities=((1, 2),)):
    b = FactBuilder(schema=None)
    for name, value in switches:
        switch(b, name, value)
    for name, entries in zip(runtimes, priorities * len(runtimes)):
        r = runtime_id("ClusterServingRuntime", None, name)
        b.fact.runtime_declared(r)
        for i, p in enumerate(entries):
            b.fact.entry(r, i, term("sig(1)"), term("w(1)"))
            b.fact.entry_name(r, i, "vllm")
            b.fact.entry_auto_select(r, i, const("true"))
            if p is not None:
                b.fact.entry_priority(r, i, p)
    return run(("admission.lp",), b).rows("denied")


def test_code_v015_W4_first_runtime_skip():
    both = {('csr("a")', 'different_priorities("vllm")'), ('csr("b")', 'different_priorities("vllm")')}
    assert admission() == both
    assert admission(("webhook_quirks", "true")) == {('csr("b")', 'different_priorities("vllm")')}


def test_code_v015_W4_shadowing():
    assert admission(("webhook_quirks", "true"), priorities=((None, 1, 2),)) == set()
    assert admission(("webhook_quirks", "true"), priorities=((1, None, 2),)) == {('csr("b")', 'different_priorities("vllm")')}


# --- selection.lp: the Go order's first runtime -------------------------------------------------------


def test_code_v015_O3_go_first_pins_the_selection():
    b = FactBuilder(schema=None)
    a, z = runtime_id("ClusterServingRuntime", None, "a"), runtime_id("ClusterServingRuntime", None, "z")
    for n, r in enumerate((a, z), 1):
        b.fact.rank_key(1, r, (1, 0, 0, n))
    b.fact.criterion(1, const("name_order"))
    upstream = ("rank_key/3", "criterion/2")
    assert optimum(("selection.lp",), b, upstream=upstream).answer.rows("selected") == {("1", text(a))}
    b.fact.go_first(1, z)
    assert optimum(("selection.lp",), b, upstream=upstream).answer.rows("selected") == {("1", text(z))}
