"""The reference model (tests/reference_model.py) against every worked example of docs/spec.md (v1.3).

Each test names the rule ids and the spec section whose table or example it
reproduces. If one of these fails, the oracle is wrong, not the engine.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import reference_model as ref
import yaml
from hypothesis import given, settings

from ome_asp.testing import strategies

# --------------------------------------------------------------------------
# Fixtures: the seed's worked example (spec 13.1) and small builders
# --------------------------------------------------------------------------

SEED_MANIFESTS = (Path(__file__).resolve().parent.parent / "fixtures" / "worked-example" / "manifests.yaml").read_text()

SEED_MODEL = "llama-3-2-3b-instruct"
#: The seed model's spec (13.1), as ref.* rule helpers take it.
SEED_SPEC = {
    "modelArchitecture": "LlamaForCausalLM",
    "modelFormat": {"name": "safetensors", "version": "1.0.0"},
    "modelFramework": {"name": "transformers", "version": "4.45.0.dev0"},
    "modelParameterSize": "3.21B",
}
MATCHING_FORMATS = {
    "modelFormat": {"name": "safetensors", "version": "1.0.0"},
    "modelFramework": {"name": "transformers", "version": "4.45.0.dev0"},
}
NO_AUTOSELECT = ref.NO_AUTOSELECT_REASON
NOT_AUTOSELECT_ENABLED = (
    "matching format safetensors is not autoSelect-enabled (a different supportedModelFormats "
    "entry on this runtime has autoSelect=true, but not the one that matches this model)")


def seed_documents() -> list[dict]:
    return list(yaml.safe_load_all(SEED_MANIFESTS))


def by_name(documents: list[dict], name: str) -> dict:
    return next(d for d in documents if d["metadata"]["name"] == name)


def csr(name: str, entries: list[dict], **spec) -> dict:
    return {"apiVersion": "ome.io/v1beta1", "kind": "ClusterServingRuntime",
            "metadata": {"name": name}, "spec": {"supportedModelFormats": entries, **spec}}


def sr(name: str, namespace: str, entries: list[dict], **spec) -> dict:
    doc = csr(name, entries, **spec)
    doc["kind"] = "ServingRuntime"
    doc["metadata"]["namespace"] = namespace
    return doc


def entry(format_name="safetensors", format_version="1.0.0", framework="transformers",
          framework_version="4.45.0.dev0", **fields) -> dict:
    """An entry; None drops a version; other keys (``priority``, ...) are copied as given."""
    result = {"modelFormat": {"name": format_name}, "modelFramework": {"name": framework}}
    if format_version is not None:
        result["modelFormat"]["version"] = format_version
    if framework_version is not None:
        result["modelFramework"]["version"] = framework_version
    for key in ("format_weight", "framework_weight"):
        if key in fields:
            part = "modelFormat" if key == "format_weight" else "modelFramework"
            result[part]["weight"] = fields.pop(key)
    result.update(fields)
    return result


def cluster_base_model(name: str, spec: dict) -> dict:
    return {"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel",
            "metadata": {"name": name}, "spec": copy.deepcopy(spec)}


def stored(e: dict) -> dict:
    """An entry after I3 defaulting."""
    return ref.apply_defaults(csr("x", [e]))["spec"]["supportedModelFormats"][0]


def order(report: dict) -> list[str]:
    return [row["runtime"] for row in report["rows"]]


# --------------------------------------------------------------------------
# Section 13 — the seed's worked example
# --------------------------------------------------------------------------


def test_13_2_to_13_4_seed_ranking_O1_O2_O3_E9_E10():
    """13.2-13.4: team-llama first (O1), ties at 6 by distance (O3); E9 columns; Z5."""
    report = ref.reference_report(seed_documents(), "llama-demo", model=SEED_MODEL)
    assert report["apiVersion"] == "ome-asp/v1alpha1"
    assert report["kind"] == "RuntimeExplainReport"
    assert report["profile"] == "v1.3"
    assert report["query"] == {"namespace": "llama-demo", "model": SEED_MODEL}
    assert report["selected"] == {"kind": "ServingRuntime", "namespace": "llama-demo",
                                  "name": "team-llama"}
    assert report["message"] is None
    assert [(r["runtime"], r["kind"], r["scope"], r["rank"], r["score"], r["priority"],
             r["weight"], r["distance"]) for r in report["rows"]] == [
        ("team-llama", "ServingRuntime", "Namespaced", 1, 2, 1, 2, "0"),
        ("vllm-llama", "ClusterServingRuntime", "Cluster", 2, 6, 2, 6, "0"),
        ("srt-llama-small", "ClusterServingRuntime", "Cluster", 3, 6, 3, 6, "7000000000"),
        ("srt-llama-large", "ClusterServingRuntime", "Cluster", 4, 6, 3, 6, "69000000000"),
    ]
    for row in report["rows"]:
        assert row["compatible"] is True
        assert row["reason"] is None and row["failedCheck"] is None and row["reasons"] == []


def test_13_4_isvc_query_gives_the_same_rows_E7():
    """13.4: --isvc llama-chat prints the same table (no accelerator class or mode requested)."""
    by_model = ref.reference_report(seed_documents(), "llama-demo", model=SEED_MODEL)
    by_isvc = ref.reference_report(seed_documents(), "llama-demo", isvc="llama-chat")
    assert by_isvc["query"] == {"namespace": "llama-demo", "isvc": "llama-chat",
                                "model": SEED_MODEL}
    assert by_isvc["rows"] == by_model["rows"]
    assert by_isvc["selected"] == by_model["selected"]


def test_13_5_priority_4_reorders_cluster_runtimes_S3_O2():
    """13.5: srt-llama-small at priority 4 scores 8 and moves ahead of vllm-llama."""
    documents = seed_documents()
    by_name(documents, "srt-llama-small")["spec"]["supportedModelFormats"][0]["priority"] = 4
    report = ref.reference_report(documents, "llama-demo", model=SEED_MODEL)
    assert order(report) == ["team-llama", "srt-llama-small", "vllm-llama", "srt-llama-large"]
    small = report["rows"][1]
    assert (small["score"], small["priority"], small["weight"]) == (8, 4, 8)
    assert report["selected"]["name"] == "team-llama"


def test_13_6_without_team_llama_and_without_size_O3_O4():
    """13.6: vllm-llama wins without team-llama; without a model size ties go by name (O4)."""
    documents = [d for d in seed_documents() if d["metadata"]["name"] != "team-llama"]
    report = ref.reference_report(documents, "llama-demo", model=SEED_MODEL)
    assert report["selected"] == {"kind": "ClusterServingRuntime", "namespace": None,
                                  "name": "vllm-llama"}
    del by_name(documents, SEED_MODEL)["spec"]["modelParameterSize"]
    report = ref.reference_report(documents, "llama-demo", model=SEED_MODEL)
    assert order(report) == ["srt-llama-large", "srt-llama-small", "vllm-llama"]
    assert all(row["distance"] is None for row in report["rows"])


# --------------------------------------------------------------------------
# Section 14 — explain with No rows and the O8 messages
# --------------------------------------------------------------------------


def _section_14_1_documents() -> list[dict]:
    documents = seed_documents()
    model = by_name(documents, SEED_MODEL)
    model["metadata"]["namespace"] = "team-a"
    team = by_name(documents, "team-llama")
    team["metadata"]["namespace"] = "team-a"
    base_entry = team["spec"]["supportedModelFormats"][0]
    one_b = copy.deepcopy(base_entry) | {"autoSelect": False}
    no_auto = copy.deepcopy(base_entry)
    del no_auto["autoSelect"]
    return [model, team, by_name(documents, "vllm-llama"),
            csr("srt-llama-1b", [one_b], modelSizeRange={"min": "500M", "max": "2B"}),
            csr("vllm-base", [no_auto]),
            csr("vllm-legacy", [copy.deepcopy(base_entry)], disabled=True)]


def test_14_1_no_rows_reasons_E10_E14():
    """14.1: Yes rows ranked, then No rows by name with the first failed check's E14 reason."""
    report = ref.reference_report(_section_14_1_documents(), "team-a", model=SEED_MODEL)
    assert [(r["runtime"], r["compatible"], r["failedCheck"], r["reason"])
            for r in report["rows"]] == [
        ("team-llama", True, None, None),
        ("vllm-llama", True, None, None),
        ("srt-llama-1b", False, "Q6", "model size 3.21B is outside supported range [500M, 2B]"),
        ("vllm-base", False, "Q7", NO_AUTOSELECT),
        ("vllm-legacy", False, "Q2", "runtime is disabled"),
    ]
    for row in report["rows"][2:]:
        assert (row["rank"], row["score"], row["priority"], row["weight"], row["distance"]) == (
            None, None, None, None, None)


