"""The explain command line: streams, exit codes, flag and target errors,
notes, admission warnings, fact dumps and exact numbers (E1-E6, E17, E18, I8,
I9, I11)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest
from conftest import FIXTURES, ROOT, run_cli
from manifests import entry, model, runtime, write

from ome_asp.cli import main

WORKED = str(FIXTURES / "worked-example")
MODEL = "llama-3-2-3b-instruct"


def explain_json(*argv: str) -> dict:
    result = run_cli("explain", *argv, "-o", "json")
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


# --- E3: flag errors -------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        pytest.param(["-f", WORKED], "exactly one of --model or --isvc is required", id="E3-neither"),
        pytest.param(["--model", "a", "--isvc", "b", "-f", WORKED], "exactly one of --model or --isvc is required", id="E3-both"),
        pytest.param(["--model", MODEL, "--with-effective", "-f", WORKED], "--with-effective requires --isvc", id="E3-with-effective"),
        pytest.param(
            ["--isvc", "llama-chat", "--with-effective", "-f", WORKED],
            "--with-effective is not supported by ome-asp: it reads the live cluster's effective runtime",
            id="E1-with-effective-out-of-scope",
        ),
        pytest.param(["--model", MODEL], "no input: pass the manifests with -f FILE, -f DIR, -f - (stdin), -k DIR or --from-cluster", id="E2-no-input"),
        pytest.param(["--model", MODEL, "-f", WORKED, "-o", "xml"], "argument -o/--output: invalid choice: 'xml' (choose from 'table', 'wide', 'json', 'yaml', 'junit', 'sarif', 'github', 'name', 'jsonpath=TEMPLATE', 'custom-columns=SPEC')", id="E2-bad-output"),
    ],
)
def test_flag_errors_are_one_line_and_exit_1(argv, message):
    result = run_cli("explain", *argv)
    assert (result.code, result.stdout, result.stderr) == (1, "", f"error: {message}\n")


# --- E4: target errors -----------------------------------------------------------


def test_E4_model_not_found():
    """M2: without the model no selection runs; explain says so as E4 does."""
    result = run_cli("explain", "--model", "nope", "-n", "llama-demo", "-f", WORKED)
    assert (result.code, result.stdout, result.stderr) == (1, "", 'error: clusterbasemodels.ome.io "nope" not found\n')


def test_E4_M1_base_model_of_another_namespace_is_not_found():
    result = run_cli("explain", "--model", MODEL, "-n", "other", "-f", WORKED)
    assert result.stderr == (  # issue 16: a namespace without objects while others have some
        "warning: namespace other holds no BaseModel, ServingRuntime or InferenceService of the input "
        "(namespaces with some: llama-demo)\n"
        f'error: clusterbasemodels.ome.io "{MODEL}" not found\n'
        f"hint: BaseModel {MODEL} is in namespace llama-demo: add -n llama-demo\n")  # issue 36


def test_E4_isvc_not_found():
    result = run_cli("explain", "--isvc", "nope", "-n", "llama-demo", "-f", WORKED)
    assert (result.code, result.stderr) == (1, 'error: inferenceservices.ome.io "nope" not found\n')


def test_E4_M6_isvc_without_model(tmp_path):
    isvc = {
        "apiVersion": "ome.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "pinned", "namespace": "ns"},
        "spec": {"runtime": {"name": "rt"}},
    }
    result = run_cli("explain", "--isvc", "pinned", "-n", "ns", "-f", write(tmp_path, isvc, runtime("rt")))
    assert (result.code, result.stderr) == (1, 'error: InferenceService "pinned" has no spec.model; pass --model instead\n')


def test_E4_isvc_model_not_found(tmp_path):
    isvc = {
        "apiVersion": "ome.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "svc", "namespace": "ns"},
        "spec": {"model": {"name": "ghost"}},
    }
    result = run_cli("explain", "--isvc", "svc", "-n", "ns", "-f", write(tmp_path, isvc))
    assert (result.code, result.stderr) == (1, 'error: clusterbasemodels.ome.io "ghost" not found\n')


@pytest.mark.parametrize("fmt", [{"name": ""}, None], ids=["empty", "absent"])
def test_E4_M4_model_without_format_name(tmp_path, fmt):
    m = model()
    if fmt is None:
        del m["spec"]["modelFormat"]
    else:
        m["spec"]["modelFormat"] = fmt
    result = run_cli("explain", "--model", "m", "-f", write(tmp_path, m, runtime("rt")))
    assert (result.code, result.stderr) == (
        1,
        "error: invalid model specification: modelFormat.name: model format name is required\n",
    )


def test_E4_more_than_1000_candidates(tmp_path):
    runtimes = [runtime(f"rt-{i:04d}") for i in range(1001)]
    result = run_cli("explain", "--model", "m", "-f", write(tmp_path, model(), *runtimes))
    assert (result.code, result.stdout, result.stderr) == (
        1,
        "",
        "error: runtime candidate snapshot exceeds the CLI collection limit\n",
    )


# --- E5, E6 ----------------------------------------------------------------------


def test_E6_no_runtimes_prints_no_table(tmp_path):
    result = run_cli("explain", "--model", "m", "-f", write(tmp_path, model()))
    assert (result.code, result.stdout) == (0, "")
    assert result.stderr == "No serving runtimes found in the selected namespace or at cluster scope.\n"


def test_E6_O8_json_with_no_runtimes_has_empty_rows(tmp_path):
    report = explain_json("--model", "m", "-n", "ns", "-f", write(tmp_path, model()))
    assert report["rows"] == [] and report["selected"] is None
    assert report["message"] == "no runtime found to support model safetensors with format safetensors in namespace ns"


def test_S8_explain_prints_weight_not_score(tmp_path):
    """S8, E9: the table has no score column; WEIGHT (1) differs from the score (11)."""
    zero = entry(modelFormat={"name": "safetensors", "version": "1.0.0", "weight": 0})
    result = run_cli("explain", "--model", "m", "-f", write(tmp_path, model(), runtime("rt", supportedModelFormats=[zero])))
    assert result.stdout.splitlines() == [
        "RUNTIME   SCOPE     COMPATIBLE   PRIORITY   WEIGHT   REASON",
        "rt        Cluster   Yes          1          1        -",
    ]
    assert explain_json("--model", "m", "-f", str(tmp_path / "manifests.yaml"))["rows"][0]["score"] == 11


def test_O10_A7_only_the_runtimes_own_spec_counts(tmp_path):
    """O10: no inheritance is modelled: a child runtime that would inherit its
    formats from a parent has none of its own, so it fails Q5."""
    child = runtime("child", supportedModelFormats=[])
    child["spec"]["baseRuntime"] = "parent"  # not a field selection reads (I2)
    rows = explain_json("--model", "m", "-f", write(tmp_path, model(), runtime("parent"), child))["rows"]
    assert [(r["runtime"], r["failedCheck"]) for r in rows] == [("parent", None), ("child", "Q5")]
    assert rows[1]["reason"].endswith("not in supported formats: no supported formats defined")


# --- E17, O6: one name, both kinds -----------------------------------------------


def test_E17_O6_same_name_in_both_kinds_gives_two_rows(tmp_path):
    path = write(tmp_path, model(), runtime("rt", "default"), runtime("rt"))
    report = explain_json("--model", "m", "-f", path)
    assert [(r["runtime"], r["scope"], r["rank"]) for r in report["rows"]] == [("rt", "Namespaced", 1), ("rt", "Cluster", 2)]


def test_E18_explain_changes_no_input(tmp_path):
    path = write(tmp_path, model(), runtime("rt"))
    before = (tmp_path / "manifests.yaml").read_bytes()
    run_cli("explain", "--model", "m", "-f", path)
    assert (tmp_path / "manifests.yaml").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifests.yaml"]


# --- I8: exact numbers -----------------------------------------------------------


def test_I8_S3_weight_beyond_32_bits_is_exact(tmp_path):
    big = entry(modelFormat={"name": "safetensors", "version": "1.0.0", "weight": 3_000_000_000}, priority=3)
    path = write(tmp_path, model(modelParameterSize="1.5T"), runtime("big", supportedModelFormats=[big], modelSizeRange={"min": "2.5"}))
    row = explain_json("--model", "m", "-f", path)["rows"][0]
    assert row["score"] == (3_000_000_000 + 1) * 3  # 9000000003: beyond 2**31, exact
    assert row["weight"] == 9_000_000_003
    assert row["distance"] == "1499999999997.5"  # Z5: 1.5T - 2.5, exact


def test_I8_O2_scores_beyond_32_bits_compare_exactly(tmp_path):
    """2**31 and 2**31 + 1 differ only past 32 bits: the larger must win."""
    low = entry(modelFormat={"name": "safetensors", "version": "1.0.0", "weight": 2**31 - 2})
    high = entry(modelFormat={"name": "safetensors", "version": "1.0.0", "weight": 2**31 - 1})
    path = write(tmp_path, model(), runtime("a-low", supportedModelFormats=[low]), runtime("b-high", supportedModelFormats=[high]))
    rows = explain_json("--model", "m", "-f", path)["rows"]
    assert [(r["runtime"], r["score"]) for r in rows] == [("b-high", 2**31), ("a-low", 2**31 - 1)]


# --- I9, I11: warnings on stderr -------------------------------------------------


def test_I9_denied_runtime_is_warned_about_and_not_a_candidate(tmp_path):
    denied = runtime("needs-h100", acceleratorRequirements={"acceleratorClasses": ["nvidia-h100", "nvidia-h200"]})
    result = run_cli("explain", "--model", "m", "-f", write(tmp_path, model(), denied, runtime("ok")))
    assert result.code == 0
    assert result.stderr == (
        "warning: ClusterServingRuntime needs-h100 would be denied by admission: "
        "unknown accelerator classes referenced in AcceleratorRequirements: [nvidia-h100 nvidia-h200]\n"
    )
    assert "needs-h100" not in result.stdout


def test_reports_carry_warnings_and_denied_runtimes(tmp_path):
    """Issue 16 bug 2: -o json says what stderr says: `warnings` (each `warning:`
    line's text) and `denied` (the runtimes admission would deny, which have no row)."""
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}
    denied = runtime("needs-h100", acceleratorRequirements={"acceleratorClasses": ["nvidia-h100"]})
    path = write(tmp_path, model(), deployment, denied, runtime("ok"))
    result = run_cli("explain", "--model", "m", "-f", path, "-o", "json")
    document = json.loads(result.stdout)
    assert document["warnings"] == [line[len("warning: "):] for line in result.stderr.splitlines()]
    assert len(document["warnings"]) == 2
    assert document["denied"] == [{"kind": "ClusterServingRuntime", "namespace": None, "name": "needs-h100",
                                   "message": "unknown accelerator classes referenced in AcceleratorRequirements: [nvidia-h100]"}]
    listed = json.loads(run_cli("explain", "--all-models", "-f", path, "-o", "json").stdout)
    assert listed["items"][0]["warnings"] == document["warnings"]


