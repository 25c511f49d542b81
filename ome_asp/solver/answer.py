"""The answer of the encoding as Python values: what it says about each
(query, runtime) pair, each query's order and outcome, and the decoder that
reads them from the shown atoms (encoding/show.lp and the #show of each file).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

import clingo

from ome_asp.errors import InternalError
from ome_asp.input.objects import RuntimeRef
from ome_asp.patterns import Pattern
from ome_asp.records import field, record
from ome_asp.solver.facts import Facts
from ome_asp.timing import gc_paused


@record
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
    # (check, reason as clingo prints it) of every failed check, in check
    # order: rows of equal keys fail alike, so a report writes their reasons
    # once, keyed by text rather than by clingo symbols (report.RowsJson)
    failures_key: tuple[tuple[str, str], ...] = ()
    # E15 pieces of a format failure: entry index -> pieces in E15 order
    # (shared by the rows of one model and signature tuple: read only)
    format_details: dict[int, list[clingo.Symbol]] = field(default_factory=dict)
    cost: tuple[int, ...] = ()  # rank_key: the weights at the criteria, highest first
    # Why a Yes row ranks where it does: (entry, weights id, format reading, framework reading)
    # of each entry whose score is the row's; and which case of Z5 gave the distance.
    scoring: list[tuple[int, str, str, str]] = field(default_factory=list)
    distance_basis: clingo.Symbol | None = None
    # V8, V9 (-v): (entry, side, entry version, model version, precision(P, P) | prefix(X, X), decides | ignored)
    # where an entry's version and the model's differ in shape
    version_shapes: list[tuple[clingo.Symbol, ...]] = field(default_factory=list)
    in_no_runtime_message: bool = False


@record
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
    ended: tuple[str, RuntimeRef] | None = None  # select_outcome: (outcome, runtime), docs/profiles.md section 0


@record
class QueryAnswer:
    """What the answer set says about one query: its rows, selection, outcome or error."""

    error: clingo.Symbol | None = None
    note: clingo.Symbol | None = None
    model: clingo.Symbol | None = None  # bm(NS, Name) or cbm(Name)
    label: clingo.Symbol | None = None  # label(F, FV, A, Qz, Fw, FwV)
    sized: bool = False  # the model sets modelParameterSize (O3 applies)
    verdicts: dict[RuntimeRef, Verdict] = field(default_factory=dict)
    selected: RuntimeRef | None = None
    ranking: list[RuntimeRef] = field(default_factory=list)  # qualifying runtimes, O-order
    outcome: Outcome = field(default_factory=Outcome)  # with outcome.lp only
    # An outcome without a table (docs/profiles.md section 0): (name, detail), e.g.
    # ("panic", "ClusterServingRuntime rt: ..."); query_outcome/3 or the Go sort.
    ended: tuple[str, str] | None = None


@record
class Answer:
    """A decoded answer set: each query's answer and what holds for the whole run."""

    queries: dict[int, QueryAnswer]
    criteria: dict[int, str]  # level -> name, highest level = highest priority
    denied: dict[RuntimeRef, clingo.Symbol]  # runtime -> admission reason
    unknown_classes: dict[RuntimeRef, list[str]]  # runtime -> W3 names in list order
    # Phase times (seconds) and ground program size, for --timers/--stats and benchmarks.
    stats: dict[str, float] = field(default_factory=dict)
    optimum: list[Criterion] = field(default_factory=list)  # a one-query program's, by name (named_cost)


@record(frozen=True)
class Criterion:
    """One level of an optimum: its priority, its name (criterion/2) and the
    optimum's value there."""

    level: int
    name: str
    value: int


def named_cost(criteria: dict[int, str], cost: list[int]) -> list[Criterion]:
    """An optimum's cost vector by name (encoding/README.md, "Optimisation:
    one convention", D-78): the keep-shape #minimize line puts every level
    of the program's band in it, highest first, and the band is the highest
    of the program's criteria (the order's 1-4 lie below the edit
    programs' levels)."""
    levels = sorted(criteria, reverse=True)[:len(cost)]
    if len(levels) != len(cost):
        raise InternalError(f"{len(cost)} optimization levels, {len(criteria)} named (criterion/2)")
    return [Criterion(level, criteria[level], value) for level, value in zip(levels, cost)]