def test_14_1_every_failed_check_is_listed_in_reasons():
    """14.1 rows, `reasons`: Q2-Q8 each evaluated on its own (E14 strings); Q8 gives
    reason 8, not 7, when Q7 fails too (docs/decisions.md D-2)."""
    rows = {r["runtime"]: r["reasons"]
            for r in ref.reference_report(_section_14_1_documents(), "team-a",
                                          model=SEED_MODEL)["rows"]}
    assert rows["srt-llama-1b"] == [
        {"check": "Q6", "message": "model size 3.21B is outside supported range [500M, 2B]"},
        {"check": "Q7", "message": NO_AUTOSELECT},
        {"check": "Q8", "message": "auto-select score is 0"},
    ]
    # autoSelect absent still counts in S2 (score 2 > 0), so only the Q7 gate fails.
    assert rows["vllm-base"] == [{"check": "Q7", "message": NO_AUTOSELECT}]
    assert rows["vllm-legacy"] == [{"check": "Q2", "message": "runtime is disabled"}]


QWEN = {
    "modelFormat": {"name": "safetensors", "version": "1.0.0"},
    "modelArchitecture": "Qwen2ForCausalLM",
    "modelFramework": {"name": "transformers", "version": "4.40.1"},
}


def _section_14_2_documents() -> list[dict]:
    return [
        cluster_base_model("qwen2-5-7b", QWEN),
        csr("srt-mistral-7b-instruct", [entry(
            framework_version="4.36.0", modelArchitecture="MistralForCausalLM",
            autoSelect=True)]),
        csr("srt-qwen2-5-7b", [entry(
            framework_version="4.40.1", modelArchitecture="Qwen2ForCausalLM",
            autoSelect=False, priority=1)]),
        {"apiVersion": "ome.io/v1beta1", "kind": "InferenceService",
         "metadata": {"name": "qwen2-5-7b", "namespace": "demo"},
         "spec": {"model": {"name": "qwen2-5-7b"}, "engine": {}}},
    ]


MISTRAL_REASON = (
    "model format 'mt:safetensors:1.0.0:Qwen2ForCausalLM:transformers:4.40.1' not in supported "
    "formats: architecture mismatch (model=Qwen2ForCausalLM, runtime=MistralForCausalLM), "
    "framework version mismatch (model=4.40.1, runtime=4.36.0)")


def test_14_2_rows_and_no_runtime_message_O8_E15_E16():
    """14.2: Q5 and Q7 No rows; O8 lists only Q2-Q6 failures but counts every candidate."""
    expected_message = (
        "no runtime found to support model safetensors with format safetensors in namespace "
        "demo. Checked 2 runtimes (0 namespace-scoped, 2 cluster-scoped). Excluded runtimes: "
        f"srt-mistral-7b-instruct ({MISTRAL_REASON})")
    for query in ({"model": "qwen2-5-7b"}, {"isvc": "qwen2-5-7b"}):
        report = ref.reference_report(_section_14_2_documents(), "demo", **query)
        assert report["selected"] is None
        assert [(r["runtime"], r["failedCheck"], r["reason"]) for r in report["rows"]] == [
            ("srt-mistral-7b-instruct", "Q5", MISTRAL_REASON),
            ("srt-qwen2-5-7b", "Q7", NO_AUTOSELECT),
        ]
        assert report["message"] == expected_message


def test_14_3_deployment_mode_exclusion_D3_D5_O8():
    """14.3: OMENative requested via spec.deploymentMode excludes a MultiNode runtime."""
    model = {
        "modelFormat": {"name": "safetensors", "version": "1.0.0"},
        "modelFramework": {"name": "transformers", "version": "4.47.0.dev0"},
        "modelArchitecture": "LlamaForCausalLM",
        "modelParameterSize": "70.6B",
    }
    matching = entry(framework_version="4.47.0.dev0", modelArchitecture="LlamaForCausalLM")
    documents = [
        cluster_base_model("llama-3-3-70b-instruct", model),
        csr("srt-llama-3-3-70b-instruct-multinode",
            [matching | {"autoSelect": True, "priority": 2}],
            modelSizeRange={"min": "60B", "max": "75B"},
            engineConfig={"annotations": {"ome.io/deploymentMode": "MultiNode"}}),
        csr("srt-llama-other", [matching | {"autoSelect": False}]),
        {"apiVersion": "ome.io/v1beta1", "kind": "InferenceService",
         "metadata": {"name": "llama-3-70b", "namespace": "llama-demo"},
         "spec": {"model": {"name": "llama-3-3-70b-instruct"}, "engine": {},
                  "deploymentMode": "OMENative"}},
    ]
    report = ref.reference_report(documents, "llama-demo", isvc="llama-3-70b")
    assert report["message"] == (
        "no runtime found to support model safetensors with format safetensors in namespace "
        "llama-demo. Checked 2 runtimes (0 namespace-scoped, 2 cluster-scoped). Excluded "
        "runtimes: srt-llama-3-3-70b-instruct-multinode (runtime engine deployment mode "
        "MultiNode does not match requested engine deployment mode OMENative)")
    # D7: with --model the mode is not checked, and the runtime qualifies.
    report = ref.reference_report(documents, "llama-demo", model="llama-3-3-70b-instruct")
    assert report["selected"]["name"] == "srt-llama-3-3-70b-instruct-multinode"