def test_I11_other_kinds_are_reported(tmp_path):
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}
    path = write(tmp_path, model(), deployment, runtime("rt"))
    result = run_cli("explain", "--model", "m", "-f", path)
    assert result.code == 0
    # I11's form with the line where the document starts (docs/decisions.md D-23)
    assert result.stderr == f"warning: {path}:14: document 2: kind Deployment is not read by ome-asp\n"


def test_I4_E2_input_error_is_one_line(tmp_path):
    bad = runtime("rt", supportedModelFormats=[entry(priority=0)])
    path = write(tmp_path, model(), bad)
    result = run_cli("explain", "--model", "m", "-f", path)
    assert result.code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"error: {path}:28: document 2: ClusterServingRuntime rt: spec.supportedModelFormats[0].priority: ")
    assert result.stderr.count("\n") == 1


# --- facts: symbols only, replayable ------------------------------------------


def test_odd_names_stay_names(tmp_path):
    """Free text (an architecture; object names are DNS-1123, D-86) reaches the solver as a string."""
    name = 'a"). evil(1. %x #show :- \\ \n é'
    documents = [model(modelArchitecture=name), runtime("rt", supportedModelFormats=[entry(modelArchitecture=name)]),
                 runtime("x", supportedModelFormats=[entry(modelArchitecture="x")])]
    rows = json.loads(run_cli("explain", "--model", "m", "-o", "json", "-f", write(tmp_path, *documents)).stdout)["rows"]
    assert rows[0]["compatible"] is True and f"architecture mismatch (model={name}, runtime=x)" in rows[1]["reason"]


