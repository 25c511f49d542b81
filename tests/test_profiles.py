"""OME-version profiles (docs/profiles.md): choosing a
profile, outcomes without a table (section 0), and each override by rule id.

Test names carry the profile and the rule id the test checks; expectations
are worked out from docs/profiles.md by hand (the comments say how)."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
import yaml
from conftest import FIXTURES, run_cli
from manifests import entry

from ome_asp.cli import build_parser
from ome_asp.errors import UsageError
from ome_asp.input import profiles
from ome_asp.input.loader import load_documents
from ome_asp.input.sizes import is_go_size, parse_go_size
from ome_asp.solver import engine, gosort
from ome_asp.solver.facts import Query, build_facts
from ome_asp.solver.programs import Variant

WORKED = str(FIXTURES / "worked-example")
MODE_14_3 = str(FIXTURES / "examples" / "14.3-deployment-mode")
V122, CODE = "v1.2.2", "code-v0.1.5"
NOTE_V122 = "Note: kubectl ome runtime explain is not available in OME v1.2.2; this table shows v1.2.2's selection."
NOTE_CODE = "Note: kubectl ome runtime explain is not available in OME v0.1.5; this table shows v0.1.5's selection."


# --- manifests -------------------------------------------------------------------


def runtime(name: str, namespace: str | None = None, entries=None, metadata=None, **spec) -> dict:
    meta = {"name": name, **({} if namespace is None else {"namespace": namespace}), **(metadata or {})}
    spec["supportedModelFormats"] = [entry()] if entries is None else entries
    kind = "ServingRuntime" if namespace is not None else "ClusterServingRuntime"
    return {"apiVersion": "ome.io/v1beta1", "kind": kind, "metadata": meta, "spec": spec}


def model(name: str = "m", **spec) -> dict:
    base = {
        "modelFormat": {"name": "safetensors", "version": "1.0.0"},
        "modelFramework": {"name": "transformers", "version": "4.45.0.dev0"},
        "modelArchitecture": "LlamaForCausalLM",
    }
    base.update(spec)
    return {"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": {"name": name}, "spec": base}


def isvc(name: str = "svc", namespace: str = "ns", model_name: str | None = "m", annotations=None, **spec) -> dict:
    if model_name is not None:
        spec["model"] = {"name": model_name}
    metadata = {"name": name, "namespace": namespace, **({"annotations": annotations} if annotations else {})}
    return {"apiVersion": "ome.io/v1beta1", "kind": "InferenceService", "metadata": metadata, "spec": spec}


def stream(*objects) -> bytes:
    return yaml.safe_dump_all(objects).encode()


def explain(profile: str | None, *objects, target=("--model", "m"), ns="ns", extra=()):
    flags = () if profile is None else ("--profile", profile)
    return run_cli("explain", *target, "-n", ns, "-f", "-", *flags, *extra, stdin=stream(*objects))


def explain_json(profile, *objects, **kwargs) -> dict:
    result = explain(profile, *objects, extra=("-o", "json"), **kwargs)
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


def ranking(profile, *objects, **kwargs) -> list[str]:
    return [row["runtime"] for row in explain_json(profile, *objects, **kwargs)["rows"] if row["compatible"]]


def select_json(profile, *objects, target=("--isvc", "svc"), ns="ns") -> dict:
    result = run_cli("select", *target, "-n", ns, "-f", "-", "--profile", profile, "-o", "json", stdin=stream(*objects))
    assert result.code in (0, 1), result.stderr
    return json.loads(result.stdout)


# --- choosing a profile ----------------------------------------------------------


@pytest.mark.parametrize(("release", "profile"), [
    ("0.1.5", CODE), ("0.9", CODE), ("1.0.0", V122), ("1.2.2", V122), ("1.2.9", V122),
    ("1.3.0", "v1.3"), ("1.3.0rc1", V122), ("2.0", "v1.3"),
])
def test_ome_version_maps_a_release_to_its_profile(release, profile):
    assert profiles.for_release(release).name == profile
    result = explain(None, model(), runtime("rt"), extra=("--ome-version", release, "-o", "json"))
    assert json.loads(result.stdout)["profile"] == profile


@pytest.mark.parametrize("release", ["one.three", "", "1.3 beta"])
def test_ome_version_that_is_no_version_is_a_usage_error(release):
    with pytest.raises(UsageError):
        profiles.for_release(release)
    result = run_cli("select", "--model", "m", "-f", "-", "--ome-version", release, stdin=stream(model()))
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr.startswith("error: --ome-version: ")


def test_profile_and_ome_version_together_are_a_usage_error():
    result = run_cli("admit", "-f", "-", "--profile", CODE, "--ome-version", "0.1.5", stdin=stream(runtime("rt")))
    assert (result.code, result.stderr) == (2, "error: --profile and --ome-version cannot be combined\n")


def test_unknown_profile_is_a_usage_error():
    result = explain("v9", model(), runtime("rt"))
    assert result.code == 1 and "invalid choice: 'v9'" in result.stderr


@pytest.mark.parametrize("command", ["explain", "select", "steer", "admit", "serve", "gen", "diff"])
def test_every_command_takes_profile_and_ome_version(command):
    subcommands = next(a for a in build_parser()._actions if a.dest == "command").choices
    flags = {flag for action in subcommands[command]._actions for flag in action.option_strings}
    assert "--profile" in flags
    assert command in ("gen", "diff") or "--ome-version" in flags


def test_default_profile_is_v1_3_and_reports_name_the_active_profile():
    objects = (model(), runtime("rt"), isvc())
    assert explain_json(None, *objects)["profile"] == "v1.3"
    for name in profiles.PROFILES:
        assert explain_json(name, *objects)["profile"] == name
        assert select_json(name, *objects)["profile"] == name


def test_default_profile_flag_changes_nothing():
    """--profile v1.3 is the default: byte-identical output."""
    plain = run_cli("explain", "--model", "llama-3-2-3b-instruct", "-n", "llama-demo", "-f", WORKED, "-o", "wide")
    flagged = run_cli("explain", "--model", "llama-3-2-3b-instruct", "-n", "llama-demo", "-f", WORKED, "-o", "wide",
                      "--profile", "v1.3")
    assert (plain.code, plain.stdout, plain.stderr) == (flagged.code, flagged.stdout, flagged.stderr)


# --- E1-E18: explain where OME has none ----------------------------------------------


def test_v122_E1_explain_prints_the_not_available_note():
    result = explain(V122, model(), runtime("rt"))
    assert result.code == 0
    assert result.stderr == NOTE_V122 + "\n"
    assert "rt" in result.stdout


def test_code_v015_E1_explain_prints_the_not_available_note():
    result = explain(CODE, model(), runtime("rt"))
    assert (result.code, result.stderr) == (0, NOTE_CODE + "\n")


def test_v1_3_E1_explain_prints_no_note():
    assert explain("v1.3", model(), runtime("rt")).stderr == ""


# --- section 0 and Z3: outcomes without a table ------------------------------------------


def test_v122_Z3_one_bounded_range_is_outcome_unsupported_input():
    objects = (model(modelParameterSize="3.21B"), runtime("rt", modelSizeRange={"min": "1B"}))
    result = explain(V122, *objects)
    assert (result.code, result.stdout) == (4, "")
    assert result.stderr.splitlines()[-1] == (
        "error: outcome unsupported-input: ClusterServingRuntime rt: "
        "modelSizeRange must set both min and max on this OME version")
    document = json.loads(explain(V122, *objects, extra=("-o", "json")).stdout)
    assert {k: document[k] for k in ("apiVersion", "kind", "profile", "outcome", "rows")} == {
        "apiVersion": "ome-asp/v1alpha1", "kind": "RuntimeExplainReport", "profile": V122,
        "outcome": "unsupported-input", "rows": []}
    assert document["query"] == {"namespace": "ns", "model": "m"}
    assert document["detail"].startswith("ClusterServingRuntime rt: ")
    assert explain(V122, *objects, extra=("-o", "json")).code == 4
    assert explain("v1.3", *objects).code == 0  # v1.3: the missing side is unbounded


def test_v122_Z3_empty_range_is_outcome_unsupported_input():
    result = explain(V122, model(modelParameterSize="3.21B"), runtime("rt", modelSizeRange={}))
    assert result.code == 4 and "outcome unsupported-input" in result.stderr


def test_v122_Z3_model_without_size_never_triggers_it():
    assert ranking(V122, model(), runtime("rt", modelSizeRange={"max": "1B"})) == ["rt"]


@pytest.mark.parametrize("failing", [
    {"disabled": True},  # Q2
    {"entries": [entry(modelFormat={"name": "onnx"})]},  # Q5
])
def test_v122_Z3_is_reached_only_after_Q2_to_Q5_pass(failing):
    rt = runtime("rt", modelSizeRange={"min": "1B"}, **failing)
    result = explain_json(V122, model(modelParameterSize="3.21B"), rt, runtime("ok"))
    assert [row["runtime"] for row in result["rows"] if row["compatible"]] == ["ok"]


def test_v122_Z3_is_reached_only_after_Q3_and_Q4_pass():
    """Q3 (accelerator) and Q4 (mode) fail first for an ISVC: no outcome."""
    rt = runtime("rt", modelSizeRange={"min": "1B"}, acceleratorRequirements={"acceleratorClasses": ["a100"]},
                 engineConfig={"annotations": {"ome.io/deploymentMode": "MultiNode"}})
    svc = isvc(engine={}, annotations={"ome.io/accelerator-class": "h100"})
    result = explain(V122, model(modelParameterSize="3.21B"), rt, svc, target=("--isvc", "svc"))
    assert result.code == 0, result.stderr


def test_code_v015_Z3_one_bounded_range_with_sized_model_is_outcome_panic():
    """docs/profiles.md 3.6: {min: 70B}, model 3.21B -> panic; without a size, no panic."""
    rt = runtime("rt", modelSizeRange={"min": "70B"})
    result = explain(CODE, model(modelParameterSize="3.21B"), rt)
    assert (result.code, result.stdout) == (4, "")
    assert result.stderr.splitlines()[-1].startswith("error: outcome panic: ClusterServingRuntime rt: ")
    assert ranking(CODE, model(), rt) == ["rt"]


def test_code_v015_Z3_two_qualifying_runtimes_without_a_distance_are_an_outcome_not_two_optima():
    """Both one-bounded: neither has a rank key, so selection.lp makes no choice
    (it had two equal optima: an internal error, found by Hypothesis)."""
    objects = (model(modelParameterSize="3.21B"), runtime("rt-a", modelSizeRange={"max": "3.21B"}),
               runtime("rt-b", modelSizeRange={"max": "3.21B"}))
    result = explain(CODE, *objects)
    assert result.code == 4
    assert result.stderr.splitlines()[-1].startswith("error: outcome panic: ClusterServingRuntime rt-a: ")


def test_code_v015_Z3_any_auto_selection_candidate_panics_but_only_the_named_runtime_when_named():
    objects = (model(modelParameterSize="3.21B"), runtime("one-bounded", modelSizeRange={"max": "70B"}),
               runtime("fine", modelSizeRange={"min": "1B", "max": "70B"}))
    auto = run_cli("select", "--isvc", "svc", "-n", "ns", "-f", "-", "--profile", CODE,
                   stdin=stream(*objects, isvc()))
    assert auto.code == 4 and "outcome panic: ClusterServingRuntime one-bounded" in auto.stderr
    named = select_json(CODE, *objects, isvc(runtime={"name": "fine"}))
    assert named["selected"]["name"] == "fine"
    pinned = run_cli("select", "--isvc", "svc", "-n", "ns", "-f", "-", "--profile", CODE, "-o", "json",
                     stdin=stream(*objects, isvc(runtime={"name": "one-bounded"})))
    assert pinned.code == 4
    assert json.loads(pinned.stdout)["outcome"] == "panic"


def test_select_outcome_json_has_outcome_and_detail():
    objects = (model(modelParameterSize="3.21B"), runtime("rt", modelSizeRange={"min": "1B"}), isvc())
    result = run_cli("select", "--isvc", "svc", "-n", "ns", "-f", "-", "--profile", V122, "-o", "json",
                     stdin=stream(*objects))
    document = json.loads(result.stdout)
    assert result.code == 4
    assert (document["kind"], document["profile"], document["outcome"]) == ("RuntimeExplainReport", V122, "unsupported-input")
    assert document["rows"] == [] and document["query"] == {"namespace": "ns", "isvc": "svc", "model": "m"}


# --- v1.2.2: D1, D3 ------------------------------------------------------------------


def test_v122_D1_OMENative_is_not_a_mode():
    """The runtime declares MultiNode, the ISVC asks for OMENative: a conflict
    on v1.3 (D4), no requested mode on v1.2.2."""
    rt = runtime("rt", engineConfig={"annotations": {"ome.io/deploymentMode": "MultiNode"}})
    svc = isvc(engine={"annotations": {"ome.io/deploymentMode": "OMENative"}})
    rows = explain_json("v1.3", model(), rt, svc, target=("--isvc", "svc"))["rows"]
    assert rows[0]["failedCheck"] == "Q4"
    assert ranking(V122, model(), rt, svc, target=("--isvc", "svc")) == ["rt"]


def test_v122_D1_other_modes_still_filter():
    rt = runtime("rt", engineConfig={"annotations": {"ome.io/deploymentMode": "MultiNode"}})
    svc = isvc(engine={"annotations": {"ome.io/deploymentMode": "RawDeployment"}})
    row = explain_json(V122, model(), rt, svc, target=("--isvc", "svc"))["rows"][0]
    assert (row["failedCheck"], row["reason"]) == (
        "Q4", "runtime engine deployment mode MultiNode does not match requested engine deployment mode RawDeployment")


def test_v122_D3_spec_deploymentMode_is_dropped_as_unknown_field():
    """docs/spec.md 14.3 on v1.2.2: spec.deploymentMode does not exist, so the
    MultiNode runtime is not excluded; the loader says the field is unknown."""
    result = run_cli("explain", "--isvc", "llama-3-70b", "-n", "llama-demo", "-f", MODE_14_3, "--profile", V122, "-o", "json")
    assert result.code == 0
    assert 'unknown field "deploymentMode"' in result.stderr
    assert json.loads(result.stdout)["selected"]["name"] == "srt-llama-3-3-70b-instruct-multinode"
    v13 = run_cli("explain", "--isvc", "llama-3-70b", "-n", "llama-demo", "-f", MODE_14_3, "-o", "json")
    assert json.loads(v13.stdout)["selected"] is None


def test_v122_D3_invalid_deploymentMode_value_is_not_an_error():
    result = explain(V122, model(), runtime("rt"), isvc(deploymentMode="Bogus"), target=("--isvc", "svc"))
    assert result.code == 0 and 'unknown field "deploymentMode"' in result.stderr


# --- v1.2.2 and code-v0.1.5: X2, X3, X4, X6, O9 -----------------------------------------


@pytest.mark.parametrize("profile", [V122, CODE])
def test_X2_kind_ignored_namespace_first(profile):
    """A ServingRuntime rt in ns and a ClusterServingRuntime rt: v1.3 uses the
    cluster one for the default kind; v1.2.2 and v0.1.5 the namespace's."""
    objects = (model(), runtime("rt", "ns"), runtime("rt"))
    assert select_json("v1.3", *objects, isvc(runtime={"name": "rt"}))["selected"]["kind"] == "ClusterServingRuntime"
    for kind in ("ClusterServingRuntime", "ServingRuntime", None):
        spec = {"name": "rt", **({"kind": kind} if kind else {})}
        assert select_json(profile, *objects, isvc(runtime=spec))["selected"]["kind"] == "ServingRuntime"
    only_cluster = select_json(profile, model(), runtime("rt"), isvc(runtime={"name": "rt", "kind": "ServingRuntime"}))
    assert only_cluster["selected"]["kind"] == "ClusterServingRuntime"


