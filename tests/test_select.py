"""`ome-asp select`: what OME does with a selection -- auto-selection (O5) and
its failure (O8), a named runtime (X1-X7), the model checks (M2, M3, M4, M6),
where the result surfaces (O9, X6's event), output forms and exit codes."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import FIXTURES, GOLDEN, run_cli
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from manifests import entry, model, runtime, write

from ome_asp.errors import InputError
from ome_asp.input import profiles
from ome_asp.input.loader import load_documents
from ome_asp.render.selection import Selection
from ome_asp.solver import ask, engine, programs
from ome_asp.solver.facts import Query, build_facts
from ome_asp.solver.programs import Variant
from ome_asp.testing import builders, strategies

WORKED = str(FIXTURES / "worked-example")
EXPLICIT_14_3 = str(FIXTURES / "examples" / "14.3-deployment-mode-explicit")
MODE_14_3 = str(FIXTURES / "examples" / "14.3-deployment-mode")
WRAPPED_14_2 = str(FIXTURES / "examples" / "14.2-wrapped-runtime")
DENIED_PREFIX = 'admission webhook "inferenceservice.ome-webhook-server.validator" denied the request: '
NO_RUNNER = "and engine does not have complete runner configuration: "


def golden(*parts: str) -> str:
    return GOLDEN.joinpath(*parts).read_text().rstrip("\n")


def select(*argv: str):
    return run_cli("select", *argv)


def select_json(*argv: str) -> dict:
    result = select(*argv, "-o", "json")
    assert result.code in (0, 1), result.stderr
    return json.loads(result.stdout)


# --- manifests -------------------------------------------------------------------------


def isvc(name: str = "svc", namespace: str = "ns1", model_name: str | None = "m", **spec) -> dict:
    if model_name is not None:
        spec["model"] = {"name": model_name}
    return {
        "apiVersion": "ome.io/v1beta1", "kind": "InferenceService",
        "metadata": {"name": name, "namespace": namespace}, "spec": spec,
    }


def accelerator_class(name: str) -> dict:
    return {"apiVersion": "ome.io/v1beta1", "kind": "AcceleratorClass", "metadata": {"name": name}, "spec": {}}


ENGINE = {"minReplicas": 1}


# --- O5: auto-selection --------------------------------------------------------------------


def test_O5_worked_example_selects_team_llama():
    """13.3: the winner is the only ServingRuntime; one line, exit 0, stderr empty."""
    result = select("--model", "llama-3-2-3b-instruct", "-n", "llama-demo", "-f", WORKED)
    assert (result.code, result.stdout, result.stderr) == (0, "ServingRuntime llama-demo/team-llama\n", "")


def test_O5_cluster_runtime_line_has_no_namespace():
    """13.6: without team-llama, vllm-llama wins."""
    path = str(FIXTURES / "variants" / "13.6-delete-team-llama")
    result = select("--model", "llama-3-2-3b-instruct", "-n", "llama-demo", "-f", path)
    assert (result.code, result.stdout) == (0, "ClusterServingRuntime vllm-llama\n")


def test_O9_worked_example_admission_warning():
    """13.3: the ISVC llama-chat has an engine without a runner, so admission
    resolves the runtime and kubectl shows the O9 warning (golden)."""
    result = select("--isvc", "llama-chat", "-n", "llama-demo", "-f", WORKED)
    warning = golden("worked-example", "admission-warning.txt")
    assert (result.code, result.stdout) == (0, "ServingRuntime llama-demo/team-llama\n")
    assert result.stderr == f"Warning: {warning}\n"
    document = select_json("--isvc", "llama-chat", "-n", "llama-demo", "-f", WORKED)
    assert document["admission"] == {"path": True, "allowed": True, "warnings": [warning], "denial": None}
    assert document["warnings"] == [warning]
    assert document["condition"] == {"type": "RuntimeReady", "status": "True", "reason": "RuntimeResolved", "message": None}
    assert document["events"] == []
    assert document["explicit"] is False
    assert document["selected"] == {"kind": "ServingRuntime", "namespace": "llama-demo", "name": "team-llama"}
    assert document["query"] == {"namespace": "llama-demo", "isvc": "llama-chat", "model": "llama-3-2-3b-instruct"}


def test_O9_complete_runner_skips_admission_resolution(tmp_path):
    runner = {"minReplicas": 1, "runner": {"image": "img"}}
    path = write(tmp_path, model(), runtime("rt"), isvc(engine=runner))
    result = select("--isvc", "svc", "-n", "ns1", "-f", path)
    assert (result.code, result.stdout, result.stderr) == (0, "ClusterServingRuntime rt\n", "")
    assert select_json("--isvc", "svc", "-n", "ns1", "-f", path)["admission"]["path"] is False


@pytest.mark.parametrize(
    "engine, path",
    [
        pytest.param({"leader": {"runner": {"image": "a"}}, "worker": {"runner": {"image": "b"}}}, False, id="leader-and-worker"),
        pytest.param({"leader": {"runner": {"image": "a"}}}, True, id="leader-only"),
        pytest.param({"runner": {"image": ""}}, True, id="empty-image"),
    ],
)
def test_O9_runner_completeness(tmp_path, engine, path):
    documents = (model(), runtime("rt"), isvc(engine=engine))
    assert select_json("--isvc", "svc", "-n", "ns1", "-f", write(tmp_path, *documents))["admission"]["path"] is path


# --- O8: no runtime ----------------------------------------------------------------------


def test_O8_O9_admission_denial_on_the_path():
    """14.3: the ISVC has an engine and no runner: the webhook denies it with
    the O8 message inside O9's (stdout: the message, then kubectl's line)."""
    message = golden("14.3-deployment-mode", "no-runtime-message.txt")
    result = select("--isvc", "llama-3-70b", "-n", "llama-demo", "-f", MODE_14_3)
    denial = f"no supporting runtime found for model llama-3-3-70b-instruct {NO_RUNNER}{message}"
    assert (result.code, result.stdout, result.stderr) == (1, f"{message}\n{DENIED_PREFIX}{denial}\n", "")
    document = select_json("--isvc", "llama-3-70b", "-n", "llama-demo", "-f", MODE_14_3)
    assert document["message"] == message and document["selected"] is None
    assert document["admission"] == {"path": True, "allowed": False, "warnings": [], "denial": denial}
    assert document["condition"] is None and document["events"] == []  # never stored


def test_O8_after_admission_condition_and_event():
    """14.2's message; --model asks as an ISVC without an engine: admitted, then
    RuntimeReady False / RuntimeNotFound and the Warning event (O9 row 2)."""
    message = golden("14.2-wrapped-runtime", "no-runtime-message.txt")
    result = select("--model", "qwen2-5-7b", "-n", "demo", "-f", WRAPPED_14_2)
    assert (result.code, result.stdout, result.stderr) == (1, message + "\n", "")
    document = select_json("--model", "qwen2-5-7b", "-n", "demo", "-f", WRAPPED_14_2)
    assert document["condition"] == {"type": "RuntimeReady", "status": "False", "reason": "RuntimeNotFound", "message": message}
    assert document["events"] == [{"type": "Warning", "reason": "RuntimeNotFound", "message": message}]
    assert document["admission"] == {"path": False, "allowed": True, "warnings": [], "denial": None}


def test_O8_no_runtimes_at_all(tmp_path):
    path = write(tmp_path, model())
    result = select("--model", "m", "-n", "ns1", "-f", path)
    assert (result.code, result.stdout) == (1, "no runtime found to support model safetensors with format safetensors in namespace ns1\n")


# --- M2, M3, M4, M6 -----------------------------------------------------------------------


M2 = 'referenced model "{}" not found in namespace "{}": ensure a BaseModel exists in this namespace or a ClusterBaseModel exists cluster-wide with this name'


def test_M2_model_not_found_is_denied(tmp_path):
    path = write(tmp_path, runtime("rt"), isvc(model_name="ghost"))
    message = M2.format("ghost", "ns1")
    result = select("--isvc", "svc", "-n", "ns1", "-f", path)
    assert (result.code, result.stdout) == (1, f"{message}\n{DENIED_PREFIX}{message}\n")
    result = select("--model", "ghost", "-n", "ns1", "-f", path)
    assert (result.code, result.stdout) == (1, f"{message}\n{DENIED_PREFIX}{message}\n")
    assert select_json("--model", "ghost", "-n", "ns1", "-f", path)["admission"]["denial"] == message


def test_M3_disabled_model_stops_auto_and_explicit_selection(tmp_path):
    """M3 applies to --model (an ISVC naming only the model, decision D-14);
    explain ignores the flag (OQ-17)."""
    path = write(tmp_path, model(disabled=True), runtime("rt"), isvc("auto"), isvc("named", runtime={"name": "rt"}))
    for target in (["--model", "m"], ["--isvc", "auto"], ["--isvc", "named"]):
        result = select(*target, "-n", "ns1", "-f", path)
        assert (result.code, result.stdout) == (1, f"model m is disabled\n{DENIED_PREFIX}model m is disabled\n"), target
    assert run_cli("explain", "--model", "m", "-n", "ns1", "-f", path).code == 0


def test_M4_model_without_format_name(tmp_path):
    m4 = "invalid model specification: modelFormat.name: model format name is required"
    path = write(tmp_path, model(modelFormat={"name": ""}), runtime("rt"), isvc("plain"), isvc("path", engine=ENGINE))
    result = select("--model", "m", "-n", "ns1", "-f", path)
    assert (result.code, result.stdout) == (1, m4 + "\n")
    document = select_json("--isvc", "plain", "-n", "ns1", "-f", path)
    assert document["condition"] is None  # O9 row 3: an event, no condition
    assert document["events"] == [{"type": "Warning", "reason": "RuntimeSelectionError", "message": f"Failed to find runtime for model m: {m4}"}]
    result = select("--isvc", "path", "-n", "ns1", "-f", path)
    assert result.stdout == f"{m4}\n{DENIED_PREFIX}no supporting runtime found for model m {NO_RUNNER}{m4}\n"


def test_M6_isvc_without_model_uses_the_named_runtime_unchecked(tmp_path):
    """No model: no compatibility, accelerator or mode check (A6), even with an engine."""
    path = write(
        tmp_path, runtime("rt", acceleratorRequirements={"acceleratorClasses": ["gpu-a"]}), accelerator_class("gpu-a"),
        isvc(model_name=None, runtime={"name": "rt"}, engine=ENGINE, acceleratorSelector={"acceleratorClass": "gpu-b"}),
    )
    result = select("--isvc", "svc", "-n", "ns1", "-f", path)
    assert (result.code, result.stdout, result.stderr) == (0, "ClusterServingRuntime rt\n", "")
    assert select_json("--isvc", "svc", "-n", "ns1", "-f", path)["query"]["model"] is None


# --- X1-X7: a named runtime ------------------------------------------------------------------


def test_X2_example_lookup_by_kind(tmp_path):
    """X2: SR rt in ns1 and CSR rt; kind absent (I3: ClusterServingRuntime)
    uses the CSR, kind ServingRuntime the SR."""
    path = write(
        tmp_path, model(), runtime("rt"), runtime("rt", "ns1"),
        isvc("default-kind", runtime={"name": "rt"}), isvc("sr-kind", runtime={"name": "rt", "kind": "ServingRuntime"}),
    )
    assert select("--isvc", "default-kind", "-n", "ns1", "-f", path).stdout == "ClusterServingRuntime rt\n"
    assert select("--isvc", "sr-kind", "-n", "ns1", "-f", path).stdout == "ServingRuntime ns1/rt\n"


def test_X2_OQ9_cluster_kind_falls_back_to_the_namespace(tmp_path):
    path = write(tmp_path, model(), runtime("rt", "ns1"), isvc(runtime={"name": "rt"}))
    assert select("--isvc", "svc", "-n", "ns1", "-f", path).stdout == "ServingRuntime ns1/rt\n"


@pytest.mark.parametrize(
    "ref, message",
    [
        pytest.param({"name": "rt"}, "runtime rt not found in namespace ns1 or at cluster scope", id="cluster-kind"),
        pytest.param({"name": "rt", "kind": "ServingRuntime"}, "runtime rt not found in namespace ns1", id="OQ8-serving-kind"),
    ],
)
def test_X3_not_found(tmp_path, ref, message):
    """With a model the webhook denies (its message contains `rt not found in
    namespace ns1`); another namespace's ServingRuntime is not looked at."""
    path = write(tmp_path, model(), runtime("rt", "ns2"), isvc(runtime=ref))
    result = select("--isvc", "svc", "-n", "ns1", "-f", path)
    assert (result.code, result.stdout) == (1, f"{message}\n{DENIED_PREFIX}{message}\n")
    assert "rt not found in namespace ns1" in message