def test_show_facts_replays_with_plain_clingo(tmp_path):
    result = run_cli("explain", "--model", MODEL, "-n", "llama-demo", "-f", WORKED, "--show", "facts")
    assert result.code == 0
    facts = tmp_path / "facts.lp"
    facts.write_text(result.stdout)
    replay = subprocess.run(
        [sys.executable, "-m", "clingo", str(facts), str(ROOT / "encoding" / "main.lp"), "--outf=0", "-V0"],
        capture_output=True,
        text=True,
    )
    assert "OPTIMUM FOUND" in replay.stdout
    assert 'selected(1,sr("llama-demo","team-llama"))' in replay.stdout.split()


def test_E7_all_models_sections_list_and_errors(tmp_path):
    """--all-models: one report per model (each BaseModel in its namespace, each
    ClusterBaseModel in -n's), equal to the single command's; a model explain
    cannot answer for (M4) is an `error:` section, an `error` in JSON, exit 1."""
    path = write(tmp_path, model("m"), model("b", "ns1"), model("nofmt", modelFormat={"version": "1"}),
                 runtime("rt", "ns1"), runtime("crt"))
    result = run_cli("explain", "--all-models", "-n", "ns1", "-f", path)
    assert result.code == 1
    sections = [s + "\n" for s in result.stdout.rstrip("\n").split("\n\n")]
    assert [s.splitlines()[0] for s in sections] == [
        "# explain --model b -n ns1", "# explain --model m -n ns1", "# explain --model nofmt -n ns1"]
    assert sections[1].split("\n", 1)[1] == run_cli("explain", "--model", "m", "-n", "ns1", "-f", path).stdout
    assert sections[2] == ("# explain --model nofmt -n ns1\nerror: invalid model specification: "
                           "modelFormat.name: model format name is required\n")
    listed = json.loads(run_cli("explain", "--all-models", "-n", "ns1", "-f", path, "-o", "json").stdout)
    assert listed["kind"] == "List"
    assert listed["items"][1] == explain_json("--model", "m", "-n", "ns1", "-f", path)
    assert listed["items"][2]["error"] == "invalid model specification: modelFormat.name: model format name is required"