@pytest.mark.parametrize("profile", [V122, CODE])
def test_X3_not_found_is_a_validation_event_not_an_admission_denial(profile):
    answer = select_json(profile, model(), isvc(runtime={"name": "gone", "kind": "ServingRuntime"}))
    message = "runtime gone not found in namespace ns or at cluster scope"
    assert answer["selected"] is None
    assert answer["message"] == message
    assert answer["admission"] == {"path": False, "allowed": True, "warnings": [], "denial": None}
    assert answer["condition"] is None
    assert answer["events"] == [{"type": "Warning", "reason": "RuntimeValidationError",
                                 "message": f"Runtime gone does not support model m: {message}"}]


@pytest.mark.parametrize("profile", [V122, CODE])
def test_X4_disabled_named_runtime_is_a_validation_event(profile):
    answer = select_json(profile, model(), runtime("rt", disabled=True), isvc(runtime={"name": "rt"}))
    assert answer["selected"] is None
    assert answer["events"] == [{"type": "Warning", "reason": "RuntimeValidationError",
                                 "message": "Runtime rt does not support model m: cluster-scoped runtime rt is disabled"}]
    assert answer["admission"]["allowed"]


@pytest.mark.parametrize("profile", [V122, CODE])
def test_X6_incompatible_named_runtime_is_not_used(profile):
    """v1.3 uses it with an advisory; the older controller refuses it."""
    rt = runtime("rt", modelSizeRange={"min": "500M", "max": "2B"})
    objects = (model(modelParameterSize="3.21B"), rt, isvc(runtime={"name": "rt"}, engine={}))
    assert select_json("v1.3", *objects)["selected"]["name"] == "rt"
    answer = select_json(profile, *objects)
    detail = "runtime rt does not support model safetensors: model size 3.21B is outside supported range [500M, 2B]"
    assert answer["selected"] is None
    assert answer["message"] == detail
    assert answer["warnings"] == [] and answer["admission"]["warnings"] == []
    assert answer["events"] == [{"type": "Warning", "reason": "RuntimeValidationError",
                                 "message": f"Runtime rt does not support model m: {detail}"}]