def test_X3_M6_not_found_without_model_after_admission(tmp_path):
    path = write(tmp_path, isvc(model_name=None, runtime={"name": "rt"}))
    document = select_json("--isvc", "svc", "-n", "ns1", "-f", path)
    message = "runtime rt not found in namespace ns1 or at cluster scope"
    assert document["admission"]["allowed"] is True
    assert document["condition"] == {"type": "RuntimeReady", "status": "False", "reason": "RuntimeNotFound", "message": message}
    assert document["events"] == [{"type": "Warning", "reason": "RuntimeNotFound", "message": message}]


def test_X3_I9_a_denied_runtime_does_not_exist(tmp_path):
    path = write(tmp_path, model(), runtime("rt", acceleratorRequirements={"acceleratorClasses": ["nope"]}), isvc(runtime={"name": "rt"}))
    result = select("--isvc", "svc", "-n", "ns1", "-f", path)
    assert result.stdout.startswith("runtime rt not found in namespace ns1 or at cluster scope\n")
    assert result.stderr == (
        "warning: ClusterServingRuntime rt would be denied by admission: "
        "unknown accelerator classes referenced in AcceleratorRequirements: [nope]\n"
    )


@pytest.mark.parametrize(
    "namespace, message",
    [
        pytest.param(None, "cluster-scoped runtime rt is disabled", id="cluster"),
        pytest.param("ns1", "namespace-scoped runtime rt is disabled", id="namespaced"),
    ],
)
def test_X4_disabled_named_runtime(tmp_path, namespace, message):
    """Since v1.3 the InferenceService webhook rejects it: no condition, no event."""
    kind = "ServingRuntime" if namespace else "ClusterServingRuntime"
    path = write(tmp_path, model(), runtime("rt", namespace, disabled=True), isvc(runtime={"name": "rt", "kind": kind}))
    result = select("--isvc", "svc", "-n", "ns1", "-f", path)
    denial = f'admission webhook "inferenceservice.ome-webhook-server.validator" denied the request: {message}'
    assert (result.code, result.stdout) == (1, f"{message}\n{denial}\n")
    document = select_json("--isvc", "svc", "-n", "ns1", "-f", path)
    assert document["admission"]["allowed"] is False and document["admission"]["denial"] == message
    assert document["condition"] is None and document["events"] == []


