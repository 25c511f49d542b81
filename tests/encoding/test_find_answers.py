"""find/answers.lp on its own: what a world of `ome-asp find` answers to its
query (docs/find.md): result/2 (the error or outcome ending the query, else
the selected runtime or none), qualifies/2 and before/3 (two rank_key/4
tuples compared step by step, O1-O4), and, only when compares_rows, the rows
(row/3: Yes with its score, No with its first failed check, E14) and every
reason (reason/4).

Upstream, given as facts: the world-indexed atoms of the pinned encoding
(ome_asp/solver/pinned.py: every predicate with the world first):
query_error/3, query_outcome/4 (lookup.lp, qualification.lp), selected/3
(winner.lp), rank_key/4 (ordering.lp), query_view/3, view_score/4
(scoring.lp), first_failure/5, later_failure/5 (explanation.lp), world/1
(find/generate.lp) and compares_rows/0 (find/differ.lp).
"""

import itertools

import clingo
import pytest

from .lp import run

FILES = ("find/answers.lp",)
UPSTREAM = ("query_error/3", "query_outcome/4", "selected/3", "rank_key/4", "query_view/3", "view_score/4",
            "first_failure/5", "later_failure/5", "world/1", "compares_rows/0")


def world(w: int, selected: str | None = None, keys: dict | None = None, scores: dict | None = None,
          failures: dict | None = None, error: str | None = None, outcome: str | None = None) -> list[str]:
    """World w's atoms: rank keys and scores of the qualifying runtimes
    (view v), failures {runtime: [(check, reason), ...]} (the first first)."""
    atoms = [f"world({w})"]
    atoms += [f"selected({w},1,{selected})"] if selected else []
    atoms += [f"query_error({w},1,{error})"] if error else []
    atoms += [f"query_outcome({w},1,{outcome},a)"] if outcome else []
    atoms += [f"rank_key({w},1,{r},{k})" for r, k in (keys or {}).items()]
    atoms += [f"query_view({w},1,v)"] + [f"view_score({w},v,{r},{s})" for r, s in (scores or {}).items()]
    for r, checks in (failures or {}).items():
        (c, x), *later = checks
        atoms += [f"first_failure({w},1,{r},{c},{x})"] + [f"later_failure({w},1,{r},{c2},{x2})" for c2, x2 in later]
    return atoms


def answer(*atoms: str):
    return run(FILES, [clingo.parse_term(a) for a in atoms], upstream=UPSTREAM)


def test_the_result_of_each_world():
    """The error ends the query (E4, M4) before an outcome (docs/profiles.md
    section 0), either before a selection (O5); a world that selects
    nothing answers none (O8)."""
    got = answer(*world(1, error="e", outcome="panic", selected="a"), *world(2, outcome="unsupported_input", selected="a"),
                 *world(3, selected="a"), *world(4))
    assert got.rows("result") == {("1", "error(e)"), ("2", "outcome(unsupported_input,a)"), ("3", "selected(a)"),
                                  ("4", "none")}


# Each rival of a is before it at one step (O1 scope, O2 score, O3 distance,
# O4 name) and after it at every later one.
KEYS = {"a": "(1,-5,3,4)", "b": "(0,-1,9,9)", "c": "(1,-6,9,9)", "d": "(1,-5,2,9)", "e": "(1,-5,3,3)"}


def as_tuple(key: str) -> tuple[int, ...]:
    return tuple(int(x) for x in key.strip("()").split(","))


def test_before_is_the_order_of_the_rank_keys():
    """O1-O4 step by step: before(W, R1, R2) exactly where R1's key is the
    smaller tuple, for every pair of the five keys (each pair differs first
    at a different step)."""
    got = answer(*world(1, keys=KEYS))
    assert got.rows("qualifies") == {("1", r) for r in KEYS}
    assert got.rows("before") == {("1", r1, r2) for r1, r2 in itertools.permutations(KEYS, 2)
                                  if as_tuple(KEYS[r1]) < as_tuple(KEYS[r2])}


@pytest.mark.parametrize("end", [{"error": "e"}, {"outcome": "panic"}])
def test_an_ended_query_has_no_order(end):
    """A query ended by an error or outcome ranks nothing, whatever keys its
    runtimes have."""
    got = answer(*world(1, keys=KEYS, **end))
    assert got.rows("qualifies") == got.rows("before") == set()


FAILURES = {"f": [("q3", "r3"), ("q5", "r5")], "g": [("q2", "r2")]}


def test_rows_and_reasons_only_when_compared():
    """--on rows|reasons (compares_rows): a Yes row with its score, a No row
    with its first failed check (E14), every reason; otherwise none."""
    atoms = world(1, keys={"a": KEYS["a"]}, scores={"a": 7}, failures=FAILURES)
    assert answer(*atoms).rows("row") == answer(*atoms).rows("reason") == set()
    got = answer(*atoms, "compares_rows")
    assert got.rows("row") == {("1", "a", "yes(7)"), ("1", "f", "no(q3)"), ("1", "g", "no(q2)")}
    assert got.rows("reason") == {("1", "f", "q3", "r3"), ("1", "f", "q5", "r5"), ("1", "g", "q2", "r2")}
    ended = answer(*world(1, keys={"a": KEYS["a"]}, scores={"a": 7}, failures=FAILURES, error="e"), "compares_rows")
    assert ended.rows("row") == ended.rows("reason") == set()