def test_v122_X6_has_no_mode_check():
    """docs/profiles.md 2, X6: the controller checks Q3, Q5 and Q6 only."""
    rt = runtime("rt", engineConfig={"annotations": {"ome.io/deploymentMode": "MultiNode"}})
    svc = isvc(runtime={"name": "rt"}, engine={"annotations": {"ome.io/deploymentMode": "RawDeployment"}})
    answer = select_json(V122, model(), rt, svc)
    assert answer["selected"]["name"] == "rt" and answer["events"] == []


@pytest.mark.parametrize("profile", [V122, CODE])
def test_O9_failed_selection_is_a_runtime_selection_error_event_without_condition(profile):
    answer = select_json(profile, model(), runtime("rt", disabled=True), isvc())
    no_runtime = ("no runtime found to support model safetensors with format safetensors in namespace ns. "
                  "Checked 1 runtimes (0 namespace-scoped, 1 cluster-scoped). Excluded runtimes: rt (runtime is disabled)")
    assert answer["message"] == no_runtime
    assert answer["condition"] is None
    assert answer["events"] == [{"type": "Warning", "reason": "RuntimeSelectionError",
                                 "message": f"Failed to find runtime for model m: {no_runtime}"}]
    assert select_json("v1.3", model(), runtime("rt", disabled=True), isvc())["condition"]["reason"] == "RuntimeNotFound"


