"""Every cluster within find's bounds, smallest first (issue 27):
clingo's enumeration of encoding/find/generate.lp's choice (no optimisation,
no world), optionally one per class of renamed clusters
(encoding/find/canonical.lp, D-92).

The order is fixed, so a run can resume at its K-th cluster: by the number
of objects, then of fields set, then the sum of pool positions, then the
chosen (slot, field, position) triples. Each (objects, fields) layer is one
solve under an assumption, so only one layer is held in memory.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Iterator

import clingo

from ome_asp.input.profiles import Profile
from ome_asp.solver import finder, programs
from ome_asp.solver.facts import _fold

# The pools whose names are read only by equality (canonical.lp), with the
# first interchangeable position: the model's format and framework are
# position 1 of theirs (finder.Bounds.all_pools), so the others from 2.
ATOM = re.compile(r"(set|free)\((.*),(\w+),(-?\d+)\)$")
RENAMABLE = {"formats": 2, "frameworks": 2, "entry_names": 1, "accelerator_classes": 1}

LAYERS = """
objects(N) :- N = #count{ O : used(O), slot(O, T), T != entry }.
fields(N) :- N = #count{ O, F : set(O, F, _), not fixed(O, F) }.
#external layer(N, K) : objects_range(N), fields_range(K).
:- layer(N, _), not objects(N).
:- layer(_, K), not fields(K).
free(O, F, P) :- set(O, F, P), not fixed(O, F).
#show set/3.
#show free/3.
"""


@dataclass
class Cluster:
    number: int  # its place in the order, from 0
    documents: list[dict]  # the manifests (finder.decode)
    extra: list[dict]  # add_disabled's runtime, when enumerated with it
    cost: tuple[int, int, int]  # objects, fields set, sum of positions (find's first three levels)
    chosen: tuple  # the (slot, field, position) triples


def renaming_facts(bounds: finder.Bounds) -> str:
    """canonical.lp's input: the classes of names and where they become interchangeable."""
    facts = []
    for pool, start in RENAMABLE.items():
        values = bounds.all_pools()[pool]
        if pool == "entry_names" and len({_fold(v) for v in values}) != len(values):
            continue  # two names one under case folding (W4, W5): renaming one alone is not a symmetry
        facts += [f"renamed({f.name},{pool})." for f in bounds.fields() if f.pool == pool]
        facts.append(f"renamable({pool},{start}).")
    return "\n".join(facts) + "\n"


class OutOfTime(Exception):
    """The deadline passed while enumerating."""


class StartPastTheEnd(Exception):
    """Nothing is at or after `start` > 0: the bounds hold `count` clusters."""

    def __init__(self, count: int) -> None:
        super().__init__(count)
        self.count = count


def clusters(bounds: finder.Bounds, profile: Profile, canonical: bool = False, extra: bool = False,
             start: int = 0, deadline: float | None = None, shard: tuple[int, int] | None = None) -> Iterator[Cluster]:
    """The clusters within the bounds, smallest first, from the start-th;
    with `shard` (I, N), only those numbered I modulo N (D-341).
    Past `deadline` (a time.monotonic() value) it raises OutOfTime, checked
    at every model, the layers skipped for `start` included (issue 38: a
    resume ran for minutes past its --time-limit); a layer wholly before
    `start` is counted, never held (it held 470 MB)."""
    world = finder.World(profile, programs.encoding_dir(), "add_disabled" if extra else None)
    slots = 2 * bounds.runtimes * (1 + bounds.entries) + bounds.models + 2 + extra * (1 + bounds.entries)
    most_fields = slots * len(bounds.fields())
    ctl = clingo.Control(["--opt-mode=ignore", "--models=0", "--project"], logger=lambda code, message: None)
    ranges = f"objects_range(0..{slots}). fields_range(0..{most_fields}).\n"
    ctl.add("base", [], finder.program(bounds, [world], extra) + LAYERS + ranges
            + (renaming_facts(bounds) if canonical else ""))
    ctl.load(str(finder.find_dir() / "generate.lp"))
    if canonical:
        ctl.load(str(finder.find_dir() / "canonical.lp"))
    ctl.ground([("base", [])])
    if deadline is not None and time.monotonic() > deadline:
        raise OutOfTime
    number = 0
    for objects in range(slots + 1):
        for fields in range(most_fields + 1):
            switch = clingo.Function("layer", [clingo.Number(objects), clingo.Number(fields)])
            if number < start:
                size = sum(1 for _ in _layer(ctl, switch, deadline, read=False))
                if number + size <= start:
                    number += size
                    continue
            for values, chosen in sorted(_layer(ctl, switch, deadline, read=True)):
                if number >= start and (shard is None or number % shard[1] == shard[0]):
                    fields_of: dict[str, dict[str, int]] = {}
                    for slot, f, p in chosen:
                        fields_of.setdefault(slot, {})[f] = p
                    witness = finder.witness(fields_of, [objects, fields, values], bounds)
                    yield Cluster(number, witness.documents, witness.extra, (objects, fields, values), chosen)
                number += 1
    if start > 0 and number <= start:
        raise StartPastTheEnd(number)


def _layer(ctl: clingo.Control, switch: clingo.Symbol, deadline: float | None,
           read: bool) -> Iterator[tuple[int, tuple[tuple[str, str, int], ...]]]:
    """The (sum of positions, chosen triples) of each cluster of one
    (objects, fields) layer, in clingo's order; without `read`, (0, ()) each
    (to count the layer: no atom is read)."""
    ctl.assign_external(switch, True)  # an external is false until assigned (an assumption cannot lift it)
    try:
        with ctl.solve(yield_=True) as handle:
            for model in handle:
                if deadline is not None and time.monotonic() > deadline:
                    raise OutOfTime
                if not read:
                    yield 0, ()
                    continue
                # One C call per atom (str), not one per argument: this loop is the enumeration's cost.
                matches = [ATOM.match(str(symbol)) for symbol in model.symbols(shown=True)]  # all set/3, free/3
                atoms = sorted(match.group(1, 2, 3, 4) for match in matches if match is not None)
                yield (sum(int(p) for name, slot, f, p in atoms if name == "free"),
                       tuple((slot, f, int(p)) for name, slot, f, p in atoms if name == "set"))
    finally:
        ctl.assign_external(switch, False)
