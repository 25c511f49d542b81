"""The conformance corpus (fixtures/cases) and `ome-asp check`.

Every rule id of docs/spec.md has a case; every case is valid by the JSON Schemas;
every explain and admit answer of the corpus equals the independent reference
model's (tests/reference_model.py); and `ome-asp check` passes the corpus,
except the cases where ome-asp is known to differ from the spec (listed here,
with the rule ids, until the engine is fixed)."""

from __future__ import annotations

import json
import shutil
import sys
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
import reference_model as ref
import yaml
from conftest import ROOT, run_cli

from ome_asp.conformance import cases
from ome_asp.render import case_files

sys.path.insert(0, str(ROOT / "scripts"))
import rule_coverage  # noqa: E402

CORPUS = ROOT / "fixtures" / "cases"
AREAS = ("inputs", "models", "qualification", "versions", "sizes", "accelerators", "deployment",
         "scoring", "ordering", "explicit", "admission", "explain", "profiles")
# Cases whose expected.yaml is the spec's answer and ome-asp's differs (reported to the engine's owner).


def corpus() -> list[cases.Case]:
    return [cases.load_case(path, name) for path, name in cases.find([str(CORPUS)])]


CASES = corpus()


def test_corpus_size_and_areas():
    """At least 150 cases, in every area."""
    assert len(CASES) >= 150
    assert {case.name.split("/")[0] for case in CASES} == set(AREAS)


def test_every_spec_rule_has_a_case():
    """A rule id of docs/spec.md that no case.yaml lists fails this test (rule ids as scripts/rule_coverage.py parses them)."""
    assert rule_coverage.uncovered_by_cases(rule_coverage.DEFAULT_SPEC, CORPUS, rule_coverage.ALL_FAMILIES) == []


def test_schema_files_are_the_schemas_check_uses(tmp_path):
    cases.write_schemas(tmp_path)
    for name in cases.SCHEMAS:
        assert (CORPUS / name).read_text() == (tmp_path / name).read_text(), f"regenerate: python -m ome_asp.conformance.cases {CORPUS}"


def test_cases_are_valid_by_the_schemas():
    for case in CASES:
        assert cases.schema_errors(case.spec, cases.CASE_SCHEMA) == []
        assert cases.schema_errors(case.expected, cases.EXPECTED_SCHEMA) == []


@pytest.mark.parametrize("instance, schema, message", [
    ({"description": "x", "rules": ["Q5"], "profile": "v1.3", "query": {"namespace": "n", "model": "m", "isvc": "i"},
      "check": ["explain"]}, cases.CASE_SCHEMA, "query: {'namespace': 'n', 'model': 'm', 'isvc': 'i'} is valid under each of"),
    ({"description": "x", "rules": ["Q99x"], "profile": "v1.3", "query": {"namespace": "n", "model": "m"},
      "check": ["explain"]}, cases.CASE_SCHEMA, "rules[0]: 'Q99x' does not match"),
    ({"description": "x", "rules": ["Q5"], "profile": "v1.3", "query": {"namespace": "n", "model": "m"},
      "check": ["select"]}, cases.CASE_SCHEMA, "check: ['select'] does not contain items matching"),
    ({"explain": {"selected": None, "ranking": [{"kind": "ServingRuntime", "namespace": "n", "name": "r"}],
                  "rejected": [], "message": None}}, cases.EXPECTED_SCHEMA, "explain.ranking[0]: 'score' is a required property"),
    ({"explain": {"error": "x", "extra": 1}}, cases.EXPECTED_SCHEMA, "explain: Additional properties are not allowed ('extra' was unexpected)"),
    ({"admit": {"items": [{"kind": "ServingRuntime", "namespace": "n", "name": "r", "allowed": 1, "message": None}]}},
     cases.EXPECTED_SCHEMA, "admit.items[0].allowed: 1 is not of type 'boolean'"),
])
def test_schema_errors_name_the_field_of_the_closest_shape(instance, schema, message):
    errors = cases.schema_errors(instance, schema)
    assert errors and errors[0].startswith(message), errors