@pytest.mark.parametrize("profile", [V122, CODE])
def test_O9_success_has_no_condition_and_admission_as_v1_3(profile):
    answer = select_json(profile, model(), runtime("rt"), isvc(engine={}))
    assert answer["selected"]["name"] == "rt"
    assert answer["condition"] is None and answer["events"] == []
    assert answer["admission"]["warnings"] == ["Runtime rt will be auto-selected for model m"]


def test_v122_O9_admission_denial_is_as_v1_3():
    answer = select_json(V122, model(), runtime("rt", disabled=True), isvc(engine={}))
    assert answer["admission"]["denial"].startswith("no supporting runtime found for model m and engine does not")


# --- v1.2.2: M6 -------------------------------------------------------------------------


def test_v122_M6_spec_model_is_required():
    result = run_cli("select", "--isvc", "svc", "-n", "ns", "-f", "-", "--profile", V122,
                     stdin=stream(runtime("rt"), isvc(model_name=None, runtime={"name": "rt"})))
    assert result.code == 2
    assert result.stderr.rstrip().endswith("spec.model: Required value")
    v13 = run_cli("select", "--isvc", "svc", "-n", "ns", "-f", "-",
                  stdin=stream(runtime("rt"), isvc(model_name=None, runtime={"name": "rt"})))
    assert v13.code == 0


# --- code-v0.1.5: I3, S2, S3, S5, I4 -----------------------------------------------------


def test_code_v015_S3_absent_weights_count_10_and_5():
    """docs/profiles.md 3.6, the seed example: team-llama 15, vllm-llama 14,
    srt-llama-small 45 (distance 7e9), srt-llama-large 45 (69e9)."""
    result = run_cli("explain", "--model", "llama-3-2-3b-instruct", "-n", "llama-demo", "-f", WORKED, "--profile", CODE,
                     "-o", "json")
    report = json.loads(result.stdout)
    rows = [(r["runtime"], r["score"], r["distance"]) for r in report["rows"] if r["compatible"]]
    assert rows == [
        ("team-llama", 15, "0"),
        ("srt-llama-small", 45, "7000000000"),
        ("srt-llama-large", 45, "69000000000"),
        ("vllm-llama", 14, "0"),
    ]


def test_code_v015_I3_explicit_weight_1_gives_the_default_ranking():
    """docs/profiles.md 3.6: with weight: 1 written on every absent weight the ranking equals v1.3's."""
    documents = list(yaml.safe_load_all((FIXTURES / "worked-example" / "manifests.yaml").read_text()))
    for document in documents:
        for e in (document or {}).get("spec", {}).get("supportedModelFormats", []):
            for side in ("modelFormat", "modelFramework"):
                e[side].setdefault("weight", 1)
    target = ("--model", "llama-3-2-3b-instruct")
    assert ranking(CODE, *documents, target=target, ns="llama-demo") == ranking("v1.3", *documents, target=target,
                                                                                  ns="llama-demo")


def test_code_v015_S2_lenient_versions_Q19_row_6():
    """e0 without versions, autoSelect, priority 10 scores (10 + 5) x 10 = 150;
    on v1.3 the runtime fails Q8."""
    e0 = entry(modelFormat={"name": "safetensors"}, modelFramework={"name": "transformers"}, priority=10)
    e1 = entry(autoSelect=False)
    rt = runtime("rt", entries=[e0, e1])
    row = explain_json(CODE, model(modelParameterSize="3.21B"), rt)["rows"][0]
    assert (row["compatible"], row["score"]) == (True, 150)
    assert explain_json("v1.3", model(modelParameterSize="3.21B"), rt)["rows"][0]["failedCheck"] == "Q8"


def test_code_v015_S2_lenient_versions_still_compare_versions_set_on_both_sides():
    rt = runtime("rt", entries=[entry(modelFormat={"name": "safetensors", "version": "2.0.0"})])
    assert explain_json(CODE, model(), rt)["rows"][0]["failedCheck"] == "Q5"


def test_code_v015_S5_I4_priority_zero_and_negative_are_accepted():
    """No schema check (I4): priority 0 loads and scores 0, so Q8 fails."""
    rt = runtime("rt", entries=[entry(priority=0)])
    row = explain_json(CODE, model(), rt)["rows"][0]
    assert (row["failedCheck"], row["reason"]) == ("Q8", "auto-select score is 0")
    rt = runtime("rt", entries=[entry(name="a", priority=-2), entry(name="b", priority=1)])
    assert explain_json(CODE, model(), rt)["rows"][0]["score"] == 15  # max((10 + 5) x -2, (10 + 5) x 1)
    assert explain("v1.3", model(), runtime("rt", entries=[entry(priority=0)])).code == 1


