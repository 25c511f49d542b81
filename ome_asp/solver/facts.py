"""Turn loaded objects and queries into clingo facts (schema: encoding/input.lp).

User text enters the program only as clingo prints a `clingo.String`
(`quoted`, cached per distinct string); everything around it -- predicate
names, the encoding's constants, integers checked to fit 32 bits, exact
decimals -- is ours. So no user string can become syntax (a runtime named
``a"). evil(1`` stays a name), and the text is what `--show facts` dumps.

Exact numbers (sizes, weights, scores, distances, version numbers) become
``val(K, D)`` terms: ``D`` is the exact decimal text, ``K`` a signed dense rank
that preserves order and sign (see input.lp). All arithmetic on them happens
here, in Python integers and fractions, never in clingo's 32-bit integers.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache
from typing import Iterable

import clingo

from ome_asp import records
from ome_asp.errors import InternalError
from ome_asp.input.objects import (
    BASE_MODEL,
    CLUSTER_SERVING_RUNTIME,
    SERVING_RUNTIME,
    Cluster,
    Entry,
    InferenceService,
    Model,
    Pipeline,
    Query,
    Runtime,
    RuntimeRef,
    SizeRange,
    object_key,
)
from ome_asp.input.profiles import Profile
from ome_asp.input.sizes import format_exact, parse_go_size, parse_size
from ome_asp.input.versions import parse_version
from ome_asp.solver.programs import encoding_dir
from ome_asp.timing import gc_paused

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


class ValueTables:
    """The value tables (VALUE_TABLES) of a batch of cases as facts, built
    once for all of them (build_world_facts); one batch's, compared by identity."""

    __slots__ = ("program",)

    def __init__(self, program: str) -> None:
        self.program = program


@records.record(frozen=True)
class Facts:
    """The facts of a run: program text; the exact number behind each rank K
    of a val(K, D) term (D is that decimal), so answers can carry ranks alone;
    and the runtime behind each identifier's text. A case built in a batch
    (build_world_facts) has its value tables in `values`, shared by the
    batch, and the rest in `program`; its whole program is `whole`."""

    program: str
    numbers: dict[int, str]
    runtimes: dict[str, RuntimeRef]
    signatures: dict[RuntimeRef, list[str]]  # the signature (as text) of each entry
    entry_names: dict[RuntimeRef, list[str | None]]  # the top-level name of each entry
    weights: dict[str, tuple[int | None, int | None, int]]  # weights (as text) -> stored format, framework weight
    # (None: the side is absent, code-v0.1.5 only), priority read
    profile: Profile | None = None  # the profile the facts were built for (its switch facts)
    created: dict[RuntimeRef, int | None] = records.field(default_factory=dict)  # creationTimestamp (3.3)
    values: ValueTables | None = None  # None: built alone, the value tables are in `program`

    @property
    def whole(self) -> str:
        """The program that answers this case alone (the batch's value
        tables serve each of its cases: VALUE_TABLES; its profile's switches,
        which a world's facts leave to the batch)."""
        if self.values is None:
            return self.program
        switches = "".join(f"switch({name},{value}).\n" for name, value in self.profile.facts()) if self.profile else ""
        return self.values.program + switches + self.program


@records.record(frozen=True)
class Exact:
    """An exact number inside a fact; becomes val(K, D) once all are known.
    Besides rationals, code-v0.1.5's float64 sizes bring the non-finite
    values POS_INF, NEG_INF and NAN (docs/profiles.md 3.2)."""

    value: int | Fraction | str  # ints stay ints (FactBuilder.exact)


# The IEEE values without a rational: ranked beyond every rational (NaN above
# +Inf; a NaN also gets a not_a_number/1 fact, since it compares with nothing).
POS_INF, NEG_INF, NAN = "+Inf", "-Inf", "NaN"


@records.record(frozen=True)
class Term:
    """A term already printed as program text: an identifier or a constant."""

    text: str


@lru_cache(maxsize=2**16)  # bounded: a long-running serve sees ever new names (issue 18)
def quoted(text: str) -> str:
    """A user string as clingo prints it: the only way user text enters a program."""
    return str(clingo.String(text))


_CONSTANTS: dict[str, Term] = {}  # the encoding's names: a few dozen, made once


def const(name: str) -> Term:
    """One of the encoding's own constants (engine, format, true, ...)."""
    made = _CONSTANTS.get(name)
    if made is None:
        made = _CONSTANTS[name] = Term(name)
    return made


_NONE = const("none")  # an absent value in a row (input.lp)


def term(name: str, *args) -> Term:
    """The nested term `name(args...)`, its arguments as in a fact (Terms,
    strings quoted as clingo prints them, 32-bit ints, tuples): the one way
    identifiers and other compound terms are written."""
    return Term(f"{name}({','.join(_text(a, {}) for a in args)})")


def runtime_id(kind: str, namespace: str | None, name: str) -> Term:
    if kind == SERVING_RUNTIME:
        return term("sr", namespace, name)
    return term("csr", name)


def model_id(model: Model) -> Term:
    if model.kind == BASE_MODEL:
        return term("bm", model.namespace, model.name)
    return term("cbm", model.name)


