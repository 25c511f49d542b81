#!/usr/bin/env python3
"""Decode and output per row of `explain --all-models -o json` (issue 26
item 4: ≤ 5 µs each), in-process and in CPU time, so that a change to either
is compared back to back on a shared machine (docs/performance.md, "Fewer
atoms per row"); benchmarks/run.py's G9r is the same per-row figure of the
whole command.

    python benchmarks/rows.py                                  # 30 models × 200 runtimes, v1.3
    python benchmarks/rows.py --models 100 --runtimes 550 --seed 550100   # G8's cluster (run.py's seed)
    python benchmarks/rows.py --shape catalog --models 100 --runtimes 550 --seed 550100   # No-heavy (issue 40)

The batch is cut and grounded as explain --all-models -j 1 cuts it; each
chunk is grounded and solved once (the ground phase: CPU time of
clingo's grounding, facts parsed included) and its answer set kept, then decoded (answer.decode, from the Model's
symbols) and written (explain's JSON items) `--repeat` times, the least CPU
time of each counted; the reports' caches are emptied before each write, as a
process starts with them empty. The Python calls per row are cProfile's call
counts of one more decode and one more write, each profiled alone.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT)]

from clusters import NAMESPACE, catalog_documents, cluster_documents  # noqa: E402

from ome_asp.analysis import batch  # noqa: E402
from ome_asp.commands import explain  # noqa: E402
from ome_asp.input import profiles  # noqa: E402
from ome_asp.input.loader import load_documents  # noqa: E402
from ome_asp.render import report  # noqa: E402
from ome_asp.solver import answer, ask, engine  # noqa: E402
from ome_asp.solver.programs import Variant  # noqa: E402
from ome_asp.solver.sight import Sight  # noqa: E402
from ome_asp.timing import gc_paused  # noqa: E402

#: The cluster shapes: benchmarks/clusters.py's G8 generator (19 % Yes rows)
#: and the No-heavy one with OME's catalog's shape (issue 40).
SHAPES = {"g8": lambda runtimes, models, seed: cluster_documents(runtimes, models=models, seed=seed),
          "catalog": catalog_documents}


def shown_symbols(facts, n_queries: int):
    """The explain program's answer set for `facts`, as ask.solve reads it (a
    Model's symbols), and the CPU seconds of its grounding."""
    start = time.process_time()
    ctl = engine.ground_program(facts.whole, Variant.EXPLAIN.answering(n_queries).files)
    grounded = time.process_time() - start
    with ctl.solve(yield_=True) as handle:
        (symbols,) = [model.symbols(shown=True) for model in handle]
    return symbols, grounded


def write(chunks, decoded, profile: profiles.Profile) -> str:
    """The JSON items explain --all-models writes for the decoded chunks (its
    work: without the cyclic collector, E15's texts shared by a chunk's reports)."""
    with gc_paused():
        return "".join(explain._batch_piece("json", i == 0, query, result.queries[n], profile, cache=cache)
                       for (chunk, _, _), result in zip(chunks, decoded) for cache in [report.RowsCache()]
                       for n, (i, query) in enumerate(chunk, 1))


def empty_caches() -> None:
    """What a process writing its first report starts with."""
    report._REASONS.clear()
    report._ITEMS.clear()
    report._head.cache_clear()


def calls(function) -> int:
    profile = cProfile.Profile()
    profile.runcall(function)
    return pstats.Stats(profile).total_calls  # type: ignore[attr-defined]


def measure(models: int, runtimes: int, seed: int, profile: str, repeat: int, shape: str = "g8") -> dict:
    cluster = load_documents(SHAPES[shape](runtimes, models, seed), profiles.PROFILES[profile])
    profile_of = cluster.profile
    queries = explain._batch_queries(cluster, NAMESPACE)
    sight = Sight(cluster)
    chunks, ground_s = [], 0.0
    # as explain cuts them (D-302's rows per chunk; a tree before it cuts by queries alone)
    for chunk in batch.cut(queries, 1, sight.candidates) if hasattr(sight, "candidates") else batch.cut(queries, 1):
        part = [q for _, q in chunk]
        facts = ask.facts_for(sight.part(part), part)
        symbols, seconds = shown_symbols(facts, len(part))
        chunks.append((chunk, facts, symbols))
        ground_s += seconds

    def decode_all():
        return [answer.decode(symbols, len(chunk), facts, ask._go_sort(facts)) for chunk, facts, symbols in chunks]

    decode_s, output_s = [], []
    text = ""
    for _ in range(repeat):
        start = time.process_time()
        decoded = decode_all()
        decode_s.append(time.process_time() - start)
        empty_caches()
        start = time.process_time()
        text = write(chunks, decoded, profile_of)
        output_s.append(time.process_time() - start)
    rows = sum(len(a.verdicts) for result in decoded for a in result.queries.values())
    yes = sum(len(a.ranking) for result in decoded for a in result.queries.values())
    empty_caches()
    return {
        "models": models, "runtimes": runtimes, "profile": profile, "shape": shape, "rows": rows, "yes": yes,
        "chunks": len(chunks), "ground_us": ground_s / rows * 1e6,
        "shown": sum(len(symbols) for _, _, symbols in chunks), "bytes": len(text.encode()),
        "decode_us": min(decode_s) / rows * 1e6, "output_us": min(output_s) / rows * 1e6,
        "decode_calls": calls(decode_all) / rows, "output_calls": calls(lambda: write(chunks, decoded, profile_of)) / rows,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, default=30)
    parser.add_argument("--runtimes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", default=profiles.DEFAULT, choices=sorted(profiles.PROFILES))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--shape", default="g8", choices=sorted(SHAPES), help="the cluster's generator (default: G8's)")
    parser.add_argument("--quick", action="store_true", help="3 models × 20 runtimes, once (the tests' smoke run)")
    args = parser.parse_args(argv)
    if args.quick:
        args.models, args.runtimes, args.repeat = 3, 20, 1
    m = measure(args.models, args.runtimes, args.seed, args.profile, args.repeat, args.shape)
    shape = "" if m["shape"] == "g8" else f", {m['shape']} shape"
    print(f"{m['models']} models × {m['runtimes']} runtimes, {m['profile']}{shape}: {m['rows']:,} rows ({m['yes']:,} Yes), "
          f"{m['shown'] / m['rows']:.2f} shown atoms per row, {m['bytes']:,} bytes of JSON")
    print(f"ground: {m['ground_us']:.1f} µs per row (CPU, once, {m['chunks']} chunk(s))")
    print(f"decode: {m['decode_us']:.1f} µs per row (CPU, least of {args.repeat}), {m['decode_calls']:.1f} Python calls per row")
    print(f"output: {m['output_us']:.1f} µs per row (CPU, least of {args.repeat}), {m['output_calls']:.1f} Python calls per row")
    return 0


if __name__ == "__main__":
    sys.exit(main())