def test_code_v015_Q13_entry_without_modelFormat_is_never_compatible():
    rt = runtime("rt", entries=[entry(modelFormat=None)])
    row = explain_json(CODE, model(), rt)["rows"][0]
    assert row["failedCheck"] == "Q5"
    assert row["reason"].endswith("not in supported formats: unknown mismatch")


def test_code_v015_Q14_framework_both_absent_pass_one_side_fails():
    no_framework = {k: v for k, v in model()["spec"].items() if k != "modelFramework"}
    m = model(**no_framework)
    del m["spec"]["modelFramework"]
    rt = runtime("rt", entries=[entry(modelFramework=None)])
    row = explain_json(CODE, m, rt)["rows"][0]
    assert (row["compatible"], row["score"]) == (True, 10)  # the format term only: 10 x 1
    row = explain_json(CODE, model(), rt)["rows"][0]
    assert (row["failedCheck"], row["reason"].rsplit(": ", 1)[1]) == (
        "Q5", "model has framework transformers but runtime has no framework requirement")


# --- code-v0.1.5: Q4/D, O8, Q1, M6 ---------------------------------------------------------


def test_code_v015_Q4_no_deployment_mode_check_14_3():
    """docs/spec.md 14.3: the MultiNode runtime passes (no Q4) and is selected."""
    result = run_cli("explain", "--isvc", "llama-3-70b", "-n", "llama-demo", "-f", MODE_14_3, "--profile", CODE, "-o", "json")
    report = json.loads(result.stdout)
    assert report["selected"]["name"] == "srt-llama-3-3-70b-instruct-multinode"
    assert all(row["failedCheck"] != "Q4" for row in report["rows"])


def test_code_v015_O8_excluded_list_collision_merges_names():
    """docs/profiles.md 3.6: ServingRuntime rt (disabled) and ClusterServingRuntime
    rt (format mismatch): one item, the cluster runtime's reason."""
    objects = (model(), runtime("rt", "ns", disabled=True), runtime("rt", entries=[entry(modelFormat={"name": "onnx"})]))
    message = explain_json(CODE, *objects)["message"]
    assert "Checked 2 runtimes (1 namespace-scoped, 1 cluster-scoped)" in message
    items = message.split(". Excluded runtimes: ")[1]
    assert items.count("rt (") == 1
    assert items.startswith("rt (model format 'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.45.0.dev0' not in supported formats: ")
    assert explain_json("v1.3", *objects)["message"].split(". Excluded runtimes: ")[1].count("rt (") == 2


def test_code_v015_Q1_virtual_deployment_skips_selection():
    svc = isvc(annotations={"ome.io/deploymentMode": "VirtualDeployment"})
    result = explain(CODE, model(), runtime("rt"), svc, target=("--isvc", "svc"))
    assert result.code == 1
    assert result.stderr.splitlines()[-1] == 'error: InferenceService "svc" is a VirtualDeployment: OME v0.1.5 selects no runtime for it'
    answer = select_json(CODE, model(), runtime("rt"), svc)
    assert answer["selected"] is None and answer["events"] == []
    assert ranking("v1.3", model(), runtime("rt"), svc, target=("--isvc", "svc")) == ["rt"]


def test_code_v015_M6_model_reference_is_required():
    pinned = select_json(CODE, runtime("rt"), isvc(model_name=None, runtime={"name": "rt"}))
    assert (pinned["selected"], pinned["message"]) == (None, "model reference is required")
    bare = select_json(CODE, runtime("rt"), isvc(model_name=None, engine={}))
    assert bare["admission"]["denial"] == (
        "model reference is required when runtime is not specified and engine does not have complete runner configuration")


# --- code-v0.1.5: Z1, Z5, O3, O4 ----------------------------------------------------------


def test_code_v015_O3_O4_truncated_distance_keeps_the_fetch_order():
    """docs/profiles.md 3.3: model "10"; b (9-11.5, distance 2.5) and a (9-12,
    distance 3): trunc(3 - 2.5) = 0, so Go leaves a, b; v1.3 gives b, a."""
    objects = (model(modelParameterSize="10"), runtime("b", modelSizeRange={"min": "9", "max": "11.5"}),
               runtime("a", modelSizeRange={"min": "9", "max": "12"}))
    assert ranking(CODE, *objects) == ["a", "b"]
    assert ranking("v1.3", *objects) == ["b", "a"]


def test_code_v015_O3_select_uses_the_go_order():
    objects = (model(modelParameterSize="10"), runtime("b", modelSizeRange={"min": "9", "max": "11.5"}),
               runtime("a", modelSizeRange={"min": "9", "max": "12"}), isvc(engine={}))
    answer = select_json(CODE, *objects)
    assert answer["selected"]["name"] == "a"
    assert answer["admission"]["warnings"] == ["Runtime a will be auto-selected for model m"]
    assert select_json("v1.3", *objects)["selected"]["name"] == "b"


def test_code_v015_O4_fetch_order_is_newest_first():
    """A tie the comparator cannot break keeps the fetch order:
    creationTimestamp newest first (no timestamp: oldest, D-31)."""
    ranges = {"b": ("9", "11.5"), "a": ("9", "12")}
    created = {"a": "2024-01-01T00:00:00Z", "b": "2024-06-01T00:00:00Z"}
    objects = [model(modelParameterSize="10")] + [
        runtime(n, modelSizeRange={"min": lo, "max": hi}, metadata={"creationTimestamp": created[n]})
        for n, (lo, hi) in ranges.items()]
    assert ranking(CODE, *objects) == ["b", "a"]


def test_code_v015_O3_more_than_12_runtimes_of_a_kind_have_go_s_order():
    """Issue 17: sort.Slice's pdqsort is deterministic; 13 runtimes alike but for
    their names are ordered by the name step (a strict total order)."""
    objects = [model()] + [runtime(f"rt{i:02d}") for i in reversed(range(13))]
    assert ranking(CODE, *objects) == [f"rt{i:02d}" for i in range(13)]


