"""G7's measure of the ranking program's ground size (issue 5), shared by
tests/test_scaling.py and benchmarks/run.py.

The ranking program is the rank variant for n queries (`Variant.RANK.answering(n)`).
Its ground atoms (clingo's `problem.lp.atoms`, auxiliary atoms included) fall
into three parts:

- the cluster: the input facts and the admitted runtimes, the same whatever
  the queries -- the ground size of the admission program (input.lp,
  admission.lp) on the same facts;
- the No rows: every atom about a (query, runtime) pair that is examined but
  does not qualify (its failed checks and their reasons), counted separately;
- the rest, which G7 bounds: at most 2 atoms per qualifying pair + 6 per entry.
"""

from __future__ import annotations

from dataclasses import dataclass

from ome_asp.solver import engine
from ome_asp.solver.facts import Facts
from ome_asp.solver.programs import Variant


@dataclass
class GroundSize:
    atoms: int  # the whole ranking program
    cluster: int  # the admission program on the same facts
    no_row: int  # atoms about examined pairs that do not qualify
    no_row_pairs: int
    qualifying_pairs: int
    entries: int

    @property
    def ranking(self) -> int:
        """What G7 bounds."""
        return self.atoms - self.cluster - self.no_row

    @property
    def bound(self) -> int:
        return 2 * self.qualifying_pairs + 6 * self.entries

    @property
    def no_row_per_pair(self) -> float:
        return self.no_row / max(self.no_row_pairs, 1)


def _pair(symbol) -> tuple | None:
    """An atom's first two arguments (a query and a runtime, where it is about a pair), or None.
    `arguments` is read once: each read builds every argument's Symbol, and G7 reads ~1M atoms."""
    arguments = symbol.arguments
    return (arguments[0], arguments[1]) if len(arguments) >= 2 else None


def ground_size(facts: Facts, n_queries: int, entries: int) -> GroundSize:
    ctl = engine.ground(facts, Variant.RANK.answering(n_queries))
    atoms = ctl.symbolic_atoms
    qualifying = {_pair(a.symbol) for a in atoms.by_signature("rank_key", 3)}
    no_rows = {_pair(a.symbol) for a in atoms.by_signature("examined", 2)} - qualifying
    no_row = sum(1 for a in atoms if _pair(a.symbol) in no_rows)
    ctl.solve()  # clingo fills in the statistics when solving
    cluster = engine.ground(facts, Variant.ADMIT)
    cluster.solve()
    return GroundSize(
        atoms=int(ctl.statistics["problem"]["lp"]["atoms"]),
        cluster=int(cluster.statistics["problem"]["lp"]["atoms"]),
        no_row=no_row,
        no_row_pairs=len(no_rows),
        qualifying_pairs=len(qualifying),
        entries=entries,
    )