def test_O8_examples_accelerator_and_no_runtimes_A3():
    """O8's two examples: an accelerator exclusion, and no candidates at all."""
    model = dict(SEED_SPEC, modelParameterSize="70.6B")
    isvc = {"apiVersion": "ome.io/v1beta1", "kind": "InferenceService",
            "metadata": {"name": "chat", "namespace": "llama-demo"},
            "spec": {"model": {"name": "m"}, "engine": {},
                     "acceleratorSelector": {"acceleratorClass": "nvidia-a100"}}}
    hopper = csr("llama-3-3-70b-hopper", [entry(modelArchitecture="LlamaForCausalLM",
                                                autoSelect=True)],
                 acceleratorRequirements={"acceleratorClasses": ["nvidia-h100"]})
    h100 = {"apiVersion": "ome.io/v1beta1", "kind": "AcceleratorClass",
            "metadata": {"name": "nvidia-h100"}}
    report = ref.reference_report([cluster_base_model("m", model), isvc, hopper, h100],
                                  "llama-demo", isvc="chat")
    assert report["message"] == (
        "no runtime found to support model safetensors with format safetensors in namespace "
        "llama-demo. Checked 1 runtimes (0 namespace-scoped, 1 cluster-scoped). Excluded "
        "runtimes: llama-3-3-70b-hopper (runtime does not support the required accelerator "
        "class)")
    report = ref.reference_report([cluster_base_model("m", model), isvc], "llama-demo",
                                  isvc="chat")
    assert report["rows"] == [] and report["selected"] is None
    assert report["message"] == ("no runtime found to support model safetensors with format "
                                 "safetensors in namespace llama-demo")


# --------------------------------------------------------------------------
# Q19 — which entries count (Q15-Q18)
# --------------------------------------------------------------------------

LLAMA = {"modelArchitecture": "LlamaForCausalLM"}
MISTRAL = {"modelArchitecture": "MistralForCausalLM"}
ONNX = dict(format_name="onnx", format_version=None, framework="onnxruntime",
            framework_version=None)

Q19_ROWS = [
    # (row, entries, verdict: (score, priority, weight) for Yes, (failedCheck, reason) for No)
    (1, [entry(**MISTRAL, autoSelect=True, priority=5),
         entry(**LLAMA, autoSelect=False, priority=1)], ("yes", 10, 1, 2)),
    (2, [entry(**LLAMA, priority=2), entry(**ONNX, autoSelect=True)], ("yes", 4, 2, 4)),
    (3, [entry(**LLAMA, autoSelect=False), entry(**ONNX, autoSelect=True)],
     ("no", "Q8", NOT_AUTOSELECT_ENABLED)),
    (4, [entry(**LLAMA, autoSelect=True, format_weight=-1, framework_weight=-1)],
     ("no", "Q8", "auto-select score is 0")),
    (5, [entry(**LLAMA)], ("no", "Q7", NO_AUTOSELECT)),
    (6, [entry(format_version=None, framework_version=None, **LLAMA, autoSelect=True,
               priority=10),
         entry(**LLAMA, autoSelect=False)], ("no", "Q8", NOT_AUTOSELECT_ENABLED)),
    (7, [entry(**LLAMA, autoSelect=True, format_weight=0)], ("yes", 11, 1, 1)),
    (8, [entry(**ONNX, autoSelect=True), entry(**MISTRAL, autoSelect=True)],
     ("no", "Q5",
      "model format 'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.45.0.dev0' not in "
      "supported formats: model has architecture LlamaForCausalLM but runtime has no "
      "architecture requirement, format name mismatch (model=safetensors, runtime=onnx), "
      "framework name mismatch (model=transformers, runtime=onnxruntime); architecture "
      "mismatch (model=LlamaForCausalLM, runtime=MistralForCausalLM)")),
]


@pytest.mark.parametrize("row, entries, verdict", Q19_ROWS, ids=[f"row{r[0]}" for r in Q19_ROWS])
def test_Q19_worked_table_Q15_Q16_Q17_Q18(row, entries, verdict):
    """Q19 rows 1-8: compatibility (Q5), gate (Q7), score (S2) and E9 use different entries."""
    documents = [cluster_base_model("m", SEED_SPEC), csr("rt", entries)]
    (result,) = ref.reference_report(documents, "ns", model="m")["rows"]
    if verdict[0] == "yes":
        assert result["compatible"] is True
        assert (result["score"], result["priority"], result["weight"]) == verdict[1:]
    else:
        assert result["compatible"] is False
        assert (result["failedCheck"], result["reason"]) == verdict[1:]


# --------------------------------------------------------------------------
# O7 — ordering
# --------------------------------------------------------------------------


def _o7_documents(size: str | None) -> list[dict]:
    spec = dict(SEED_SPEC)
    if size is None:
        del spec["modelParameterSize"]

    def runtime(name, priority, format_weight=1, **size_range):
        e = entry(**LLAMA, autoSelect=True, priority=priority, format_weight=format_weight)
        extra = {"modelSizeRange": size_range} if size_range else {}
        return csr(name, [e], **extra)

    return [
        cluster_base_model("m", spec),
        runtime("z-top", 4, min="1B", max="70B"),  # (1+1)x4 = 8
        runtime("b-open", 3),  # 6
        runtime("a-min2", 3, min="2B"),
        runtime("c-1to8", 3, min="1B", max="8B"),
        runtime("d-wide", 3, min="1B", max="70B"),
    ]


def test_O7_ordering_example_O2_O3_Z5():
    """O7: score first, then distance (one-bounded a-min2 beats c-1to8), then name."""
    report = ref.reference_report(_o7_documents("3.21B"), "ns", model="m")
    assert [(r["runtime"], r["score"], r["distance"]) for r in report["rows"]] == [
        ("z-top", 8, "69000000000"),
        ("b-open", 6, "0"),
        ("a-min2", 6, "1210000000"),
        ("c-1to8", 6, "7000000000"),
        ("d-wide", 6, "69000000000"),
    ]


def test_O7_without_model_size_orders_ties_by_name_O3_O4():
    """O7: with no model size the distance step is skipped."""
    report = ref.reference_report(_o7_documents(None), "ns", model="m")
    assert order(report) == ["z-top", "a-min2", "b-open", "c-1to8", "d-wide"]


