"""The CI formats (issue 37, render/ci.py): -o junit, -o sarif and -o github
for explain --all-models, admit and find, and find --check.

The SARIF is validated against the official SARIF 2.1.0 JSON schema, vendored
from the OASIS sarif-spec repository (sarif-2.1/schema/sarif-schema-2.1.0.json,
the errata01 OASIS standard) as fixtures/ci/sarif-schema-2.1.0.json; the
JUnit is read back by junitparser (a JUnit reader of PyPI, in the test extra):
what a CI system's reader accepts, not our own idea of the format.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml
from conftest import FIXTURES, ROOT, run_cli
from junitparser import Failure, JUnitXml

from ome_asp.render import ci

SCHEMA = json.loads((FIXTURES / "ci" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
ADMISSION = FIXTURES / "steer" / "admission" / "manifests.yaml"


def valid_sarif(text: str) -> dict:
    log = json.loads(text)
    jsonschema.validators.validator_for(SCHEMA)(SCHEMA).validate(log)
    return log


@pytest.fixture
def catalog(tmp_path, monkeypatch):
    """fixtures/steer/admission (three runtimes denied, one model) copied
    under a working directory, read by a relative path as in CI."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(ADMISSION, tmp_path / "catalog.yaml")
    return "catalog.yaml"


def object_at(path: str, line: int) -> dict:
    """The document of `path` that starts at `line` (its first key's line)."""
    lines = open(path, encoding="utf-8").read().splitlines()
    assert lines[line - 1].startswith("apiVersion:"), (line, lines[line - 1])
    rest = "\n".join(lines[line - 1:]).split("\n---", 1)[0]
    return yaml.safe_load(rest)


# --- SARIF -------------------------------------------------------------------------


