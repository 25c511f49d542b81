#!/usr/bin/env python3
"""List the rule ids of spec.md that no test cites.

A rule is defined in spec.md by a bold heading `**Q5 — ...**` (a range such
as `**Q2–Q8 — ...**` defines each id in it). A test cites a rule when the id
appears as a word anywhere in a file under tests/ (test ids, docstrings,
comments); a range `Q20–Q24` or `Q20-Q24` cites every id in it.

    python scripts/rule_coverage.py [--spec PATH] [--families IMQVZADSOE]

Exit 1 when a rule of the given families is not cited.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SPEC = ROOT.parent / "shared" / "reference" / "spec.md"
ALL_FAMILIES = "IMQVZADSOEXW"

_DEFINED = re.compile(r"\*\*([A-Z])(\d+)(?:[–-]([A-Z]?)(\d+))? — ")
_CITED = re.compile(r"\b([A-Z])(\d+)(?:\s*[–-]\s*\1?(\d+))?\b")


def _expand(family: str, first: str, last: str | None) -> list[str]:
    end = int(last) if last else int(first)
    return [f"{family}{n}" for n in range(int(first), end + 1)]


def defined_rules(spec_text: str) -> list[str]:
    rules: list[str] = []
    for family, first, _, last in _DEFINED.findall(spec_text):
        rules += [r for r in _expand(family, first, last or None) if r not in rules]
    return rules


def cited_rules(texts) -> set[str]:
    cited: set[str] = set()
    for text in texts:
        for family, first, last in _CITED.findall(text):
            cited.update(_expand(family, first, last or None))
    return cited


def uncovered(spec: Path, tests: Path, families: str) -> list[str]:
    rules = [r for r in defined_rules(spec.read_text()) if r[0] in families]
    cited = cited_rules(p.read_text() for p in sorted(tests.rglob("*.py")))
    return [r for r in rules if r not in cited]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC)
    parser.add_argument("--tests", type=Path, default=ROOT / "tests")
    parser.add_argument("--families", default=ALL_FAMILIES)
    args = parser.parse_args(argv)
    missing = uncovered(args.spec, args.tests, args.families)
    for rule in missing:
        print(f"not cited by any test: {rule}")
    print(f"{len(missing)} rule(s) of families {args.families} not cited")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
