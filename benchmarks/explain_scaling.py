#!/usr/bin/env python3
"""Time one `explain` for 4, 100 and 1,000 runtimes, and compare the two ways
of producing the full ranking (docs/design.md).

    python benchmarks/explain_scaling.py [--repeat 5]

Prints a Markdown table: medians over --repeat runs, in-process, same machine,
same run; ratios are against the 4-runtime explain of the same run.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from clusters import NAMESPACE, cluster_documents  # noqa: E402
from run import median as median_time  # noqa: E402

from ome_asp.cli import main  # noqa: E402
from ome_asp.input.loader import load  # noqa: E402
from ome_asp.solver import ask  # noqa: E402
from ome_asp.solver.facts import Query, build_facts  # noqa: E402
from ome_asp.solver.programs import Variant  # noqa: E402


def main_bench(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 100, 1000])
    parser.add_argument("--reoptimize-up-to", type=int, default=1000, help="largest size to rank by re-optimizing")
    args = parser.parse_args(argv)

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            path = Path(tmp) / f"cluster-{size}.yaml"
            path.write_text(yaml.safe_dump_all(cluster_documents(size, seed=size), sort_keys=False))
            argv_explain = ["explain", "--model", "model-0000", "-n", NAMESPACE, "-f", str(path)]
            total = median_time(lambda: main(argv_explain, stdout=io.StringIO(), stderr=io.StringIO()), args.repeat)

            cluster = load([str(path)])
            query = Query(NAMESPACE, model="model-0000")
            facts = build_facts(cluster, [query])
            answer = ask.solve(facts, 1, Variant.EXPLAIN, sizes=True)
            qualifying = len(answer.queries[1].ranking)
            by_keys = median_time(lambda: ask.solve(facts, 1, Variant.EXPLAIN), args.repeat)
            if size <= args.reoptimize_up_to:
                reoptimized = median_time(lambda: ask.rank_by_reoptimizing(facts), args.repeat)
                assert ask.rank_by_reoptimizing(facts) == answer.queries[1].ranking
            else:
                reoptimized = float("nan")
            rows.append((size, qualifying, facts.count("\n"), answer.stats["atoms"], answer.stats["rules"], total, by_keys, reoptimized))

    base = rows[0][5]
    print("| runtimes | qualifying | facts | ground atoms | ground rules | explain (CLI, in-process) | ratio | solve + rank by cost vectors | rank by re-optimizing |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size, qualifying, facts, atoms, rules, total, keys, reopt in rows:
        print(
            f"| {size} | {qualifying} | {facts} | {atoms:.0f} | {rules:.0f} | {total * 1000:.1f} ms | "
            f"{total / base:.1f}x | {keys * 1000:.1f} ms | {reopt * 1000:.1f} ms |"
        )


if __name__ == "__main__":
    main_bench()