def test_X5_X7_named_runtime_without_auto_select_beats_the_ranking(tmp_path):
    """X5: no autoSelect entry, score 0; X7: a better runtime is not looked at. No advisory."""
    path = write(
        tmp_path, model(), runtime("best", supportedModelFormats=[entry(priority=9)]),
        runtime("plain", supportedModelFormats=[entry(autoSelect=False, modelFormat={"name": "safetensors", "version": "1.0.0", "weight": 0})]),
        isvc(runtime={"name": "plain"}, engine=ENGINE),
    )
    result = select("--isvc", "svc", "-n", "ns1", "-f", path)
    assert (result.code, result.stdout, result.stderr) == (0, "ClusterServingRuntime plain\n", "")
    document = select_json("--isvc", "svc", "-n", "ns1", "-f", path)
    assert document["explicit"] is True and document["admission"]["warnings"] == [] and document["events"] == []


def test_X6_spec_example_framework_version_differs(tmp_path):
    """X6's example, verbatim: Q5 fails on the framework version only."""
    path = write(
        tmp_path,
        model("llama-3-2-1b-instruct", modelFramework={"name": "transformers", "version": "4.46.0"}),
        runtime("srt-llama-3-2-1b-instruct"),
        isvc(model_name="llama-3-2-1b-instruct", runtime={"name": "srt-llama-3-2-1b-instruct"}, engine=ENGINE),
    )
    result = select("--isvc", "svc", "-n", "ns1", "-f", path)
    assert (result.code, result.stdout) == (0, "ClusterServingRuntime srt-llama-3-2-1b-instruct\n")
    assert result.stderr == (
        'Warning: runtime "srt-llama-3-2-1b-instruct" does not declare support for model "llama-3-2-1b-instruct" '
        "(runtime srt-llama-3-2-1b-instruct does not support model safetensors: model format "
        "'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.46.0' not in supported formats: framework version "
        "mismatch (model=4.46.0, runtime=4.45.0.dev0)); proceeding because the runtime was named explicitly\n"
    )


