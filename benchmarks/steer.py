"""steer's work, counted and timed (no test asserts a time).

    python benchmarks/steer.py [--runtimes N] [--dump-runtimes N --dump-models M --repeat K]

Two clusters. The catalog (issue 24): benchmarks/clusters.py's, one model,
seed 24, 400 runtimes; in-process, the groundings steer asks clingo for
(each one solver call) and their ground atoms; tests/test_steer.py bounds
the counts on the same catalog. The dump (issue 40): the cluster
issue 40's serve benchmark (S3) preloads, 500 runtimes (a quarter ServingRuntimes
in `bench`) and 150 ClusterBaseModels (seed 1), as a user runs steer on it:
the whole CLI process `ome-asp steer --model model-0000 -n bench --want R
-f dump.yaml`, its CPU (user + system) and peak RSS from wait4, median and
largest of the repeats; and in-process, each grounding with its ground
atoms and the CPU of its ask. In both, the wanted runtime is the third of
the model's ranking, so the search has rivals to outrank, and the disable
alternative moves other models.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from clusters import NAMESPACE, cluster_documents
from compare import measured

from ome_asp.analysis import steer
from ome_asp.input.loader import load_documents
from ome_asp.input.objects import Cluster, Query, RuntimeRef
from ome_asp.solver import ask, engine
from ome_asp.solver.programs import Variant

SEED = 24
DUMP_SEED = 1  # the seed of issue 40's serve benchmark (S3)


@dataclass
class Work:
    """The groundings made, each with its variant's name, ground atoms and
    the CPU seconds from the grounding's start to the next one's (or the end)."""

    groundings: list[tuple[str, int]] = field(default_factory=list)  # (the variant's name, ground atoms)
    started: list[float] = field(default_factory=list)  # process_time at each grounding's start

    @property
    def atoms(self) -> int:
        return sum(atoms for _, atoms in self.groundings)


@contextlib.contextmanager
def counted():
    """Every grounding of ome_asp.solver.ask counted (engine.ground_program wrapped)."""
    work, ground = Work(), engine.ground_program

    def counting(facts, files, load=None):
        work.started.append(time.process_time())
        ctl = ground(facts, files, load)
        work.groundings.append((Variant(tuple(files)).name, len(ctl.symbolic_atoms)))
        return ctl

    engine.ground_program = counting
    try:
        yield work
    finally:
        engine.ground_program = ground


def wanted(cluster: Cluster, query: Query) -> RuntimeRef:
    """The third runtime of the query's ranking."""
    return ask.ask(cluster, [query], Variant.EXPLAIN).answer.queries[1].ranking[2]


def catalog(runtimes: int = 400) -> tuple[Cluster, Query, RuntimeRef]:
    """The catalog, its one model's query, and the runtime steer is asked for."""
    cluster = load_documents(cluster_documents(runtimes, models=1, seed=SEED))
    query = Query(NAMESPACE, model=cluster.models[0].name)
    return cluster, query, wanted(cluster, query)


def in_process(cluster: Cluster, query: Query, want: RuntimeRef) -> list[str]:
    """steer's groundings, atoms and CPU, in-process, as table rows."""
    start = time.process_time()
    with counted() as work:
        result = steer.steer(cluster, query, want)
    end = time.process_time()
    rows = [f"steer --want {want.name}: {len(result.edit_sets)} edit set(s), {len(result.candidates)} candidate edits",
            f"| groundings (solver calls) | {len(work.groundings)} |", f"| ground atoms, all groundings | {work.atoms:,} |"]
    ends = [*work.started[1:], end]
    for (variant, atoms), began, ended in zip(work.groundings, work.started, ends):
        rows.append(f"| {variant} | {atoms:,} atoms | {ended - began:.2f} s CPU to the next grounding |")
    rows.append(f"| CPU before the first grounding | {work.started[0] - start:.2f} s |" if work.started else "")
    rows.append(f"| CPU of steer.steer | {end - start:.2f} s |")
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runtimes", type=int, default=400, help="the catalog's runtimes")
    parser.add_argument("--dump-runtimes", type=int, default=500, help="the dump's runtimes")
    parser.add_argument("--dump-models", type=int, default=150, help="the dump's ClusterBaseModels")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the CLI process")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(f"catalog, {args.runtimes} runtimes, one model:")
    print("\n".join(in_process(*catalog(args.runtimes))))
    documents = cluster_documents(args.dump_runtimes, models=args.dump_models, seed=DUMP_SEED)
    cluster = load_documents(documents)
    query = Query(NAMESPACE, model=cluster.models[0].name)
    want = wanted(cluster, query)
    print(f"\ndump, {args.dump_runtimes} runtimes, {args.dump_models} ClusterBaseModels:")
    print("\n".join(in_process(cluster, query, want)))
    with tempfile.TemporaryDirectory() as directory:
        dump = Path(directory) / "dump.yaml"
        dump.write_text(yaml.safe_dump_all(documents))
        command = ["steer", "--model", query.model or "", "-n", NAMESPACE, "--want", want.name, "-f", str(dump)]
        _, seconds, peak, _ = measured(command, args.repeat)
    print(f"| `ome-asp steer ... -f dump.yaml`, one process: CPU (median of {args.repeat}) | {seconds:.2f} s |")
    print(f"| peak RSS (largest) | {peak:.0f} MB |")
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