def test_O4_name_order_is_by_code_point():
    """O4: `a-b` before `ab`, `runtime-a` before `runtime-b`."""
    e = entry(**LLAMA, autoSelect=True)
    documents = [cluster_base_model("m", SEED_SPEC)] + [
        csr(n, [copy.deepcopy(e)]) for n in ("ab", "runtime-b", "a-b", "runtime-a")]
    del documents[0]["spec"]["modelParameterSize"]
    assert order(ref.reference_report(documents, "ns", model="m")) == [
        "a-b", "ab", "runtime-a", "runtime-b"]


def test_E17_O6_same_name_in_both_kinds_gives_two_rows():
    """E17/O6: an SR and a CSR sharing a name are two candidates; the SR ranks first."""
    e = entry(**LLAMA, autoSelect=True)
    documents = [cluster_base_model("m", SEED_SPEC), csr("rt", [e])]
    documents.append(sr("rt", "ns", [copy.deepcopy(e)]))
    documents.append(sr("rt", "other", [copy.deepcopy(e)]))  # Q1: other namespaces never count
    report = ref.reference_report(documents, "ns", model="m")
    assert [(r["runtime"], r["scope"]) for r in report["rows"]] == [
        ("rt", "Namespaced"), ("rt", "Cluster")]


# --------------------------------------------------------------------------
# S3 / E9 — scores and explain columns
# --------------------------------------------------------------------------

S3_TABLE = [
    # (format weight, framework weight, priority; None = absent) -> entry score
    (None, None, None, 2),
    (None, None, 2, 4),
    (2, None, 2, 6),
    (10, 5, 2, 30),
    (0, None, 1, 11),
    (0, 0, 3, 45),
    (-3, 1, 1, -2),
]


def _weighted(format_weight, framework_weight, priority, **fields) -> dict:
    e = entry(**LLAMA, **fields)
    if format_weight is not None:
        e["modelFormat"]["weight"] = format_weight
    if framework_weight is not None:
        e["modelFramework"]["weight"] = framework_weight
    if priority is not None:
        e["priority"] = priority
    return e


@pytest.mark.parametrize("format_weight, framework_weight, priority, score", S3_TABLE)
def test_S3_entry_score_table_I3(format_weight, framework_weight, priority, score):
    """S3: (wf' + ww') x P, stored 0 counting 10 / 5, absent weight 1 (I3), absent priority 1."""
    assert ref.entry_score(stored(_weighted(format_weight, framework_weight, priority))) == score


def test_S1_runtime_floor_and_best_entry_S7():
    """S1: the runtime score is max(0, ...); S7: entries scoring 2 and 30 give 30."""
    negative = csr("r", [_weighted(-3, 1, 1, autoSelect=True)])
    assert ref.runtime_score(ref.apply_defaults(negative), SEED_SPEC) == 0
    best = csr("r", [_weighted(None, None, None), _weighted(10, 5, 2)])
    assert ref.runtime_score(ref.apply_defaults(best), SEED_SPEC) == 30


E9_TABLE = [
    # (first compatible entry, later entries, score, PRIORITY, WEIGHT)
    (_weighted(2, None, 2, autoSelect=True), [], 6, 2, 6),
    (_weighted(None, None, 3, autoSelect=True), [], 6, 3, 6),
    (_weighted(0, None, 1, autoSelect=True), [], 11, 1, 1),
    (_weighted(0, 0, 2, autoSelect=True), [], 30, 2, 0),
    (_weighted(None, None, 1, autoSelect=False),
     [_weighted(None, None, 5, autoSelect=True)], 10, 1, 2),
]


@pytest.mark.parametrize("first, later, score, priority, weight", E9_TABLE)
def test_E9_priority_weight_table_Q16(first, later, score, priority, weight):
    """E9: PRIORITY/WEIGHT from the first compatible entry, weights <= 0 left out."""
    documents = [cluster_base_model("m", SEED_SPEC), csr("rt", [first, *later])]
    (row,) = ref.reference_report(documents, "ns", model="m")["rows"]
    assert (row["score"], row["priority"], row["weight"]) == (score, priority, weight)


# --------------------------------------------------------------------------
# V — versions
# --------------------------------------------------------------------------

V1_PARSES = ["1", "v1.12", "0.6.0", "v0.8.0", "4.45.0.dev0", "4.51.3-SAM-HQ-preview",
             "4.43.0+build", "1.2.3.4", "1.2.3-rc.1", "1.2.3.dev0-rc1+b7"]
V1_REJECTS = ["", "V1.0.0", "vv1", " 1.0.0", "-1", "1.08.0", "01", "1.2.03", "1.2-beta", "1-rc",
              "1.0.0-", "1.0.0+", "1.2.3-a..b", "1.2.3.", "1.", "1..2",
              "18446744073709551616"]


@pytest.mark.parametrize("text", V1_PARSES)
def test_V1_grammar_accepts(text):
    """V1 table: strings that parse."""
    assert ref.parse_version(text) is not None


@pytest.mark.parametrize("text", V1_REJECTS)
def test_V1_grammar_rejects(text):
    """V1 table: strings that do not parse (and a number beyond 64 bits)."""
    assert ref.parse_version(text) is None


def test_V1_components():
    """V1 table notes: precision and the BUILD / PRE / DEV split."""
    v = ref.parse_version("1.2.3.dev0-rc1+b7")
    assert (v["build"], v["pre"], v["dev"], v["core"]) == (["b7"], ["rc1"], ["dev0"], (1, 2, 3))
    assert ref.parse_version("4.51.3-SAM-HQ-preview")["pre"] == ["SAM-HQ-preview"]
    assert ref.parse_version("1.2.3-rc.1")["pre"] == ["rc", "1"]
    assert ref.parse_version("1.2.3.4")["dev"] == ["4"]
    assert [ref.parse_version(t)["precision"] for t in ("1", "v1.12", "0.6.0")] == [1, 2, 3]


V10_TABLE = [
    ("1.0.0", "Equal", "1.0.0", True),
    ("1.0.0", None, "1.0", True),
    ("1", "Equal", "1.0.0", True),
    ("v1.0.0", "Equal", "1.0.0", True),
    ("1.8.0", "GreaterThan", "1.7.0", True),
    ("1.8.0", "GreaterThan", "1.8.0", False),
    ("1.8.0", "GreaterThan", "1.9.0", False),
    ("1.8.0", "GreaterThanOrEqual", "1.8.0", True),
    ("4.46.0", "GreaterThanOrEqual", "4.44.2", True),
    ("4.50.0", "GreaterThanOrEqual", "4.51.0", False),
    ("4.46.0", "GreaterThanOrEqual", "4.46", False),
    ("1.8", "GreaterThan", "1.7.0", False),
    ("v1.0.0", "GreaterThan", "0.9.0", False),
    ("v1.0.0", "GreaterThan", "v0.9.0", True),
    ("1.8.0-dev", "GreaterThan", "1.8.0-dev", True),
    ("1.8.0-beta", "GreaterThan", "1.8.0-alpha", False),
    ("4.45.0.dev0", "GreaterThanOrEqual", "4.44.0", False),
    ("4.50.0", "GreaterThanOrEqual", "4.45.0.dev0", False),
    ("4.45.0.dev0", "Equal", "4.45.0.dev0", True),
    ("1.0.0+b1", "Equal", "1.0.0+b2", False),
    ("1.0.0", "LessThan", "1.0.0", True),
    ("2.0.0", "LessThan", "1.0.0", False),
    ("1.0.0", "equal", "1.0", False),
    ("1.08.0", "Equal", "1.08.0", False),
]