@lru_cache(maxsize=None)
def declared(files: tuple[str, ...]) -> dict[str, frozenset[int]]:
    """name -> arities of the predicates the `#defined` statements of these
    encoding files declare: the facts a builder may emit."""

    arities: dict[str, set[int]] = {}
    for file in files:
        text = (encoding_dir() / file).read_text(encoding="utf-8")
        for name, arity in re.findall(r"^#defined\s+([a-z_]\w*)\s*/\s*(\d+)\s*\.", text, re.MULTILINE):
            arities.setdefault(name, set()).add(int(arity))
    return {name: frozenset(a) for name, a in arities.items()}


INPUT_SCHEMA = ("input.lp",)  # the encoding files whose #defined statements declare the input facts

# Facts keyed by a value, not by an object: a union of the tables of several
# versions of the cluster serves each version (an extra row is never joined),
# as the union of a batch's tables serves each of its cases (worlds.py, D-130).
VALUE_TABLES = frozenset({
    "sig_declares", "sig_version", "sig_operator", "sig_architecture", "sig_quantization",
    "sig_pipeline", "sig_pipeline_class", "sig_component", "sig_component_field", "weights", "weights_absent",
    "weights_stored", "weights_priority", "weights_score_option", "weights_shown_option", "version", "size_gap",
    "size_distance", "not_a_number", "range_bound", "range_width", "mv_has_framework", "mv_declares", "mv_version",
    "mv_architecture", "mv_quantization", "mv_size",
})


class FactBuilder:
    """Collects facts, then assigns the ranks of exact numbers in one pass.

    ``builder.fact.entry(r, 0)`` records ``entry(r, 0)``; arguments may be
    `Term`s, strings, Python ints (checked to fit clingo's 32 bits), `Exact`
    numbers and tuples of these. Each fact's name and arity must be declared
    by a `#defined` statement of the `schema` files (a misspelt fact would
    otherwise ground silently against a #defined predicate); `schema=None`
    checks nothing (the encoding unit tests, whose harness checks the facts
    against input.lp and the upstream predicates it is given). A builder of
    one case of a batch hands its value tables to the batch's builder
    `values`, with which it shares the exact numbers (build_world_facts); a
    `world`'s facts (a case of a batch of worlds) leave out the profile's
    switches, which the batch has once per profile (worlds.batch_program), and
    give a runtime and each of its entries one fact each (input.lp's
    runtime_row/2, entry_row/7, which imply the facts they stand for).
    """

    def __init__(
        self, renamed: frozenset[str] = frozenset(), profile: Profile | None = None,
        schema: tuple[str, ...] | None = INPUT_SCHEMA, values: FactBuilder | None = None, world: bool = False,
    ) -> None:
        self._declared = None if schema is None else declared(schema)
        self.world = world  # no switches; a runtime and each entry in one row (runtime_row/2, entry_row/7: input.lp)
        self._renamed = renamed
        self._values = values
        self._facts: list[tuple[str, tuple]] = []
        self._rules: list[tuple[tuple[str, tuple], Term]] = []  # (fact, condition): `fact :- condition.`
        self._numbers: set[Fraction | str] = set() if values is None else values._numbers
        self.profile = profile
        self.runtimes: dict[str, RuntimeRef] = {}
        self.signatures: dict[RuntimeRef, list[str]] = {}
        self.entry_names: dict[RuntimeRef, list[str | None]] = {}
        self.weights: dict[str, tuple[int | None, int | None, int]] = {} if values is None else values.weights
        self.created: dict[RuntimeRef, int | None] = {}
        self.fact = _FactCalls(self)

    def add(self, name: str, args: tuple) -> None:
        self._facts.append((f"base_{name}" if name in self._renamed else name, args))

    def captured(self, add) -> set[tuple[str, tuple]]:
        """The facts `add()` records that belong to an object, taken out of
        the builder; the value tables it records stay (VALUE_TABLES)."""
        start = len(self._facts)
        add()
        new = self._facts[start:]
        del self._facts[start:]
        self._facts += [f for f in new if f[0] in VALUE_TABLES]
        return {f for f in new if f[0] not in VALUE_TABLES}

    def add_conditional(self, fact: tuple[str, tuple], condition: Term) -> None:
        """`fact` holds when `condition` does (a rule `fact :- condition.`)."""
        self._rules.append((fact, condition))

    def exact(self, value: int | Fraction | float) -> Exact:
        """An exact number; a float is a float64 value of code-v0.1.5 (every
        finite one is a dyadic rational, so it is exact as a Fraction)."""
        if type(value) is int:
            # Most exact numbers are ints. Kept as ints, they equal and hash as the
            # same Fractions would, and cost a fraction of one to make and hash.
            number = value
        elif type(value) is float and value.is_integer():  # most float64 sizes are whole counts: an int too
            number = int(value)
        elif isinstance(value, float) and not math.isfinite(value):
            number = NAN if math.isnan(value) else POS_INF if value > 0 else NEG_INF
            if number == NAN and number not in self._numbers:
                self.fact.not_a_number(Exact(NAN))
        else:
            number = Fraction(value)
        self._numbers.add(number)
        return Exact(number)

    def build(self) -> Facts:
        """The facts as a logic program, one per line, sorted so that every
        dump is reproducible, and the table of exact numbers by rank."""
        decimals, vals = _ranked(self._numbers)
        return self._built(decimals, vals)

    def _built(self, decimals: dict[int, str], vals: dict, values: ValueTables | None = None) -> Facts:
        return Facts(self._text(vals), decimals, self.runtimes, self.signatures, self.entry_names, self.weights,
                     self.profile, self.created, values)

    def _text(self, vals: dict) -> str:
        # A Term's text inline: about half of a fact's arguments are (identifiers, constants)
        lines = {f"{name}({','.join([a.text if type(a) is Term else _text(a, vals) for a in args])}).\n"
                 for name, args in self._facts}
        lines |= {f"{name}({','.join([_text(a, vals) for a in args])}) :- {condition.text}.\n"
                  for (name, args), condition in self._rules}
        return "".join(sorted(lines))

    def program(self) -> str:
        return self.build().program

    def symbols(self) -> list[clingo.Symbol]:
        """The facts as clingo symbols (parsed back from `program`)."""
        # split on "\n" only: clingo prints other line breaks inside strings raw
        return [clingo.parse_term(line[:-1]) for line in self.program().split("\n")[:-1]]