def criteria_of(ctl: clingo.Control) -> dict[int, str]:
    """A ground program's criterion/2 (facts: every level it declares), level -> name."""
    return {a.symbol.arguments[0].number: str(a.symbol.arguments[1]) for a in ctl.symbolic_atoms.by_signature("criterion", 2)}


# Most atoms of a large answer are about one (query, runtime) pair. Reading
# them from clingo's own printing is several times faster than walking each
# symbol through the API; reason terms, few distinct ones, are parsed once.
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'  # (an unrolled loop: a step per run of plain characters, not per character)
_RUNTIME = rf"(?:sr\({_STRING},|csr\(){_STRING}\)"
_PAIR_ARGS = Pattern(rf"\w+\((\d+),({_RUNTIME})(?:,(.*))?\)")  # an atom about (query, runtime[, rest])
_SCORING = Pattern(r"(\d+),(w\(\d+\)),(\w+),(\w+)")
# explain's rows, most atoms of a large answer, read in one scan of the atoms
# printed one a line (`decode_lines`), a tuple of groups per atom, without a
# Python call per atom (issue 26 item 4): no_row/5, later_reason/4, rank_key/3,
# excluded_in_message/2 (O8 names half of a No-heavy cluster's rows, issue 40)
# and explain_columns/4 (a Yes row's PRIORITY and the exact decimal of its
# WEIGHT, an integer) share their query and runtime groups, the name's group
# choosing the rest; mismatch_detail/4; any other atom is the last group,
# read by its entry of the decode table.
_ROWS = Pattern(
    rf"^(?:(?:(no_row)|(later_reason)|(rank_key)|(excluded_in_message)|explain_columns)\((\d+),({_RUNTIME})"
    rf'(?(4)|,(?(1)(q\d),(.*),(\d+)|(?(2)(q\d),(.*)|(?(3)\((-?\d+),(-?\d+),(-?\d+),(-?\d+)\)|(-?\d+),val\(-?\d+,"([^"]*)"\)))))\)'
    rf"|mismatch_detail\(((?:bm\({_STRING},|cbm\(){_STRING}\)),(sig\(\d+\)),(\d+),(.*)\)"
    rf"|(.*))$",
    re.MULTILINE,
)
# Reason terms and E15 pieces recur across answers (serve answers case after case).
_term = functools.lru_cache(maxsize=2**14)(clingo.parse_term)


class _Decoding:
    """The answer being read: what the atoms said so far."""

    def __init__(self, n_queries: int, facts: Facts) -> None:
        self.queries = {q: QueryAnswer() for q in range(1, n_queries + 1)}
        self.runtimes = facts.runtimes
        self.criteria: dict[int, str] = {}
        self.denied: dict[RuntimeRef, clingo.Symbol] = {}
        self.unknown: dict[RuntimeRef, list[tuple[int, str]]] = {}
        # (model, signature) -> E15 pieces: (part order, piece, its text)
        self.pieces: dict[tuple[str, str], list[tuple[int, clingo.Symbol, str]]] = {}
        self.later: list[tuple[Verdict, int]] = []  # No rows with later checks, and their masks (rows.lp)
        self.shared: dict[str, tuple[clingo.Symbol, str]] = {}  # check -> its constant reason (and its text)
        self.ends: dict[int, list] = {}  # query -> (outcome, runtime) of query_outcome/3
        self.ends_select: dict[int, list] = {}  # the same of select_outcome/3

    def verdict(self, q: str, r: str) -> Verdict:
        """The row of query `q` and runtime `r` (both as printed)."""
        verdicts = self.queries[int(q)].verdicts
        runtime = self.runtimes[r]
        v = verdicts.get(runtime)
        if v is None:
            v = verdicts[runtime] = Verdict(runtime)
        return v

    def pair(self, text: str) -> tuple[Verdict, str]:
        """The row an atom about (query, runtime, rest) is about, and its rest."""
        q, r, rest = _PAIR_ARGS.fullmatch(text).groups()
        return self.verdict(q, r), rest