def _reference_explain(case: cases.Case) -> dict:
    query = case.query
    report = ref.reference_report(case.documents(), query["namespace"], model=query.get("model"), isvc=query.get("isvc"),
                                  profile=case.profile)
    return report if "error" in report else cases.explain_answer(report)


def _reference_admit(case: cases.Case) -> dict:
    cluster = ref.Cluster(case.documents(), case.profile)
    denied = {id(rt): message for rt, message in cluster.denied}
    runtimes = sorted(cluster.runtimes + [rt for rt, _ in cluster.denied],
                      key=lambda d: (d["kind"], d["metadata"].get("namespace", ""), d["metadata"]["name"]))
    return {"items": [{"kind": rt["kind"], "namespace": rt["metadata"].get("namespace") if rt["kind"] == ref.SR else None,
                       "name": rt["metadata"]["name"], "allowed": id(rt) not in denied, "message": denied.get(id(rt))}
                      for rt in runtimes]}


#: The corpus cases whose explain answer the reference model does not compute
#: (ref.NotCovered): Go's pdqsort beyond 12 runtimes of a kind where the
#: comparator is not a strict total order, which tests/test_gosort_golden.py
#: checks against Go's own sort.Slice (none in the corpus).
NOT_COVERED: set[str] = set()


def test_corpus_answers_equal_the_reference_model():
    """Every explain answer (and admit answer) of the corpus is what the independent
    reference model computes from docs/spec.md and docs/profiles.md (v1.3, v1.2.2 and
    code-v0.1.5): the cross-check of the expectations. Skipped: input errors
    (I4; the model assumes valid input), CLI flags (E1, E3) and NOT_COVERED."""
    checked, uncovered = Counter(), set()
    for case in CASES:
        explain = case.expected["explain"]
        if case.query.get("flags") or explain.get("error", "").startswith("<stdin>"):
            continue
        expected = {k: v for k, v in explain.items() if k not in cases.OPTIONAL_KEYS}
        try:
            answer = _reference_explain(case)
        except ref.NotCovered:
            uncovered.add(case.name)
            continue
        assert answer == expected, case.name
        if "admit" in case.expected:
            assert _reference_admit(case) == case.expected["admit"], case.name
        checked[case.profile] += 1
    assert uncovered == NOT_COVERED
    assert checked[cases.DEFAULT_PROFILE] >= 0.9 * sum(1 for case in CASES if case.profile == cases.DEFAULT_PROFILE)
    assert checked["v1.2.2"] >= 10
    assert checked["code-v0.1.5"] == 43  # every one (issue 23)


def test_check_runs_the_corpus():
    """The whole corpus through `ome-asp check`: every case passes."""
    result = run_cli("check", str(CORPUS))
    assert result.stdout.splitlines()[-1] == f"{len(CASES)} passed, 0 failed", result.stdout
    assert result.code == 0


# --- check's behaviour ---------------------------------------------------------------------


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(CORPUS / name, target)
    return target


def test_check_passes_and_exits_zero(tmp_path):
    _copy(tmp_path, "ordering/o1-namespaced-first")
    result = run_cli("check", str(tmp_path), "-v")
    assert result.code == 0
    assert result.stdout.startswith("ok   ordering/o1-namespaced-first (")
    assert result.stdout.endswith("1 passed, 0 failed\n")


def test_check_prints_a_diff_and_exits_one(tmp_path):
    """O1: a wrong expectation (the cluster runtime first) is shown as a diff of the answers."""
    case = _copy(tmp_path, "ordering/o1-namespaced-first")
    expected = yaml.safe_load((case / "expected.yaml").read_text())
    expected["explain"]["ranking"].reverse()
    (case / "expected.yaml").write_text(cases.dump(expected))
    result = run_cli("check", str(case / "case.yaml"))
    assert result.code == 1
    assert "FAIL o1-namespaced-first\n    --- expected explain\n    +++ ome-asp explain\n" in result.stdout
    changed = [line.strip() for line in result.stdout.splitlines()
               if line.startswith(("    -", "    +")) and not line.startswith(("    ---", "    +++"))]
    # a ranking row is one flow mapping: the reversed order moves team-low's row
    assert any(line.startswith("+- {kind: ServingRuntime, namespace: demo, name: team-low") for line in changed)
    assert any(line.startswith("-- {kind: ServingRuntime, namespace: demo, name: team-low") for line in changed)
    assert result.stdout.endswith("0 passed, 1 failed\n")