@pytest.mark.parametrize("entry_version, operator, model_version, match", V10_TABLE)
def test_V10_worked_table_V2_to_V9(entry_version, operator, model_version, match):
    """V10: entry-version OP model-version; operator absent defaults to Equal (I3)."""
    e = entry(format_version=entry_version, **LLAMA)
    if operator is not None:
        e["modelFormat"]["operator"] = operator
    e = stored(e)
    assert ref.versions_match(entry_version, e["modelFormat"]["operator"], model_version) is match
    model = dict(SEED_SPEC, modelFormat={"name": "safetensors", "version": model_version})
    assert (ref.format_reason(e, model) is None) is match  # Q13 uses the V-rules


def test_Q13_one_sided_versions_fail():
    """Q13: a version on one side only never matches (E15 wording)."""
    model = dict(SEED_SPEC, modelFormat={"name": "safetensors"})
    assert ref.format_reason(stored(entry()), model) == (
        "model has no format version but runtime requires 1.0.0")
    assert ref.format_reason(stored(entry(format_version=None)), SEED_SPEC) == (
        "model has format version but runtime has no version requirement")


# --------------------------------------------------------------------------
# Z — sizes
# --------------------------------------------------------------------------

Z1_TABLE = [("3.21B", 3_210_000_000), ("0.5B", 500_000_000), ("500M", 500_000_000),
            (".5B", 500_000_000), ("1500M", 1_500_000_000), ("1.5T", 1_500_000_000_000),
            ("999", 999), ("5.B", 5_000_000_000), ("4b", 0)]
Z2_ZEROS = ["7b", "4b", "7k", "7GB", "7BB", " 7B", "7B ", "1,5B", "B", "", "-5B", "+5B", "1e3B",
            "NaN", "Inf", "1_000B", "0x10", "7B\n"]


@pytest.mark.parametrize("text, count", Z1_TABLE)
def test_Z1_size_counts(text, count):
    """Z1 table: exact counts."""
    assert ref.size_count(text) == count


@pytest.mark.parametrize("text", Z2_ZEROS)
def test_Z2_unparseable_sizes_read_as_zero(text):
    """Z2: anything Z1 rejects reads as 0."""
    assert ref.size_count(text) == 0


Z3_TABLE = [
    ("2B", "4B", "3.21B", True),
    ("2B", "4B", "4B", True),
    ("500M", "2B", "3.21B", False),
    ("1B", "4B", "1500M", True),
    ("70B", None, "405B", True),
    (None, "13B", "3.21B", True),
    ("2B", "4B", None, True),
    ("2B", "4b", "3.21B", False),
    ("2b", "4B", "1M", True),
    ("8B", "1B", "3.21B", False),
    (None, None, "3.21B", True),
]


def _ranged(low, high) -> dict:
    size_range = {k: v for k, v in (("min", low), ("max", high)) if v is not None}
    return csr("rt", [entry()], modelSizeRange=size_range)


@pytest.mark.parametrize("low, high, size, passes", Z3_TABLE)
def test_Z3_range_table(low, high, size, passes):
    """Z3: inclusive bounds, absent bound = no limit, min > max rejects all, {} passes."""
    model = {k: v for k, v in SEED_SPEC.items() if k != "modelParameterSize"}
    if size is not None:
        model["modelParameterSize"] = size
    assert (ref.size_reason(_ranged(low, high), model) is None) is passes


def test_Z3_runtime_without_range_passes():
    """Z3: a runtime without modelSizeRange passes every model."""
    assert ref.size_reason(csr("rt", [entry()]), SEED_SPEC) is None


@pytest.mark.parametrize("low, high, size, reason", [
    ("500M", "2B", "3.21B", "model size 3.21B is outside supported range [500M, 2B]"),
    ("70B", None, "13B", "model size 13B is outside supported range [70B, inf)"),
    (None, "70B", "405B", "model size 405B is outside supported range (-inf, 70B]"),
])
def test_Z4_size_reasons(low, high, size, reason):
    """Z4: strings as written; (-inf / inf) for absent bounds."""
    assert ref.size_reason(_ranged(low, high), dict(SEED_SPEC, modelParameterSize=size)) == reason


@pytest.mark.parametrize("size, size_range, distance", [
    ("3.21B", None, "0"),
    ("3.21B", {"min": "1B", "max": "8B"}, "7000000000"),
    ("3.21B", {"min": "1B", "max": "70B"}, "69000000000"),
    ("3.21B", {"min": "2B"}, "1210000000"),
    ("3.21B", {"max": "13B"}, "9790000000"),
    ("405B", {"min": "70B"}, "335000000000"),
    ("3.21B", {}, "0"),
    ("0.5", {"min": "2", "max": "3"}, "4"),
    ("2.5", {"min": "0"}, "2.5"),
])
def test_Z5_distance_table(size, size_range, distance):
    """Z5: sum over set bounds of |bound - size|, exact; rendered as a plain decimal string."""
    runtime = csr("rt", [entry()], **({"modelSizeRange": size_range} if size_range is not None
                                      else {}))
    value = ref.size_distance(runtime, dict(SEED_SPEC, modelParameterSize=size))
    assert ref.decimal_string(value) == distance


def test_Z5_no_distance_without_model_size():
    """Z5: distance is defined only for a model with modelParameterSize."""
    model = {k: v for k, v in SEED_SPEC.items() if k != "modelParameterSize"}
    assert ref.size_distance(_ranged("1B", "8B"), model) is None


# --------------------------------------------------------------------------
# A — accelerator class; D — deployment mode
# --------------------------------------------------------------------------


def _isvc(spec: dict | None = None, annotations: dict | None = None) -> dict:
    metadata = {"name": "chat", "namespace": "ns"}
    if annotations is not None:
        metadata["annotations"] = annotations
    return {"apiVersion": "ome.io/v1beta1", "kind": "InferenceService", "metadata": metadata,
            "spec": {"model": {"name": "m"}, **(spec or {})}}