class _FactCalls:
    def __init__(self, builder: FactBuilder) -> None:
        # What the calls need of their builder, not the builder: a builder
        # holds its calls, and calls holding their builder were a reference
        # cycle through every fact it made, which only the garbage collector
        # freed (about 330 objects a serve request, a tenth of a batch's
        # time; issue 26, D-150). Value-table facts go to the batch's builder.
        self._own = (builder._facts, builder._renamed)
        self._tables = None if builder._values is None else (builder._values._facts, builder._values._renamed)
        self._declared = builder._declared

    def __getattr__(self, name: str):
        facts, renamed = self._tables if self._tables is not None and name in VALUE_TABLES else self._own
        emitted, declared = f"base_{name}" if name in renamed else name, self._declared
        append = facts.append
        if declared is None:
            def record(*args) -> None:
                append((emitted, args))
        else:
            if name not in declared:
                raise InternalError(f"fact {name}/... is not declared by the encoding's #defined statements")
            arities = declared[name]

            def record(*args) -> None:
                if len(args) not in arities:
                    raise InternalError(f"fact {name}/{len(args)} is not declared (the encoding declares "
                                        f"{', '.join(f'{name}/{a}' for a in sorted(arities))})")
                append((emitted, args))

        setattr(self, name, record)  # found without __getattr__ from now on
        return record


def _ranked(numbers: set[Fraction | str]) -> tuple[dict[int, str], dict]:
    """The exact decimal of each rank, and the val(K, D) text of each number."""
    ranks = _signed_ranks(numbers)
    decimals = {k: v if isinstance(v, str) else format_exact(v) for v, k in ranks.items()}
    return decimals, {v: f"val({k},{quoted(decimals[k])})" for v, k in ranks.items()}


def _signed_ranks(numbers: Iterable[Fraction | str]) -> dict[Fraction | str, int]:
    """Order- and sign-preserving dense ranks: 0 -> 0, positives 1, 2, ...,
    negatives -1, -2, ... outward from zero; +Inf and NaN after the
    positives, -Inf after the negatives."""
    numbers = set(numbers)
    ranks: dict[Fraction | str, int] = {Fraction(0): 0}
    positives = sorted(n for n in numbers if not isinstance(n, str) and n > 0)
    negatives = sorted((n for n in numbers if not isinstance(n, str) and n < 0), reverse=True)
    positives += [n for n in (POS_INF, NAN) if n in numbers]
    negatives += [n for n in (NEG_INF,) if n in numbers]
    ranks.update((n, i) for i, n in enumerate(positives, 1))
    ranks.update((n, -i) for i, n in enumerate(negatives, 1))
    if len(ranks) > INT32_MAX:
        raise OverflowError("more distinct numbers than clingo can rank")
    return ranks


def _text(arg, vals: dict[Fraction, str]) -> str:
    # By exact type, the common ones first: every fact's every argument passes here.
    kind = type(arg)
    if kind is Term:
        return arg.text
    if kind is str:
        return quoted(arg)
    if kind is int:  # not a bool: a bool is an int to Python, never to us
        if not INT32_MIN <= arg <= INT32_MAX:
            raise OverflowError(f"{arg} does not fit a clingo integer; pass it as an exact number")
        return str(arg)
    if kind is Exact:
        return vals[arg.value]
    if kind is tuple:
        inner = ",".join([_text(a, vals) for a in arg])
        return f"({inner},)" if len(arg) == 1 else f"({inner})"
    if kind is bool:
        raise TypeError("booleans are constants (true/false) in facts")
    raise TypeError(f"cannot turn {arg!r} into a clingo term")


# --- the facts of a run ------------------------------------------------------