@functools.cache
def _later_checks(mask: int) -> tuple[str, ...]:
    """The checks of a No row's mask (rows.lp): bit K is check qK (check_order/2)."""
    return tuple(f"q{k}" for k in range(mask.bit_length()) if mask >> k & 1)


def _pair(store):
    """A decoder of an atom about one row: `store(verdict, rest)`."""
    def decode(d: _Decoding, text: str) -> None:
        store(*d.pair(text))

    return decode


def _runtime_used(d: _Decoding, text: str) -> None:  # not a row: M6 uses a runtime without any
    q, r, _ = _PAIR_ARGS.fullmatch(text).groups()
    d.queries[int(q)].outcome.used = d.runtimes[r]


def _selected(d: _Decoding, text: str) -> None:
    q, r, _ = _PAIR_ARGS.fullmatch(text).groups()
    d.queries[int(q)].selected = d.verdict(q, r).runtime


def _scoring_entry(v: Verdict, rest: str) -> None:
    i, w, f, fw = _SCORING.fullmatch(rest).groups()
    v.scoring.append((int(i), w, f, fw))


@functools.lru_cache(maxsize=2**14)  # bounded: arguments name the request's values (issue 18)
def _arguments(text: str) -> tuple[clingo.Symbol, ...]:
    """The arguments of a rare atom, parsed once per text: a batch's worlds
    show the same criteria, shared reasons and query atoms (issue 26)."""
    return tuple(clingo.parse_term(text).arguments)


def _symbol(read):
    """A decoder of a rare atom (a few per query or per runtime), read as a
    symbol: `read(decoding, arguments)`."""
    def decode(d: _Decoding, text: str) -> None:
        read(d, _arguments(text))

    return decode


def _query(read):
    """A decoder of an atom about a query: `read(query_answer, other arguments)`."""
    return _symbol(lambda d, a: read(d.queries[a[0].number], a[1:]))


def _outcome(read):
    """A decoder of an outcome.lp atom: `read(outcome, arguments after the query)`."""
    return _query(lambda answer, a: read(answer.outcome, a))


def _setattr(attribute: str, read):
    """Store `read(arguments)` as the target's `attribute`."""
    return lambda target, a: setattr(target, attribute, read(a))


def _set(attribute: str, read):
    return _outcome(_setattr(attribute, read))


def _append(attribute: str, read):
    return _outcome(lambda outcome, a: getattr(outcome, attribute).append(read(a)))


def _unexpected(d: _Decoding, text: str) -> None:
    raise InternalError(f"unexpected shown atom {text}")


def _unread(d: _Decoding, text: str) -> None:  # an atom _ROWS reads, of a shape it does not
    raise InternalError(f"shown atom {text} is not of the shape decode_lines reads")


