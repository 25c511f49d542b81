"""steer's work on a 400-runtime catalog (issue 24), counted: the groundings
it asks clingo for (each one solver call) and their ground atoms; and timed,
for the lead's run on an idle machine (no test asserts a time).

    python benchmarks/steer.py [--runtimes N]

The catalog is benchmarks/clusters.py's (one model, seed 24); the wanted
runtime is the third of the model's ranking, so the search has rivals to
outrank and the verification sets to check. tests/test_steer.py bounds the
counts on the same catalog.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from dataclasses import dataclass, field

from clusters import NAMESPACE, cluster_documents

from ome_asp.analysis import steer
from ome_asp.input.loader import load_documents
from ome_asp.input.objects import Cluster, Query, RuntimeRef
from ome_asp.solver import ask, engine
from ome_asp.solver.programs import Variant

SEED = 24


@dataclass
class Work:
    """The groundings made, each with its variant's files and ground atoms."""

    groundings: list[tuple[str, int]] = field(default_factory=list)  # (the variant's name, ground atoms)

    @property
    def atoms(self) -> int:
        return sum(atoms for _, atoms in self.groundings)


@contextlib.contextmanager
def counted():
    """Every grounding of ome_asp.solver.ask counted (engine.ground_program wrapped)."""
    work, ground = Work(), engine.ground_program

    def counting(facts, files, load=None):
        ctl = ground(facts, files, load)
        work.groundings.append((Variant(tuple(files)).name, len(ctl.symbolic_atoms)))
        return ctl

    engine.ground_program = counting
    try:
        yield work
    finally:
        engine.ground_program = ground


def catalog(runtimes: int = 400) -> tuple[Cluster, Query, RuntimeRef]:
    """The catalog, its one model's query, and the runtime steer is asked for."""
    cluster = load_documents(cluster_documents(runtimes, models=1, seed=SEED))
    query = Query(NAMESPACE, model=cluster.models[0].name)
    ranking = ask.ask(cluster, [query], Variant.EXPLAIN).answer.queries[1].ranking
    return cluster, query, ranking[2]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runtimes", type=int, default=400)
    args = parser.parse_args(argv)
    cluster, query, want = catalog(args.runtimes)
    start = time.perf_counter()
    with counted() as work:
        result = steer.steer(cluster, query, want)
    seconds = time.perf_counter() - start
    print(f"steer --want {want.name} on {args.runtimes} runtimes: {len(result.edit_sets)} edit set(s), "
          f"{len(result.candidates)} candidate edits")
    print(f"| groundings (solver calls) | {len(work.groundings)} |")
    print(f"| ground atoms, all groundings | {work.atoms} |")
    for variant, atoms in work.groundings:
        print(f"| ground atoms, {variant} | {atoms} |")
    print(f"| seconds (meaningful on an idle machine only) | {seconds:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