def test_X6_14_3_mode_failure_event_golden():
    """14.3 explicit: the runtime is used; the event message is the spec's
    (golden); admission warns in the webhook's words (the ISVC has an engine)."""
    event = golden("14.3-deployment-mode-explicit", "advisory-event-message.txt")
    detail = (
        "runtime srt-llama-3-3-70b-instruct-multinode does not support model : runtime engine deployment mode "
        "MultiNode does not match requested engine deployment mode OMENative"
    )
    warning = (
        f'runtime "srt-llama-3-3-70b-instruct-multinode" does not declare support for model '
        f'"llama-3-3-70b-instruct" ({detail}); proceeding because the runtime was named explicitly'
    )
    result = select("--isvc", "llama-3-70b", "-n", "llama-demo", "-f", EXPLICIT_14_3)
    assert (result.code, result.stdout, result.stderr) == (0, "ClusterServingRuntime srt-llama-3-3-70b-instruct-multinode\n", f"Warning: {warning}\n")
    document = select_json("--isvc", "llama-3-70b", "-n", "llama-demo", "-f", EXPLICIT_14_3)
    assert document["events"] == [{"type": "Warning", "reason": "RuntimeCompatibilityAdvisory", "message": event}]
    assert document["admission"] == {"path": False, "allowed": True, "warnings": [warning], "denial": None}
    assert document["warnings"] == [warning] and document["explicit"] is True
    assert document["condition"]["status"] == "True"