def build_facts(
    cluster: Cluster, queries: list[Query], renamed: frozenset[str] = frozenset(), extend=None,
    schema: tuple[str, ...] = INPUT_SCHEMA,
) -> Facts:
    """All facts for `queries` against `cluster` (encoding/input.lp).

    `renamed` predicates are emitted as base_<name> (for a program that
    derives them, encoding/steer.lp); `extend(builder, entries)` adds facts of
    its own before the exact numbers are ranked; `schema`, the encoding files
    that declare all of them (FactBuilder)."""
    with gc_paused():
        return _build_facts(cluster, queries, renamed, extend, schema)


def _build_facts(cluster: Cluster, queries: list[Query], renamed: frozenset[str], extend, schema) -> Facts:
    builder = FactBuilder(renamed, cluster.profile, schema)
    versions: set[str] = set()
    entries = EntryTables(builder, versions)
    _add_cluster(builder, cluster, queries, entries, versions)
    for text in sorted(versions):
        add_version(builder, text)
    if extend is not None:
        extend(builder, entries)
    return builder.build()


def build_world_facts(cases: list[tuple[Cluster, list[Query]]]) -> list[Facts]:
    """The facts of each case of a batch (`build_facts(cluster, queries)`
    of each), built in one pass for worlds (worlds.batch_program, issue 26,
    D-130): the value tables of all of them once, their identifiers (sig(N),
    w(N)) and the ranks of exact numbers batch-wide, so a row of a value
    table is the same text in every case that reads it. Ranks keep the
    order and sign of each case's numbers, which is all a case compares."""
    with gc_paused():
        values = FactBuilder()
        versions: set[str] = set()
        entries = EntryTables(values, versions)
        builders = []
        for cluster, queries in cases:
            builder = FactBuilder(profile=cluster.profile, values=values, world=True)
            entries.profile = cluster.profile
            _add_cluster(builder, cluster, queries, entries, versions)
            builders.append(builder)
        for text in sorted(versions):
            add_version(values, text)
        decimals, vals = _ranked(values._numbers)
        tables = ValueTables(values._text(vals))
        return [builder._built(decimals, vals, tables) for builder in builders]


def _add_cluster(builder: FactBuilder, cluster: Cluster, queries: list[Query], entries: EntryTables,
                 versions: set[str]) -> None:
    """The facts of `cluster` and `queries`; the versions they name are added to `versions`."""
    fact = builder.fact
    _add_switches_and_queries(builder, queries)
    for accelerator in cluster.accelerator_classes:
        fact.accelerator_class(accelerator.name)
    for model in cluster.models:
        _add_model(builder, model, versions, entries)
    name_ranks = {name: k for k, name in enumerate(sorted({rt.name for rt in cluster.runtimes}), 1)}
    for runtime in cluster.runtimes:
        _add_runtime(builder, runtime, name_ranks[runtime.name], entries)
    _add_size_gaps(builder, cluster)
    for isvc in cluster.inference_services:
        _add_inference_service(builder, isvc)


def _add_switches_and_queries(builder: FactBuilder, queries: list[Query]) -> None:
    fact = builder.fact
    if not builder.world:  # a world's are its batch's (Facts.whole)
        for name, value in builder.profile.facts():
            fact.switch(const(name), const(value))
    _add_queries(builder, queries)


def _add_queries(builder: FactBuilder, queries: list[Query]) -> None:
    fact = builder.fact
    for number, query in enumerate(queries, 1):
        fact.query(number)
        fact.query_namespace(number, query.namespace)
        if query.model is not None:
            fact.query_model_name(number, query.model)
        if query.isvc is not None:
            fact.query_isvc_name(number, query.isvc)


# --- alternative versions of objects (`ome-asp compare`) ---------------------

@records.record(frozen=True)
class Facet:
    """Alternative versions of one part of one object (encoding/compare.lp):
    `variants[m]` is the object with the subset `m` (a bit mask over the
    facet's edits) of the facet's edits applied; `variants[0]` is the object
    as it is, None where it does not exist. `term` names the facet."""

    term: Term
    key: tuple  # the object's key (objects.object_key)
    variants: tuple


def build_variant_facts(cluster: Cluster, queries: list[Query], facets: list[Facet], extend=None,
                        schema: tuple[str, ...] = INPUT_SCHEMA) -> Facts:
    """The facts of `cluster` in which the facts of each facet's part hold
    only under `facet_in(F, M)`: the facet's edits of mask M are applied.
    A fact that two facets of an object change is an internal error (a facet
    must hold every field its facts read together). `extend` and `schema` as
    for build_facts."""
    with gc_paused():
        builder = FactBuilder(profile=cluster.profile, schema=schema)
        _add_switches_and_queries(builder, queries)
        versions: set[str] = set()
        by_object: dict[tuple, list[Facet]] = {}
        for facet in facets:
            by_object.setdefault(facet.key, []).append(facet)
        every = [*cluster.accelerator_classes, *cluster.models, *cluster.runtimes, *cluster.inference_services]
        variants = [v for facet in facets for v in facet.variants if v is not None]
        runtimes = [o for o in every + variants if isinstance(o, Runtime)]
        name_ranks = {name: k for k, name in enumerate(sorted({rt.name for rt in runtimes}), 1)}
        entries = EntryTables(builder, versions)

        def add(obj) -> None:
            _add_object(builder, obj, name_ranks, entries, versions)

        base = {object_key(o): o for o in every}
        for key in list(base) + [k for k in by_object if k not in base]:
            if key in by_object:
                _add_varying(builder, base.get(key), by_object[key], add)
            else:
                add(base[key])
        models = [o for o in every + variants if isinstance(o, Model)]
        _add_size_gaps(builder, records.replace(cluster, models=models, runtimes=runtimes))
        for text in sorted(versions):
            add_version(builder, text)
        if extend is not None:
            extend(builder, entries)
        return builder.build()


