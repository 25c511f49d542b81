"""The space `ome-asp find` searches (issue 27): the pools grown to the
bounds, and how many clusters the bounds span.

Two pools bound a count: a scope's runtimes have distinct names
(`runtime_names`) and models distinct (kind, name) identifiers
(`model_names`). Each grows to its bound (D-91): `runtime_names` with the
names a, b, c, ... (skipping those it has), `model_names` with other-2,
other-3, ...; a pool the user gave (`--pool runtime_names=...`) is theirs and
a bound above it is a usage error (ome_asp/commands/bounds_flags.py). No other
pool bounds a count: entries may repeat a format, and every other field is
chosen on its own.

`clusters` counts the answer sets of encoding/find/generate.lp's choice (what
the search ranges over, each cluster once), by the same rules: a field
absent (when optional) or a pool value, a dependent field only below the
field it depends on, a scope's runtimes a set of distinct names, models a
set of distinct identifiers besides m, the InferenceService as every
world's loader requires (M6, I4). tests/test_bounds.py checks the count
against clingo's enumeration of the generator.
"""

from __future__ import annotations

import math
from itertools import count as naturals
from math import comb, prod
from string import ascii_lowercase


def runtime_name(number: int) -> str:
    """The number-th generated runtime name, from 1: a, ..., z, aa, ab, ...
    (bijective base 26)."""
    letters = ""
    while number:
        number, digit = divmod(number - 1, 26)
        letters = ascii_lowercase[digit] + letters
    return letters


def grown(pools: dict, runtimes: int, models: int, other_model: str) -> dict:
    """The pools with runtime_names holding a name per runtime of a scope and
    model_names a name for every model (each name in every model kind)."""
    pools = dict(pools)
    names = pools["runtime_names"]
    fresh = (name for name in map(runtime_name, naturals(1)) if name not in names)
    pools["runtime_names"] = names + tuple(next(fresh) for _ in range(runtimes - len(names)))
    names = pools["model_names"]
    needed = math.ceil(models / len(pools["model_kinds"]))
    fresh = (name for name in (f"{other_model}-{i}" for i in naturals(2)) if name not in names)
    pools["model_names"] = names + tuple(next(fresh) for _ in range(needed - len(names)))
    return pools


def _options(bounds, owner: str, fixed: frozenset = frozenset(), required: frozenset = frozenset(),
             absent: frozenset = frozenset()) -> int:
    """How many ways a slot of `owner` sets its fields: `fixed` fields have
    their one value, `required` ones (besides the fields' own) a pool value,
    `absent` ones none."""
    pools = bounds.all_pools()
    fields = [f for f in bounds.fields() if f.owner == owner]

    def ways(f) -> int:
        below = prod(ways(g) for g in fields if g.depends == f.name)
        if f.name in absent:
            return 1
        if f.name in fixed:
            return below
        return (0 if f.required or f.name in required else 1) + len(pools[f.pool]) * below

    return prod(ways(f) for f in fields if f.depends is None)


def clusters(bounds, model_rules: set[str], extra_runtime: bool = False) -> int:
    """The number of clusters within the bounds (with add_disabled's extra
    runtime: of clusters and their added runtime). `model_rules`: every
    world's profile's rule for an InferenceService's spec.model (M6)."""
    pools = bounds.all_pools()
    lists = sum(_options(bounds, "entry") ** j for j in range(bounds.entries + 1))  # a runtime's entries, in order
    runtime = _options(bounds, "runtime", fixed=frozenset({"name"})) * lists
    scope = sum(comb(len(pools["runtime_names"]), k) * runtime ** k for k in range(bounds.runtimes + 1))
    model = _options(bounds, "model", fixed=frozenset({"model_kind", "model_name"}))
    identifiers = len(pools["model_kinds"]) * len(pools["model_names"])
    models = len(pools["model_kinds"]) * model * sum(comb(identifiers - 1, j) * model ** j for j in range(bounds.models))
    total = models * scope ** 2
    if bounds.isvc:
        if "required" in model_rules:
            total *= _options(bounds, "isvc", required=frozenset({"isvc_model"}))
        elif "model-or-runtime" in model_rules:
            total *= _options(bounds, "isvc") - _options(bounds, "isvc", absent=frozenset({"isvc_model", "isvc_runtime"}))
        else:
            total *= _options(bounds, "isvc")
    if bounds.accelerators:
        total *= 1 + _options(bounds, "accelerator")
    if extra_runtime:
        total *= 1 + _options(bounds, "runtime", fixed=frozenset({"name"}), required=frozenset({"disabled"})) * lists
    return total


def describe(number: int) -> str:
    """A count as the header prints it: exact when small, and its log10."""
    if number == 0:
        return "0"
    magnitude = f"10^{math.log10(number):.1f}"
    return f"{number:,} ({magnitude})" if number < 10**9 else magnitude


def to_json(number: int) -> dict:
    """The count in a report: exact where a JSON reader keeps it exactly (below 2^53)."""
    return {"clusters": number if number < 2**53 else None, "clustersLog10": round(math.log10(number), 2) if number else None}