class _ClosedPipe(io.StringIO):
    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_pipe_ends_the_run_quietly():
    """`ome-asp ... | head`: when the reader is gone, no internal error and
    no reproduction, only the exit code a shell gives for SIGPIPE (D-48)."""
    err = io.StringIO()
    code = main(["explain", "--model", "llama-3-2-3b-instruct", "-n", "llama-demo", "-f", WORKED],
                stdin=io.BytesIO(b""), stdout=_ClosedPipe(), stderr=err)
    assert (code, err.getvalue()) == (141, "")


def test_a_namespace_without_objects_is_warned_about_with_did_you_mean():
    """Issue 16: `-n llama-dem` while the input has llama-demo: a warning that
    guesses the namespace meant (an error with --strict)."""
    result = run_cli("explain", "--model", MODEL, "-n", "llama-dem", "-f", WORKED)
    assert result.stderr.splitlines()[0] == (
        "warning: namespace llama-dem holds no BaseModel, ServingRuntime or InferenceService of the input "
        '(namespaces with some: llama-demo); did you mean "llama-demo"?')
    strict = run_cli("explain", "--model", MODEL, "-n", "llama-dem", "-f", WORKED, "--strict")
    assert strict.code == 1 and strict.stderr.startswith("error: namespace llama-dem holds no")