def _add_object(builder: FactBuilder, obj, name_ranks: dict[str, int], entries: EntryTables, versions: set[str]) -> None:
    if isinstance(obj, Runtime):
        _add_runtime(builder, obj, name_ranks[obj.name], entries)
    elif isinstance(obj, Model):
        _add_model(builder, obj, versions, entries)
    elif isinstance(obj, InferenceService):
        _add_inference_service(builder, obj)
    else:
        builder.fact.accelerator_class(obj.name)


def _add_varying(builder: FactBuilder, obj, facets: list[Facet], add) -> None:
    base = builder.captured(lambda: add(obj)) if obj is not None else set()
    owner: dict[tuple, tuple[Facet, list[int]]] = {}
    for facet in facets:
        per_mask = [builder.captured(lambda v=v: add(v)) if v is not None else set() for v in facet.variants]
        for fact in set().union(*per_mask):
            present = [m for m, facts in enumerate(per_mask) if fact in facts]
            if len(present) == len(per_mask):
                continue
            if fact in owner:
                raise InternalError(f"facets {owner[fact][0].term.text} and {facet.term.text} both change {fact[0]}")
            owner[fact] = (facet, present)
    for fact in base - owner.keys():
        builder.add(*fact)
    for fact, (facet, masks) in owner.items():
        for mask in masks:
            builder.add_conditional(fact, Term(f"facet_in({facet.term.text},{mask})"))


def facts_differ(profile: Profile, a, b) -> bool:
    """Whether two versions of an object give different facts (or, for the Go
    sort, a different creationTimestamp): whether a change is read at all."""
    builder = FactBuilder(profile=profile)
    entries, versions = EntryTables(builder, set()), set()
    ranks = {a.name: 1}
    seen = []
    for obj in (a, b):
        builder.created.clear()
        facts = builder.captured(lambda obj=obj: _add_object(builder, obj, ranks, entries, versions))
        seen.append((facts, dict(builder.created) if profile.go_sort else None))
    return seen[0] != seen[1]


def _add_runtime(builder: FactBuilder, rt: Runtime, name_rank: int, entries: EntryTables) -> None:
    fact, exact = builder.fact, builder.exact
    r = runtime_id(rt.kind, rt.namespace, rt.name)
    ref = builder.runtimes[r.text] = RuntimeRef(rt.kind, rt.namespace, rt.name)
    builder.created[ref] = rt.created
    if builder.world:
        fact.runtime_row(r, name_rank)
    else:
        fact.runtime_declared(r)
        fact.runtime_name_rank(r, name_rank)
    if rt.disabled:
        fact.runtime_disabled(r)
    if rt.size_range is not None and builder.world:
        fact.runtime_range_row(r, entries.size_range(rt.size_range))
    elif rt.size_range is not None:
        fact.runtime_size_range(r)
        bounds, width = _size_range(builder.profile, exact, rt.size_range)
        for bound, text, value in bounds:
            fact.runtime_size_bound(r, bound, text, value)
        if width is not None:
            fact.runtime_range_width(r, width)
    for position, name in enumerate(rt.accelerator_classes or ()):
        fact.runtime_accelerator_class(r, position, name)
    for component, mode in (("engine", rt.engine_mode), ("decoder", rt.decoder_mode)):
        if mode is not None:
            fact.runtime_mode(r, const(component), mode)

    signatures = builder.signatures[ref] = []
    builder.entry_names[ref] = [entry.name for entry in rt.entries]
    w5 = builder.profile is not None and builder.profile.cross_runtime_check
    for i, entry in enumerate(rt.entries):
        signature = entries.signature(entry)
        signatures.append(signature.text)
        auto_select = None if entry.auto_select is None else const("true" if entry.auto_select else "false")
        if builder.world:
            fact.entry_row(r, i, signature, entries.weights(entry), _NONE if auto_select is None else auto_select,
                           _NONE if entry.priority is None else entry.priority, _fold(entry.name or "") if w5 else _NONE)
        else:
            fact.entry(r, i, signature, entries.weights(entry))
            if auto_select is not None:
                fact.entry_auto_select(r, i, auto_select)
            if entry.priority is not None:
                fact.entry_priority(r, i, entry.priority)
        if entry.name is not None:
            fact.entry_name(r, i, entry.name)
        if w5:
            _add_w5_entry(builder, r, i, entry)
    if builder.profile is not None and builder.profile.cross_runtime_check:
        for protocol in rt.protocol_versions or ():
            fact.runtime_protocol(r, protocol)
    if rt.configuration is not None:
        config = rt.configuration
        if config.workers_size is not None:
            fact.runtime_workers_size(r, config.workers_size)
        for component, present in (("engine", config.engine_config), ("decoder", config.decoder_config)):
            if present:
                fact.runtime_config(r, const(component))
        if config.mode is not None:
            fact.runtime_container_mode(r, config.mode)