H100_H200 = ["nvidia-h100", "nvidia-h200"]
A_TABLE = [
    ("nothing", _isvc(), None, True),
    ("nothing", _isvc(), H100_H200, True),
    ("h100", _isvc({"acceleratorSelector": {"acceleratorClass": "nvidia-h100"}}), H100_H200,
     True),
    ("h100, none", _isvc({"acceleratorSelector": {"acceleratorClass": "nvidia-h100"}}), None,
     False),
    ("h100, []", _isvc({"acceleratorSelector": {"acceleratorClass": "nvidia-h100"}}), [],
     False),
    ("a100", _isvc({"acceleratorSelector": {"acceleratorClass": "nvidia-a100"}}), H100_H200,
     False),
    ("engine h100 decoder h200",
     _isvc({"engine": {"acceleratorOverride": {"acceleratorClass": "nvidia-h100"}},
            "decoder": {"acceleratorOverride": {"acceleratorClass": "nvidia-h200"}}}),
     H100_H200, True),
    ("engine h100 decoder a100",
     _isvc({"engine": {"acceleratorOverride": {"acceleratorClass": "nvidia-h100"}},
            "decoder": {"acceleratorOverride": {"acceleratorClass": "nvidia-a100"}}}),
     H100_H200, False),
    ("annotation empty", _isvc(annotations={"ome.io/accelerator-class": ""}), ["nvidia-h100"],
     False),
    ("annotation h100", _isvc(annotations={"ome.io/accelerator-class": "nvidia-h100"}),
     ["nvidia-h100"], True),
]


@pytest.mark.parametrize("label, isvc, listed, passes", A_TABLE, ids=[r[0] for r in A_TABLE])
def test_A_table_A1_to_A4(label, isvc, listed, passes):
    """A-rules table: the runtime must list every requested class (pooled, A1)."""
    extra = {} if listed is None else {"acceleratorRequirements": {"acceleratorClasses": listed}}
    reason = ref.accelerator_reason(isvc, csr("rt", [entry()], **extra))
    assert (reason is None) is passes
    if not passes:
        assert reason == "runtime does not support the required accelerator class"


def _runtime_modes(engine: str | None = None, decoder: str | None = None) -> dict:
    extra = {}
    if engine is not None:
        extra["engineConfig"] = {"annotations": {"ome.io/deploymentMode": engine}}
    if decoder is not None:
        extra["decoderConfig"] = {"annotations": {"ome.io/deploymentMode": decoder}}
    return csr("rt", [entry()], **extra)


def _mode_annotation(mode: str) -> dict:
    return {"annotations": {"ome.io/deploymentMode": mode}}


D9_TABLE = [
    ("nothing vs MultiNode", _isvc({"engine": {}}), _runtime_modes("MultiNode"), None),
    ("OMENative vs nothing", _isvc({"engine": {}, "deploymentMode": "OMENative"}),
     _runtime_modes(), None),
    ("OMENative vs OMENative", _isvc({"engine": {}, "deploymentMode": "OMENative"}),
     _runtime_modes("OMENative"), None),
    ("OMENative vs MultiNode", _isvc({"engine": {}, "deploymentMode": "OMENative"}),
     _runtime_modes("MultiNode"),
     "runtime engine deployment mode MultiNode does not match requested engine deployment "
     "mode OMENative"),
    ("RawDeployment vs OMENative", _isvc({"engine": {}, "deploymentMode": "RawDeployment"}),
     _runtime_modes("OMENative"),
     "runtime engine deployment mode OMENative does not match requested engine deployment "
     "mode RawDeployment"),
    ("annotation wins", _isvc({"engine": _mode_annotation("MultiNode"),
                               "deploymentMode": "RawDeployment"}),
     _runtime_modes("MultiNode"), None),
    ("empty annotation", _isvc({"engine": _mode_annotation("")}), _runtime_modes("MultiNode"),
     None),
    ("invalid annotation", _isvc({"engine": _mode_annotation("InvalidMode")}),
     _runtime_modes("MultiNode"), None),
    ("no decoder requested", _isvc({"engine": {}, "deploymentMode": "RawDeployment"}),
     _runtime_modes(decoder="MultiNode"), None),
    ("metadata annotation ignored",
     _isvc({"engine": {}}, annotations={"ome.io/deploymentMode": "MultiNode"}),
     _runtime_modes("RawDeployment"), None),
    ("decoder mismatch",
     _isvc({"engine": _mode_annotation("MultiNode"), "decoder": _mode_annotation("MultiNode")}),
     _runtime_modes("MultiNode", "RawDeployment"),
     "runtime decoder deployment mode RawDeployment does not match requested decoder "
     "deployment mode MultiNode"),
    # D3 / OQ-10: an invalid annotation falls back to spec.deploymentMode; no spec.engine needed.
    ("invalid annotation falls back", _isvc({"engine": _mode_annotation("multinode"),
                                             "deploymentMode": "OMENative"}),
     _runtime_modes("MultiNode"),
     "runtime engine deployment mode MultiNode does not match requested engine deployment "
     "mode OMENative"),
    ("no spec.engine", _isvc({"deploymentMode": "OMENative"}), _runtime_modes("MultiNode"),
     "runtime engine deployment mode MultiNode does not match requested engine deployment "
     "mode OMENative"),
    ("invalid runtime mode", _isvc({"deploymentMode": "OMENative"}),
     _runtime_modes("Multinode"), None),
]


@pytest.mark.parametrize("label, isvc, runtime, reason", D9_TABLE, ids=[r[0] for r in D9_TABLE])
def test_D9_table_D1_to_D5(label, isvc, runtime, reason):
    """D9 examples (plus OQ-10 cases): modes compared per component, engine first."""
    assert ref.deployment_mode_reason(isvc, runtime) == reason


def test_D4_engine_reported_before_decoder():
    """D4: when both components mismatch, the engine gives the reason."""
    isvc = _isvc({"engine": _mode_annotation("OMENative"),
                  "decoder": _mode_annotation("OMENative")})
    assert ref.deployment_mode_reason(isvc, _runtime_modes("MultiNode", "MultiNode")).startswith(
        "runtime engine deployment mode MultiNode")


# --------------------------------------------------------------------------
# W — admission
# --------------------------------------------------------------------------

W4_TABLE = [
    ([("vllm", 1), ("vllm", 2)], "different priorities assigned for the model format vllm "
                                 "under the servingruntime rt"),
    ([("vllm", 1), ("vllm", 1)], None),
    ([("vllm", 1), ("VLLM", 2)], None),
    ([(None, 1), (None, 2)], "different priorities assigned for the model format  under the "
                             "servingruntime rt"),
    ([("vllm", None), ("vllm", 2)], None),
    ([("vllm", 1), ("vllm", None), ("vllm", 2)], "different priorities assigned for the model "
                                                 "format vllm under the servingruntime rt"),
]


def _named_entries(pairs) -> list[dict]:
    result = []
    for name, priority in pairs:
        e = entry(autoSelect=True)
        if name is not None:
            e["name"] = name
        if priority is not None:
            e["priority"] = priority
        result.append(e)
    return result


