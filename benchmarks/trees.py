#!/usr/bin/env python3
"""The same whole-cluster commands run by two checkouts, side by side: the
before and after of a round (docs/performance.md), each command in its own
process as users run it (YAML in, bytecode cached by a first run).

    python benchmarks/trees.py --before ../base [--repeat 5] [--quick]

`--before` is another checkout of ome-asp (e.g. `git worktree add ../base
REV`); its package is imported from its own tree (`python -m ome_asp` with
the tree as working directory), so both run on this Python and its clingo.
The commands are issue 40's, on benchmarks/clusters.py's clusters written
once: `explain --all-models -o json` on G8's (100 models × 550 runtimes,
19 % Yes rows) and on the No-heavy ones (OME's catalog's shape: 100 × 550 and
200 × 200); `steer` on the 500-runtime dump of benchmarks/steer.py (150
ClusterBaseModels, the first model's third runtime wanted); `compare` of
benchmarks/compare.py's No-heavy catalog upgrade (205 × 204, 12 runtimes
created). For each: median wall time, CPU (user + system of the process and
the workers it waited for) and peak RSS (the largest of them, wait4), and the
load average beside them.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from clusters import NAMESPACE, cluster_documents  # noqa: E402
from compare import measured, snapshots  # noqa: E402
from rows import SHAPES  # noqa: E402
from steer import DUMP_SEED, wanted  # noqa: E402

from ome_asp.input.loader import load_documents  # noqa: E402
from ome_asp.input.objects import Query  # noqa: E402

#: (label, shape, runtimes, models)
CLUSTERS = [("G8", "g8", 550, 100), ("G10 No-heavy", "catalog", 550, 100), ("G11 No-heavy", "catalog", 200, 200)]
QUICK = [("G8", "g8", 20, 3), ("No-heavy", "catalog", 20, 3)]
DUMP, QUICK_DUMP = (500, 150), (20, 3)  # steer's dump: runtimes, ClusterBaseModels
CATALOG, QUICK_CATALOG = (205, 204), (20, 20)  # compare's catalog: runtimes, models


def measure(tree: Path, argv: list[str], repeat: int) -> dict:
    measured(argv, 1, tree)  # bytecode written, files in the page cache
    wall, cpu, peak, _ = measured(argv, repeat, tree)
    return {"wall": wall, "cpu": cpu, "peak_mb": peak}


def commands(directory: Path, quick: bool) -> list[tuple[str, list[str]]]:
    """Each measured command with its label, its input written under `directory`."""
    found = []
    for label, shape, runtimes, models in QUICK if quick else CLUSTERS:
        path = directory / f"{shape}-{runtimes}x{models}.yaml"
        path.write_text(yaml.safe_dump_all(SHAPES[shape](runtimes, models, runtimes * 1000 + models), sort_keys=False))
        found.append((f"explain --all-models, {label} {models} × {runtimes} ({models * runtimes:,} rows)",
                      ["explain", "--all-models", "-n", NAMESPACE, "-f", str(path), "-o", "json"]))
    runtimes, models = QUICK_DUMP if quick else DUMP
    documents = cluster_documents(runtimes, models=models, seed=DUMP_SEED)
    dump = directory / "dump.yaml"
    dump.write_text(yaml.safe_dump_all(documents))
    cluster = load_documents(documents)
    query = Query(NAMESPACE, model=cluster.models[0].name)
    found.append((f"steer, dump of {runtimes} runtimes, {models} models",
                  ["steer", "--model", query.model or "", "-n", NAMESPACE, "--want", wanted(cluster, query).name, "-f", str(dump)]))
    runtimes, models = QUICK_CATALOG if quick else CATALOG
    before, after = snapshots(directory, runtimes, models, "catalog")
    found.append((f"compare, No-heavy catalog upgrade {models} × {runtimes}",
                  ["compare", "--before", before, "--after", after, "--all-models"]))
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="the other checkout (the round's base)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="tiny clusters, once (the tests' smoke run)")
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else args.repeat
    trees = {"before": args.before.resolve(), "after": ROOT}
    print(f"load average at the start: {os.getloadavg()[0]:.2f}; medians of {repeat}, wait4's CPU and peak RSS\n")
    print("| command | before: wall, CPU, peak | after: wall, CPU, peak | wall after/before |")
    print("|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as directory:
        for label, command in commands(Path(directory), args.quick):
            found = {name: measure(tree, command, repeat) for name, tree in trees.items()}
            cells = [f"{f['wall']:.2f} s, {f['cpu']:.2f} s, {f['peak_mb']:.0f} MB" for f in found.values()]
            ratio = found["after"]["wall"] / found["before"]["wall"]
            print(f"| {label} | {cells[0]} | {cells[1]} | {ratio:.2f}× |")
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
