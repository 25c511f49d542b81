"""The full ranking read from the cost vectors equals the order by definition,
successive optima of the #minimize statements (O1-O5, docs/design.md)."""

from __future__ import annotations

from conftest import FIXTURES
from hypothesis import HealthCheck, given, settings

from ome_asp.input.loader import load, load_documents
from ome_asp.solver import ask
from ome_asp.solver.facts import Query, build_facts
from ome_asp.solver.programs import Variant
from ome_asp.testing import strategies


def ranking_both_ways(paths: list[str], query: Query) -> tuple[list, list]:
    facts = build_facts(load(paths), [query])
    return ask.solve(facts, 1, Variant.EXPLAIN).queries[1].ranking, ask.rank_by_reoptimizing(facts)


def test_worked_example_O5_successive_optima():
    by_keys, by_definition = ranking_both_ways([str(FIXTURES / "worked-example")], Query("llama-demo", model="llama-3-2-3b-instruct"))
    assert by_keys == by_definition
    assert [r.name for r in by_keys] == ["team-llama", "vllm-llama", "srt-llama-small", "srt-llama-large"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.clusters())
def test_cost_vector_order_is_the_successive_optima_O1_O2_O3_O4(case):
    documents, query = case
    # loaded as values: the same checks and defaults as their YAML text, without writing it
    facts = build_facts(load_documents(documents), [Query(query["namespace"], model=query.get("model"), isvc=query.get("isvc"))])
    answer = ask.solve(facts, 1, Variant.EXPLAIN).queries[1]
    assert answer.ranking == ask.rank_by_reoptimizing(facts)