def test_admit_sarif_is_valid_and_its_locations_are_the_denied_objects(catalog):
    """Each result's region is the line where its runtime's document starts
    (fails with a 0-based line: the line before is `---`, and with the
    object's file dropped)."""
    run = run_cli("admit", "-f", catalog, "-o", "sarif")
    assert run.code == 1
    log = valid_sarif(run.stdout)
    results = log["runs"][0]["results"]
    assert len(results) == 3
    for result in results:
        assert result["ruleId"] == "admission" and result["level"] == "error"
        location = result["locations"][0]
        subject = location["logicalLocations"][0]["fullyQualifiedName"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == "catalog.yaml"
        obj = object_at(catalog, physical["region"]["startLine"])
        assert subject == f"{obj['kind']} {obj['metadata']['name']}"
        assert result["message"]["text"].startswith("denied by admission: ")


def test_explain_all_models_sarif_names_a_model_without_runtime_at_its_line(tmp_path, monkeypatch):
    """A model no runtime serves is a result at the model's document (fails
    when the model is looked up by the runtime's namespace alone: a
    ClusterBaseModel has none)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.yaml").write_text(
        "# a catalog\n"
        "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata: {name: rt}\n"
        "spec:\n  supportedModelFormats:\n  - {modelFormat: {name: onnx}, modelFramework: {name: t}, autoSelect: true}\n"
        "---\n"
        "apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata: {name: lonely}\n"
        "spec: {modelFormat: {name: safetensors}, modelFramework: {name: t}}\n"
        "---\n"
        "apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata: {name: served}\n"
        "spec: {modelFormat: {name: onnx}, modelFramework: {name: t}}\n")
    run = run_cli("explain", "--all-models", "-f", "m.yaml", "-o", "sarif")
    assert run.code == 1, run.stderr  # D-240: a failed check fails the run
    [result] = valid_sarif(run.stdout)["runs"][0]["results"]
    assert result["ruleId"] == "selection"
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 9}
    assert object_at("m.yaml", 9)["metadata"]["name"] == "lonely"
    assert result["message"]["text"].startswith("no runtime found to support model safetensors")


def test_explain_all_models_passes_when_every_model_is_served(cli):
    run = cli("explain", "--all-models", "-n", "llama-demo", "-f", str(FIXTURES / "worked-example"), "-o", "sarif")
    assert run.code == 0
    assert valid_sarif(run.stdout)["runs"][0]["results"] == []


def test_a_location_without_a_file_is_logical_only():
    """stdin and kubectl's output have no file to open: no physical location."""
    text = ADMISSION.read_bytes()
    run = run_cli("admit", "-f", "-", "-o", "sarif", stdin=text)
    for result in valid_sarif(run.stdout)["runs"][0]["results"]:
        assert "physicalLocation" not in result["locations"][0]


# --- JUnit -------------------------------------------------------------------------


def test_admit_junit_parses_one_case_per_runtime(catalog):
    run = run_cli("admit", "-f", catalog, "-o", "junit")
    xml = JUnitXml.fromstring(run.stdout)
    [suite] = list(xml)
    assert (suite.name, suite.tests, suite.failures) == ("admission", 4, 3)
    cases = {case.name: case for case in suite}
    assert set(cases) == {"ClusterServingRuntime rt-base", "ClusterServingRuntime rt-denied-for-good",
                          "ClusterServingRuntime rt-w3", "ClusterServingRuntime rt-w4"}
    assert cases["ClusterServingRuntime rt-base"].is_passed
    [failure] = cases["ClusterServingRuntime rt-w4"].result
    assert isinstance(failure, Failure)
    assert "different priorities assigned" in failure.message
    line = int(cases["ClusterServingRuntime rt-w4"]._elem.get("line"))
    assert object_at(catalog, line)["metadata"]["name"] == "rt-w4"


def test_explain_all_models_junit_has_a_case_per_model_and_per_denied_runtime(catalog):
    run = run_cli("explain", "--all-models", "-f", catalog, "-o", "junit", "-j", "1")
    suites = {suite.name: suite for suite in JUnitXml.fromstring(run.stdout)}
    assert [case.name for case in suites["selection"]] == ["--model llama-70b -n default"]
    assert suites["admission"].failures == 3 and suites["admission"].tests == 3
    assert run.code == 1


# --- GitHub annotations ---------------------------------------------------------------


def test_github_annotations_escape_as_the_toolkit_does():
    """%, CR and LF in the message; also : and , in properties (fails
    without escaping %, which would read %0A back as a newline)."""
    finding = ci.Finding("admission", "ClusterServingRuntime a,b", ci.ERROR, "100% denied:\r\nsee x", "dir/a:b,c.yaml", 7)
    assert ci.github([finding]) == (
        "::error file=dir/a%3Ab%2Cc.yaml,line=7,title=admission%3A ClusterServingRuntime a%2Cb::100%25 denied:%0D%0Asee x\n")
    assert ci.github([ci.Finding("selection", "m", ci.PASS, "selects rt")]) == ""


def test_admit_github_annotations(catalog):
    run = run_cli("admit", "-f", catalog, "-o", "github")
    lines = run.stdout.splitlines()
    assert len(lines) == 3 and all(line.startswith("::error file=catalog.yaml,line=") for line in lines)


# --- find ------------------------------------------------------------------------------

BOUNDS = ("--runtimes", "2", "-j", "1")


@pytest.mark.parametrize("flags, code", [((), 1), (("--check",), 0), (("-o", "junit"), 0)])
def test_find_check_exits_0_when_the_property_holds(cli, flags, code):
    """A property that holds within the bounds: diff-style 1 (no witness)
    without --check, 0 with it and with a CI format (D-241)."""
    run = cli("find", "--property", "namespaced-first", *BOUNDS, *flags)
    assert run.code == code, run.stderr


def test_find_check_exits_1_on_a_witness_and_reports_a_failed_case(cli):
    run = cli("find", "--differ", "v1.3,code-v0.1.5", *BOUNDS, "--check")
    assert run.code == 1
    run = cli("find", "--differ", "v1.3,code-v0.1.5", *BOUNDS, "-o", "junit")
    assert run.code == 1
    [suite] = list(JUnitXml.fromstring(run.stdout))
    [case] = list(suite)
    assert suite.name == "differ" and not case.is_passed
    assert "smallest witness" in case.result[0].text
    run = cli("find", "--differ", "v1.3,code-v0.1.5", *BOUNDS, "-o", "sarif")
    [result] = valid_sarif(run.stdout)["runs"][0]["results"]
    assert "physicalLocation" not in result["locations"][0]  # a generated cluster: no file


def test_find_property_junit_passes(cli):
    run = cli("find", "--property", "namespaced-first", *BOUNDS, "-o", "junit")
    [suite] = list(JUnitXml.fromstring(run.stdout))
    assert suite.name == "namespaced-first" and [case.is_passed for case in suite] == [True]


def test_ci_formats_need_all_models(cli):
    run = cli("explain", "--model", "x", "-f", str(ADMISSION), "-o", "junit")
    assert run.code == 1 and run.stderr.splitlines()[-1] == "error: -o junit needs --all-models: a check per model"


# --- compare ------------------------------------------------------------------------------

CATALOG_PR = ("--before", "fixtures/compare/catalog-pr/before", "--after", "fixtures/compare/catalog-pr/after",
              "--all-models")


def test_compare_sarif_points_at_the_line_of_each_cause(monkeypatch):
    """A changed model is a result at its cause's line in the later snapshot
    (compare's causes): the lost DeepSeek at srt-qwen2's `autoSelect: false`,
    Mistral at vllm-mistral's new weight; --fail-on's kinds are errors, the
    others warnings (fails with the object's line, or every change an error)."""
    monkeypatch.chdir(ROOT)
    run = run_cli("compare", *CATALOG_PR, "--fail-on", "lost", "-o", "sarif")
    assert run.code == 1
    results = {r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]: r
               for r in valid_sarif(run.stdout)["runs"][0]["results"]}
    assert len(results) == 5
    lines = {}
    for subject, result in results.items():
        region = result["locations"][0]["physicalLocation"]
        path = region["artifactLocation"]["uri"]
        lines[subject] = (result["ruleId"], result["level"], path.rsplit("/", 1)[-1],
                          (ROOT / path).read_text().splitlines()[region["region"]["startLine"] - 1].strip())
    assert lines["--model deepseek-r1-distill-qwen-14b -n default"] == ("lost", "error", "srt-qwen2.yaml", "autoSelect: false")
    assert lines["--model mistral-7b-instruct -n default"] == ("moved", "warning", "vllm-mistral.yaml", "weight: 2")