@pytest.mark.parametrize("pairs, denial", W4_TABLE)
def test_W4_table(pairs, denial):
    """W4: only autoSelect: true entries that set priority compare, grouped by exact name."""
    runtime = ref.apply_defaults(sr("rt", "ns", _named_entries(pairs)))
    assert ref.admission_denial(runtime, set()) == denial


def test_W4_autoselect_false_entries_do_not_compare_and_cluster_message():
    """W4 table last row; and the clusterservingruntime wording."""
    entries = _named_entries([("vllm", 1), ("vllm", 2)])
    entries[1]["autoSelect"] = False
    assert ref.admission_denial(ref.apply_defaults(csr("rt", entries)), set()) is None
    entries[1]["autoSelect"] = True
    assert ref.admission_denial(ref.apply_defaults(csr("rt", entries)), set()) == (
        "different priorities assigned for the model format vllm under the "
        "clusterservingruntime rt")


def test_W4_message_names_the_first_conflicting_group():
    """W4: with several conflicting groups, the first entry that differs decides."""
    entries = _named_entries([("b", 1), ("a", 1), ("a", 2), ("b", 2)])
    assert "model format a under" in ref.admission_denial(
        ref.apply_defaults(csr("rt", entries)), set())


def test_W3_unknown_classes_then_W2_and_I9():
    """W3 message (list order), W2 (disabled skips W3-W4), I9 (denied runtimes do not exist)."""
    classes = {"acceleratorRequirements": {"acceleratorClasses":
                                           ["nvidia-h100", "known", "nvidia-h200"]}}
    runtime = ref.apply_defaults(csr("rt", [entry(**LLAMA, autoSelect=True)], **classes))
    assert ref.admission_denial(runtime, {"known"}) == (
        "unknown accelerator classes referenced in AcceleratorRequirements: "
        "[nvidia-h100 nvidia-h200]")
    runtime["spec"]["disabled"] = True
    assert ref.admission_denial(runtime, set()) is None
    documents = [cluster_base_model("m", SEED_SPEC),
                 csr("rt", [entry(**LLAMA, autoSelect=True)], **classes)]
    (denied, message), = ref.Cluster(documents).denied
    assert denied["metadata"]["name"] == "rt" and message.startswith("unknown accelerator")
    report = ref.reference_report(documents, "ns", model="m")
    assert report["rows"] == []
    assert report["message"] == ("no runtime found to support model safetensors with format "
                                 "safetensors in namespace ns")


# --------------------------------------------------------------------------
# E15 / E16 / Q20-Q24 — reasons and labels
# --------------------------------------------------------------------------


def test_E15_example_reason():
    """E15's example: every piece of every entry, entries joined by '; '."""
    entries = [
        entry(format_name="gguf", format_version=None, modelArchitecture="MistralForCausalLM",
              quantization="fp8", autoSelect=True),
        entry(format_version=None, framework_version="4.46.0", modelArchitecture=(
            "LlamaForCausalLM"), autoSelect=True),
    ]
    entries[1]["modelFramework"]["operator"] = "GreaterThanOrEqual"
    documents = [cluster_base_model("m", SEED_SPEC), csr("rt", entries)]
    (row,) = ref.reference_report(documents, "ns", model="m")["rows"]
    assert row["reason"] == (
        "model format 'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.45.0.dev0' not in "
        "supported formats: architecture mismatch (model=LlamaForCausalLM, "
        "runtime=MistralForCausalLM), model has no quantization but runtime requires fp8, format "
        "name mismatch (model=safetensors, runtime=gguf); model has format version but runtime "
        "has no version requirement, framework version mismatch (model=4.45.0.dev0, "
        "runtime=4.46.0)")


def test_E14_no_supported_formats_and_framework_less_model_I7():
    """E14 reason 4 with no entries; Q14/I7: a model without framework matches nothing."""
    documents = [cluster_base_model("m", {"modelFormat": {"name": "pytorch"}}),
                 csr("empty", []), csr("rt", [entry(format_name="pytorch", format_version=None,
                                                    autoSelect=True)])]
    rows = ref.reference_report(documents, "ns", model="m")["rows"]
    assert [(r["runtime"], r["reason"]) for r in rows] == [
        ("empty", "model format 'mt:pytorch' not in supported formats: no supported formats "
                  "defined"),
        ("rt", "model format 'mt:pytorch' not in supported formats: model has no framework but "
               "runtime requires transformers"),
    ]
    assert [r["check"] for r in rows[0]["reasons"]] == ["Q5", "Q7", "Q8"]
    assert rows[0]["reasons"][2]["message"] == "auto-select score is 0"


@pytest.mark.parametrize("spec, label", [
    ({"modelFormat": {"name": "pytorch"}}, "mt:pytorch"),
    ({"modelFormat": {"name": "tensorflow", "version": "2.0.0"}}, "mt:tensorflow:2.0.0"),
    ({"modelFormat": {"name": "pytorch", "version": "1.0.0"}, "modelArchitecture": "transformer",
      "quantization": "fp16", "modelFramework": {"name": "transformers", "version": "4.0.0"}},
     "mt:pytorch:1.0.0:transformer:fp16:transformers:4.0.0"),
    ({"modelFormat": {"name": "safetensors", "version": "1.0.0"},
      "modelArchitecture": "LlamaForCausalLM",
      "modelFramework": {"name": "transformers", "version": "4.46.0"}},
     "mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.46.0"),
])
def test_E16_model_labels(spec, label):
    """E16 examples."""
    assert ref.model_label(spec) == label


FLUX_MODEL = {"className": "FluxPipeline",
              "transformer": {"library": "diffusers", "type": "FluxTransformer2DModel"},
              "additionalComponents": {"image_encoder": {"library": "transformers"}}}