def test_repeated_warnings_fold_into_one_line_with_a_count(tmp_path):
    """Issue 16: 300 x "kind Deployment is not read" is one line."""
    deployments = [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": f"d{i}"}} for i in range(300)]
    path = write(tmp_path, model(), runtime("rt"), {"apiVersion": "v1", "kind": "List", "items": deployments})
    result = run_cli("explain", "--model", "m", "-f", path, "-o", "json")
    assert result.stderr == f"warning: {path}:32: document 3: items[0]: kind Deployment is not read by ome-asp (and 299 more like it)\n"
    assert json.loads(result.stdout)["warnings"] == [result.stderr[len("warning: "):-1]]


# --- issue 16: --runtime, --compatible-only, and what -v names ------------------------------


def test_runtime_and_compatible_only_show_only_those_rows():
    """--runtime NAME (repeatable) answers "why not X?"; --compatible-only the Yes rows; ranks unchanged."""
    table = run_cli("explain", "--model", MODEL, "-n", "llama-demo", "-f", WORKED, "--runtime", "srt-llama-large",
                    "--runtime", "vllm-llama").stdout
    assert [line.split()[0] for line in table.splitlines()[1:]] == ["vllm-llama", "srt-llama-large"]
    document = explain_json("--model", MODEL, "-n", "llama-demo", "-f", WORKED, "--runtime", "srt-llama-large")
    assert [(r["runtime"], r["rank"]) for r in document["rows"]] == [("srt-llama-large", 4)]
    assert document["selected"]["name"] == "team-llama"
    only = run_cli("explain", "--model", MODEL, "-n", "team-a", "-f", str(FIXTURES / "examples" / "14.1-no-rows"),
                   "--compatible-only").stdout
    assert [line.split()[2] for line in only.splitlines()[1:]] == ["Yes", "Yes"]
    unknown = run_cli("explain", "--model", MODEL, "-n", "llama-demo", "-f", WORKED, "--runtime", "nope")
    assert (unknown.code, unknown.stderr) == (1, "error: --runtime nope: no candidate runtime of that name for this query\n")


def test_runtime_names_found_are_printed_and_each_missing_one_is_an_error():
    """As `kubectl get pod a nope`: the rows found, then one error line per
    missing name (once, however often it is given), exit 1 (E2, issue 16)."""
    both = run_cli("explain", "--model", MODEL, "-n", "llama-demo", "-f", WORKED,
                   "--runtime", "vllm-llama", "--runtime", "nope", "--runtime", "nope")
    assert [line.split()[0] for line in both.stdout.splitlines()[1:]] == ["vllm-llama"]
    assert (both.code, both.stderr) == (1, "error: --runtime nope: no candidate runtime of that name for this query\n")


def test_verbose_names_the_criterion_that_put_a_row_after_the_one_above():
    out = run_cli("explain", "--model", MODEL, "-n", "llama-demo", "-f", WORKED, "-v").stdout
    assert "  after team-llama: O1: the row above is a ServingRuntime, which comes first whatever the score\n" in out
    assert "  after srt-llama-small: O3: the same score, distance 69B > 7B\n" in out


def test_verbose_names_operator_accelerator_classes_and_a_unit_read_as_zero(tmp_path):
    """-v: a version failure with the entry's operator and direction (V3); an
    accelerator failure with the class asked for and the runtime's list (A1-A3);
    a size bound `70b` that reads as 0 (Z2)."""
    newer = entry(modelFormat={"name": "safetensors", "version": "2.0.0", "operator": "GreaterThanOrEqual"})
    accel = {"apiVersion": "ome.io/v1beta1", "kind": "AcceleratorClass", "metadata": {"name": "a100"}, "spec": {}}
    isvc = {"apiVersion": "ome.io/v1beta1", "kind": "InferenceService", "metadata": {"name": "svc", "namespace": "default"},
            "spec": {"model": {"name": "m"}, "acceleratorSelector": {"acceleratorClass": "h100"}}}
    newer_model = model(modelParameterSize="3B", modelFormat={"name": "safetensors", "version": "3.0.0"})
    path = write(tmp_path, newer_model, accel, isvc, runtime("new", supportedModelFormats=[newer]),
                 runtime("gpu", acceleratorRequirements={"acceleratorClasses": ["a100"]}),
                 runtime("typo", modelSizeRange={"min": "1B", "max": "70b"}))
    out = run_cli("explain", "--model", "m", "-f", path, "-v").stdout
    assert ("format version mismatch (model=3.0.0, runtime=2.0.0) [operator GreaterThanOrEqual reads runtime 2.0.0 "
            "GreaterThanOrEqual model 3.0.0 (V3): the model's format version must be at most 2.0.0]") in out
    assert "  note: spec.modelSizeRange.max '70b' is not a size (Z1) and reads as 0 (Z2); did you mean '70B'?\n" in out
    out = run_cli("explain", "--isvc", "svc", "-f", path, "-v").stdout
    assert ("[the InferenceService asks: spec.acceleratorSelector.acceleratorClass 'h100' (no AcceleratorClass of that "
            "name in the input: no runtime the webhook admits can list it, W3); the runtime supports: [a100]]") in out


def test_verbose_shows_the_arithmetic_of_a_zero_score_Q8(tmp_path):
    """Issue 16: -v on a Q8 row: each counted entry's (wf' + ww') x P, or that none counts (S2)."""
    negative = entry(modelFormat={"name": "safetensors", "version": "1.0.0", "weight": -10})
    path = write(tmp_path, model(), runtime("neg", supportedModelFormats=[negative]),
                 runtime("off", supportedModelFormats=[entry(autoSelect=False)]), runtime("ok"))
    out = run_cli("explain", "--model", "m", "-f", path, "-v").stdout
    assert "  Q8: auto-select score is 0\n    score: (-10 + 1) × 1 from entry 0, none above 0 (S1)\n" in out
    assert "    score: no entry counts: each matching entry has autoSelect: false (S2)\n" in out
    # an entry that fails Q5 on its version never counts, though its autoSelect is true (it blamed autoSelect)
    other = entry(modelFramework={"name": "transformers", "version": "9.9.9"})
    path = write(tmp_path, model(), runtime("v", supportedModelFormats=[other]), runtime("ok"))
    out = run_cli("explain", "--model", "m", "-f", path, "-v").stdout
    assert ("    score: no entry counts: none both matches the model's format and framework (names and versions) "
            "and has autoSelect other than false (S2)\n") in out and "autoSelect: false" not in out


# What one explain of files must not import (issue 26, start-up): the other
# commands' modules and what only they use; the kubectl runner and kustomize
# reader (only --from-cluster and -k); dataclasses and what it imports (the
# explain path's classes are records, D-135); packaging (only --ome-version).
README_EXAMPLE = (ROOT / "README.md").read_text(encoding="utf-8").split("fixtures/worked-example\n```\n\n```\n")[1].split("```")[0]
NOT_FOR_EXPLAIN = {
    "ome_asp.commands.steer", "ome_asp.commands.compare", "ome_asp.commands.find", "ome_asp.commands.serve",
    "ome_asp.commands.select_runtime", "ome_asp.commands.admit", "ome_asp.commands.diagnostics",
    "ome_asp.conformance", "ome_asp.analysis", "ome_asp.testing", "ome_asp.input.sources", "ome_asp.input.changes",
    "ome_asp.solver.worlds", "ome_asp.solver.finder", "ome_asp.solver.gosort", "ome_asp.solver.pinned",
    "ome_asp.solver.exhaustive", "clingo.ast", "subprocess", "multiprocessing", "concurrent.futures", "tempfile",
    "dataclasses", "inspect", "ast", "dis", "packaging", "importlib.metadata", "hypothesis", "jsonschema",
    "shutil", "bz2", "lzma",  # argparse's help sized to the terminal: only help printed imports shutil (D-141)
    "json",  # text output, no message: json's C escaping only (D-142)
}


def test_explain_of_files_imports_only_what_it_needs():
    """Start-up (issue 26): `python -m ome_asp explain -f` prints the README's
    table and imports none of NOT_FOR_EXPLAIN (a package counts with its
    submodules)."""
    argv = [sys.executable, "-X", "importtime", "-m", "ome_asp", "explain", "--model", "llama-3-2-3b-instruct",
            "-n", "llama-demo", "-f", str(FIXTURES / "worked-example")]
    run = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0 and run.stdout == README_EXAMPLE
    imported = {line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines() if line.startswith("import time:")}
    assert "ome_asp.solver.engine" in imported  # the command's own imports (importlib's of the command is not listed)
    assert sorted(m for m in imported if m in NOT_FOR_EXPLAIN or m.rpartition(".")[0] in NOT_FOR_EXPLAIN) == []


def test_explain_path_compiles_no_regular_expression_at_import():
    """Start-up (issue 26 item 5, D-140): importing the explain command's
    modules compiles no regular expression (patterns.Pattern compiles each on
    first use). The standard library's modules that compile theirs at import
    are imported first."""
    code = ("import re, argparse, fractions, clingo, yaml\n"
            "before = set(re._cache)\n"
            "import ome_asp.cli, ome_asp.commands.explain\n"
            "print(sorted(key[1] for key in set(re._cache) - before))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert run.stdout == "[]\n"


@pytest.mark.parametrize("columns", [60, 150])
def test_help_is_sized_to_the_terminal_when_printed(columns):
    """cli._Formatter sizes help when it formats it, not when argparse makes
    it (D-141): to the terminal's width (COLUMNS)."""
    run = subprocess.run([sys.executable, "-m", "ome_asp", "explain", "--help"], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "COLUMNS": str(columns)})
    widest = max(len(line) for line in run.stdout.splitlines())
    assert run.returncode == 0 and run.stdout.startswith("usage: ome-asp explain ") and columns - 12 < widest <= columns