def test_X8_explain_stays_hypothetical_for_the_same_isvc():
    """E5/X8: explain prints the auto-selection (no Yes row here) with the
    note; select uses the named runtime."""
    explained = run_cli("explain", "--isvc", "llama-3-70b", "-n", "llama-demo", "-f", EXPLICIT_14_3)
    assert explained.stderr == golden("14.3-deployment-mode-explicit", "explain-isvc.stderr.txt") + "\n"
    assert "Yes" not in explained.stdout


def test_X6_accelerator_failure_has_an_empty_model(tmp_path):
    """The docs' accelerator example: `does not support model : <reason>`."""
    path = write(
        tmp_path, accelerator_class("nvidia-h100"), model("llama-3-3-70b-instruct"),
        runtime("srt-llama-3-3-70b-instruct"), runtime("other", acceleratorRequirements={"acceleratorClasses": ["nvidia-h100"]}),
        isvc(model_name="llama-3-3-70b-instruct", runtime={"name": "srt-llama-3-3-70b-instruct"}, engine=ENGINE,
             acceleratorSelector={"acceleratorClass": "nvidia-h100"}),
    )
    result = select("--isvc", "svc", "-n", "ns1", "-f", path)
    assert result.stderr == (
        'Warning: runtime "srt-llama-3-3-70b-instruct" does not declare support for model "llama-3-3-70b-instruct" '
        "(runtime srt-llama-3-3-70b-instruct does not support model : runtime does not support the required "
        "accelerator class); proceeding because the runtime was named explicitly\n"
    )


