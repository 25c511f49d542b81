"""explain and select answers an operator can read at once (issue 36 item 3):
sizes and distances in the manifests' units, and the hints that connect a
failure to its cause in the input."""

from __future__ import annotations

import json

from conftest import FIXTURES, run_cli

WORKED = ["-n", "llama-demo", "-f", str(FIXTURES / "worked-example")]
MODEL = ["--model", "llama-3-2-3b-instruct", *WORKED]


def test_distances_print_in_the_manifests_units_and_stay_exact_in_json():
    """`69B`, as the manifests write sizes, in the wide table and -v (was
    69000000000); the JSON report keeps the exact decimal. Fails with the
    count printed as it is, or with JSON's distance changed."""
    wide = run_cli("explain", *MODEL, "-o", "wide").stdout.splitlines()
    assert [line.split()[6] for line in wide[1:]] == ["0", "0", "7B", "69B"]
    verbose = run_cli("explain", *MODEL, "-v").stdout
    assert "  distance 69B: max - min, the width of the range\n" in verbose
    assert "O3: the same score, distance 69B > 7B" in verbose
    rows = json.loads(run_cli("explain", *MODEL, "-o", "json").stdout)["rows"]
    assert [row["distance"] for row in rows] == ["0", "0", "7000000000", "69000000000"]


def _hints(tmp_path) -> list[str]:
    """The worked example with an InferenceService naming a runtime `vllm-lama`
    (misspelt), a ServingRuntime other-team-runtime of namespace other-team,
    and an InferenceService asking for nvidia-b200, which is no AcceleratorClass."""
    import copy

    import yaml

    documents = [d for d in yaml.safe_load_all((FIXTURES / "worked-example" / "manifests.yaml").read_text()) if d]
    isvc = next(d for d in documents if d["kind"] == "InferenceService")
    named = copy.deepcopy(isvc)
    named["metadata"]["name"], named["spec"]["runtime"] = "phi-chat", {"name": "vllm-lama"}
    other = copy.deepcopy(next(d for d in documents if d["kind"] == "ServingRuntime"))
    other["metadata"] = {"name": "other-team-runtime", "namespace": "other-team"}
    b200 = copy.deepcopy(isvc)
    b200["metadata"].update(name="b200-chat", annotations={"ome.io/accelerator-class": "nvidia-b200"})
    path = tmp_path / "hints.yaml"
    path.write_text(yaml.safe_dump_all([*documents, named, other, b200]))
    return ["-f", str(path)]


def test_a_model_or_isvc_of_another_namespace_gets_a_namespace_hint():
    """-n (was: no hint, the name being exact). Fails without the namespaces' look-up."""
    run = run_cli("explain", "--model", "llama-3-2-3b-instruct", "-n", "ml-team", "-f", str(FIXTURES / "worked-example"))
    assert run.stderr.splitlines()[-2:] == ['error: clusterbasemodels.ome.io "llama-3-2-3b-instruct" not found',
                                           "hint: BaseModel llama-3-2-3b-instruct is in namespace llama-demo: add -n llama-demo"]
    run = run_cli("select", "--isvc", "llama-chat", "-n", "ml-team", "-f", str(FIXTURES / "worked-example"))
    assert run.code == 2 and run.stderr.endswith("hint: InferenceService llama-chat is in namespace llama-demo: add -n llama-demo\n")


def test_a_misspelt_spec_runtime_name_gets_a_suggestion(tmp_path):
    """X3's message stays OME's; a `hint:` line under it (was: none)."""
    run = run_cli("select", "--isvc", "phi-chat", "-n", "llama-demo", *_hints(tmp_path))
    assert run.code == 1 and run.stdout.startswith("runtime vllm-lama not found in namespace llama-demo or at cluster scope\n")
    assert run.stderr.endswith('hint: spec.runtime.name "vllm-lama": did you mean "vllm-llama"?\n')
    run = run_cli("select", "--all", *_hints(tmp_path))
    assert 'hint: InferenceService llama-demo/phi-chat: spec.runtime.name "vllm-lama": did you mean "vllm-llama"?\n' in run.stderr


def test_runtime_of_another_namespace_is_named_with_why_it_is_no_candidate(tmp_path):
    """explain --runtime NAME -n NS where NAME is a ServingRuntime of another
    namespace (was: "no candidate runtime of that name")."""
    run = run_cli("explain", "--model", "llama-3-2-3b-instruct", "-n", "llama-demo", *_hints(tmp_path),
                  "--runtime", "other-team-runtime")
    assert run.code == 1 and run.stderr.endswith(
        "error: --runtime other-team-runtime: no candidate for a query in namespace llama-demo: ServingRuntime "
        "other-team/other-team-runtime is a candidate only in its own namespace (Q1); explain it there with -n other-team\n")


def test_a_class_that_is_no_accelerator_class_is_named_as_such(tmp_path):
    """-v's accelerator failure says nvidia-b200 is no AcceleratorClass of the
    input (was: only the class and the runtime's list)."""
    out = run_cli("explain", "--isvc", "b200-chat", "-n", "llama-demo", *_hints(tmp_path), "-v").stdout
    assert ("  Q3: runtime does not support the required accelerator class [the InferenceService asks: annotation "
            "ome.io/accelerator-class 'nvidia-b200' (no AcceleratorClass of that name in the input: no runtime the "
            "webhook admits can list it, W3); the runtime supports: no list]\n") in out
    known = run_cli("explain", "--isvc", "chat", "-n", "team-a", "-f", str(FIXTURES / "steer" / "b200"), "-v").stdout
    assert "'nvidia-b200'; the runtime supports" in known and "no AcceleratorClass" not in known


def test_a_misspelt_key_is_shown_at_the_check_it_decides(tmp_path):
    """explain -v connects the loader's likely-typo warning to the failure it
    causes (was: the warning on stderr, the check's text alone): `autoselect:
    true` at Q7; `prority: 3` and a side's `wieght` at the Yes row's score
    and PRIORITY. Fails without the notes, and with a note on a row whose
    entries have no such typo."""
    out = run_cli("explain", "--model", "llama-70b", "-f", str(FIXTURES / "steer" / "misspelt-keys"), "-v").stdout
    assert ("  Q7: supports the model but has no supportedModelFormats[].autoSelect=true entry, so automatic selection "
            "skips it (pin it explicitly via spec.runtime.name instead)\n"
            "    note: spec.supportedModelFormats[0] has autoselect: true, an unknown field (did you mean autoSelect?): "
            "ignored, as if it had no autoSelect\n") in out
    assert out.count("note:") == 1  # vllm-old's entries have no typo
    path = tmp_path / "typo.yaml"
    path.write_text(
        "apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata: {name: m}\n"
        "spec: {modelFormat: {name: safetensors}, modelFramework: {name: tf}}\n---\n"
        "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata: {name: a}\nspec:\n  supportedModelFormats:\n"
        "  - modelFormat: {name: safetensors, wieght: 5}\n    modelFramework: {name: tf}\n    autoSelect: true\n"
        "    prority: 3\n")
    run = run_cli("explain", "--model", "m", "-f", str(path), "-v")
    assert "a         Cluster   Yes          1          2        -\n" in run.stdout
    assert ("  score 2: (1 + 1) × 1 from entry 0\n"
            "  note: spec.supportedModelFormats[0] has prority: 3, an unknown field (did you mean priority?): "
            "ignored, as if it had no priority\n"
            "  note: spec.supportedModelFormats[0].modelFormat has wieght: 5, an unknown field (did you mean weight?): "
            "ignored, as if it had no weight\n") in run.stdout
