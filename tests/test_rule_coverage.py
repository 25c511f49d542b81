"""Every rule of the families ome-asp implements (explain, select, admit) is cited by some test."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import rule_coverage  # noqa: E402

CORE_FAMILIES = "IMQVZADSOEXW"  # X: select, W: admit


def test_every_core_rule_is_cited():
    missing = rule_coverage.uncovered(rule_coverage.DEFAULT_SPEC, Path(__file__).parent, CORE_FAMILIES)
    assert missing == []


def test_ranges_are_expanded_on_both_sides():
    assert rule_coverage.defined_rules("**Q2–Q4 — Checks.** a\n\n**Q9 — x.** **Q1 — not at the start of a paragraph.**") == ["Q2", "Q3", "Q4", "Q9"]
    assert rule_coverage.cited_rules(["Q20–Q22 and Z5, also A1-A2"]) == {"Q20", "Q21", "Q22", "Z5", "A1", "A2"}