def test_X6_size_failure_names_the_format_and_warns_without_engine(tmp_path):
    """Q6 first (Q5 passes): <detail> names the format (Z4's reason). No
    engine: the webhook is silent, the event and select's warning remain."""
    path = write(
        tmp_path, model(modelParameterSize="3B"), runtime("rt", modelSizeRange={"min": "7B", "max": "8B"}),
        isvc(runtime={"name": "rt"}),
    )
    detail = "runtime rt does not support model safetensors: model size 3B is outside supported range [7B, 8B]"
    document = select_json("--isvc", "svc", "-n", "ns1", "-f", path)
    assert document["admission"]["warnings"] == []
    assert document["warnings"] == [
        f'runtime "rt" does not declare support for model "m" ({detail}); proceeding because the runtime was named explicitly'
    ]
    assert document["events"][0]["message"] == (
        f"Runtime rt does not declare support for model m ({detail}); proceeding because the runtime was named explicitly"
    )


# --- output and exit codes -------------------------------------------------------------------


def test_yaml_equals_json():
    argv = ("--isvc", "llama-3-70b", "-n", "llama-demo", "-f", EXPLICIT_14_3)
    assert yaml.safe_load(select(*argv, "-o", "yaml").stdout) == select_json(*argv)


def test_json_shape():
    document = select_json("--model", "llama-3-2-3b-instruct", "-n", "llama-demo", "-f", WORKED)
    assert list(document) == [
        "apiVersion", "kind", "profile", "query", "explicit", "selected", "message", "warnings", "admission",
        "condition", "events", "inputWarnings", "denied",
    ]
    assert (document["apiVersion"], document["kind"], document["profile"]) == ("ome-asp/v1alpha1", "RuntimeSelection", "v1.3")
    assert document["query"] == {"namespace": "llama-demo", "model": "llama-3-2-3b-instruct"}


@pytest.mark.parametrize(
    "argv, message",
    [
        pytest.param(["-f", WORKED], "exactly one of --model, --isvc or --all is required", id="neither"),
        pytest.param(["--model", "a", "--isvc", "b", "-f", WORKED], "exactly one of --model, --isvc or --all is required", id="both"),
        pytest.param(["--model", "a"], "no input: pass the manifests with -f FILE, -f DIR, -f - (stdin), -k DIR or --from-cluster", id="no-input"),
        pytest.param(["--model", "a", "-f", WORKED, "-o", "table"], None, id="bad-output"),
        pytest.param(["--model", "a", "-f", WORKED, "--bogus"], "unrecognized arguments: --bogus", id="unknown-flag"),
        pytest.param(["--isvc", "ghost", "-n", "llama-demo", "-f", WORKED], 'inferenceservices.ome.io "ghost" not found', id="isvc-not-found"),
    ],
)
def test_usage_and_input_errors_exit_2(argv, message):
    result = select(*argv)
    assert result.code == 2 and result.stdout == ""
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    if message is not None:
        assert result.stderr == f"error: {message}\n"