def _size_range(profile: Profile | None, exact, size_range: SizeRange) -> tuple[list[tuple[Term, str, Exact]], Exact | None]:
    """A modelSizeRange's bounds that are set (which, as written, the exact
    count: Z1, Z2) and its width when both are."""
    bounds = [(const(bound), text, exact(size_value(profile, text)))
              for bound, text in (("min", size_range.min), ("max", size_range.max)) if text is not None]
    if len(bounds) < 2:
        return bounds, None
    return bounds, exact(size_value(profile, size_range.max) - size_value(profile, size_range.min))


def _fold(text: str) -> str:
    """Go's strings.EqualFold compares by simple case folding, one character
    to one: each character to the lower case of its upper case where both
    are single characters (str.casefold folds fully: "ß" to "ss")."""
    def fold(c: str) -> str:
        upper = c.upper()
        return upper.lower() if len(upper) == 1 and len(upper.lower()) == 1 else c
    return "".join(map(fold, text))


def _add_w5_entry(builder: FactBuilder, r: Term, i: int, entry: Entry) -> None:
    """What code-v0.1.5's cross-runtime check (W5) compares of an entry, as
    Go sees it: the folded name, the top-level version, and each side as a Go
    struct -- absent, or plain (no version, no operator written: only then can
    two structs be equal, docs/profiles.md 3.4) with its name and weight."""
    fact = builder.fact
    if not builder.world:  # else in the entry's row
        fact.entry_name_folded(r, i, _fold(entry.name or ""))
    if entry.version is not None:
        fact.entry_version_field(r, i, entry.version)
    for side, ref in (("format", entry.model_format), ("framework", entry.model_framework)):
        if ref is None:
            fact.entry_side_absent(r, i, const(side))
        elif ref.version is None and not ref.operator_written:
            fact.entry_side_plain(r, i, const(side), ref.name, builder.exact(ref.weight))


class EntryTables:
    """Interns what entries declare (signatures) and how they weigh (weights),
    emitting the facts of each distinct one once, so matching a model and
    reading weights is decided per distinct value, not per entry."""

    def __init__(self, builder: FactBuilder, versions: set[str]) -> None:
        self._builder = builder
        self._versions = versions
        self.profile = builder.profile  # the case's, whose arithmetic the weights follow (a batch sets each case's)
        self._signatures: dict[tuple, Term] = {}
        self._weights: dict[tuple, Term] = {}
        self._ranges: dict[tuple, Term] = {}
        self._models: dict[tuple, Term] = {}

    def model_value(self, model: Model) -> Term:
        """A world's model's declarations (_model_declarations) as a value
        (mv(N): mv_NAME(mv(N), *args)), the same for every model of the batch
        that declares the same under the same size syntax (input.lp's
        model_row/2)."""
        key = (*(ref and (ref.name, ref.version) for ref in (model.model_format, model.model_framework)),
               model.architecture, model.quantization, model.size, self.profile is not None and self.profile.size_syntax == "go")
        if key in self._models:
            return self._models[key]
        v = self._models[key] = term("mv", len(self._models) + 1)
        for name, args in _model_declarations(self.profile, self._builder.exact, model):
            getattr(self._builder.fact, f"mv_{name}")(v, *args)
        return v

    def size_range(self, size_range: SizeRange) -> Term:
        """A world's modelSizeRange as a value (rng(N): range_bound/4,
        range_width/2), the same for every runtime of the batch that writes
        it under the same size syntax (input.lp's runtime_range_row/2)."""
        key = (size_range.min, size_range.max, self.profile is not None and self.profile.size_syntax == "go")
        if key in self._ranges:
            return self._ranges[key]
        g = self._ranges[key] = term("rng", len(self._ranges) + 1)
        fact = self._builder.fact
        bounds, width = _size_range(self.profile, self._builder.exact, size_range)  # the case's size syntax
        for bound, text, value in bounds:
            fact.range_bound(g, bound, text, value)
        if width is not None:
            fact.range_width(g, width)
        return g

    def signature(self, entry: Entry) -> Term:
        # what a side declares, its weight left out (weights() keys that)
        key = (*(ref and (ref.name, ref.version, ref.operator) for ref in (entry.model_format, entry.model_framework)),
               entry.architecture, entry.quantization, _pipeline_key(entry.pipeline))
        if key in self._signatures:
            return self._signatures[key]
        s = self._signatures[key] = term("sig", len(self._signatures) + 1)
        fact = self._builder.fact
        for side, ref in (("format", entry.model_format), ("framework", entry.model_framework)):
            if ref is None:  # code-v0.1.5 only: the entry lacks the side (I4)
                continue
            fact.sig_declares(s, const(side), ref.name)
            if ref.version is not None:
                fact.sig_version(s, const(side), ref.version)
                self._versions.add(ref.version)
            fact.sig_operator(s, const(side), ref.operator)
        if entry.architecture is not None:
            fact.sig_architecture(s, entry.architecture)
        if entry.quantization is not None:
            fact.sig_quantization(s, entry.quantization)
        if entry.pipeline is not None:
            fact.sig_pipeline(s)
            _add_pipeline(self._builder, "sig", (s,), entry.pipeline)
        return s

    def weights(self, entry: Entry) -> Term:
        """The exact products the S3 score and the E9 WEIGHT column can take;
        the encoding decides which reading applies. Every rule but W4 reads an
        absent priority as 1 (I3). A side the entry lacks (code-v0.1.5) has
        no stored weight and the one reading `none`: it adds no term (S3).
        Under code-v0.1.5 both are Go's int64 results (go_int64), as every
        product and sum of weights and priorities is in that code."""
        wf, ww = (None if ref is None else ref.weight for ref in (entry.model_format, entry.model_framework))
        p = 1 if entry.priority is None else entry.priority
        go = self.profile is not None and self.profile.int64_scores
        if (wf, ww, p, go) in self._weights:
            return self._weights[(wf, ww, p, go)]
        w = self._weights[(wf, ww, p, go)] = term("w", len(self._weights) + 1)
        self._builder.weights[w.text] = (wf, ww, p)
        fact, exact = self._builder.fact, self._builder.exact
        fact.weights(w)
        for side, weight in (("format", wf), ("framework", ww)):
            if weight is None:
                fact.weights_absent(w, const(side))
            else:
                fact.weights_stored(w, const(side), exact(weight))
        fact.weights_priority(w, p)
        f_readings = (("none", 0),) if wf is None else (("raw", wf), ("ten", 10))
        w_readings = (("none", 0),) if ww is None else (("raw", ww), ("five", 5))
        for f_reading, f_weight in f_readings:
            for w_reading, w_weight in w_readings:
                score = (f_weight + w_weight) * p
                fact.weights_score_option(w, const(f_reading), const(w_reading), exact(go_int64(score) if go else score))
        for f_shown, f_weight in (("kept", wf or 0), ("left_out", 0)):
            for w_shown, w_weight in (("kept", ww or 0), ("left_out", 0)):
                shown = p * f_weight + p * w_weight
                fact.weights_shown_option(w, const(f_shown), const(w_shown), exact(go_int64(shown) if go else shown))
        return w


