"""The answer of the encoding as Python values: what it says about each
(query, runtime) pair, each query's order and outcome, and the decoder that
reads them from the shown atoms (encoding/show.lp and the #show of each file).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import clingo

from ome_asp.errors import InternalError
from ome_asp.solver.facts import Facts, RuntimeRef
from ome_asp.timing import gc_paused


@dataclass
class Verdict:
    """What the encoding says about one candidate runtime for one query."""

    runtime: RuntimeRef
    qualifies: bool = False
    score: int | None = None
    distance: str | None = None  # exact decimal text
    priority: int | None = None
    weight: int | None = None
    failures: dict[str, clingo.Symbol] = field(default_factory=dict)  # check -> reason, every failed check
    first_failure: tuple[str, clingo.Symbol] | None = None
    # E15 pieces of a format failure: entry index -> pieces in E15 order
    format_details: dict[int, list[clingo.Symbol]] = field(default_factory=dict)
    cost: tuple[int, ...] = ()  # rank_key: the weights at the criteria, highest first
    # Why a Yes row ranks where it does: (entry, weights id, format reading, framework reading)
    # of each entry whose score is the row's; and which case of Z5 gave the distance.
    scoring: list[tuple[int, str, str, str]] = field(default_factory=list)
    distance_basis: clingo.Symbol | None = None
    in_no_runtime_message: bool = False


@dataclass
class Outcome:
    """What OME does with the query's selection (encoding/outcome.lp): each
    message is a term for `reasons.outcome_text`."""

    error: clingo.Symbol | None = None  # select_error: the question cannot be answered
    model_name: str | None = None  # spec.model.name (or --model)
    explicit: bool = False  # X1: spec.runtime.name is set
    used: RuntimeRef | None = None  # the runtime OME uses (O5, X1)
    failure: clingo.Symbol | None = None  # why none is used
    advisory: tuple[str, clingo.Symbol] | None = None  # X6: (check, detail)
    warnings: list[clingo.Symbol] = field(default_factory=list)
    admission_path: bool = False  # O9: the webhook resolves the runtime
    admission_denial: clingo.Symbol | None = None
    admission_warnings: list[clingo.Symbol] = field(default_factory=list)
    condition: tuple[bool, str, clingo.Symbol | None] | None = None  # RuntimeReady: status, reason, message
    events: list[tuple[str, clingo.Symbol]] = field(default_factory=list)  # Warning events: reason, message
    ended: tuple[str, RuntimeRef] | None = None  # select_outcome: (outcome, runtime), profiles.md section 0


@dataclass
class QueryAnswer:
    error: clingo.Symbol | None = None
    note: clingo.Symbol | None = None
    model: clingo.Symbol | None = None  # bm(NS, Name) or cbm(Name)
    label: clingo.Symbol | None = None  # label(F, FV, A, Qz, Fw, FwV)
    sized: bool = False  # the model sets modelParameterSize (O3 applies)
    verdicts: dict[RuntimeRef, Verdict] = field(default_factory=dict)
    selected: RuntimeRef | None = None
    ranking: list[RuntimeRef] = field(default_factory=list)  # qualifying runtimes, O-order
    outcome: Outcome = field(default_factory=Outcome)  # with outcome.lp only
    # An outcome without a table (profiles.md section 0): (name, detail), e.g.
    # ("panic", "ClusterServingRuntime rt: ..."); query_outcome/3 or the Go sort.
    ended: tuple[str, str] | None = None


@dataclass
class Answer:
    queries: dict[int, QueryAnswer]
    criteria: dict[int, str]  # level -> name, highest level = highest priority
    denied: dict[RuntimeRef, clingo.Symbol]  # runtime -> admission reason
    unknown_classes: dict[RuntimeRef, list[str]]  # runtime -> W3 names in list order
    # Phase times (seconds) and ground program size, for --timers/--stats and benchmarks.
    stats: dict[str, float] = field(default_factory=dict)


def number(value: clingo.Symbol) -> str:
    """The exact decimal text of a val(K, D) term."""
    return value.arguments[1].string


# Most atoms of a large answer are about one (query, runtime) pair. Reading
# them from clingo's own printing is several times faster than walking each
# symbol through the API; reason terms, few distinct ones, are parsed once.
_STRING = r'"(?:[^"\\]|\\.)*"'
_RUNTIME = rf"(?:sr\({_STRING},|csr\(){_STRING}\)"
_PAIR_ATOM = re.compile(rf"(\w+)\((\d+),({_RUNTIME})(?:,(.*))?\)")
# rank_key/3 and the failures, most of the atoms of a large answer, in one match each.
_RANK_KEY = re.compile(rf"rank_key\((\d+),({_RUNTIME}),\((-?\d+),(-?\d+),(-?\d+),(-?\d+)\)\)")
_FAILURE = re.compile(rf"(first|later)_failure\((\d+),({_RUNTIME}),(q\d),(.*)\)")
_MISMATCH_DETAIL = re.compile(rf"mismatch_detail\(((?:bm\({_STRING},|cbm\(){_STRING}\)),(sig\(\d+\)),(\d+),(.*)\)")
_SCORING = re.compile(r"(\d+),(w\(\d+\)),(\w+),(\w+)")
# Reason terms and E15 pieces recur across answers (serve answers case after case).
_term = functools.lru_cache(maxsize=2**14)(clingo.parse_term)

# Every atom the programs show, by (name, arity): the decoder reads exactly
# these (edits.lp's apply/1 is read by ome_asp.commands.steer and compare);
# tests/test_engine.py checks this set against the encoding's #show statements.
SHOWN = frozenset({
    ("admission_denied", 2), ("admission_path", 1), ("admission_warning", 2), ("advisory", 3),
    ("apply", 1), ("criterion", 2), ("denied", 2), ("distance_basis", 3), ("excluded_in_message", 2),
    ("explain_priority", 3), ("explain_weight", 3), ("explicit", 1), ("first_failure", 4),
    ("later_failure", 4), ("mismatch_detail", 4), ("query_error", 2), ("query_label", 2),
    ("query_model", 2), ("query_note", 2), ("query_outcome", 3), ("rank_key", 3), ("runtime_ready", 4),
    ("runtime_used", 2), ("scoring_entry", 6), ("select_error", 2), ("select_failure", 2),
    ("select_outcome", 3), ("select_warning", 2), ("selected", 2), ("sized_query", 1), ("spec_model", 2),
    ("unknown_accelerator_class", 3), ("warning_event", 3),
})

# Where one shown atom ends and the next begins in clingo's printing of a
# tuple of them: a comma before the name of a shown predicate. A string or a
# nested term can hold such a comma too, but then the split yields more
# pieces than there are atoms (every true boundary is found), and `_texts`
# prints the atoms one by one instead.
_NEXT_ATOM = re.compile(rf",(?=(?:{'|'.join(sorted({name for name, _ in SHOWN}))})\()")


def _texts(symbols: list[clingo.Symbol]) -> list[str]:
    """`[str(s) for s in symbols]` for shown atoms, computed as one call into
    clingo: printing a tuple of all the atoms and splitting it costs about a
    third of printing each (a call through cffi per atom)."""
    if len(symbols) > 1:  # a tuple of n >= 2 prints as (a1,...,an)
        pieces = _NEXT_ATOM.split(str(clingo.Function("", symbols))[1:-1])
        if len(pieces) == len(symbols):
            return pieces
    return [str(s) for s in symbols]


def decode(symbols: list[clingo.Symbol], n_queries: int, facts: Facts, go_sort=None) -> Answer:
    """The answer set as Python values (facts maps the ranks and identifiers
    of the answer back to numbers and runtimes). `go_sort(answer, facts)`,
    for code-v0.1.5, gives the order instead of the rank keys: a list of
    runtimes, or an outcome (name, detail) when Go leaves it unspecified."""
    with gc_paused():
        # a Model's sequence makes a new Symbol at every step; _texts steps twice
        return _decode(_texts(list(symbols)), n_queries, facts, go_sort)


def decode_texts(texts: list[str], n_queries: int, facts: Facts, go_sort=None) -> Answer:
    """`decode` of the shown atoms as clingo prints them (a world's atoms,
    ome_asp/solver/worlds.py); the caller pauses the collector."""
    return _decode(texts, n_queries, facts, go_sort)


def _decode(texts: list[str], n_queries: int, facts: Facts, go_sort) -> Answer:
    queries = {q: QueryAnswer() for q in range(1, n_queries + 1)}
    criteria: dict[int, str] = {}
    denied: dict[RuntimeRef, clingo.Symbol] = {}
    unknown: dict[RuntimeRef, list[tuple[int, str]]] = {}
    pieces: dict[tuple[str, str], list[tuple[int, clingo.Symbol]]] = {}  # (model, signature) -> E15 pieces
    runtimes = facts.runtimes
    ends: dict[int, list] = {}  # query -> (outcome, runtime) of query_outcome/3
    ends_select: dict[int, list] = {}  # the same of select_outcome/3

    def verdict(q: int, r: RuntimeRef) -> Verdict:
        verdicts = queries[q].verdicts
        if r not in verdicts:
            verdicts[r] = Verdict(r)
        return verdicts[r]

    rank_key, failure = _RANK_KEY.fullmatch, _FAILURE.fullmatch
    for text in texts:
        key = rank_key(text)
        if key is not None:
            q, r, *cost = key.groups()
            v = verdict(int(q), runtimes[r])
            v.qualifies, v.cost = True, tuple(map(int, cost))
            continue
        failed = failure(text)
        if failed is not None:
            which, q, r, check, reason = failed.groups()
            v = verdict(int(q), runtimes[r])
            v.failures[check] = _term(reason)
            if which == "first":
                v.first_failure = (check, v.failures[check])
            continue
        pair = _PAIR_ATOM.fullmatch(text)
        if pair is not None:
            name, q, r, rest = pair.groups()
            if name == "runtime_used":  # not a row: M6 uses a runtime without any
                queries[int(q)].outcome.used = runtimes[r]
                continue
            v = verdict(int(q), runtimes[r])
            if name == "explain_priority":
                v.priority = int(rest)
            elif name == "explain_weight":
                v.weight = int(number(_term(rest)))
            elif name == "excluded_in_message":
                v.in_no_runtime_message = True
            elif name == "scoring_entry":
                i, w, f, fw = _SCORING.fullmatch(rest).groups()
                v.scoring.append((int(i), w, f, fw))
            elif name == "distance_basis":
                v.distance_basis = _term(rest)
            elif name == "selected":
                queries[int(q)].selected = v.runtime
            else:
                raise InternalError(f"unexpected shown atom {text}")
            continue
        detail = _MISMATCH_DETAIL.fullmatch(text)
        if detail is not None:
            model, signature, k, piece = detail.groups()
            pieces.setdefault((model, signature), []).append((int(k), _term(piece)))
            continue
        s = _term(text)  # the few atoms left: one per query or runtime, or of the whole run
        name, args = s.name, s.arguments
        if name == "criterion":
            criteria[args[0].number] = args[1].name
        elif name == "denied":
            denied[runtimes[str(args[0])]] = args[1]
        elif name == "unknown_accelerator_class":
            unknown.setdefault(runtimes[str(args[0])], []).append((args[1].number, args[2].string))
        elif name == "query_error":
            queries[args[0].number].error = args[1]
        elif name == "query_note":
            queries[args[0].number].note = args[1]
        elif name == "query_model":
            queries[args[0].number].model = args[1]
        elif name == "query_label":
            queries[args[0].number].label = args[1]
        elif name == "sized_query":
            queries[args[0].number].sized = True
        elif name == "query_outcome":
            ends.setdefault(args[0].number, []).append((args[1].name, runtimes[str(args[2])]))
        elif name == "select_outcome":
            ends_select.setdefault(args[0].number, []).append((args[1].name, runtimes[str(args[2])]))
        elif name in _OUTCOME_ATOMS:
            _OUTCOME_ATOMS[name](queries[args[0].number].outcome, args[1:])
        else:
            raise InternalError(f"unexpected shown atom {text}")

    numbers = facts.numbers
    scores: dict[int, int] = {}  # rank -> score, read once
    ordered: dict[tuple[str, str], list[clingo.Symbol]] = {}  # (model, signature) -> E15 pieces in order

    def in_order(key: tuple[str, str]) -> list[clingo.Symbol]:
        if key not in ordered:
            ordered[key] = [piece for _, piece in sorted(pieces[key])]
        return ordered[key]

    for q, answer in queries.items():
        answer.outcome.warnings.sort(key=str)  # any order: sort for reproducible output
        answer.outcome.admission_warnings.sort(key=str)
        answer.outcome.events.sort(key=str)
        model = str(answer.model)
        for v in answer.verdicts.values():
            if v.scoring:
                v.scoring.sort()
            if len(v.failures) > 1:
                v.failures = dict(sorted(v.failures.items(), key=lambda item: int(item[0][1:])))
            if "q5" in v.failures:  # E15: each entry's pieces, in list order (lists shared: read only)
                v.format_details = {
                    i: in_order((model, signature)) for i, signature in enumerate(facts.signatures[v.runtime])
                }
        qualifying = [v for v in answer.verdicts.values() if v.qualifies]
        for v in qualifying:  # rank_key = (scope, -score rank, distance rank, name rank)
            if -v.cost[1] not in scores:
                scores[-v.cost[1]] = int(numbers[-v.cost[1]])
            v.score = scores[-v.cost[1]]
            v.distance = numbers[v.cost[2]] if answer.sized else None
        qualifying.sort(key=lambda v: v.cost)
        answer.ranking = [v.runtime for v in qualifying]
        if q in ends:
            answer.ended = outcome_detail(*_first_by_runtime(ends[q]))
        if q in ends_select:
            answer.outcome.ended = _first_by_runtime(ends_select[q])
        if go_sort is not None:  # code-v0.1.5 (profiles.md 3.3): not the #minimize order
            order = go_sort(answer, facts)
            if isinstance(order, tuple):
                answer.ended = answer.ended or order
            else:
                answer.ranking = order
            continue
        if answer.ranking[:1] != ([answer.selected] if answer.selected is not None else []):
            raise InternalError(f"query {q}: the optimum {answer.selected} is not the first of the order")
    return Answer(
        queries=queries,
        criteria=criteria,
        denied=denied,
        unknown_classes={r: [c for _, c in sorted(v)] for r, v in unknown.items()},
    )


def _first_by_runtime(ends: list[tuple[str, RuntimeRef]]) -> tuple[str, RuntimeRef]:
    """Several candidates can end a query the same way; the report names the
    first in E10's row order, ServingRuntimes first, then by name (the Go code
    stops at the first it meets, and fetches ServingRuntimes first)."""
    return min(ends, key=lambda end: (not end[1].namespaced, end[1].name))


OUTCOME_DETAILS = {
    "unsupported_input": "modelSizeRange must set both min and max on this OME version",
    "panic": "modelSizeRange lacks a bound: OME v0.1.5 dereferences the missing bound and panics",
}


def outcome_detail(outcome: str, runtime: RuntimeRef) -> tuple[str, str]:
    """(name, detail) of an outcome the encoding derives: name as section 0 spells it."""
    return outcome.replace("_", "-"), f"{runtime}: {OUTCOME_DETAILS[outcome]}"


def _set(attribute: str, read):
    def store(outcome: Outcome, args: list[clingo.Symbol]) -> None:
        setattr(outcome, attribute, read(args))

    return store


def _append(attribute: str, read):
    def store(outcome: Outcome, args: list[clingo.Symbol]) -> None:
        getattr(outcome, attribute).append(read(args))

    return store


# outcome.lp's atoms other than runtime_used/2 (decoded with the runtime atoms):
# each stores its arguments after the query number into the query's Outcome.
_OUTCOME_ATOMS = {
    "select_error": _set("error", lambda a: a[0]),
    "spec_model": _set("model_name", lambda a: a[0].string),
    "explicit": _set("explicit", lambda a: True),
    "select_failure": _set("failure", lambda a: a[0]),
    "advisory": _set("advisory", lambda a: (a[0].name, a[1])),
    "select_warning": _append("warnings", lambda a: a[0]),
    "admission_path": _set("admission_path", lambda a: True),
    "admission_denied": _set("admission_denial", lambda a: a[0]),
    "admission_warning": _append("admission_warnings", lambda a: a[0]),
    "runtime_ready": _set("condition", lambda a: (a[0].name == "true", a[1].name, a[2])),
    "warning_event": _append("events", lambda a: (a[0].name, a[1])),
}