def test_code_v015_O3_nan_distance_compared_is_order_unspecified():
    """CompareRuntimes converts NaN - 0 to an int: implementation-defined in Go."""
    objects = (model(modelParameterSize="NaN"), runtime("a", modelSizeRange={"min": "1", "max": "2"}), runtime("b"))
    result = explain(CODE, *objects)
    assert result.code == 4 and "outcome order-unspecified: qualifying ClusterServingRuntimes: Go converts" in result.stderr


def test_code_v015_Z3_nan_size_passes_every_range():
    """Seen through a named runtime (X6 checks Q6; no order is needed)."""
    rt = runtime("a", modelSizeRange={"min": "1", "max": "2"})
    answer = select_json(CODE, model(modelParameterSize="NaN"), rt, isvc(runtime={"name": "a"}))
    assert answer["selected"]["name"] == "a" and answer["events"] == []
    outside = select_json(CODE, model(modelParameterSize="3"), rt, isvc(runtime={"name": "a"}))
    assert outside["selected"] is None


def test_code_v015_Z1_go_float_sizes():
    """3.2: 1e3B is 1e12; 7GB reads as 0 (with a loader warning)."""
    objects = (model(modelParameterSize="1e3B"), runtime("rt", modelSizeRange={"min": "0x1p4", "max": "1_000B"}))
    row = explain_json(CODE, *objects)["rows"][0]
    assert (row["compatible"], row["distance"]) == (True, str(10**12 - 16))
    result = explain(CODE, model(modelParameterSize="7GB"), runtime("rt", modelSizeRange={"min": "1", "max": "2"}),
                     extra=("-o", "json"))
    assert "is not a size for Go's ParseFloat" in result.stderr
    assert json.loads(result.stdout)["rows"][0]["reason"] == "model size 7GB is outside supported range [1, 2]"


def test_code_v015_Z5_distance_is_the_float64_sum():
    """|min - s| + |max - s| in float64 is rounded; v1.3's exact width is not."""
    objects = (model(modelParameterSize="0.2"), runtime("rt", modelSizeRange={"min": "0.1", "max": "0.9"}))
    distance = explain_json(CODE, *objects)["rows"][0]["distance"]
    assert Fraction(distance) == Fraction(abs(0.1 - 0.2) + abs(0.9 - 0.2)) != Fraction("0.8")
    assert explain_json("v1.3", *objects)["rows"][0]["distance"] == "0.8"


# --- serve, steer ---------------------------------------------------------------------------


def test_serve_request_may_carry_a_profile():
    objects = [model(modelParameterSize="3.21B"), runtime("rt", modelSizeRange={"min": "1B"})]
    lines = [json.dumps({"id": i, "namespace": "ns", "model": "m", "manifests": objects, **extra}) for i, extra in
             enumerate([{}, {"profile": V122}, {"profile": "nope"}])]
    result = run_cli("serve", "--stdio", stdin=("\n".join(lines) + "\n").encode())
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert answers[0]["report"]["profile"] == "v1.3" and answers[0]["report"]["rows"]
    assert answers[1]["report"]["outcome"] == "unsupported-input" and answers[1]["report"]["rows"] == []
    assert "profile" in answers[2]["error"]


def test_serve_profile_flag_is_the_default_of_requests(tmp_path):
    path = tmp_path / "m.yaml"
    e0 = entry(modelFormat={"name": "safetensors"}, modelFramework={"name": "transformers"}, priority=10)
    path.write_bytes(stream(model(), runtime("rt", entries=[e0, entry(autoSelect=False)])))  # Q19 row 6
    request = json.dumps({"id": 1, "namespace": "ns", "model": "m"}) + "\n"
    result = run_cli("serve", "--stdio", "-f", str(path), "--profile", CODE, stdin=request.encode())
    report = json.loads(result.stdout)["report"]
    assert report["profile"] == CODE and report["rows"][0]["score"] == 150
    again = run_cli("serve", "--stdio", "-f", str(path), stdin=request.encode())
    assert json.loads(again.stdout)["report"]["rows"][0]["failedCheck"] == "Q8"


# --- code-v0.1.5: W4, W5 (docs/profiles.md 3.4) -------------------------------------------------


def admit(profile: str, *objects) -> dict[str, str | None]:
    result = run_cli("admit", "-f", "-", "--profile", profile, "-o", "json", stdin=stream(*objects))
    return {item["name"]: item["message"] for item in json.loads(result.stdout)["items"]}


def plain_entry(name="vllm", priority=1, **overrides) -> dict:
    """An entry Go's W5 can find equal: no versions, no operators."""
    fields = {"modelFormat": {"name": "safetensors"}, "modelFramework": {"name": "transformers"}, **overrides}
    return entry(name=name, priority=priority, **fields)


def test_code_v015_W4_first_runtime_skip():
    """The first runtime of its kind in scope (I10 order) meets an empty loop: no W4."""
    conflicting = [entry(name="vllm", priority=1), entry(name="vllm", priority=2)]
    denial = "different priorities assigned for the model format vllm under the clusterservingruntime b"
    assert admit(CODE, runtime("b", entries=conflicting)) == {"b": None}
    assert admit("v1.3", runtime("b", entries=conflicting)) == {"b": denial}
    assert admit(CODE, runtime("a"), runtime("b", entries=conflicting)) == {"a": None, "b": denial}
    # a ServingRuntime of another namespace is not in scope
    assert admit(CODE, runtime("a", "other"), runtime("b", "ns", entries=conflicting)) == {"a": None, "b": None}


@pytest.mark.parametrize(("priorities", "code", "v13"), [
    ((None, 1, 2), None, "different priorities assigned for the model format vllm under the clusterservingruntime b"),
    ((1, None, 2), "different priorities assigned for the model format vllm under the clusterservingruntime b",
     "different priorities assigned for the model format vllm under the clusterservingruntime b"),
    ((1, 1, None), None, None),
])
def test_code_v015_W4_absent_priority_shadowing(priorities, code, v13):
    entries = [entry(name="vllm", priority=p) for p in priorities]
    assert admit(CODE, runtime("a"), runtime("b", entries=entries))["b"] == code
    assert admit("v1.3", runtime("a"), runtime("b", entries=entries))["b"] == v13


