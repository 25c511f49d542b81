"""`ome-asp admit`: the runtime admission webhook (W1-W6) on every runtime of
the manifests, in I10's canonical order, against the other objects given (I9);
output forms and exit codes."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import FIXTURES, run_cli

WORKED = str(FIXTURES / "worked-example")


def entry(name: str | None = None, auto_select: bool | None = True, priority: int | None = None, fmt: str = "vllm") -> dict:
    e = {"modelFormat": {"name": fmt}, "modelFramework": {"name": "transformers"}}
    if name is not None:
        e["name"] = name
    if auto_select is not None:
        e["autoSelect"] = auto_select
    if priority is not None:
        e["priority"] = priority
    return e


def runtime(name: str = "rt", namespace: str | None = "ns", entries=(), **spec) -> dict:
    metadata = {"name": name} if namespace is None else {"name": name, "namespace": namespace}
    kind = "ServingRuntime" if namespace is not None else "ClusterServingRuntime"
    spec["supportedModelFormats"] = list(entries) or [entry()]
    return {"apiVersion": "ome.io/v1beta1", "kind": kind, "metadata": metadata, "spec": spec}


def accelerator_class(name: str) -> dict:
    return {"apiVersion": "ome.io/v1beta1", "kind": "AcceleratorClass", "metadata": {"name": name}}


def write(tmp_path, *documents: dict) -> str:
    path = tmp_path / "manifests.yaml"
    path.write_text(yaml.safe_dump_all(documents, sort_keys=False))
    return str(path)


def admit(*argv: str):
    return run_cli("admit", *argv)


def verdict_line(tmp_path, *documents: dict) -> str:
    """The one runtime's line."""
    result = admit("-f", write(tmp_path, *documents))
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and result.code == (1 if "DENIED" in lines[0] else 0), result
    return lines[0]


# --- W4: the spec's table, row by row ----------------------------------------------------


@pytest.mark.parametrize(
    "entries, denied_group",
    [
        pytest.param([entry("vllm", priority=1), entry("vllm", priority=2)], "vllm", id="W4-same-name-different-priorities"),
        pytest.param([entry("vllm", priority=1), entry("vllm", priority=1)], None, id="W4-same-priority"),
        pytest.param([entry("vllm", priority=1), entry("VLLM", priority=2)], None, id="W4-names-differ"),
        pytest.param([entry(None, priority=1), entry(None, priority=2)], "", id="W4-absent-names-group-empty"),
        pytest.param([entry("vllm"), entry("vllm", priority=2)], None, id="W4-only-set-priorities-compare"),
        pytest.param([entry("vllm", priority=1), entry("vllm"), entry("vllm", priority=2)], "vllm", id="W4-absent-between"),
        pytest.param([entry("vllm", priority=1), entry("vllm", auto_select=False, priority=2)], None, id="W4-auto-select-false"),
    ],
)
def test_W4_table(tmp_path, entries, denied_group):
    line = verdict_line(tmp_path, runtime(entries=entries))
    if denied_group is None:
        assert line == "ServingRuntime ns/rt: ALLOWED"
    else:
        assert line == (
            "ServingRuntime ns/rt: DENIED: different priorities assigned for the model format "
            f"{denied_group} under the servingruntime rt"
        )


def test_W4_empty_group_gives_two_spaces(tmp_path):
    line = verdict_line(tmp_path, runtime(entries=[entry(None, priority=1), entry(None, priority=2)]))
    assert "model format  under the servingruntime rt" in line


def test_W4_cluster_runtime_message(tmp_path):
    line = verdict_line(tmp_path, runtime(namespace=None, entries=[entry("a", priority=1), entry("a", priority=3)]))
    assert line == (
        "ClusterServingRuntime rt: DENIED: different priorities assigned for the model format a "
        "under the clusterservingruntime rt"
    )


def test_W4_first_conflicting_entry_in_list_order_names_the_group(tmp_path):
    entries = [entry("b", priority=1), entry("a", priority=1), entry("a", priority=2), entry("b", priority=2)]
    assert verdict_line(tmp_path, runtime(entries=entries)).endswith("model format a under the servingruntime rt")


# --- W3 ----------------------------------------------------------------------------------


def test_W3_missing_classes_in_list_order(tmp_path):
    """W3's example: the missing names, single spaces, list order."""
    documents = (
        accelerator_class("nvidia-a100"),
        runtime(acceleratorRequirements={"acceleratorClasses": ["nvidia-h200", "nvidia-a100", "nvidia-h100"]}),
    )
    assert verdict_line(tmp_path, *documents) == (
        "ServingRuntime ns/rt: DENIED: unknown accelerator classes referenced in AcceleratorRequirements: "
        "[nvidia-h200 nvidia-h100]"
    )


def test_W3_existing_classes_are_allowed(tmp_path):
    documents = (accelerator_class("gpu"), runtime(acceleratorRequirements={"acceleratorClasses": ["gpu"]}))
    assert verdict_line(tmp_path, *documents) == "ServingRuntime ns/rt: ALLOWED"


def test_W3_before_W4(tmp_path):
    documents = (runtime(entries=[entry("a", priority=1), entry("a", priority=2)], acceleratorRequirements={"acceleratorClasses": ["x"]}),)
    assert verdict_line(tmp_path, *documents).endswith("DENIED: unknown accelerator classes referenced in AcceleratorRequirements: [x]")


def test_W2_disabled_runtime_skips_W3_and_W4(tmp_path):
    documents = (runtime(disabled=True, entries=[entry("a", priority=1), entry("a", priority=2)],
                         acceleratorRequirements={"acceleratorClasses": ["x"]}),)
    assert verdict_line(tmp_path, *documents) == "ServingRuntime ns/rt: ALLOWED"


