"""Linear scaling (issue 5): no rule grounds O(N²) in runtimes or qualifying
pairs. The ground program's size, per unit of work, stays flat when the
cluster grows tenfold — for the ranking program at G7's size (5,000 runtimes
× 100 models) and for the explain program, whose No rows carry the reasons.

G7's constant (≤ 2 atoms per qualifying pair + 6 per entry) is not met: the
ranking program grounds about 6.6× that bound (docs/performance.md says why);
what this test guards is the shape, the growth that would turn a 10× larger
cluster into a 100× larger program."""

from __future__ import annotations

import sys

import yaml

from conftest import ROOT
from ome_asp import engine
from ome_asp.facts import Query, build_facts
from ome_asp.loader import load

sys.path.insert(0, str(ROOT / "benchmarks"))
from clusters import NAMESPACE, cluster_documents  # noqa: E402

GROWTH_TOLERANCE = 1.1  # per-unit size may grow by at most 10 % over a tenfold cluster


def ground_size(tmp_path, runtimes: int, models: int, explain: bool) -> tuple[float, int, int, int]:
    """(ground atoms, qualifying pairs, rows, entries) of one batch over every model."""
    path = tmp_path / f"cluster-{runtimes}-{models}.yaml"
    path.write_text(yaml.safe_dump_all(cluster_documents(runtimes, models=models, seed=runtimes * 1000 + models)))
    cluster = load([str(path)])
    queries = [Query(NAMESPACE, model=m.name) for m in cluster.models]
    answer = engine.solve(build_facts(cluster, queries), len(queries), explain=explain, sizes=True)
    pairs = sum(len(q.ranking) for q in answer.queries.values())
    rows = sum(len(q.verdicts) for q in answer.queries.values())
    return answer.stats["atoms"], pairs, rows, sum(len(r.entries) for r in cluster.runtimes)


def test_G7_ranking_program_grows_linearly_up_to_5000_runtimes_by_100_models(tmp_path):
    per_unit = []
    for runtimes in (500, 5000):
        atoms, pairs, _, entries = ground_size(tmp_path, runtimes, 100, explain=False)
        assert pairs > 10 * runtimes  # the shape of perf-notes.md: many qualifying pairs
        per_unit.append(atoms / (2 * pairs + 6 * entries))
    assert per_unit[1] <= per_unit[0] * GROWTH_TOLERANCE, per_unit


def test_explain_program_with_every_reason_grows_linearly(tmp_path):
    """The explain program has a row, with its reasons, for every candidate."""
    per_unit = []
    for runtimes in (250, 2500):
        atoms, _, rows, entries = ground_size(tmp_path, runtimes, 20, explain=True)
        per_unit.append(atoms / (rows + entries))
    assert per_unit[1] <= per_unit[0] * GROWTH_TOLERANCE, per_unit