def test_code_v015_W5_cross_runtime_check_denies_the_later_runtime():
    a = runtime("a", entries=[plain_entry()], protocolVersions=["openAI"])
    b = runtime("b", entries=[plain_entry(name="VLLM")], protocolVersions=["openAI", "grpc-v2"])
    assert admit(CODE, a, b) == {
        "a": None, "b": "same priority assigned for the model format VLLM in the clusterservingruntimes a and b"}
    assert admit("v1.3", a, b) == {"a": None, "b": None}


def test_code_v015_W5_servingruntime_message_names_the_namespace():
    a = runtime("a", "ns", entries=[plain_entry()], protocolVersions=["openAI"])
    b = runtime("b", "ns", entries=[plain_entry()], protocolVersions=["openAI"])
    assert admit(CODE, a, b)["b"] == "same priority assigned for the model format vllm in the servingruntimes a and b in namespace ns"


@pytest.mark.parametrize("change", [
    {"protocolVersions": ["grpc-v2"]},  # no shared protocol
    {"protocolVersions": []},  # an empty list skips it
    {"disabled": True},  # X disabled
    {"entries": [plain_entry(priority=2)]},  # different priorities
    {"entries": [plain_entry(modelFormat={"name": "safetensors", "operator": "Equal"})]},  # a set pointer
    {"entries": [plain_entry(modelFormat={"name": "safetensors", "version": "1"})]},
    {"entries": [plain_entry(modelFormat={"name": "safetensors", "weight": 3})]},
    {"entries": [plain_entry(quantization="fp8")]},
    {"entries": [plain_entry(modelArchitecture="MistralForCausalLM")]},  # another architecture
    {"entries": [plain_entry(modelArchitecture=None)]},  # none against one
    {"entries": [plain_entry(version="2")]},  # the top-level version
    {"modelSizeRange": {"min": "1B", "max": "9B"}},
    {"entries": [plain_entry(autoSelect=False)]},
])
def test_code_v015_W5_only_equal_go_structs_clash(change):
    base = {"entries": [plain_entry()], "protocolVersions": ["openAI"]}
    a = runtime("a", **{**base, **change})
    b = runtime("b", **base)
    assert admit(CODE, a, b) == {"a": None, "b": None}


def test_code_v015_W5_entries_without_an_architecture_clash():
    """W5 compares the architecture as the other parts: absent on both sides
    is equal. admission.lp joins the pairs on it (`none` when absent), so a
    catalog's runtimes of one format and priority are not all paired; fails
    with the absent case left out of the join (the pair never tried)."""
    a = runtime("a", entries=[plain_entry(modelArchitecture=None)], protocolVersions=["openAI"])
    b = runtime("b", entries=[plain_entry(modelArchitecture=None)], protocolVersions=["openAI"])
    assert admit(CODE, a, b) == {
        "a": None, "b": "same priority assigned for the model format vllm in the clusterservingruntimes a and b"}


def test_code_v015_W5_pairs_only_entries_that_can_clash():
    """Issue 40 (G10 under code-v0.1.5): in OME's catalog nearly every entry
    is safetensors at one priority, one architecture per runtime, and W5
    paired every two of them (17,959 pairs, 54k atoms in each chunk of the
    No-heavy 100 x 550 cluster). Twenty such runtimes, each its own
    architecture, ground no pair; fails with the pairs joined on name and
    priority only (190 pairs)."""
    runtimes = [runtime(f"rt-{n:02}", entries=[plain_entry(modelArchitecture=f"Arch{n}ForCausalLM")], protocolVersions=["openAI"])
                for n in range(20)]
    cluster = load_documents(runtimes, profiles.PROFILES[CODE])
    control = engine.ground(build_facts(cluster, [Query("ns", model="m")]), Variant.BATCH_EXPLAIN.answering(1))
    assert len(list(control.symbolic_atoms.by_signature("w5_entry", 4))) == 20
    assert list(control.symbolic_atoms.by_signature("w5_try", 4)) == []


def test_code_v015_W5_same_name_in_both_kinds_is_not_compared():
    """X and R must be of one kind (and differently named)."""
    a = runtime("a", "ns", entries=[plain_entry()], protocolVersions=["openAI"])
    b = runtime("a", entries=[plain_entry()], protocolVersions=["openAI"])
    assert admit(CODE, a, b) == {"a": None}


# --- code-v0.1.5: Z1 grammar (docs/profiles.md 3.2), the Go sort (3.3) ------------------------------


@pytest.mark.parametrize(("text", "count"), [
    ("3.21B", 3.21 * 1e9), ("1e3B", 1e12), ("1E3", 1000.0), ("1_000B", 1e12), ("+5B", 5e9), ("-5B", -5e9),
    ("0x1p4", 16.0), ("inf", math.inf), ("InfB", math.inf), ("-Infinity", -math.inf),
    (".5", 0.5), ("5.", 5.0), ("0x1.8p1", 3.0), ("2T", 2e12), ("7M", 7e6),
    *((bad, 0.0) for bad in ("7b", "7K", "7GB", "7BB", " 7B", "1,5B", "0x10B", "B", "", "1e400", "1__0", "_1",
                             "1_", "+nan", "0x1p", "1e", "--1")),
])
def test_code_v015_Z1_go_parse_float_grammar(text, count):
    assert parse_go_size(text) == count
    assert is_go_size(text) == (count != 0.0)


@pytest.mark.parametrize("text", ["NaN", "NaNB", "nan"])
def test_code_v015_Z1_nan(text):
    assert math.isnan(parse_go_size(text))


def test_code_v015_O3_insertion_sort_is_go_s():
    """Go's insertion sort (sort.Slice of at most 12) with a non-transitive less: 0.6 ~ 1.2 ~ 1.8 but 0.6 < 1.8."""
    def less(a, b):
        return math.trunc(b - a) > 0

    assert gosort.sort_slice([1.8, 1.2, 0.6], less) == [1.8, 1.2, 0.6]  # no neighbours differ by 1
    assert gosort.sort_slice([1.8, 0.6, 1.2], less) == [0.6, 1.8, 1.2]
    assert sorted([1.8, 0.6, 1.2]) == [0.6, 1.2, 1.8]