def test_W5_no_cross_runtime_priority_check(tmp_path):
    documents = (runtime("a", entries=[entry("vllm", priority=1)]), runtime("b", entries=[entry("vllm", priority=1)]),
                 runtime("c", None, entries=[entry("vllm", priority=2)]))
    result = admit("-f", write(tmp_path, *documents))
    assert result.code == 0 and result.stdout.endswith("3 runtimes: 3 allowed, 0 denied\n")


def test_W6_other_webhook_checks_are_outside_the_spec(tmp_path):
    """Whatever else a runtime sets (containers, a bogus protocol version) is not checked."""
    documents = (runtime(containers=[{"name": "x"}], protocolVersions=["nonsense"], engineConfig={"minReplicas": -1}),)
    assert verdict_line(tmp_path, *documents) == "ServingRuntime ns/rt: ALLOWED"


# --- W1, I9, I10: every runtime, canonical order, summary ----------------------------------


def test_W1_I10_every_runtime_in_canonical_order(tmp_path):
    """Documents in any order; lines by (kind, namespace, name); the summary counts them."""
    bad = [entry("x", priority=1), entry("x", priority=2)]
    documents = (
        runtime("z", "b"), runtime("a", "b", entries=bad), runtime("y", None), runtime("m", "a"), runtime("b", None, entries=bad),
    )
    result = admit("-f", write(tmp_path, *documents))
    assert result.code == 1 and result.stderr == ""
    assert result.stdout == (
        "ClusterServingRuntime b: DENIED: different priorities assigned for the model format x under the clusterservingruntime b\n"
        "ClusterServingRuntime y: ALLOWED\n"
        "ServingRuntime a/m: ALLOWED\n"
        "ServingRuntime b/a: DENIED: different priorities assigned for the model format x under the servingruntime a\n"
        "ServingRuntime b/z: ALLOWED\n"
        "5 runtimes: 3 allowed, 2 denied\n"
    )


def test_I9_admit_denies_exactly_what_explain_warns_about(tmp_path):
    documents = (
        {"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": {"name": "m"},
         "spec": {"modelFormat": {"name": "vllm"}, "modelFramework": {"name": "transformers"}}},
        runtime("ok"), runtime("bad", acceleratorRequirements={"acceleratorClasses": ["nope"]}),
    )
    path = write(tmp_path, *documents)
    explained = run_cli("explain", "--model", "m", "-n", "ns", "-f", path)
    warned = [line.split(" would be denied by admission: ") for line in explained.stderr.splitlines()]
    denied = [line.split(": DENIED: ") for line in admit("-f", path).stdout.splitlines() if ": DENIED: " in line]
    assert [[w[0].removeprefix("warning: "), w[1]] for w in warned] == denied != []


def test_worked_example_is_all_allowed():
    result = admit("-f", WORKED)
    assert result.code == 0
    assert result.stdout == (
        "ClusterServingRuntime srt-llama-large: ALLOWED\n"
        "ClusterServingRuntime srt-llama-small: ALLOWED\n"
        "ClusterServingRuntime vllm-llama: ALLOWED\n"
        "ServingRuntime llama-demo/team-llama: ALLOWED\n"
        "4 runtimes: 4 allowed, 0 denied\n"
    )


def test_one_and_no_runtime_summaries(tmp_path):
    assert admit("-f", write(tmp_path, runtime())).stdout.endswith("\n1 runtime: 1 allowed, 0 denied\n")
    result = admit("-f", write(tmp_path, accelerator_class("gpu")))
    assert (result.code, result.stdout) == (0, "0 runtimes: 0 allowed, 0 denied\n")


# --- JSON, YAML, exit codes ------------------------------------------------------------------


def test_json_report(tmp_path):
    documents = (runtime("a", None), runtime("b", entries=[entry(None, priority=1), entry(None, priority=2)]))
    result = admit("-f", write(tmp_path, *documents), "-o", "json")
    assert result.code == 1
    assert json.loads(result.stdout) == {
        "apiVersion": "ome-asp/v1alpha1",
        "kind": "AdmissionReport",
        "items": [
            {"kind": "ClusterServingRuntime", "namespace": None, "name": "a", "allowed": True, "message": None},
            {"kind": "ServingRuntime", "namespace": "ns", "name": "b", "allowed": False,
             "message": "different priorities assigned for the model format  under the servingruntime b"},
        ],
        "allowed": 1,
        "denied": 1,
    }
    assert yaml.safe_load(admit("-f", write(tmp_path, *documents), "-o", "yaml").stdout) == json.loads(result.stdout)


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param([], id="no-input"),
        pytest.param(["-f", WORKED, "-n", "x"], id="no-namespace-flag"),
        pytest.param(["-f", WORKED, "-o", "table"], id="bad-output"),
        pytest.param(["-f", "/nonexistent/path.yaml"], id="missing-file"),
    ],
)
def test_usage_and_input_errors_exit_2(argv):
    result = admit(*argv)
    assert result.code == 2 and result.stdout == "" and result.stderr.startswith("error: ")


def test_internal_error_exits_3(monkeypatch):
    from ome_asp.errors import InternalError
    from ome_asp.solver import ask

    def broken(facts, n_queries, variant, sizes=False):
        raise InternalError("the encoding has no answer set for this input")

    monkeypatch.setattr(ask, "solve", broken)
    result = admit("-f", WORKED)
    assert result.code == 3 and result.stderr.startswith("internal error: ")