def test_check_in_processes_prints_what_one_process_prints(tmp_path):
    """-j N: the same report, in the same order, a failing case included."""
    for name in ("ordering/o1-namespaced-first", "scoring/s7-best-entry-wins", "sizes/z1-count-0p5B"):
        _copy(tmp_path, name)
    case = tmp_path / "ordering/o1-namespaced-first"
    expected = yaml.safe_load((case / "expected.yaml").read_text())
    expected["explain"]["ranking"].reverse()
    (case / "expected.yaml").write_text(cases.dump(expected))
    alone, together = run_cli("check", str(tmp_path), "-v", "-j", "1"), run_cli("check", str(tmp_path), "-v", "-j", "3")
    assert together.code == alone.code == 1
    strip = lambda out: [line.split(" (")[0] for line in out.splitlines()]  # noqa: E731 (times differ)
    assert strip(together.stdout) == strip(alone.stdout)
    assert "FAIL ordering/o1-namespaced-first" in together.stdout and together.stdout.endswith("2 passed, 1 failed\n")


def test_check_without_expected_prints_the_answer(tmp_path):
    case = _copy(tmp_path, "scoring/s7-best-entry-wins")
    (case / "expected.yaml").unlink()
    result = run_cli("check", str(tmp_path))
    assert result.code == 1
    assert "no expected.yaml; ome-asp answers:" in result.stdout and "score: 30" in result.stdout
    # issue 16 bug 4: unindented under a comment line, so all but the summary line is expected.yaml
    (case / "expected.yaml").write_text(result.stdout.rsplit("\n", 2)[0] + "\n")
    assert run_cli("check", str(tmp_path)).stdout == "1 passed, 0 failed\n"


@pytest.mark.parametrize("edit, message", [
    (lambda c: c.pop("rules"), "case.yaml: (top): 'rules' is a required property"),
    (lambda c: c.update(check=["explain", "select"]), "answers ['explain'], but case.yaml checks ['explain', 'select']"),
    # issue 28: flags that read or run what the case's user never named (was: passed to explain)
    (lambda c: c["query"].update(flags=["--from-cluster", "--kubeconfig", "evil.cfg"]),
     "case.yaml: query.flags: --from-cluster is not a flag a case may carry (only --with-effective, --ome-namespace, "),
    (lambda c: c["query"].update(flags=["-f", "/etc/passwd"]), "query.flags: -f is not a flag a case may carry"),
    (lambda c: c["query"].update(flags=["-k", "."]), "query.flags: -k is not a flag a case may carry"),
    (lambda c: c["query"].update(flags=["--with-effective=x"]), "query.flags: --with-effective=x is not a flag a case may carry"),
    (lambda c: c["query"].update(flags=["--ome-namespace"]), "query.flags: --ome-namespace needs a value"),
])
def test_check_malformed_case_is_an_input_error(tmp_path, edit, message):
    case = _copy(tmp_path, "scoring/s7-best-entry-wins")
    spec = yaml.safe_load((case / "case.yaml").read_text())
    edit(spec)
    (case / "case.yaml").write_text(cases.dump(spec))
    result = run_cli("check", str(tmp_path))
    assert result.code == 2 and message in result.stderr


def test_check_without_cases_is_an_input_error(tmp_path):
    result = run_cli("check", str(tmp_path))
    assert result.code == 2 and "no cases" in result.stderr