def test_compare_junit_has_a_case_per_model(monkeypatch):
    monkeypatch.chdir(ROOT)
    run = run_cli("compare", *CATALOG_PR, "--fail-on", "lost,moved", "-o", "junit")
    assert run.code == 1
    suites = {suite.name: suite for suite in JUnitXml.fromstring(run.stdout)}
    assert {name: (s.tests, s.failures) for name, s in suites.items()} == {
        "lost": (1, 1), "moved": (4, 4), "unchanged": (1, 0)}
    run = run_cli("compare", *CATALOG_PR, "--fail-on", "gained", "-o", "github")
    assert run.code == 0 and run.stdout.count("::warning ") == 5 and "::error" not in run.stdout


def catalog_repository(top: Path) -> None:
    """fixtures/compare/catalog-pr as a git repository: models/ and config/
    (its before snapshot, a kustomization reading ../models) committed; then
    config/ the after snapshot, committed too."""
    catalog = FIXTURES / "compare" / "catalog-pr"
    shutil.copytree(catalog / "models", top / "models")
    for snapshot in ("before", "after"):
        shutil.rmtree(top / "config", ignore_errors=True)
        shutil.copytree(catalog / snapshot, top / "config")
        git(top, "add", "-A")
        git(top, "commit", "-q", "-m", snapshot)


def git(top: Path, *argv: str) -> None:
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "-C", str(top), *identity, *argv], check=True, capture_output=True)


def test_compare_git_locations_are_the_repository_s_files(tmp_path, monkeypatch):
    """--git names a revision's files `REV:path`; code scanning and the
    annotations need the path from the repository's top (compare's JSON
    puts the revision beside it): HEAD's srt-qwen2.yaml at `autoSelect:
    false` (fails with `HEAD:config/...` kept, which is no file: the
    location is lost). `--git HEAD~1`, the pre-commit hook's question: with
    srt-qwen2.yaml put back in the working tree, no model is lost, so the
    gate passes and the moves are warnings at the working tree's files."""
    git(tmp_path, "init", "-q")
    catalog_repository(tmp_path)
    monkeypatch.chdir(tmp_path)
    run = run_cli("compare", "--git", "HEAD~1..HEAD", "-k", "config", "--all-models", "--fail-on", "lost", "-o", "sarif")
    assert run.code == 1, run.stderr
    [lost] = [r for r in valid_sarif(run.stdout)["runs"][0]["results"] if r["level"] == "error"]
    physical = lost["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == "config/runtimes/srt-qwen2.yaml"
    lines = (tmp_path / "config" / "runtimes" / "srt-qwen2.yaml").read_text().splitlines()
    assert lines[physical["region"]["startLine"] - 1].strip() == "autoSelect: false"

    shutil.copy(FIXTURES / "compare" / "catalog-pr" / "before" / "runtimes" / "srt-qwen2.yaml", tmp_path / "config" / "runtimes")
    run = run_cli("compare", "--git", "HEAD~1", "-k", "config", "--all-models", "--fail-on", "lost", "-o", "github")
    assert run.code == 0, run.stderr
    assert run.stdout.count("::warning ") == 4 and "::error" not in run.stdout
    assert "::warning file=config/runtimes/vllm-mistral.yaml,line=10,title=moved%3A --model mistral-7b-instruct" in run.stdout


@pytest.mark.parametrize("flags, message", [
    (("--show-ignored",), "error: --show-ignored: -o junit checks the queries; -o json lists the ignored changes"),
    (("--show", "opt"), "error: --show opt prints the causes' optimum: -o junit does not apply"),
    (("--max-bytes", "4096"), "error: --max-bytes: a budget for -o markdown's comment; -o junit is never cut"),
])
def test_compare_ci_formats_refuse_what_they_do_not_write(monkeypatch, flags, message):
    """--show opt with -o junit printed the optimum as YAML; --show-ignored
    said -o junit lists every ignored change (it lists none)."""
    monkeypatch.chdir(ROOT)
    run = run_cli("compare", *CATALOG_PR, "-o", "junit", *flags)
    assert (run.code, run.stderr.splitlines()) == (2, [message])
