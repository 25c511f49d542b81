"""edits.lp and compare.lp on their own: the choice of candidate edits, the
goal that the wanted runtime is the first of the order (O1-O4 compared as
rank_key/3 tuples, O5), compare.lp's combination of each facet's edits
(`facet_in/2`), its goal that nothing qualifies and its one named level.

Upstream, given as facts (or as rules in `extra`, where a key depends on the
chosen edits, as the core's would): rank_key/3 (ordering.lp), and the
programs' own inputs, which ome_asp/commands/steer.py and compare.py build
(declared upstream here because input.lp does not declare them).
"""

import clingo
import pytest

from .lp import answer_sets, optimal_models, optimum, run

EDITS = ("edits.lp",)
COMPARE = ("edits.lp", "compare.lp")
UPSTREAM = ("edit/1", "wanted/1", "rank_key/3", "query_outcome/3")
EDITS_UPSTREAM = UPSTREAM + ("criterion/2",)  # the edit program's levels (steer.lp, compare.lp)
COMPARE_UPSTREAM = UPSTREAM + ("facet/1", "edit_bit/3", "wanted_nothing/0")

T, R = 'csr("t")', 'csr("r")'


def facts(*atoms: str) -> list[clingo.Symbol]:
    """Facts written as in a program (`query(1).`)."""
    return [clingo.parse_term(a.removesuffix(".")) for a in atoms]


def applied(answers) -> set[frozenset[str]]:
    """Each answer set's edits."""
    return {frozenset(e for (e,) in a.rows("apply")) for a in answers}


@pytest.mark.parametrize("rival, step", [
    ("(0,-1,9,9)", "O1: a ServingRuntime of the namespace first"),
    ("(1,-3,9,9)", "O2: a higher score"),
    ("(1,-2,0,9)", "O3: a smaller distance"),
    ("(1,-2,1,0)", "O4: an earlier name"),
])
def test_the_wanted_runtime_must_be_first_at_every_step(rival, step):
    """O1-O4, O5: T (key (1,-2,1,5)) is beaten by a rival that is before it
    at one step and after it at every later one: no edit set; the same rival
    one step behind is no obstacle."""
    base = ("query(1).", f"wanted({T}).", f"rank_key(1,{T},(1,-2,1,5)).")
    assert answer_sets(EDITS, facts(*base, f"rank_key(1,{R},{rival})."), upstream=EDITS_UPSTREAM) == [], step
    assert len(answer_sets(EDITS, facts(*base, f"rank_key(1,{R},(1,-2,1,6))."), upstream=EDITS_UPSTREAM)) == 1


def test_a_wanted_runtime_that_does_not_qualify_is_no_goal():
    """Q9: without a rank key T is not in the order, even with no rival."""
    assert answer_sets(EDITS, facts("query(1).", f"wanted({T})."), upstream=EDITS_UPSTREAM) == []


def test_a_query_that_ends_with_an_outcome_is_no_goal():
    """D-262 (Z3, docs/profiles.md section 0): an outcome ends the query, so
    there is no order to be first in, whatever the rank keys say."""
    base = ("query(1).", f"wanted({T}).", f"rank_key(1,{T},(1,-2,0,5)).")
    assert len(answer_sets(EDITS, facts(*base), upstream=EDITS_UPSTREAM)) == 1
    assert answer_sets(EDITS, facts(*base, f"query_outcome(1,panic,{T})."), upstream=EDITS_UPSTREAM) == []


def test_the_order_of_another_query_does_not_count():
    """The goal reads the facts' one query: a rival's key for query 2 is no obstacle."""
    base = facts("query(1).", f"wanted({T}).", f"rank_key(1,{T},(1,-2,0,5)).", f"rank_key(2,{R},(0,-9,0,1)).")
    assert len(answer_sets(EDITS, base, upstream=EDITS_UPSTREAM)) == 1


# R beats T on score (O2) unless R is disabled or T's priority raised.
EDITED = f"""
rank_key(1,{R},(1,-3,0,1)) :- not apply(disable_r).
rank_key(1,{T},(1,-2,0,2)) :- not apply(raise_t).
rank_key(1,{T},(1,-4,0,2)) :- apply(raise_t).
"""
CANDIDATES = ("query(1).", f"wanted({T}).", "edit(disable_r).", "edit(raise_t).", "edit(rename).")


def test_every_set_of_candidate_edits_that_makes_the_wanted_runtime_first():
    """The choice is over the candidates (edit/1) alone; the goal keeps the
    sets under which T is first: those with disable_r or raise_t, whatever
    else they hold."""
    answers = answer_sets(EDITS, facts(*CANDIDATES), upstream=EDITS_UPSTREAM, extra=EDITED)
    winning = {frozenset(s) for s in ({"disable_r"}, {"raise_t"}, {"disable_r", "raise_t"})}
    assert applied(answers) == winning | {s | {"rename"} for s in winning}


def test_compare_keeps_the_smallest_sets():
    """compare.lp's level fewest_edits (criterion 10): the two one-edit sets
    are the optima, at cost 1 (the cost vector is its band, D-78)."""
    optima = optimal_models(COMPARE, facts(*CANDIDATES), upstream=COMPARE_UPSTREAM, extra=EDITED)
    assert applied(o.answer for o in optima) == {frozenset({"disable_r"}), frozenset({"raise_t"})}
    assert {tuple(o.cost) for o in optima} == {(1,)}
    assert optima[0].answer.rows("criterion") == {("10", "fewest_edits")}


def test_each_facet_takes_the_combination_of_its_applied_edits():
    """A facet's combination is the sum of its applied edits' bits
    (build_variant_facts numbers them 1, 2, 4, ...); a facet no applied edit
    changes is combination 0 (the earlier snapshot)."""
    base = ("query(1).", f"wanted({T}).", f"rank_key(1,{T},(1,-2,0,1)).", "facet(f).", "facet(g).",
            "edit(e1).", "edit(e2).", "edit(e3).", "edit_bit(e1,f,1).", "edit_bit(e2,f,2).", "edit_bit(e3,g,1).")
    answers = answer_sets(COMPARE, facts(*base), upstream=COMPARE_UPSTREAM)
    combinations = {frozenset(e for (e,) in a.rows("apply")): a.rows("facet_in") for a in answers}
    assert combinations[frozenset()] == {("f", "0"), ("g", "0")}
    assert combinations[frozenset({"e1", "e2"})] == {("f", "3"), ("g", "0")}
    assert combinations[frozenset({"e2", "e3"})] == {("f", "2"), ("g", "1")}


def test_wanted_nothing_means_no_runtime_qualifies():
    """The later snapshot selects none: an edit set is a cause only where no
    runtime has a rank key (query 1)."""
    base = ("query(1).", "wanted_nothing.", "edit(disable_r).")
    answers = answer_sets(COMPARE, facts(*base), upstream=COMPARE_UPSTREAM,
                          extra=f"rank_key(1,{R},(1,-3,0,1)) :- not apply(disable_r).")
    assert applied(answers) == {frozenset({"disable_r"})}
    assert run(COMPARE, facts("query(1).", "wanted_nothing."), upstream=COMPARE_UPSTREAM).rows("apply") == set()
    assert optimum(COMPARE, facts(*base), upstream=COMPARE_UPSTREAM,
                   extra=f"rank_key(1,{R},(1,-3,0,1)) :- not apply(disable_r).").cost == [1]
