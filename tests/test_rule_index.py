"""docs/rule-index.md and the rule book it is made from (issue 35 item 2).

The index is what scripts/rule_index.py writes; every rule of docs/spec.md
has anchors in the encoding or a reason to have none (rulebook.ELSEWHERE);
every rule id cited anywhere in the tree's prose, in the encoding's comments
and in the conformance cases is defined in docs/spec.md.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from ome_asp.input import rulebook

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import rule_index  # noqa: E402

SPEC = (ROOT / "docs" / "spec.md").read_text(encoding="utf-8")
RULES = rulebook.read_rules(SPEC)


def test_the_index_is_current():
    assert rule_index.INDEX.read_text(encoding="utf-8") == rule_index.render(), (
        "docs/rule-index.md is stale: python scripts/rule_index.py --write")


def test_every_rule_has_an_anchor_in_the_encoding_or_a_reason_not_to():
    """A rule the encoding implements is cited by a comment there; one it
    does not is listed in rulebook.ELSEWHERE, and the Python ones are cited by
    the Python that acts for them. Fails when an encoding comment loses its
    rule id, and when a rule listed as elsewhere gains an anchor (the list is
    then stale)."""
    anchors = rulebook.encoding_anchors(ROOT / "encoding")
    python = rulebook.python_citations(ROOT / "ome_asp", ROOT)
    assert set(rulebook.ELSEWHERE) <= set(RULES)
    problems = [f"{r}: no anchor in encoding/ and not in rulebook.ELSEWHERE" for r in RULES
                if r not in anchors and r not in rulebook.ELSEWHERE]
    problems += [f"{r}: anchored in encoding/ yet listed in rulebook.ELSEWHERE" for r in rulebook.ELSEWHERE if r in anchors]
    problems += [f"{r}: implemented in Python, but no module of {rulebook.ACTING} cites it"
                 for r, where in rulebook.ELSEWHERE.items() if where == "python" and r not in python]
    assert not problems, problems


# --- ids cited must be defined -----------------------------------------------------------------

#: A rule id as prose cites it: the families' letters, numbers below 100 (so
#: `A100`, klog's `E1202` are not ids); ruff's codes follow `noqa`.
_ID = re.compile(r"\b([IMQVZADSOXWE])([1-9]\d?)(?:\s*[–-]\s*\1?([1-9]\d?))?\b")


def cited_ids(text: str) -> set[str]:
    return {f"{family}{n}" for family, first, last in _ID.findall(text) for n in range(int(first), int(last or first) + 1)}


def citing_texts():
    """(path, prose) of every place that cites rule ids: Markdown, the encoding's
    comments, Python's comments and docstrings, the cases' case.yaml."""
    for path in [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "encoding").rglob("*.md"), *(ROOT / "fixtures").rglob("*.md")]:
        yield path, path.read_text(encoding="utf-8")
    for path in (ROOT / "encoding").rglob("*.lp"):
        yield path, "\n".join(filter(None, map(rulebook._comment, path.read_text(encoding="utf-8").splitlines())))
    for folder in ("ome_asp", "tests", "scripts", "benchmarks", "tools", "examples"):
        for path in (ROOT / folder).rglob("*.py"):
            yield path, "\n".join(line for _, line in rulebook.prose_lines(path.read_text(encoding="utf-8")) if "noqa" not in line)
    for path in (ROOT / "fixtures").rglob("case.yaml"):
        yield path, path.read_text(encoding="utf-8")


def test_every_cited_id_is_defined_in_the_spec():
    undefined = sorted({f"{rule_id} ({path.relative_to(ROOT)})" for path, text in citing_texts()
                        for rule_id in cited_ids(text) if rule_id not in RULES})
    assert not undefined, undefined


def test_an_undefined_id_is_found():
    assert cited_ids("Q5, Q2–Q4, E1-E2, A100, E1202, V0, e5") == {"Q5", "Q2", "Q3", "Q4", "E1", "E2"}
    assert "Q25" not in RULES


# --- the rule book's readers on small inputs ---------------------------------------------------


def test_rules_are_read_with_their_text_section_and_ranges():
    rules = rulebook.read_rules("## 3. Q\n\n<a id=\"q2\"></a>**Q2–Q3 — Checks.** Both.\n\n| a |\n\n"
                                "**Q9 — Nine.** Text, not **Q8 — mid-paragraph.**\n\n## 4. V\n")
    assert list(rules) == ["Q2", "Q3", "Q9"]
    assert rules["Q3"] == rulebook.Rule("Q3", "Checks", "3. Q", "**Q2–Q3 — Checks.** Both.\n\n| a |")
    assert rules["Q9"].text == "**Q9 — Nine.** Text, not **Q8 — mid-paragraph.**"


def test_an_anchor_is_a_comment_and_the_statements_under_its_block():
    text = ('% Q2 (I5): only disabled.\n% more\nfails(R) :- d(R).\nalso(R) :- fails(R).\n\n'
            'x :- y.  % Q7\n% "Q8" in a comment\ns("% Q6").\n% --- Q20-Q24, E1-E18 ---\n\n')
    anchors = rulebook.file_anchors("f.lp", text)
    assert anchors["Q2"] == anchors["I5"] == [rulebook.Anchor("f.lp", 1, "% Q2 (I5): only disabled.",
                                                               ((3, "fails(R) :- d(R)."), (4, "also(R) :- fails(R).")))]
    assert anchors["Q7"] == [rulebook.Anchor("f.lp", 6, "% Q7", ((6, "x :- y.  % Q7"),))]
    assert anchors["Q8"][0].statements == ((8, 's("% Q6").'),)  # a % inside a string is no comment
    assert "Q6" not in anchors and "E1" not in anchors  # E1-E18: a family, not its rules
    assert anchors["Q24"][0].statements == ()


def test_profile_overrides_are_read_by_rule():
    text = ("## 2. Profile v1.2.2\n\n| Rule | x |\n|---|---|\n| Z3 | one bound. More |\n| X2, X3 | kind |\n\n"
            "### 3.1 Overrides by rule\n\n| Rule | Quirk |\n|---|---|\n| Q4, D1–D3 | **No mode.** |\n\n### 3.2 x\n")
    found = rulebook.overrides(text)
    assert sorted(found, key=lambda r: (r[0], int(r[1:]))) == ["D1", "D2", "D3", "Q4", "X2", "X3", "Z3"]
    assert found["Z3"] == [rulebook.Override("v1.2.2", "2. Profile v1.2.2", "one bound. More")]
    assert found["D2"][0].profile == "code-v0.1.5"


def test_the_smallest_case_comes_first(tmp_path):
    for name, profile, documents in (("b-big", "v1.3", 3), ("a-code", "code-v0.1.5", 1), ("c-small", "v1.3", 1)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "case.yaml").write_text(f"rules: [Q5]\nprofile: {profile}\n")
        (tmp_path / name / "manifests.yaml").write_text("---\n".join(["kind: X\n"] * documents))
    assert [case.path.name for case in rulebook.cases_citing(tmp_path)["Q5"]] == ["c-small", "b-big", "a-code"]


@pytest.mark.parametrize("rule_id", ["Q5", "E12", "I1", "W6"])
def test_the_index_shows_each_rule_where_it_lives(rule_id):
    section = rule_index.INDEX.read_text(encoding="utf-8").split(f"\n## {rule_id}\n")[1].split("\n## ")[0]
    assert f"(spec.md#{rule_id.lower()})" in section
    assert "- Encoding: " in section and "- Cases (" in section