def go_int64(value: int) -> int:
    """The int64 Go computes for an exact integer result (code-v0.1.5, issue
    17). CalculateFormatScore computes `weight * priority` for each side and
    sums the terms in int64 (weights int64, the int32 priority converted), and
    Go's signed arithmetic wraps modulo 2**64 (two's complement). Wrapping
    once at the end equals wrapping after each step: both are arithmetic
    modulo 2**64. The result is exact in Python and, like any number, reaches
    the encoding as a val(K, D) term; which reading and which entry count,
    and the score gate (S1, Q8), stay the encoding's."""
    return (value + 2**63) % 2**64 - 2**63


def _pipeline_key(pipeline: Pipeline | None) -> tuple | None:
    """A hashable stand-in for a pipeline (its dicts are not hashable)."""
    if pipeline is None:
        return None
    additional = None if pipeline.additional is None else tuple(sorted(pipeline.additional.items()))
    return (pipeline.class_name, tuple(sorted(pipeline.components.items())), additional)


def _add_pipeline(builder: FactBuilder, owner: str, key: tuple, pipeline: Pipeline) -> None:
    """sig_pipeline_class/sig_component/... or the model_ equivalents (through
    builder.fact, as every fact: each checked against the schema's #defined)."""
    fact = builder.fact
    if pipeline.class_name is not None:
        getattr(fact, f"{owner}_pipeline_class")(*key, pipeline.class_name)
    components = [(term("named", k), c) for k, c in pipeline.components.items()]
    components += [(term("additional", k), c) for k, c in (pipeline.additional or {}).items()]
    for component, value in components:
        getattr(fact, f"{owner}_component")(*key, component)
        for field, text in (("library", value.library), ("type", value.type)):
            if text is not None:
                getattr(fact, f"{owner}_component_field")(*key, component, const(field), text)


def _add_model(builder: FactBuilder, model: Model, versions: set[str], entries: EntryTables) -> None:
    fact = builder.fact
    m = model_id(model)
    versions.update(ref.version for ref in (model.model_format, model.model_framework) if ref and ref.version is not None)
    if builder.world:
        fact.model_row(m, entries.model_value(model))
    else:
        fact.model(m)
        for name, args in _model_declarations(builder.profile, builder.exact, model):
            getattr(fact, f"model_{name}")(m, *args)
    if model.pipeline is not None:
        fact.model_pipeline(m)
        _add_pipeline(builder, "model", (m,), model.pipeline)
    if model.disabled:
        fact.model_disabled(m)