# Every atom the programs show, by (name, arity), and how it is read: the one
# decode table. tests/test_engine.py checks its keys against the encoding's
# #show statements. edits.lp's apply/1 is read by ome_asp.analysis.edits (steer and
# compare) from their own answers, never here.
_DECODERS = {
    # explain's rows: most of a large answer, read by _ROWS in decode_lines
    ("rank_key", 3): _unread,
    ("no_row", 5): _unread,
    ("later_reason", 4): _unread,
    ("mismatch_detail", 4): _unread,
    ("explain_columns", 4): _unread,
    ("excluded_in_message", 2): _unread,
    ("scoring_entry", 6): _pair(_scoring_entry),
    ("distance_basis", 3): _pair(lambda v, rest: setattr(v, "distance_basis", _term(rest))),
    ("version_shape", 8): _pair(lambda v, rest: v.version_shapes.append(tuple(_term(f"t({rest})").arguments))),
    ("selected", 2): _selected,
    ("runtime_used", 2): _runtime_used,
    # the program's and each query's: few, read as symbols
    ("criterion", 2): _symbol(lambda d, a: d.criteria.__setitem__(a[0].number, a[1].name)),
    ("shared_reason", 2): _symbol(lambda d, a: d.shared.__setitem__(a[0].name, (a[1], str(a[1])))),
    ("denied", 2): _symbol(lambda d, a: d.denied.__setitem__(d.runtimes[str(a[0])], a[1])),
    ("unknown_accelerator_class", 3): _symbol(
        lambda d, a: d.unknown.setdefault(d.runtimes[str(a[0])], []).append((a[1].number, a[2].string))),
    ("query_error", 2): _query(_setattr("error", lambda a: a[0])),
    ("query_note", 2): _query(_setattr("note", lambda a: a[0])),
    ("query_model", 2): _query(_setattr("model", lambda a: a[0])),
    ("query_label", 2): _query(_setattr("label", lambda a: a[0])),
    ("sized_query", 1): _query(_setattr("sized", lambda a: True)),
    ("query_outcome", 3): _symbol(
        lambda d, a: d.ends.setdefault(a[0].number, []).append((a[1].name, d.runtimes[str(a[2])]))),
    ("select_outcome", 3): _symbol(
        lambda d, a: d.ends_select.setdefault(a[0].number, []).append((a[1].name, d.runtimes[str(a[2])]))),
    # outcome.lp's (select): each stores its arguments after the query into the query's Outcome
    ("select_error", 2): _set("error", lambda a: a[0]),
    ("spec_model", 2): _set("model_name", lambda a: a[0].string),
    ("explicit", 1): _set("explicit", lambda a: True),
    ("select_failure", 2): _set("failure", lambda a: a[0]),
    ("advisory", 3): _set("advisory", lambda a: (a[0].name, a[1])),
    ("select_warning", 2): _append("warnings", lambda a: a[0]),
    ("admission_path", 1): _set("admission_path", lambda a: True),
    ("admission_denied", 2): _set("admission_denial", lambda a: a[0]),
    ("admission_warning", 2): _append("admission_warnings", lambda a: a[0]),
    ("runtime_ready", 4): _set("condition", lambda a: (a[0].name == "true", a[1].name, a[2])),
    ("warning_event", 3): _append("events", lambda a: (a[0].name, a[1])),
    ("apply", 1): _unexpected,
}
SHOWN = frozenset(_DECODERS)
_BY_NAME = {name: read for (name, _), read in _DECODERS.items()}  # every shown name has one arity
assert len(_BY_NAME) == len(_DECODERS)


def _prefix_tree(names: list[str]) -> str:
    """A regular expression of the alternatives `names` (sorted), written as
    the tree of their prefixes: at each comma re tries one letter's branch
    instead of every name."""
    branches: dict[str, list[str]] = {}
    for name in names:
        branches.setdefault(name[:1], []).append(name[1:])
    alternatives = [re.escape(first) + _prefix_tree(rest) if first else "" for first, rest in branches.items()]
    return alternatives[0] if len(alternatives) == 1 else f"(?:{'|'.join(alternatives)})"


# Where one shown atom ends and the next begins in clingo's printing of a
# tuple of them: a comma before the name of a shown predicate. A string or a
# nested term can hold such a comma too, but then the split yields more
# pieces than there are atoms (every true boundary is found), and `_texts`
# prints the atoms one by one instead. (As a tree of the names: a third of
# the time of their plain alternation, issue 26 item 4.)
_NEXT_ATOM = Pattern(rf",(?={_prefix_tree(sorted(_BY_NAME))}\()")


def _texts(symbols) -> list[str]:
    """`[str(s) for s in symbols]` for shown atoms (a list, or a Model's
    symbols), computed as one call into clingo: printing a tuple of all the
    atoms and splitting it costs about a third of printing each (a call
    through cffi per atom)."""
    if len(symbols) > 1:  # a tuple of n >= 2 prints as (a1,...,an)
        pieces = _NEXT_ATOM.split(_tuple_text(symbols)[1:-1])
        if len(pieces) == len(symbols):
            return pieces
    return [str(s) for s in symbols]