def test_invalid_manifest_exits_2(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("kind: [unclosed\n")
    result = select("--model", "m", "-f", str(path))
    assert result.code == 2 and result.stderr.startswith("error: ")


def test_isvc_naming_neither_model_nor_runtime_exits_2(tmp_path):
    path = write(tmp_path, isvc(model_name=None, runtime={"kind": "ServingRuntime"}))
    result = select("--isvc", "svc", "-n", "ns1", "-f", path)
    assert result.code == 2
    assert result.stderr == 'error: InferenceService "svc" has neither spec.model nor spec.runtime.name: nothing to select\n'


def test_internal_error_exits_3(monkeypatch):
    def broken(*args, **kwargs):
        raise engine.InternalError("the encoding has no answer set for this input")

    monkeypatch.setattr(ask, "solve", broken)
    result = select("--model", "llama-3-2-3b-instruct", "-n", "llama-demo", "-f", WORKED)
    assert result.code == 3 and result.stderr.startswith("internal error: ")


# --- the select program on random clusters -------------------------------------------------


def cluster_of(documents: list[dict], profile=profiles.V1_3):
    """The cluster of drawn documents, loaded as values: the same checks and
    defaults as their YAML text (loader.load_documents), without writing it."""
    return load_documents(documents, profile=profile)


USED_DEPENDENT = {"selected", "runtime_used", "admission_warning", "select_warning", "runtime_ready"}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.clusters())
def test_O5_X1_outcome_agrees_with_explain(case):
    """On random clusters: exactly one of an error, a used runtime, a failure;
    auto-selection uses explain's first runtime (O5) and fails with O8 exactly
    when explain has no Yes row; a named runtime is used or fails by X3/X4
    (and M2-M4) whatever the ranking (X7); the webhook denies only what
    O9/M2/M3/X3 say; every text renders."""
    documents, q = case
    cluster = cluster_of(documents)
    query = Query(q["namespace"], model=q.get("model"), isvc=q.get("isvc"))
    facts = build_facts(cluster, [query])
    answer = ask.solve(facts, 1, Variant.SELECT).queries[1]
    outcome = answer.outcome
    assert [outcome.error, outcome.used, outcome.failure].count(None) == 2
    if outcome.error is not None:
        return
    failure = None if outcome.failure is None else outcome.failure.name
    if not outcome.explicit and failure not in ("referenced_model_not_found", "disabled_model", "model_format_name_missing"):
        assert (outcome.used is None) == (answer.ranking == []) == (failure == "no_runtime")
        assert outcome.used is None or outcome.used == answer.ranking[0]
    if outcome.explicit:
        assert failure in (None, "referenced_model_not_found", "disabled_model", "runtime_not_found",
                           "named_runtime_disabled", "model_format_name_missing")
        assert not outcome.admission_path
    else:
        assert outcome.advisory is None
    if outcome.admission_denial is not None:
        assert outcome.failure is not None and outcome.condition is None and outcome.events == []
    document = Selection(query, answer).document()
    json.dumps(document)
    assert document["admission"]["allowed"] == (outcome.admission_denial is None)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.clusters())
def test_O5_outcome_lp_leaves_only_the_optimum_to_the_solver(case):
    """outcome.lp adds no choice: only the atoms that name the optimum are left
    to the solver. (A grounding of its own per cluster, so on fewer clusters
    than the property above, which it made twice as slow.)"""
    documents, q = case
    facts = build_facts(cluster_of(documents), [Query(q["namespace"], model=q.get("model"), isvc=q.get("isvc"))])
    ctl = engine.ground_program(facts.program, programs.Variant.SELECT.files)
    assert {a.symbol.name for a in ctl.symbolic_atoms if not a.is_fact} <= USED_DEPENDENT


@st.composite
def batches(draw):
    """The documents of strategies.clusters() with two or more InferenceServices
    (clusters() draws 0-2; a batch of fewer has nothing to agree on), the
    added ones at random places among the documents."""
    documents, _ = draw(strategies.clusters())
    model_names = tuple(sorted({d["metadata"]["name"] for d in documents if d["kind"] in ("BaseModel", "ClusterBaseModel")}))
    taken = {(d["metadata"].get("namespace", "default"), d["metadata"]["name"]) for d in documents if d["kind"] == "InferenceService"}
    free = [(namespace, name) for namespace in builders.NAMESPACES for name in builders.ISVC_NAMES if (namespace, name) not in taken]
    for namespace, name in draw(st.lists(st.sampled_from(free), min_size=2 - len(taken), max_size=2 - len(taken), unique=True)):
        service = draw(strategies.inference_services(name=name, namespace=namespace, model_names=model_names))
        documents.insert(draw(st.integers(0, len(documents))), service)
    return documents