@pytest.mark.parametrize("model_pipeline, entry_pipeline, reason", [
    (None, None, None),
    (FLUX_MODEL, None, None),
    (None, {}, "diffusion pipeline required by runtime but not specified in model"),
    (FLUX_MODEL, {}, None),
    (FLUX_MODEL, {"className": "StableDiffusionPipeline"},
     "pipeline class mismatch (model=FluxPipeline, runtime=StableDiffusionPipeline)"),
    ({"vae": {}}, {"className": "FluxPipeline"},
     "pipeline class mismatch (model=<nil>, runtime=FluxPipeline)"),
    (FLUX_MODEL, {"vae": {}}, "component vae required by runtime but not specified in model"),
    (FLUX_MODEL, {"transformer": {"library": "", "type": ""}}, None),
    (FLUX_MODEL, {"transformer": {"library": "other"}},
     "transformer library mismatch (model=diffusers, runtime=other)"),
    (FLUX_MODEL, {"transformer": {"type": "X"}},
     "transformer type mismatch (model=FluxTransformer2DModel, runtime=X)"),
    ({"vae": {}}, {"vae": {"library": "diffusers"}},
     "vae library mismatch (model=, runtime=diffusers)"),
    ({"vae": {}}, {"additionalComponents": {"a": {}}},
     "diffusion pipeline missing required additional components"),
    (FLUX_MODEL, {"additionalComponents": {"b": {}, "a": {}}},
     "diffusion component a missing in model"),
    (FLUX_MODEL, {"additionalComponents": {"image_encoder": {"library": "diffusers"}}},
     "image_encoder library mismatch (model=transformers, runtime=diffusers)"),
    (FLUX_MODEL, {"className": "Other", "vae": {}},
     "pipeline class mismatch (model=FluxPipeline, runtime=Other)"),
])
def test_Q20_to_Q24_diffusion_pipeline(model_pipeline, entry_pipeline, reason):
    """Q20-Q24: presence, class, named components, additional components; first mismatch only."""
    model = dict(SEED_SPEC)
    if model_pipeline is not None:
        model["diffusionPipeline"] = model_pipeline
    e = entry(**LLAMA)
    if entry_pipeline is not None:
        e["diffusionPipeline"] = entry_pipeline
    assert ref.pipeline_reason(e, model) == reason


def test_Q11_Q12_one_sided_values():
    """Q11/Q12 examples: one-sided architecture or quantization fails."""
    e = stored(entry(quantization="fp8"))
    assert ref.entry_mismatches(e, SEED_SPEC) == [
        "model has architecture LlamaForCausalLM but runtime has no architecture requirement",
        "model has no quantization but runtime requires fp8",
    ]


# --------------------------------------------------------------------------
# M, E4, I — lookup, errors, inputs
# --------------------------------------------------------------------------


def test_M1_namespace_base_model_wins_whatever_the_kind():
    """M1 example: BaseModel m in ns1 wins in ns1; ns2 gets the ClusterBaseModel."""
    namespaced = {"apiVersion": "ome.io/v1beta1", "kind": "BaseModel",
                  "metadata": {"name": "m", "namespace": "ns1"},
                  "spec": {"modelFormat": {"name": "onnx"}}}
    cluster_model = cluster_base_model("m", {"modelFormat": {"name": "safetensors"}})
    isvcs = [{"apiVersion": "ome.io/v1beta1", "kind": "InferenceService",
              "metadata": {"name": "chat", "namespace": ns},
              "spec": {"model": {"name": "m", "kind": "ClusterBaseModel"}}}
             for ns in ("ns1", "ns2")]
    documents = [namespaced, cluster_model, *isvcs]
    assert "model onnx" in ref.reference_report(documents, "ns1", isvc="chat")["message"]
    assert "model safetensors" in ref.reference_report(documents, "ns2", isvc="chat")["message"]


def test_E4_target_errors_M4():
    """E4: model / ISVC not found, ISVC without spec.model, model without a format name."""
    model = cluster_base_model("m", SEED_SPEC)
    no_format = cluster_base_model("nf", {"modelFormat": {"name": ""}})
    runtime_only = {"apiVersion": "ome.io/v1beta1", "kind": "InferenceService",
                    "metadata": {"name": "pinned", "namespace": "ns"},
                    "spec": {"runtime": {"name": "rt"}}}
    missing_model = {"apiVersion": "ome.io/v1beta1", "kind": "InferenceService",
                     "metadata": {"name": "lost", "namespace": "ns"},
                     "spec": {"model": {"name": "gone"}}}
    documents = [model, no_format, runtime_only, missing_model]
    assert ref.reference_report(documents, "ns", model="x") == {
        "error": 'clusterbasemodels.ome.io "x" not found'}
    assert ref.reference_report(documents, "ns", isvc="x") == {
        "error": 'inferenceservices.ome.io "x" not found'}
    assert ref.reference_report(documents, "ns", isvc="pinned") == {
        "error": 'InferenceService "pinned" has no spec.model; pass --model instead'}
    assert ref.reference_report(documents, "ns", isvc="lost") == {
        "error": 'clusterbasemodels.ome.io "gone" not found'}
    assert ref.reference_report(documents, "ns", model="nf") == {
        "error": "invalid model specification: modelFormat.name: model format name is required"}


def test_I1_default_namespace_and_M3_disabled_model_ignored():
    """I1: no namespace means `default`; M3/OQ-17: explain ignores a disabled model."""
    documents = seed_documents()
    for d in documents:
        d["metadata"].pop("namespace", None)
    by_name(documents, SEED_MODEL)["spec"]["disabled"] = True
    report = ref.reference_report(documents, "default", isvc="llama-chat")
    assert report["selected"] == {"kind": "ServingRuntime", "namespace": "default",
                                  "name": "team-llama"}


def test_I10_document_order_does_not_matter():
    """I10: the report never depends on document order."""
    documents = _section_14_1_documents()
    assert (ref.reference_report(documents, "team-a", model=SEED_MODEL)
            == ref.reference_report(documents[::-1], "team-a", model=SEED_MODEL))


# --------------------------------------------------------------------------
# The strategies produce valid input the model accepts
# --------------------------------------------------------------------------


def _check_I4(document: dict) -> None:
    assert document["apiVersion"] == "ome.io/v1beta1"
    spec = document.get("spec", {})
    for e in spec.get("supportedModelFormats", []):
        assert e["modelFormat"]["name"] and e["modelFramework"]["name"]
        assert e.get("priority", 1) >= 1
        for part in ("modelFormat", "modelFramework"):
            assert -2**63 <= e[part].get("weight", 1) < 2**63
            assert all(isinstance(e[part][k], str) for k in ("name", "version", "operator")
                       if k in e[part])
    if document["kind"] == "InferenceService":
        assert spec.get("deploymentMode", "OMENative") in ("OMENative", "RawDeployment")
        assert "engine" in spec or "decoder" not in spec
        assert "model" in spec or "runtime" in spec


@settings(max_examples=200, deadline=None)
@given(strategies.clusters())
def test_strategies_produce_valid_clusters_the_model_accepts(cluster):
    """clusters(): I4-valid, unique keys, YAML round-trips, and the model returns a report."""
    documents, query = cluster
    keys = [strategies.document_key(d) for d in documents]
    assert len(keys) == len(set(keys))
    for document in documents:
        _check_I4(document)
    assert list(yaml.safe_load_all(yaml.safe_dump_all(documents))) == documents
    report = ref.reference_report(documents, **query)
    if "error" not in report:
        assert report["query"]["namespace"] == query["namespace"]
        ranks = [r["rank"] for r in report["rows"] if r["compatible"]]
        assert ranks == list(range(1, len(ranks) + 1))
        assert (report["selected"] is None) == (report["message"] is not None)
        for row in report["rows"]:
            assert row["compatible"] == (row["reasons"] == [])