def _tuple_text(symbols) -> str:
    """`str(clingo.Function("", symbols))`. A Model's symbols are a C array
    inside clingo's Python API (`_p_symbols`, clingo 5.5 to 5.8): the tuple is
    made from the array itself, without a Python object per atom, which
    costs as much as the rest of reading a row (D-54); otherwise through the
    public API."""
    array = getattr(symbols, "_p_symbols", None)
    if array is None:
        return str(clingo.Function("", list(symbols)))
    from clingo._internal import _c_call, _lib

    return str(clingo.Symbol(_c_call("clingo_symbol_t", _lib.clingo_symbol_create_function, b"", array, len(array), True)))


def _lines(symbols) -> str:
    """`"\\n".join(str(s) for s in symbols)` for shown atoms, as `_texts`
    computes their texts: a newline for each boundary the split finds (a
    string's newline is printed `\\n`, so each atom is one line)."""
    if len(symbols) > 1:
        text, boundaries = _NEXT_ATOM.subn("\n", _tuple_text(symbols)[1:-1])
        if boundaries == len(symbols) - 1:
            return text
    return "\n".join([str(s) for s in symbols])


def decode(symbols, n_queries: int, facts: Facts, go_sort=None) -> Answer:
    """The answer set (a list of symbols, or a Model's) as Python values
    (facts maps the ranks and identifiers of the answer back to numbers and
    runtimes). `go_sort(answer, facts)`, for code-v0.1.5, gives the order
    instead of the rank keys: a list of runtimes, or an outcome (name,
    detail) when Go leaves it unspecified."""
    return decode_lines(_lines(symbols), n_queries, facts, go_sort)


def decode_texts(texts: list[str], n_queries: int, facts: Facts, go_sort=None) -> Answer:
    """`decode` of the shown atoms as clingo prints them (str of each symbol), in any order."""
    return decode_lines("\n".join(texts), n_queries, facts, go_sort)


def decode_lines(text: str, n_queries: int, facts: Facts, go_sort=None) -> Answer:
    """`decode` of the shown atoms as clingo prints them, one a line, in any
    order, in one scan (_ROWS); an atom not about a row is read by its
    entry of the decode table."""
    with gc_paused():
        d = _Decoding(n_queries, facts)
        by_name, runtimes, pieces, later = _BY_NAME, d.runtimes, d.pieces, d.later
        rows = {str(q): answer.verdicts for q, answer in d.queries.items()}
        for (no_row, later_reason, rank_key, excluded, q, r, check, reason, mask, later_check, later_text, scope, score,
             distance, name, priority, weight, model, signature, k, piece, other) in _scan(text):
            if q:
                verdicts, runtime = rows[q], runtimes[r]
                v = verdicts.get(runtime)
                if v is None:
                    v = verdicts[runtime] = Verdict(runtime)
                if no_row:
                    v.failures[check] = term = _term(reason)
                    v.first_failure = (check, term)
                    v.failures_key = ((check, reason), *v.failures_key)  # later_reason/4 may have come first
                    if mask != "0":  # the reasons of its later checks may come after it: read in _complete
                        later.append((v, int(mask)))
                elif later_reason:
                    v.failures[later_check] = _term(later_text)
                    v.failures_key += ((later_check, later_text),)
                elif rank_key:
                    v.qualifies, v.cost = True, (int(scope), int(score), int(distance), int(name))
                elif excluded:
                    v.in_no_runtime_message = True
                else:  # explain_columns/4
                    v.priority, v.weight = int(priority), int(weight)
            elif model:
                pieces.setdefault((model, signature), []).append((int(k), _term(piece), piece))
            else:
                by_name.get(other[:other.find("(")], _unexpected)(d, other)
        return _complete(d, facts, go_sort)


SCAN = 2**20  # characters of atoms a scan's findall reads at once