@pytest.mark.parametrize("profile", profiles.PROFILES.values(), ids=profiles.PROFILES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents=batches())
def test_O5_select_all_agrees_with_one_query_select(profile, documents):
    """--all grounds every InferenceService at once (winner.lp, no search; under
    code-v0.1.5 with the Go order's winners pinned); each gets the report that
    the one-query #minimize optimum (or Go order) gives."""
    try:
        cluster = cluster_of(documents, profile)
    except InputError:  # a cluster this profile's schema does not accept (about 1 in 20 under v1.2.2)
        assume(False)
    queries = [Query(i.namespace, isvc=i.name) for i in cluster.inference_services]
    assert len(queries) >= 2
    batch = ask.ask(cluster, queries, Variant.SELECT).answer
    for number, query in enumerate(queries, 1):
        single = ask.ask(cluster, [query], Variant.SELECT).answer.queries[1]
        assert (Selection(query, batch.queries[number], profile.name).document()
                == Selection(query, single, profile.name).document())


def test_select_all_sections_and_list(tmp_path):
    """--all: a section per InferenceService, headed by the single command; exit 1
    when one of them uses no runtime; -o json is a List of the same reports."""
    documents = [model("m"), runtime("rt", "ns1"), isvc("a", "ns1"), isvc("b", "ns2"), isvc("c", "ns1", model_name=None, runtime={"kind": "ClusterServingRuntime"})]
    path = write(tmp_path, *documents)
    result = select("--all", "-f", path)
    assert result.code == 1
    sections = result.stdout.split("\n\n")
    assert sections[0] == "# select --isvc a -n ns1\nServingRuntime ns1/rt"
    assert sections[1].startswith("# select --isvc c -n ns1\nerror: ")
    assert sections[2].startswith("# select --isvc b -n ns2\nno runtime found to support model")
    listed = json.loads(select("--all", "-f", path, "-o", "json").stdout)
    assert listed["kind"] == "List" and [i["query"]["isvc"] for i in listed["items"]] == ["a", "c", "b"]
    assert listed["items"][0] == select_json("--isvc", "a", "-n", "ns1", "-f", path)
    assert listed["items"][1]["error"] == select("--isvc", "c", "-n", "ns1", "-f", path).stderr[len("error: "):-1]


def test_select_all_warnings_name_their_inference_service(tmp_path):
    """Issue 16 bug 4: with --all, each `Warning:` line says whose it is."""
    path = write(tmp_path, model("m"), runtime("rt", "ns1"), isvc("a", "ns1", engine={}), isvc("b", "ns1", engine={}))
    result = select("--all", "-f", path)
    warnings = [line for line in result.stderr.splitlines() if line.startswith("Warning: ")]
    assert warnings == [
        "Warning: InferenceService ns1/a: Runtime rt will be auto-selected for model m",
        "Warning: InferenceService ns1/b: Runtime rt will be auto-selected for model m",
    ]


def test_selection_reports_input_warnings_and_denied_runtimes(tmp_path):
    """Issue 16 bug 2: what stderr says reaches -o json too: `inputWarnings` (the
    `warning:` lines; `warnings` stays the webhook's) and `denied`."""
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}
    denied = runtime("needs", acceleratorRequirements={"acceleratorClasses": ["nope"]})
    path = write(tmp_path, model(), deployment, denied, runtime("rt", "ns1"), isvc("svc", "ns1"))
    result = select("--isvc", "svc", "-n", "ns1", "-f", path, "-o", "json")
    document = json.loads(result.stdout)
    lines = [line[len("warning: "):] for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert document["inputWarnings"] == lines and len(lines) == 2
    assert document["denied"] == [{"kind": "ClusterServingRuntime", "namespace": None, "name": "needs",
                                   "message": "unknown accelerator classes referenced in AcceleratorRequirements: [nope]"}]