def test_v122_steer_works_and_stops_at_an_outcome():
    objects = (model(), runtime("a"), runtime("b", entries=[entry(priority=1)]))
    result = run_cli("steer", "--model", "m", "--want", "b", "-n", "ns", "-f", "-", "--profile", V122, stdin=stream(*objects))
    assert result.code == 0, result.stderr
    ended = (model(modelParameterSize="3.21B"), runtime("a", modelSizeRange={"min": "1B"}), runtime("b"))
    result = run_cli("steer", "--model", "m", "--want", "b", "-n", "ns", "-f", "-", "--profile", V122, stdin=stream(*ended))
    # issue 16 bug 5: an outcome exits 4 in every command, steer too (it exited 2, as an input error)
    assert result.code == 4 and result.stderr.startswith("error: outcome unsupported-input: ClusterServingRuntime a")
    result = run_cli("steer", "--model", "m", "--want", "b", "-n", "ns", "-f", "-", "--profile", V122, "-o", "json",
                     stdin=stream(*ended))
    assert result.code == 4 and json.loads(result.stdout)["outcome"] == "unsupported-input"


def test_all_models_reports_outcomes_per_query():
    objects = (model(modelParameterSize="3.21B"), model("n"), runtime("rt", modelSizeRange={"min": "1B"}))
    result = run_cli("explain", "--all-models", "-n", "ns", "-f", "-", "--profile", V122, "-o", "json", stdin=stream(*objects))
    assert result.code == 4
    items = {item["query"]["model"]: item for item in json.loads(result.stdout)["items"]}
    assert items["m"]["outcome"] == "unsupported-input" and items["m"]["rows"] == []
    assert items["n"]["rows"][0]["compatible"]
    table = run_cli("explain", "--all-models", "-n", "ns", "-f", "-", "--profile", V122, stdin=stream(*objects))
    assert "error: outcome unsupported-input: ClusterServingRuntime rt" in table.stdout


MULTI_NODE = ("invalid configuration: for MultiNode deployment, both leader and worker must be defined "
              "and worker.size must be greater than 0")
RAW = "invalid configuration: for RawDeployment, leader and worker must not be defined"


def container_mode(mode):
    return [{"name": "ome-container", "env": [{"name": "OTHER", "value": "x"}, {"name": "DEPLOYMENT_MODE", "value": mode}]}]


@pytest.mark.parametrize(("spec", "message"), [
    ({"workers": {"size": 0}}, MULTI_NODE),  # set and <= 0
    ({"workers": {"size": -1}, "engineConfig": {}}, MULTI_NODE),
    ({"engineConfig": {}, "workers": {"size": 2}, "containers": container_mode("RawDeployment")}, RAW),
    ({"engineConfig": {}, "containers": container_mode("MultiNode")}, MULTI_NODE),
    ({"engineConfig": {}, "workers": {"size": 2}}, None),  # MultiNode by workers.size
    ({"engineConfig": {}}, None),  # RawDeployment by default, no workers
    ({"engineConfig": {}, "decoderConfig": {}, "workers": {"size": 0}}, None),  # both set: no check
    ({"workers": {"size": 0}, "disabled": True}, None),  # W2
])
def test_code_v015_W3_configuration_check(spec, message):
    """docs/profiles.md 3.5, before W3; only under code-v0.1.5."""
    assert admit(CODE, runtime("rt", **spec)) == {"rt": message}
    assert admit("v1.3", runtime("rt", **spec)) == {"rt": None}


def test_code_v015_W3_configuration_check_comes_before_w3():
    rt = runtime("rt", workers={"size": 0}, acceleratorRequirements={"acceleratorClasses": ["missing"]})
    assert admit(CODE, rt) == {"rt": MULTI_NODE}
    assert admit("v1.3", rt)["rt"].startswith("unknown accelerator classes")


def test_code_v015_verbose_names_a_missing_side():
    rt = runtime("rt", entries=[entry(modelFramework=None)])
    m = model()
    del m["spec"]["modelFramework"]
    result = explain(CODE, m, rt, extra=("-v",))
    assert "score 10: (10 (weight 0) + 0 (no such side)) × 1 from entry 0" in result.stdout


def test_show_facts_carry_the_switches_and_name_the_profile():
    result = explain(V122, model(), runtime("rt"), extra=("--show", "facts"))
    assert result.stdout.splitlines()[0].endswith("--profile v1.2.2")
    assert "switch(mode_filter,annotations)." in result.stdout


def test_code_v015_order_unspecified_does_not_hide_an_earlier_stop():
    """M3 stops selection before any ranking: select reports it, not the order."""
    disabled = model()
    disabled["spec"]["disabled"] = True
    disabled["spec"]["modelParameterSize"] = "NaN"
    objects = [disabled, runtime("a", modelSizeRange={"min": "1", "max": "2"}), runtime("b"), isvc()]
    answer = select_json(CODE, *objects)
    assert answer["message"] == "model m is disabled"
    result = run_cli("select", "--isvc", "svc", "-n", "ns", "-f", "-", "--profile", CODE,
                     stdin=stream(*([model(modelParameterSize="NaN")] + objects[1:])))
    assert result.code == 4 and "outcome order-unspecified" in result.stderr


def test_code_v015_I4_no_schema_for_the_isvc_runtime_reference():
    """Without schema validation any spec.runtime.kind loads (X2 ignores it) and
    a spec.model without a name is Go's "" (not found: M2)."""
    answer = select_json(CODE, model(), runtime("rt"), isvc(runtime={"name": "rt", "kind": "Whatever"}))
    assert answer["selected"]["name"] == "rt"
    assert run_cli("select", "--isvc", "svc", "-n", "ns", "-f", "-", stdin=stream(
        model(), runtime("rt"), isvc(runtime={"name": "rt", "kind": "Whatever"}))).code == 2
    unnamed = isvc(model_name=None, model={})
    answer = select_json(CODE, model(), runtime("rt"), unnamed)
    assert answer["message"].startswith('referenced model "" not found in namespace "ns"')