def _scan(text: str) -> Iterator[tuple[str, ...]]:
    """_ROWS.findall(text) a slice of about SCAN characters at a time, cut at
    a line's end: the tuples of a large answer's every atom at once were more
    memory than its rows (issue 40: 45 MB at 27,500 rows)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start + SCAN)
        end = len(text) if end < 0 else end
        yield from _ROWS.findall(text, start, end)
        start = end + 1


def _complete(d: _Decoding, facts: Facts, go_sort) -> Answer:
    """What the atoms say about each query as a whole: every failed check of
    a row in check order, E15's pieces in order, scores and distances, the
    order, the outcome."""
    numbers = facts.numbers
    scores: dict[int, int] = {}  # rank -> score, read once
    ordered: dict[tuple[str, str], list[clingo.Symbol]] = {}  # (model, signature) -> E15 pieces in order
    # E15's pieces in order, one list per distinct text: models that fail a
    # signature alike (a label in common) share it, and so does E15's text
    # where the report writes it (report.RowsCache)
    texts: dict[tuple[str, ...], list[clingo.Symbol]] = {}
    # (model, signature, ...) -> E15's pieces of each entry: runtimes of one signature tuple share it,
    # and with each entry's pieces the same list, so do the tuples of other models
    details: dict[tuple[str, ...], dict[int, list[clingo.Symbol]]] = {}
    alike: dict[tuple[int, ...], dict[int, list[clingo.Symbol]]] = {}  # the ids of the entries' lists -> that dict

    def in_order(key: tuple[str, str]) -> list[clingo.Symbol]:
        if key not in ordered:
            pieces = sorted(d.pieces[key])
            text = tuple([piece for _, _, piece in pieces])
            if text not in texts:
                texts[text] = [piece for _, piece, _ in pieces]
            ordered[key] = texts[text]
        return ordered[key]

    def entry_pieces(model: str, signatures: list[str]) -> dict[int, list[clingo.Symbol]]:
        return {i: in_order((model, signature)) for i, signature in enumerate(signatures)}

    for v, mask in d.later:  # a later check without a reason of its row's has its constant one
        for check in _later_checks(mask):
            if check not in v.failures:
                v.failures[check], text = d.shared[check]
                v.failures_key += ((check, text),)
        v.failures = dict(sorted(v.failures.items()))  # in check order: q2 ... q8, one digit each
        v.failures_key = tuple(sorted(v.failures_key))
    for q, answer in d.queries.items():
        answer.outcome.warnings.sort(key=str)  # any order: sort for reproducible output
        answer.outcome.admission_warnings.sort(key=str)
        answer.outcome.events.sort(key=str)
        model = str(answer.model)
        for v in answer.verdicts.values():
            if v.scoring:
                v.scoring.sort()
            if "q5" in v.failures:  # E15: each entry's pieces, in list order
                signatures = facts.signatures[v.runtime]
                key = (model, *signatures)
                found = details.get(key)
                if found is None:
                    found = entry_pieces(model, signatures)
                    found = details[key] = alike.setdefault(tuple(map(id, found.values())), found)
                v.format_details = found
        qualifying = [v for v in answer.verdicts.values() if v.qualifies]
        for v in qualifying:  # rank_key = (scope, -score rank, distance rank, name rank)
            if -v.cost[1] not in scores:
                scores[-v.cost[1]] = int(numbers[-v.cost[1]])
            v.score = scores[-v.cost[1]]
            v.distance = numbers[v.cost[2]] if answer.sized else None
        qualifying.sort(key=lambda v: v.cost)
        answer.ranking = [v.runtime for v in qualifying]
        if q in d.ends:
            answer.ended = outcome_detail(*_first_by_runtime(d.ends[q]))
        if q in d.ends_select:
            answer.outcome.ended = _first_by_runtime(d.ends_select[q])
        if go_sort is not None:  # code-v0.1.5 (docs/profiles.md 3.3): not the #minimize order
            order = go_sort(answer, facts)
            if isinstance(order, tuple):
                answer.ended = answer.ended or order
            else:
                answer.ranking = order
            continue
        if answer.ranking[:1] != ([answer.selected] if answer.selected is not None else []):
            raise InternalError(f"query {q}: the optimum {answer.selected} is not the first of the order")
    return Answer(
        queries=d.queries,
        criteria=d.criteria,
        denied=d.denied,
        unknown_classes={r: [c for _, c in sorted(v)] for r, v in d.unknown.items()},
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