def _model_declarations(profile: Profile | None, exact, model: Model) -> list[tuple[str, tuple]]:
    """What a model declares: (NAME, args) of each model_NAME(M, *args) fact
    but model/1, its pipeline's and model_disabled/1."""
    declared: list[tuple[str, tuple]] = []
    if model.model_framework is not None:
        declared.append(("has_framework", ()))
    for side, ref in (("format", model.model_format), ("framework", model.model_framework)):
        if ref is None:
            continue
        if ref.name is not None:
            declared.append(("declares", (const(side), ref.name)))
        if ref.version is not None:
            declared.append(("version", (const(side), ref.version)))
    if model.architecture is not None:
        declared.append(("architecture", (model.architecture,)))
    if model.quantization is not None:
        declared.append(("quantization", (model.quantization,)))
    if model.size is not None:
        declared.append(("size", (model.size, exact(size_value(profile, model.size)))))
    return declared


def size_value(profile: Profile | None, text: str) -> Fraction | float:
    """Z1: the count of a size string, exact (Fraction), or under Go's size
    syntax (code-v0.1.5) the float64 value Go computes."""
    if profile is not None and profile.size_syntax == "go":
        return parse_go_size(text)
    return parse_size(text)


def _add_size_gaps(builder: FactBuilder, cluster: Cluster) -> None:
    """|bound - size| for every model size and every bound of a range that
    sets only one bound (Z5); two-bounded ranges use their width instead,
    except under Go's float64 sizes, where |min - s| + |max - s| is rounded
    and so is given per (size, min, max) as size_distance/4."""
    if cluster.profile.size_syntax == "go":
        _add_go_distances(builder, cluster)
        return
    sizes = {parse_size(m.size) for m in cluster.models if m.size is not None}
    bounds = set()
    for rt in cluster.runtimes:
        if rt.size_range is not None:
            set_bounds = [b for b in (rt.size_range.min, rt.size_range.max) if b is not None]
            if len(set_bounds) == 1:
                bounds.add(parse_size(set_bounds[0]))
    for size in sorted(sizes):
        for bound in sorted(bounds):
            builder.fact.size_gap(builder.exact(size), builder.exact(bound), builder.exact(abs(bound - size)))


def _add_go_distances(builder: FactBuilder, cluster: Cluster) -> None:
    """code-v0.1.5's Z5: math.Abs(min - s) + math.Abs(max - s) in float64
    (Python floats are IEEE float64 and round as Go does). One-bounded ranges
    never get a distance in this profile (Z3: the code panics first)."""
    sizes = {parse_go_size(m.size) for m in cluster.models if m.size is not None}
    ranges = {
        (parse_go_size(rt.size_range.min), parse_go_size(rt.size_range.max))
        for rt in cluster.runtimes
        if rt.size_range is not None and None not in (rt.size_range.min, rt.size_range.max)
    }
    exact = builder.exact
    for size in sizes:
        for low, high in ranges:
            distance = abs(low - size) + abs(high - size)
            builder.fact.size_distance(exact(size), exact(low), exact(high), exact(distance))


def add_version(builder: FactBuilder, text: str) -> None:
    parsed = parse_version(text)
    if parsed is None:
        return  # V2: no version/7 fact, so nothing can match it
    exact = builder.exact
    builder.fact.version(
        text,
        const("v" if parsed.prefix else "none"),
        parsed.precision,
        (exact(parsed.major), exact(parsed.minor), exact(parsed.patch)),
        tuple(parsed.pre),
        tuple(parsed.build),
        tuple(parsed.dev),
    )


def _add_inference_service(builder: FactBuilder, isvc) -> None:
    fact = builder.fact
    i = term("isvc", isvc.namespace, isvc.name)
    fact.isvc(i)
    if isvc.model_name is not None:
        fact.isvc_model(i, isvc.model_name)
    if isvc.runtime_name is not None:
        fact.isvc_runtime(i, isvc.runtime_name)
    if isvc.runtime_kind is not None:
        fact.isvc_runtime_kind(i, const(RUNTIME_KIND_TERMS[isvc.runtime_kind]))
    if isvc.runtime_auto_sync is False:
        fact.isvc_runtime_auto_sync_off(i)
    requests = {
        "annotation": isvc.accelerator_annotation,
        "selector": isvc.selector_class,
        "engine": isvc.engine_class,
        "decoder": isvc.decoder_class,
    }
    for source, name in requests.items():
        if name is not None:
            fact.isvc_accelerator_request(i, const(source), name)
    for component, present, mode in (
        ("engine", isvc.has_engine, isvc.engine_mode),
        ("decoder", isvc.has_decoder, isvc.decoder_mode),
    ):
        if present:
            fact.isvc_component(i, const(component))
        if mode is not None:
            fact.isvc_mode_annotation(i, const(component), mode)
    if isvc.deployment_mode is not None:
        fact.isvc_deployment_mode(i, isvc.deployment_mode)
    if isvc.virtual:
        fact.isvc_virtual_deployment(i)
    for runner, image in (
        ("runner", isvc.engine_runner_image),
        ("leader", isvc.engine_leader_image),
        ("worker", isvc.engine_worker_image),
    ):
        if image is not None:
            fact.isvc_runner_image(i, const(runner), image)


RUNTIME_KIND_TERMS = {SERVING_RUNTIME: "serving_runtime", CLUSTER_SERVING_RUNTIME: "cluster_serving_runtime"}