def test_check_compares_stderr_and_exit_when_expected(tmp_path):
    """E2/E6: the optional stderr and exit keys are compared."""
    case = _copy(tmp_path, "explain/e6-no-candidates")
    expected = yaml.safe_load((case / "expected.yaml").read_text())
    assert expected["explain"]["exit"] == 0
    expected["explain"]["exit"] = 1
    (case / "expected.yaml").write_text(cases.dump(expected))
    result = run_cli("check", str(case))
    assert result.code == 1 and "-exit: 1\n" in result.stdout.replace("    ", "")


def test_profile_reaches_the_cli():
    """The case's profile is passed through `profile_flags`, the one place that knows the flag."""
    for command in cases.COMMANDS:
        assert case_files.profile_flags(command, "code-v0.1.5") == ["--profile", "code-v0.1.5"]


def test_every_profile_has_cases():
    """Each override row of docs/profiles.md has a case under fixtures/cases/profiles/<profile>/."""
    by_profile = {}
    for case in CASES:
        by_profile.setdefault(case.profile, []).append(case)
    assert set(by_profile) == set(cases.PROFILES)
    for case in by_profile["v1.2.2"] + by_profile["code-v0.1.5"]:
        assert case.name.startswith(f"profiles/{case.profile}/"), case.name


def test_dump_keeps_tables_readable():
    text = cases.dump({"rules": ["Q5", "E15"], "table": "A   B\nc   d\n", "reason": "x" * 200})
    assert text.startswith("rules: [Q5, E15]\ntable: |\n  A   B\n  c   d\nreason: ")
    assert yaml.safe_load(text)["table"] == "A   B\nc   d\n"


def test_expected_answer_shapes_are_json():
    """The corpus needs only a YAML/JSON parser: every expected.yaml is plain JSON data."""
    for case in CASES:
        assert json.loads(json.dumps(case.expected)) == case.expected


def test_every_explain_report_reads_by_the_report_schema(tmp_path):
    """Issue 16 bug 2: one schema (fixtures/cases/report.schema.json) parses every
    RuntimeExplainReport: a table's, an --all-models item with an error, an
    outcome's (selected: null), and serve's."""
    worked = str(ROOT / "fixtures" / "worked-example")
    one_bounded = ROOT / "fixtures" / "cases" / "profiles" / "v1.2.2" / "z3-one-bounded-range-unsupported-input"
    reports = [
        json.loads(run_cli("explain", "--model", "llama-3-2-3b-instruct", "-n", "llama-demo", "-f", worked, "-o", "json").stdout),
        *json.loads(run_cli("explain", "--all-models", "-f", worked, "-o", "json").stdout)["items"],
    ]
    case = cases.load_case(one_bounded)
    outcome = run_cli("explain", *case_files.target_flags(case.query), "--profile", "v1.2.2", "-o", "json", stdin=case.manifests)
    reports.append(json.loads(outcome.stdout))
    assert outcome.code == 4 and reports[-1]["selected"] is None
    for document in reports:
        jsonschema.validate(document, cases.REPORT_SCHEMA)


def test_case_flags_allowed_are_the_ones_documented():
    """One allow-list (cases.CASE_FLAGS), documented in docs/oracle.md, holding the corpus's flags."""
    oracle = (ROOT / "docs" / "oracle.md").read_text()
    assert all(f"`{flag}" in oracle.split("### expected.yaml")[0] for flag in cases.CASE_FLAGS)
    assert all(cases.flags_problem(case.query.get("flags", [])) is None for case in corpus())
    assert cases.flags_problem(["--ome-namespace=ome-system", "--runtime", "a", "-v"]) is None


def test_check_on_a_case_yaml_nested_too_deeply_says_so(tmp_path):
    """Issue 28: was only "while increasing flow level"."""
    case = _copy(tmp_path, "scoring/s7-best-entry-wins")
    (case / "case.yaml").write_text("description: " + "[" * 5000 + "]" * 5000 + "\n")
    result = run_cli("check", str(tmp_path))
    assert result.code == 2 and len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith(f"error: {case / 'case.yaml'}:1:") and "nest" in result.stderr, result.stderr
