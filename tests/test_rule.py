"""`ome-asp rule ID` (issue 35 item 4): a rule's statement, the ASP rules that
implement it, the profiles that change it, its smallest example."""

from __future__ import annotations

import json
import shlex

import yaml
from conftest import ROOT, run_cli

from ome_asp.input import rulebook


def test_rule_prints_its_statement_asp_rules_profiles_and_example():
    result = run_cli("rule", "Q5")
    assert result.code == 0 and result.stderr == ""
    text = result.stdout
    assert text.startswith("Q5 — The checks, in order  (docs/spec.md, 3.1 The checks)\n\n**Q2–Q8 — The checks, in order.**")
    assert "| Q5 | format | some entry, whatever its `autoSelect`, is compatible" in text
    assert "encoding/qualification.lp:" in text and "encoding/compatibility.lp:" in text
    assert "examined(Q, R) :- query_key(Q, K), entry_key(K, R, I)." in text
    assert "Smallest example:\n  q5-no-entries (2 objects, profile v1.3" in text
    assert "  $ ome-asp explain --model " in text and "fixtures/cases/qualification/q5-no-entries/manifests.yaml" in text


def test_json_gives_each_asp_rule_by_file_line_and_text(monkeypatch):
    """Each anchor's line is the comment's line in the file, and each
    statement's text is that line of the file: an index off by one fails."""
    monkeypatch.chdir(ROOT)
    document = json.loads(run_cli("rule", "Z4", "-o", "json").stdout)
    assert (document["apiVersion"], document["kind"], document["id"], document["title"]) == (
        "ome-asp/v1alpha1", "Rule", "Z4", "The size reason")
    assert document["statement"].startswith("**Z4 — The size reason.** A runtime that fails Z3 gets")
    assert document["encoding"] and document["elsewhere"] is None
    for anchor in document["encoding"]:
        lines = (ROOT / anchor["file"]).read_text(encoding="utf-8").splitlines()
        assert anchor["comment"] in lines[anchor["line"] - 1] and "Z4" in anchor["comment"]
        assert all(lines[s["line"] - 1] == s["text"] for s in anchor["statements"])
    assert any(s["statements"] for s in document["encoding"])
    assert [p["profile"] for p in document["profiles"]] == ["v1.2.2", "code-v0.1.5"]


def test_the_example_command_runs_and_gives_the_expected_answer(monkeypatch):
    """The smallest case's command, run as printed, answers as its expected.yaml says."""
    monkeypatch.chdir(ROOT)
    example = json.loads(run_cli("rule", "O6", "-o", "json").stdout)["example"]
    argv = shlex.split(example["command"])
    assert argv[0] == "ome-asp"
    report = json.loads(run_cli(*argv[1:], "-o", "json").stdout)
    expected = yaml.safe_load(example["expected"])["explain"]
    ranked = [(row["kind"], row["runtime"]) for row in report["rows"] if row["compatible"]]
    assert ranked == [(r["kind"], r["name"]) for r in expected["ranking"]]


def test_a_profile_shows_its_overrides_and_its_own_smallest_case():
    document = yaml.safe_load(run_cli("rule", "Z3", "--profile", "code-v0.1.5", "-o", "yaml").stdout)
    assert [p["profile"] for p in document["profiles"]] == ["code-v0.1.5"]
    assert document["example"]["profile"] == "code-v0.1.5"
    assert json.loads(run_cli("rule", "Z3", "--ome-version", "1.2.2", "-o", "json").stdout)["example"]["profile"] == "v1.2.2"


def test_a_rule_outside_the_encoding_says_where_it_is():
    text = run_cli("rule", "E12").stdout
    assert "ASP rules (encoding/):\n  none: outside the encoding: the Python below\n" in text
    assert "  ome_asp/render/table.py: " in text
    assert "Profiles:\n  none changes it: every profile applies it as written\n" in text


def test_an_unknown_id_is_one_error_line_with_did_you_mean():
    result = run_cli("rule", "Q99")
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == "error: no rule 'Q99' in docs/spec.md; did you mean 'Q9'?\n"
    assert run_cli("rule", "z3").stderr == "error: no rule 'z3' in docs/spec.md; did you mean 'Z3'?\n"
    assert run_cli("rule", "nonsense").stderr == "error: no rule 'nonsense' in docs/spec.md\n"


def test_the_docs_and_cases_come_from_the_data_packages_when_the_tree_is_gone(monkeypatch, tmp_path):
    """A plain install has no source tree: docs/ and fixtures/cases/ are the data
    packages ome_asp.docs and ome_asp.cases (pyproject.toml)."""
    import importlib.util
    from types import SimpleNamespace

    monkeypatch.setattr(rulebook, "_SOURCE_TREE", tmp_path)
    packages = {"ome_asp.docs": ROOT / "docs", "ome_asp.cases": ROOT / "fixtures" / "cases"}
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: SimpleNamespace(submodule_search_locations=[str(packages[name])]))
    assert rulebook.docs_dir() == ROOT / "docs" and rulebook.cases_dir() == ROOT / "fixtures" / "cases"
    assert "Q5" in rulebook.spec_rules()


def test_the_package_data_ships_what_the_rule_book_reads():
    """pyproject.toml installs docs/spec.md, docs/profiles.md and the cases' files."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"ome_asp.docs" = "docs"' in text and '"ome_asp.cases" = "fixtures/cases"' in text
    assert '"ome_asp.docs" = ["spec.md", "profiles.md"]' in text
    assert '"ome_asp.cases" = ["**/case.yaml", "**/manifests.yaml", "**/expected.yaml"]' in text
