#!/usr/bin/env python3
"""List the rule ids of docs/spec.md that no test cites.

A rule is defined in docs/spec.md by a paragraph starting `**Q5 — ...**` (a range
such as `**Q2–Q8 — ...**` defines each id in it). A test cites a rule when the id
appears as a word anywhere in a file under tests/ (test ids, docstrings,
comments); a range `Q20–Q24` or `Q20-Q24` cites every id in it.

    python scripts/rule_coverage.py [--spec PATH] [--families IMQVZADSOE] [--cases DIR]

With `--cases DIR`, lists instead the rules no conformance case under DIR
exercises (the `rules` of each case.yaml, docs/oracle.md).

Exit 1 when a rule of the given families is not cited.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ome_asp.input import rulebook  # noqa: E402

DEFAULT_SPEC = ROOT / "docs" / "spec.md"
ALL_FAMILIES = "IMQVZADSOEXW"


def defined_rules(spec_text: str) -> list[str]:
    return list(rulebook.read_rules(spec_text))


def cited_rules(texts) -> set[str]:
    return set().union(*(rulebook.cited(text, widest=None) for text in texts))


def uncovered(spec: Path, tests: Path, families: str) -> list[str]:
    rules = [r for r in defined_rules(spec.read_text()) if r[0] in families]
    cited = cited_rules(p.read_text() for p in sorted(tests.rglob("*.py")))
    return [r for r in rules if r not in cited]


def case_rules(cases: Path) -> set[str]:
    """The rule ids the conformance cases under `cases` say they exercise."""
    import yaml

    return {rule for path in sorted(cases.rglob("case.yaml")) for rule in yaml.safe_load(path.read_text())["rules"]}


def uncovered_by_cases(spec: Path, cases: Path, families: str) -> list[str]:
    exercised = case_rules(cases)
    return [r for r in defined_rules(spec.read_text()) if r[0] in families and r not in exercised]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC)
    parser.add_argument("--tests", type=Path, default=ROOT / "tests")
    parser.add_argument("--families", default=ALL_FAMILIES)
    parser.add_argument("--cases", type=Path, help="check the conformance cases under this directory instead of the tests")
    args = parser.parse_args(argv)
    if args.cases:
        missing = uncovered_by_cases(args.spec, args.cases, args.families)
        what = "exercised by any case"
    else:
        missing = uncovered(args.spec, args.tests, args.families)
        what = "cited by any test"
    for rule in missing:
        print(f"not {what}: {rule}")
    print(f"{len(missing)} rule(s) of families {args.families} not {what.split(' by')[0]}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
