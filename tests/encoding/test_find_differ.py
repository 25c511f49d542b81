"""find/differ.lp with find/answers.lp (what it compares): `find --differ`
and `--differ-encoding` keep a cluster only where worlds 1 and 2 answer
differently at the level differ_on/1 names, each level including the ones
before it: selected (the result), order (which runtimes qualify, which
comes before which: O1-O5), rows (Yes rows' scores, No rows' first failed
check: E14), reasons (every failed check's reason).

Upstream, given as facts: find/answers.lp's (tests/encoding/test_find_answers.py)
and differ_on/1 (ome_asp/commands/find.py writes it).
"""

import clingo
import pytest

from .lp import answer_sets
from .test_find_answers import UPSTREAM, world

FILES = ("find/answers.lp", "find/differ.lp")
LEVELS = ("selected", "order", "rows", "reasons")


def differs(on: str, one: list[str], two: list[str]) -> bool:
    """Whether the program keeps worlds 1 and 2 at level `on` (one answer
    set), or refutes them (none)."""
    atoms = [clingo.parse_term(a) for a in [*one, *two, f"differ_on({on})"]]
    found = answer_sets(FILES, atoms, upstream=(*UPSTREAM, "differ_on/1"))
    assert len(found) <= 1
    return bool(found)


KEYS = {"a": "(1,-5,0,1)", "b": "(1,-3,0,2)", "c": "(1,-2,0,3)"}
SCORES = {"a": 5, "b": 3, "c": 2}
FAILURES = {"f": [("q3", "r3"), ("q5", "r5")]}
SAME = {"selected": "a", "keys": KEYS, "scores": SCORES, "failures": FAILURES}

# Worlds 2 that differ from world 1 (SAME) first at the level named.
FIRST_DIFFERENCE = {
    "selected": {**SAME, "selected": "b"},  # O5
    "order": {**SAME, "keys": {**KEYS, "c": "(1,-4,0,3)"}},  # c before b (O2), a still first
    "rows": {**SAME, "scores": {**SCORES, "c": 1}, "keys": {**KEYS, "c": "(1,-1,0,3)"}},  # same order
    "reasons": {**SAME, "failures": {"f": [("q3", "r3"), ("q5", "other")]}},  # same first failed check
}


@pytest.mark.parametrize("on", LEVELS)
def test_the_same_answers_never_differ(on):
    assert not differs(on, world(1, **SAME), world(2, **SAME))


@pytest.mark.parametrize("first", LEVELS)
@pytest.mark.parametrize("on", LEVELS)
def test_a_difference_counts_from_its_level_on(first, on):
    """Each level includes the ones before it: a difference first visible at
    level `first` is kept by `on` exactly when `on` is that level or a later
    one (differ_on(rows) and differ_on(reasons) compare the rows: compares_rows)."""
    kept = differs(on, world(1, **SAME), world(2, **FIRST_DIFFERENCE[first]))
    assert kept == (LEVELS.index(on) >= LEVELS.index(first))


def test_an_error_differs_from_a_selection_at_every_level():
    """The result ends the comparison: an error (E4) against a selection."""
    assert differs("selected", world(1, **SAME), world(2, error="e"))
    assert differs("reasons", world(1, error="e"), world(2, **SAME))


@pytest.mark.parametrize("fewer", [1, 2])
def test_an_answer_that_lacks_what_the_other_has_differs(fewer):
    """Either world may be the one that says less: here one No row has a
    later failed check the other lacks (reasons)."""
    less = {**SAME, "failures": {"f": [("q3", "r3")]}}
    worlds = {fewer: world(fewer, **less), 3 - fewer: world(3 - fewer, **SAME)}
    assert differs("reasons", worlds[1], worlds[2])
    assert not differs("rows", worlds[1], worlds[2])
