"""find's bounds and pools flags, shared by `find` and `diff --exhaustive`
(docs/find.md, "Bounds"): the flags, the Bounds they give, and the line that
states the bounds searched."""

from __future__ import annotations

import argparse

from ome_asp.analysis.find import PROPERTIES
from ome_asp.errors import UsageError
from ome_asp.input.documents import quote, shown
from ome_asp.input.objects import unrepresentable
from ome_asp.input.profiles import Profile
from ome_asp.input.sizes import is_go_size, is_size
from ome_asp.input.versions import parse_version
from ome_asp.solver import finder

WEIGHT_LIMIT = 2**40


def bounds_of(args: argparse.Namespace, defaults: dict = finder.DEFAULT_POOLS) -> finder.Bounds:
    """The bounds of add_bounds_flags' flags, on the `defaults` pools."""
    if args.runtimes is None:
        prop = PROPERTIES.get(args.property) if getattr(args, "property", None) is not None else None
        args.runtimes = prop.runtimes if prop is not None else finder.Bounds.runtimes
    if args.runtimes < 1 or args.entries < 1 or args.models < 1:
        raise UsageError("--runtimes, --entries and --models must be at least 1")
    pools = dict(defaults)
    for text in args.pool:
        if unrepresentable(text):  # an argument that is not UTF-8 (issue 28: a traceback)
            raise UsageError(f"--pool {quote(text)}: {unrepresentable(text)}")
        name, _, values = text.partition("=")
        kind = finder.POOL_TYPES.get(name)
        if kind is None or not _:
            raise UsageError(f"--pool {shown(text)}: write NAME=V1,V2,... with NAME one of {', '.join(finder.POOL_TYPES)}")
        items = [v for v in values.split(",") if v != ""]
        try:
            pools[name] = tuple(kind(v) for v in items)
        except ValueError:
            raise UsageError(f"--pool {shown(text)}: {name} takes integers") from None
        if kind is int and any(not -2**31 <= v < 2**31 for v in pools[name]):
            # clingo's integers are 32-bit (issue 28: an OverflowError, exit 3)
            raise UsageError(f"--pool {shown(text)}: {name} must lie within -2147483648..2147483647")
        if len(set(pools[name])) != len(pools[name]):
            raise UsageError(f"--pool {text}: a value is listed twice")
    for text in pools["versions"]:
        if parse_version(text) is None:
            raise UsageError(f"--pool versions: {text!r} is not a version (V1)")
    if any(abs(w) > WEIGHT_LIMIT for w in pools["weights"]):
        # The pool's weight products are ranked once for every profile; below
        # this bound none reaches code-v0.1.5's int64 wrap (D-50), so they agree.
        raise UsageError(f"--pool weights: values beyond ±{WEIGHT_LIMIT} are not searched (docs/find.md)")
    for name in ("runtime_names", "formats", "frameworks"):
        if not pools[name]:
            raise UsageError(f"--pool {name}: needs at least one value")
    given = {text.partition("=")[0] for text in args.pool}
    if len(pools["runtime_names"]) < args.runtimes and "runtime_names" in given:
        # Your names are what is searched: the default pool grows to the bound, yours does not (D-91).
        raise UsageError(f"--runtimes {args.runtimes}: a scope's runtimes have distinct names, and --pool runtime_names "
                         f"gives {len(pools['runtime_names'])}: give at least {args.runtimes} or leave the pool out")
    return finder.Bounds(args.runtimes, args.entries, pools, args.isvc, args.modes, args.accelerators, args.models)


def add_bounds_flags(parser: argparse.ArgumentParser, runtimes_default: str) -> None:
    """The bounds and pools flags, find's and `diff --exhaustive`'s (bounds_of reads them)."""
    parser.add_argument("--runtimes", type=int, default=None, metavar="N",
                        help=f"runtimes per scope, ServingRuntimes and ClusterServingRuntimes (default: {runtimes_default})")
    parser.add_argument("--entries", type=int, default=finder.Bounds.entries, metavar="N",
                        help="supportedModelFormats entries per runtime (default: %(default)s)")
    parser.add_argument("--models", type=int, default=finder.Bounds.models, metavar="N",
                        help="models: the queried BaseModel or ClusterBaseModel m and up to N-1 others, of its name "
                        "in the other scope (M1) or another (default: %(default)s)")
    parser.add_argument("--isvc", action="store_true",
                        help="an InferenceService: the worlds answer explain and select --isvc for it (X, M, O9)")
    parser.add_argument("--modes", action="store_true", help="deployment modes on runtimes and the InferenceService (D, Q4)")
    parser.add_argument("--accelerators", action="store_true",
                        help="an AcceleratorClass, runtimes' acceleratorClasses and the InferenceService's request (A, W3)")
    parser.add_argument("--pool", action="append", default=[], metavar="NAME=V1,V2",
                        help="the values a field may take (repeatable; docs/find.md lists the pools)")


def bounds_text(bounds: finder.Bounds) -> str:
    b = bounds.to_json()
    pools = " ".join(f"{k}={','.join(map(str, v)) or '-'}" for k, v in b["pools"].items())
    models = b["models"]
    objects = f"{b['runtimesPerScope']} runtimes per scope, {b['entriesPerRuntime']} entries per runtime, {models} model{'s' * (models > 1)}"
    objects += ", 1 InferenceService" if bounds.isvc else ""
    objects += "".join(f", {what}" for what, on in (("deployment modes", bounds.modes), ("accelerator classes", bounds.accelerators))
                       if on)
    return f"{objects}; pools: {pools}"


def searchable(sides: list[Profile], bounds: finder.Bounds) -> None:
    """A usage error for a pool whose values a side's loader rejects (a witness
    is valid input for every side, D-70), or whose witnesses the search could
    not answer as the sides (their profiles) do."""
    for profile in sides:
        grammar = is_go_size if profile.size_syntax == "go" else is_size
        for text in bounds.pools["sizes"]:
            if not grammar(text):
                raise UsageError(f"--pool sizes: {text!r} is not a size {profile.name} reads (Z1)")
        if profile.schema_validation and any(p < 1 for p in bounds.pools["priorities"]):
            raise UsageError(f"--pool priorities: {profile.name}'s schema requires a priority of at least 1 (I4)")
        gap = finder.go_order_gap(profile, bounds.pools["sizes"])
        if gap is not None:
            size, near, far = gap
            raise UsageError(f"--pool sizes: for a model of {size}, distances {near!r} and {far!r} differ by less than one "
                             f"parameter, where {profile.name}'s Go order (O3/O4) is not in find's worlds (docs/find.md)")
