"""The harness itself: each of its checks can fail."""

import pytest

from ome_asp.solver.facts import FactBuilder, const, runtime_id

from .lp import INPUT_PREDICATES, SCOPES, optimal_models, run, scoped

RT = runtime_id("ClusterServingRuntime", None, "rt")


def test_input_predicates_are_read_from_input_lp():
    assert {
        "runtime_declared/1", "entry/4", "sig_declares/3", "weights/1",
        "weights_score_option/4", "version/7", "size_gap/3", "accelerator_class/1",
    } <= INPUT_PREDICATES
    assert "runtime/1" not in INPUT_PREDICATES  # derived by admission.lp
    assert "entry/2" not in INPUT_PREDICATES  # the old schema: entries carried their fields


def test_a_forgotten_upstream_predicate_fails():
    """lookup.lp reads runtime/1 (admission.lp); not declaring it is a clingo warning."""
    with pytest.raises(AssertionError, match="atom does not occur in any rule head"):
        run(("lookup.lp",), FactBuilder(schema=None))


def test_a_misspelt_fact_fails():
    b = FactBuilder(schema=None)
    b.fact.runtime_declard(RT)
    with pytest.raises(AssertionError, match="runtime_declard/1"):
        run(("admission.lp",), b)


def test_an_old_schema_fact_fails():
    """entry/2 is no input predicate any more: a test still writing it fails."""
    b = FactBuilder(schema=None)
    b.fact.runtime_declared(RT)
    b.fact.entry(RT, 0)
    with pytest.raises(AssertionError, match=r"entry/2"):
        run(("admission.lp",), b)


def test_an_input_predicate_cannot_be_declared_upstream():
    with pytest.raises(ValueError, match="input predicate"):
        run(("admission.lp",), FactBuilder(schema=None), upstream=("entry/4",))


def test_more_than_one_answer_set_fails():
    """selection.lp chooses; without its #minimize the choice has one answer set per runtime."""
    files = ("ordering.lp", "selection.lp")
    upstream = (
        "examined/2", "failed/2", "query_view/2", "view_score/3", "runtime/1",
        "sized_query/3", "runtime_distance/2", "sized_distance/3",
    ) + SCOPES
    b = FactBuilder(schema=None)
    view = const("v")
    b.fact.query_view(1, view)
    for name in ("a", "b"):
        r = runtime_id("ClusterServingRuntime", None, name)
        b.fact.runtime(r)
        b.fact.examined(1, r)
        b.fact.view_score(view, r, b.exact(1))
        b.fact.runtime_name_rank(r, 1)
        scoped(b, (), (r,))
    scoped(b, (1,), ())
    with pytest.raises(AssertionError, match="exactly one answer set, got 2"):
        run(files, b, upstream=upstream)
    # The same two runtimes with one name rank (impossible input: names are
    # unique per kind) have equal cost vectors: two optima, which optN finds.
    assert len(optimal_models(files, b, upstream=upstream)) == 2
