"""The search of `ome-asp find` (issue 14): the smallest cluster, within
bounds, on which a condition over one or more worlds holds.

The cluster is chosen inside the solver: encoding/find/generate.lp picks
objects (slots) and a value from a pool for each field, and derives from
them, per world, exactly the input predicates encoding/input.lp declares,
as facts.py would emit them for the same manifests. What facts.py computes
in Python -- exact-number ranks, name ranks, version components, weight
products, size values, widths and distances -- is computed here once for
every value of the pools (with facts.py's own functions and one FactBuilder,
so one ranking covers them all): a rank order that holds on the whole pool
holds on any subset a witness uses.

Each world is a copy of the encoding with its own world constant
(ome_asp/solver/pinned.py) and its own switch/3 facts; the condition
(encoding/find/*.lp, or the user's file) reads the worlds' atoms and
constrains them. Minimality is a stack of named optimization levels:
fewest objects, then fewest fields set, then the smallest pool positions,
then each field's position in a fixed order, which makes the optimum unique.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Sequence

import clingo

from ome_asp.errors import InternalError
from ome_asp.input.loader import ACCELERATOR_CLASS_ANNOTATION as ACCELERATOR_ANNOTATION
from ome_asp.input.loader import API_VERSION, DEPLOYMENT_MODES
from ome_asp.input.loader import DEPLOYMENT_MODE_ANNOTATION as MODE_ANNOTATION
from ome_asp.input.objects import Entry, FormatRef
from ome_asp.input.profiles import Profile
from ome_asp.solver import engine, pinned, space
from ome_asp.solver.facts import (
    RUNTIME_KIND_TERMS,
    EntryTables,
    FactBuilder,
    Term,
    _fold,
    add_version,
    const,
    size_value,
    term,
)
from ome_asp.solver.programs import Variant, encoding_dir

NAMESPACE = "default"  # the namespace every query asks in and every ServingRuntime lives in
MODEL_NAME = "m"
ISVC_NAME = "i"  # the InferenceService of --isvc (generate.lp names it too)
OTHER_MODEL = "other"  # a spec.model.name no model has (M2)

# The value pools. Position 1 is the simplest value: minimality prefers it.
DEFAULT_POOLS: dict[str, tuple] = {
    "runtime_names": ("a", "b"),
    "formats": ("f", "g"),
    "frameworks": ("t",),
    "versions": ("1.0.0", "2.0.0"),
    "operators": ("GreaterThanOrEqual",),
    "weights": (0, 1, 2),
    "priorities": (1, 2),
    "auto_select": (True, False),
    "sizes": ("1B", "7B"),
    "architectures": (),
    "quantizations": (),
    "entry_names": (),
    "model_kinds": ("BaseModel", "ClusterBaseModel"),
    "flags": (True,),
    "ranges": ({},),
    # In play with --modes and --accelerators; protocols and workers when not empty.
    "modes": ("OMENative", "RawDeployment", "MultiNode"),
    "accelerator_classes": ("gpu",),
    "protocols": (),
    "workers": (),
    # The InferenceService's fixed pools (--isvc).
    "model_names": (MODEL_NAME, OTHER_MODEL),  # spec.model.name of the InferenceService, names of more models
    "runtime_kinds": ("ServingRuntime", "ClusterServingRuntime"),
    "objects": ({},),
    "auto_sync": (False,),
    "images": ("img",),
    "virtual": ("VirtualDeployment",),
}
# What each pool holds, for --pool's values (documented in docs/find.md).
POOL_TYPES = {
    "runtime_names": str, "formats": str, "frameworks": str, "versions": str, "operators": str,
    "weights": int, "priorities": int, "sizes": str, "architectures": str, "quantizations": str,
    "entry_names": str, "modes": str, "accelerator_classes": str, "protocols": str, "workers": int,
}


@dataclass(frozen=True)
class Field:
    """A field a slot can set: set(Slot, Name, Position) picks pools[pool][Position - 1]."""

    name: str
    owner: str  # runtime | entry | model | isvc | accelerator
    path: tuple[str, ...]  # where it is written (below the entry for an entry's field)
    pool: str
    required: bool = False
    depends: str | None = None  # only set when this other field of the slot is
    needs: tuple[str, ...] = ()  # the Bounds switches that put it in play (isvc, modes, accelerators)
    listed: bool = False  # written as a one-item list


FIELDS = (
    Field("name", "runtime", ("metadata", "name"), "runtime_names", required=True),
    Field("disabled", "runtime", ("spec", "disabled"), "flags"),
    Field("range", "runtime", ("spec", "modelSizeRange"), "ranges"),
    Field("min", "runtime", ("spec", "modelSizeRange", "min"), "sizes", depends="range"),
    Field("max", "runtime", ("spec", "modelSizeRange", "max"), "sizes", depends="range"),
    Field("accelerator", "runtime", ("spec", "acceleratorRequirements", "acceleratorClasses"), "accelerator_classes",
          needs=("accelerators",), listed=True),
    Field("engine_mode", "runtime", ("spec", "engineConfig", "annotations", MODE_ANNOTATION), "modes", needs=("modes",)),
    Field("decoder_mode", "runtime", ("spec", "decoderConfig", "annotations", MODE_ANNOTATION), "modes", needs=("modes",)),
    Field("protocol", "runtime", ("spec", "protocolVersions"), "protocols", listed=True),
    Field("workers", "runtime", ("spec", "workers", "size"), "workers"),
    Field("format", "entry", ("modelFormat", "name"), "formats", required=True),
    Field("format_version", "entry", ("modelFormat", "version"), "versions"),
    Field("format_operator", "entry", ("modelFormat", "operator"), "operators"),
    Field("format_weight", "entry", ("modelFormat", "weight"), "weights"),
    Field("framework", "entry", ("modelFramework", "name"), "frameworks", required=True),
    Field("framework_version", "entry", ("modelFramework", "version"), "versions"),
    Field("framework_operator", "entry", ("modelFramework", "operator"), "operators"),
    Field("framework_weight", "entry", ("modelFramework", "weight"), "weights"),
    Field("architecture", "entry", ("modelArchitecture",), "architectures"),
    Field("quantization", "entry", ("quantization",), "quantizations"),
    Field("auto_select", "entry", ("autoSelect",), "auto_select"),
    Field("priority", "entry", ("priority",), "priorities"),
    Field("entry_name", "entry", ("name",), "entry_names"),
    Field("model_kind", "model", ("kind",), "model_kinds", required=True),
    Field("model_name", "model", ("metadata", "name"), "model_names", required=True),
    Field("model_format", "model", ("spec", "modelFormat", "name"), "model_formats", required=True),
    Field("model_format_version", "model", ("spec", "modelFormat", "version"), "versions"),
    Field("model_framework", "model", ("spec", "modelFramework", "name"), "model_frameworks"),
    Field("model_framework_version", "model", ("spec", "modelFramework", "version"), "versions",
          depends="model_framework"),
    Field("model_architecture", "model", ("spec", "modelArchitecture"), "architectures"),
    Field("model_quantization", "model", ("spec", "quantization"), "quantizations"),
    Field("model_size", "model", ("spec", "modelParameterSize"), "sizes"),
    Field("model_disabled", "model", ("spec", "disabled"), "flags"),
    Field("isvc_model", "isvc", ("spec", "model", "name"), "model_names", needs=("isvc",)),
    Field("isvc_runtime", "isvc", ("spec", "runtime", "name"), "runtime_names", needs=("isvc",)),
    Field("isvc_runtime_kind", "isvc", ("spec", "runtime", "kind"), "runtime_kinds", depends="isvc_runtime", needs=("isvc",)),
    Field("isvc_auto_sync", "isvc", ("spec", "runtime", "autoSync"), "auto_sync", depends="isvc_runtime", needs=("isvc",)),
    Field("isvc_engine", "isvc", ("spec", "engine"), "objects", needs=("isvc",)),
    Field("isvc_runner", "isvc", ("spec", "engine", "runner", "image"), "images", depends="isvc_engine", needs=("isvc",)),
    Field("isvc_decoder", "isvc", ("spec", "decoder"), "objects", depends="isvc_engine", needs=("isvc",)),
    Field("isvc_engine_mode", "isvc", ("spec", "engine", "annotations", MODE_ANNOTATION), "modes",
          depends="isvc_engine", needs=("isvc", "modes")),
    Field("isvc_decoder_mode", "isvc", ("spec", "decoder", "annotations", MODE_ANNOTATION), "modes",
          depends="isvc_decoder", needs=("isvc", "modes")),
    Field("isvc_deployment_mode", "isvc", ("spec", "deploymentMode"), "deployment_modes", needs=("isvc", "modes")),
    Field("isvc_virtual", "isvc", ("metadata", "annotations", MODE_ANNOTATION), "virtual", needs=("isvc", "modes")),
    Field("isvc_accelerator", "isvc", ("metadata", "annotations", ACCELERATOR_ANNOTATION), "accelerator_classes",
          needs=("isvc", "accelerators")),
    Field("accelerator_name", "accelerator", ("metadata", "name"), "accelerator_classes", required=True,
          needs=("accelerators",)),
)
FIELD = {f.name: f for f in FIELDS}
PLACE = {f.name: place for place, f in enumerate(FIELDS)}  # a dict, not FIELDS.index: witness() runs per enumerated cluster


@dataclass(frozen=True)
class Bounds:
    """How large a cluster the search considers."""

    runtimes: int = 2  # per scope: ServingRuntimes of the namespace, ClusterServingRuntimes
    entries: int = 1  # supportedModelFormats per runtime
    pools: dict = field(default_factory=lambda: dict(DEFAULT_POOLS))
    isvc: bool = False  # an InferenceService, which the query asks about (explain and select --isvc)
    modes: bool = False  # deployment modes on the runtimes and the InferenceService (D1-D9)
    accelerators: bool = False  # an AcceleratorClass, runtimes' acceleratorClasses, the ISVC's request (A, W3)
    models: int = 1  # BaseModels of the namespace and ClusterBaseModels: the queried `m` and others

    def __post_init__(self) -> None:
        # The bounds are what is searched: the pools that bound a count grow to them (issue 27, D-91).
        object.__setattr__(self, "pools", space.grown(self.pools, self.runtimes, self.models, OTHER_MODEL))

    def in_play(self, f: Field) -> bool:
        return all(getattr(self, switch) for switch in f.needs)

    def fields(self) -> list[Field]:
        return [f for f in FIELDS if self.in_play(f)]

    def all_pools(self) -> dict[str, tuple]:
        """The pools and those derived from them. Only equality with the
        entries' names matters of the model's format and framework names, so
        the model takes the first of each (any witness with another one is
        this one renamed): this keeps the model's score views (scoring.lp)
        few, which the grounding of every world multiplies."""
        return {**self.pools, "model_formats": self.pools["formats"][:1], "model_frameworks": self.pools["frameworks"][:1],
                "deployment_modes": tuple(m for m in self.pools["modes"] if m in DEPLOYMENT_MODES)}

    def to_json(self) -> dict:
        hidden = {"modes"} if not self.modes else set()
        hidden |= {"accelerator_classes"} if not self.accelerators else set()
        hidden |= {"model_names"} if self.models == 1 and not self.isvc else set()  # only m's name is chosen
        shown = {k: list(v) for k, v in self.pools.items() if (k in POOL_TYPES or k == "model_names") and k not in hidden}
        return {"runtimesPerScope": self.runtimes, "entriesPerRuntime": self.entries, "models": self.models,
                "inferenceServices": int(self.isvc), "deploymentModes": self.modes, "acceleratorClasses": self.accelerators,
                "pools": shown}


@dataclass(frozen=True)
class World:
    """One copy of the specification: its profile, its encoding, how its cluster
    differs from the chosen one (`variant`: a name generate.lp knows)."""

    profile: Profile
    encoding: Path
    variant: str | None = None  # raise_winner | add_disabled (of world 1's cluster)


# The witness's size: generate.lp's highest levels, highest first (its
# criterion/2; the fixed order of the fields lies below them).
SIZE_CRITERIA = ("fewest_objects", "fewest_fields", "smallest_values")


@dataclass
class Witness:
    documents: list[dict]  # the manifests, one dict per object, as they are written
    extra: list[dict]  # objects only the variant worlds have (add_disabled)
    cost: list[tuple[str, int]]  # (level name, cost), highest level first


def find_dir() -> Path:
    return encoding_dir() / "find"


def program(bounds: Bounds, world_list: list[World], extra_runtime: bool) -> str:
    """The facts of a search: slots, pools, the per-profile tables, the worlds."""
    builder = FactBuilder(frozenset({
        "weights", "weights_stored", "weights_priority", "weights_score_option", "weights_shown_option",
        "weights_absent", "version",
    }), schema=("input.lp", "find/generate.lp"))
    fact, pools = builder.fact, bounds.all_pools()
    n = bounds.runtimes
    runtime_slots = list(range(1, 2 * n + 1)) + ([2 * n + 1] if extra_runtime else [])
    for k in runtime_slots:
        scope = "sr" if k <= n else "csr"
        rt = Term(f"rt({k})")
        fact.slot(rt, const("runtime"))
        fact.slot_scope(rt, const(scope))
        if k not in (1, n + 1, 2 * n + 1):
            fact.slot_after(rt, Term(f"rt({k - 1})"))
        for i in range(bounds.entries):
            en = Term(f"en({k},{i})")
            fact.slot(en, const("entry"))
            fact.entry_of(en, rt, i)
            fact.slot_after(en, rt if i == 0 else Term(f"en({k},{i - 1})"))
    for k in range(1, bounds.models + 1):  # md(1) is the queried model m; more models come after it
        fact.slot(Term(f"md({k})"), const("model"))
        if k > 1:
            fact.slot_after(Term(f"md({k})"), Term(f"md({k - 1})"))
    fact.slot_required(Term("md(1)"))
    fact.slot_fixed(Term("md(1)"), const("model_name"), 1)
    if bounds.isvc:  # the query's InferenceService
        fact.slot(Term("is(1)"), const("isvc"))
        fact.slot_required(Term("is(1)"))
    if bounds.accelerators:
        fact.slot(Term("ac(1)"), const("accelerator"))
    if extra_runtime:
        fact.extra_slot(Term(f"rt({2 * n + 1})"))

    levels = _canonical_levels(bounds, runtime_slots)
    for level, (slot, name) in enumerate(levels, 1):
        fact.criterion(level, term("canonical", Term(slot), const(name)))
    top = len(levels)
    for offset, name in zip((3, 2, 1), SIZE_CRITERIA):
        fact.criterion(top + offset, const(name))

    for f in bounds.fields():
        fact.field(const(f.owner), const(f.name))
        if f.required:
            fact.required(const(f.name))
        if f.depends:
            fact.depends(const(f.name), const(f.depends))
        for position, value in enumerate(pools[f.pool], 1):
            fact.pool(const(f.name), position)
            fact.pool_value(const(f.name), position, _term(value))
    names = pools["runtime_names"]
    if extra_runtime:
        names = names + (added_name(names),)
        fact.extra_name(len(names))
        fact.pool_value(const("name"), len(names), names[-1])
    for position, name in enumerate(names, 1):
        fact.pool_name_rank(position, sorted(names).index(name) + 1)
    for position, name in enumerate(pools["entry_names"], 1):
        fact.pool_folded(position, _fold(name))
    for text in pools["versions"]:
        add_version(builder, text)

    for name, kind in RUNTIME_KIND_TERMS.items():
        fact.runtime_kind_term(name, const(kind))
    # The loader's rules for an InferenceService's spec.model (I4, M6) under
    # every world's profile: a witness is valid input for every side.
    for rule in {w.profile.model_rule for w in world_list}:
        fact.isvc_model_rule(const(rule.replace("-", "_")))

    profiles = {w.profile.name: w.profile for w in world_list}
    for profile in profiles.values():
        for what in reads(profile):
            fact.profile_reads(profile_term(profile), const(what))
    entries = EntryTables(builder, set())  # one table: equal weights get one term in every profile
    for profile in profiles.values():
        _profile_tables(builder, entries, profile, pools)
    for number, world in enumerate(world_list, 1):
        fact.world(number)
        fact.world_profile(number, profile_term(world.profile))
        if world.variant is not None:
            fact.world_variant(number, const(world.variant))
    return builder.program() + "".join(_switches(number, world.profile) for number, world in enumerate(world_list, 1))


def added_name(names: tuple[str, ...]) -> str:
    """The name of add_disabled's extra runtime: one no other runtime has, so
    its identifier is none of theirs and each world's rules for a runtime read
    one runtime (shared names make the solver prove, for every cluster, that
    the extra runtime is not the one it shares a name with: ten times the search)."""
    return next(name for name in ("added", *(f"added-{i}" for i in range(1, len(names) + 2))) if name not in names)


def _switches(world: int, profile: Profile) -> str:
    """The world's switch/3 facts: input.lp's switch/2 of its profile, with the world first."""
    return "".join(f"switch({world},{name},{value}).\n" for name, value in profile.facts())


def profile_term(profile: Profile) -> str:
    return profile.name


def _term(value: object) -> object:
    """A pool value as the term pool_value/3 gives it: a flag as true/false, a mapping as `set`."""
    if isinstance(value, bool):
        return const("true" if value else "false")
    if isinstance(value, dict):
        return const("set")
    return value


def go_order_gap(profile: Profile, sizes: tuple[str, ...]) -> tuple[str, Fraction | float, Fraction | float] | None:
    """Two float64 distances (Z5) of one model size that differ by less than
    one parameter, under a profile with Go's sort (O3/O4), or None. Go's
    comparator truncates such a difference to 0, and its insertion sort over
    the fetch order runs in Python after a solve (gosort.py); a world orders
    by its rank keys, which agree with Go's order only where distances are
    equal or at least 1 apart (D-70), so find refuses other pools there."""
    if not profile.go_sort:
        return None
    values = [size_value(profile, text) for text in sizes]
    for size, value in zip(sizes, values):
        distances = sorted({_apart(low, value) + _apart(high, value) for low in values for high in values})
        for near, far in zip(distances, distances[1:]):
            if far - near < 1 or far != far:  # NaN compares with nothing: Go's order is unspecified (OQ-30)
                return size, near, far
    return None


def _apart(a: Fraction | float, b: Fraction | float) -> Fraction | float:
    """|a - b| (Z5's terms), of exact counts or of float64s alike."""
    return a - b if a >= b else b - a


def reads(profile: Profile) -> list[str]:
    """The chosen fields the loader reads only under some profiles (loader.py):
    spec.deploymentMode (D3), the VirtualDeployment annotation (Q1), the
    configuration check's engineConfig/decoderConfig and workers (docs/profiles.md
    3.5) and spec.protocolVersions (W5)."""
    reads = {"deployment_mode": profile.mode_filter == "full", "virtual_deployment": profile.virtual_deployment_skip,
             "configuration": profile.webhook_quirks, "protocol_versions": profile.cross_runtime_check}
    return [name for name, read in reads.items() if read]


def _profile_tables(builder: FactBuilder, entries: EntryTables, profile: Profile, pools: dict) -> None:
    """The values facts.py computes from a manifest under `profile`, for every
    pool value: weight products (EntryTables.weights), sizes, widths, the size
    gaps of one-bounded ranges or the float64 distances of two-bounded ones."""
    fact, exact = builder.fact, builder.exact
    p = profile.name
    weights = (None, *pools["weights"])  # position 0: absent
    priorities = (None, *pools["priorities"])
    for a, wf in enumerate(weights):
        fact.pool_weight_read(p, a, exact(profile.absent_weight if wf is None else wf))
        for b, ww in enumerate(weights):
            for c, priority in enumerate(priorities):
                for raised in (0, 1):
                    read = None if priority is None and not raised else (1 if priority is None else priority) + raised
                    entry = Entry(None, FormatRef("f", weight=profile.absent_weight if wf is None else wf),
                                  FormatRef("t", weight=profile.absent_weight if ww is None else ww), priority=read)
                    fact.pool_weights(p, a, b, c, raised, entries.weights(entry))
    for c, priority in enumerate(priorities):
        fact.pool_raised_priority(c, (1 if priority is None else priority) + 1)
    sizes = pools["sizes"]
    values = [size_value(profile, text) for text in sizes]
    for v, value in enumerate(values, 1):
        fact.pool_size(p, v, exact(value))
        for u, bound in enumerate(values, 1):
            fact.pool_width(p, v, u, exact(bound - value))
            if profile.size_syntax == "go":
                for t, high in enumerate(values, 1):
                    fact.pool_size_distance(p, v, u, t, exact(value), exact(bound), exact(high),
                                            exact(_apart(bound, value) + _apart(high, value)))
            else:
                fact.pool_size_gap(p, v, u, exact(value), exact(bound), exact(_apart(bound, value)))


def _canonical_levels(bounds: Bounds, runtime_slots: list[int]) -> list[tuple[str, str]]:
    """(slot, field) pairs, the last the most significant: the tie-break that
    makes the optimum unique (model, InferenceService, AcceleratorClass, then
    runtimes in slot order)."""
    fields = bounds.fields()
    slots = [(f"md({k})", "model") for k in range(1, bounds.models + 1)] + [("is(1)", "isvc"), ("ac(1)", "accelerator")]
    order = [(slot, f.name) for slot, owner in slots for f in fields if f.owner == owner]
    for k in runtime_slots:
        order += [(f"rt({k})", f.name) for f in fields if f.owner == "runtime"]
        for i in range(bounds.entries):
            order += [(f"en({k},{i})", f.name) for f in fields if f.owner == "entry"]
    return list(reversed(order))


# What a variant world changes of world 1's cluster, as the generate.lp
# predicates the change enters by: world_variant(W, raise_winner) is read
# only by raised/2, whose world then gets other entry/5 and entry_priority/4
# facts. (add_disabled's one more runtime, in_world/2, reaches nearly every
# predicate: sharing the rest measured no faster, so its world derives all.)
VARIES = {"raise_winner": {("raised", 2)}}


def _shares(world: World, first: World, files: tuple[str, ...]) -> tuple[int, set] | None:
    """A variant world of world 1's profile and encoding derives only what its
    change reaches; the rest is world 1's (pinned.add)."""
    if world.variant not in VARIES or (world.profile, world.encoding) != (first.profile, first.encoding):
        return None
    programs: list[Sequence] = [engine.statements(str(find_dir() / "generate.lp"))]
    programs += [pinned.statements(world.encoding / name, 1) for name in files]
    return 1, pinned.varied(VARIES[world.variant], programs)


def world_variant(bounds: Bounds, explain: bool) -> Variant:
    """The program of a world: the batch program, explanation.lp for the No
    rows' reasons (`explain`), and with an InferenceService outcome.lp (what
    select answers), which reads explanation.lp's checks."""
    return Variant.FIND_SELECT if bounds.isvc else Variant.FIND_EXPLAIN if explain else Variant.FIND_RANK


def search(bounds: Bounds, world_list: list[World], conditions: list[Path], parameters: str = "",
           where: Path | None = None, extra_runtime: bool = False, explain: bool = False, threads: int = 1) -> Witness | None:
    """The smallest witness of the conditions within the bounds, or None.
    `explain`: the worlds ground explanation.lp too (the No rows' reasons);
    with an InferenceService (bounds.isvc) also outcome.lp (what select answers).
    With `threads` > 1 a witness's existence is decided first by clasp's
    splitting search on that many threads (D-69): a property that holds is
    an unsatisfiable program, and proving that is the slow part; the search
    for the smallest witness stays sequential (clasp's parallel optN
    enumeration does not flag the optimum as proven)."""

    collapse = _collapsible(bounds, world_list, conditions, where, explain)  # once: its walk is ~0.3 s

    def grounded(options: list[str]) -> clingo.Control:
        return ground(options, bounds, world_list, conditions, parameters, where, extra_runtime, explain, collapse)

    # Two groundings: one reconfigured between its solves kept its threads (D-69).
    if threads > 1 and not grounded(["--opt-mode=ignore", f"--parallel-mode={threads},split"]).solve().satisfiable:
        return None
    optimal, ctl = [], grounded(["--opt-mode=optN", "--models=0"])  # the handle needs its Control alive
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            if model.optimality_proven:
                optimal.append((model.symbols(shown=True), model.cost))
    if not optimal:
        return None
    if len(optimal) != 1:
        raise InternalError(f"find: the smallest witness is not unique ({len(optimal)} optimal answer sets)")
    symbols, cost = optimal[0]
    return decode(symbols, cost, bounds)


def _collapsible(bounds: Bounds, world_list: list[World], conditions: list[Path], where: Path | None,
                 explain: bool) -> bool:
    """Whether scores may be keyed by the model, not by its score view: one
    per possible model, not per possible view (pinned.COLLAPSED, D-71)."""
    files = world_variant(bounds, explain).files
    return pinned.collapsible([*conditions, *([where] if where else []),
                               *{w.encoding / name for w in world_list for name in files}])


def ground(options: list[str], bounds: Bounds, world_list: list[World], conditions: list[Path], parameters: str = "",
           where: Path | None = None, extra_runtime: bool = False, explain: bool = False,
           collapse: bool | None = None) -> clingo.Control:
    """The search's program, ground under clingo's `options` (search's
    arguments; tests/test_exhaustive.py enumerates every witness with it);
    `collapse`: _collapsible's answer where the caller has it."""
    files = world_variant(bounds, explain).files
    if collapse is None:
        collapse = _collapsible(bounds, world_list, conditions, where, explain)
    ctl = clingo.Control(options, logger=lambda code, message: None)
    ctl.add("base", [], program(bounds, world_list, extra_runtime) + parameters)
    ctl.load(str(find_dir() / "generate.lp"))
    for path in conditions:
        ctl.load(str(path))
    for number, world in enumerate(world_list, 1):
        pinned.add(ctl, [world.encoding / name for name in files], number, _shares(world, world_list[0], files), collapse)
    if where is not None:
        pinned.add(ctl, [where], 1, collapse=collapse)
    ctl.ground([("base", [])])
    return ctl


def decode(symbols: list[clingo.Symbol], cost: list[int], bounds: Bounds) -> Witness:
    chosen: dict[str, dict[str, int]] = {}
    for s in symbols:
        if s.match("set", 3):
            chosen.setdefault(str(s.arguments[0]), {})[s.arguments[1].name] = s.arguments[2].number
    return witness(chosen, cost, bounds)


def witness(chosen: dict[str, dict[str, int]], cost: list[int], bounds: Bounds) -> Witness:
    """The manifests of the chosen fields: slot -> field -> pool position (set/3)."""
    extra_slot = f"rt({2 * bounds.runtimes + 1})"
    documents: list[dict] = []
    extra: list[dict] = []
    pools = bounds.all_pools()
    pools["runtime_names"] += (added_name(pools["runtime_names"]),)  # the extra runtime's position (program)
    documents += [_model_document(chosen[f"md({k})"], pools) for k in range(1, bounds.models + 1) if f"md({k})" in chosen]
    if "ac(1)" in chosen:
        documents.append(_written({"apiVersion": API_VERSION, "kind": "AcceleratorClass", "metadata": {}, "spec": {}},
                                  chosen["ac(1)"], pools))
    for k in range(1, 2 * bounds.runtimes + 2):
        slot = f"rt({k})"
        if slot not in chosen:
            continue
        entries = [chosen[f"en({k},{i})"] for i in range(bounds.entries) if f"en({k},{i})" in chosen]
        document = _runtime_document(k <= bounds.runtimes, chosen[slot], entries, pools)
        (extra if slot == extra_slot else documents).append(document)
    if "is(1)" in chosen:
        documents.append(_written({"apiVersion": API_VERSION, "kind": "InferenceService",
                                   "metadata": {"name": ISVC_NAME, "namespace": NAMESPACE}, "spec": {}}, chosen["is(1)"], pools))
    return Witness(documents, extra, list(zip(SIZE_CRITERIA, cost[:3])))


def _value(pools: dict, name: str, position: int) -> object:
    return pools[FIELD[name].pool][position - 1]


def _put(document: dict, f: Field, value: object) -> None:
    for key in f.path[:-1]:
        document = document.setdefault(key, {})
    value = dict(value) if isinstance(value, dict) else value
    document[f.path[-1]] = [value] if f.listed else value


def _written(document: dict, chosen: dict[str, int], pools: dict) -> dict:
    """The document with each chosen field written, in FIELDS order."""
    for name, position in sorted(chosen.items(), key=lambda item: PLACE[item[0]]):
        _put(document, FIELD[name], _value(pools, name, position))
    return document


def _model_document(chosen: dict[str, int], pools: dict) -> dict:
    kind = _value(pools, "model_kind", chosen["model_kind"])
    metadata = {"name": _value(pools, "model_name", chosen["model_name"]), **({"namespace": NAMESPACE} if kind == "BaseModel" else {})}
    fields = {k: p for k, p in chosen.items() if k not in ("model_kind", "model_name")}
    return _written({"apiVersion": API_VERSION, "kind": kind, "metadata": metadata, "spec": {}}, fields, pools)


def _runtime_document(namespaced: bool, chosen: dict[str, int], entries: list[dict[str, int]], pools: dict) -> dict:
    name = _value(pools, "name", chosen["name"])
    kind = "ServingRuntime" if namespaced else "ClusterServingRuntime"
    metadata = {"name": name, **({"namespace": NAMESPACE} if namespaced else {})}
    fields = {k: p for k, p in chosen.items() if k != "name"}
    document = _written({"apiVersion": API_VERSION, "kind": kind, "metadata": metadata, "spec": {}}, fields, pools)
    document["spec"]["supportedModelFormats"] = [_written({}, entry, pools) for entry in entries]
    return document
