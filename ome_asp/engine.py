"""Ground and solve encoding/ on a set of facts, and decode the optimal answer set.

The encoding decides everything; this module only runs clingo and turns the
shown atoms (encoding/show.lp) into Python values. The ranking of qualifying
runtimes is read from the cost vectors the #minimize statements sum over
(`rank_key/3`): selecting runtime R costs exactly R's vector, so the k-th
runtime of the order (the k-th successive optimum, "solve, exclude the winner,
solve again") is the k-th smallest vector. `rank_by_reoptimizing` computes the
order by that definition; tests check that both agree (docs/design.md).
"""

from __future__ import annotations

import atexit
import dataclasses
import functools
import importlib.util
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import clingo

from . import gosort
from .collector import gc_paused
from .errors import InternalError
from .facts import Facts, RuntimeRef


MAIN_LP = "main.lp"  # includes every file: the one-query explain program


def encoding_dir() -> Path:
    """encoding/ of the source tree; a plain install has it as the data package ome_asp.encoding."""
    source = Path(__file__).resolve().parent.parent / "encoding"
    if (source / MAIN_LP).is_file():
        return source
    spec = importlib.util.find_spec("ome_asp.encoding")
    return Path(next(iter(spec.submodule_search_locations)))


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


# The programs: the files of encoding/ each one loads (main.lp includes them all).
CORE = (
    "input.lp", "admission.lp", "lookup.lp", "versions.lp", "compatibility.lp", "accelerators.lp",
    "deployment.lp", "sizes.lp", "scoring.lp", "qualification.lp", "ordering.lp",
)
EXPLANATION = ("explanation.lp",)  # every candidate with all its reasons
DETAILS = ("details.lp",)  # explain -v: the atoms of explanation.lp that only it reads
SELECTION = ("selection.lp",)  # the #minimize statements: one query per solve
WINNER = ("winner.lp",)  # the same first runtime for many queries, without search
SHOW = ("show.lp",)
OUTCOME = ("outcome.lp",)  # what OME does with the selection: select (one query)
ADMIT = ("input.lp", "admission.lp")  # the runtime admission webhook alone: admit
STEER = ("steer.lp",)  # the edits that make a wanted runtime win (its own #show)


def solve(
    facts: Facts, n_queries: int, explain: bool = True, outcome: bool = False, details: bool = False, sizes: bool = False
) -> Answer:
    """Solve encoding/ on `facts` and decode the answer.

    One query: the selection is the unique optimum of the #minimize statements
    (proved unique by enumerating all optima). Several queries: no
    optimization (a sum of independent objectives); winner.lp finds each
    query's first runtime in the grounder, and each order is read from the
    same rank keys; tests check both against the one-query optimum. Without
    `explain`, only runtimes that support the model are examined: the rows of
    the others and all reasons of Q5 are left out. With `outcome`
    (explaining), outcome.lp adds what OME does with the selection
    (`QueryAnswer.outcome`); with `details` (explaining), details.lp adds
    why each Yes row ranks where it does (`Verdict.scoring`,
    `Verdict.distance_basis`, for explain -v). With `sizes`, `Answer.stats`
    also holds the size of the ground program (`atoms`, `rules`): reading
    clingo's statistics costs about as much as solving a small query, so
    only --stats and the benchmarks ask."""
    start = time.perf_counter()
    files = program(n_queries, explain, outcome, details)
    go_sort = gosort.order if facts.profile is not None and facts.profile.go_sort else None
    answer = _solve(facts, files, n_queries, go_sort, sizes, start)
    if outcome and go_sort is not None:
        # The Go order's first runtime is the one OME uses: selection.lp and
        # winner.lp read it (go_first/2) and outcome.lp derives the rest from it.
        pins = {q: a.ranking[0] for q, a in answer.queries.items() if a.ranking and a.ranking[0] != a.selected}
        if pins:
            pinned = _go_first_facts(facts, pins)
            answer = _solve(dataclasses.replace(facts, program=facts.program + pinned), files, n_queries, go_sort, sizes, start)
    return answer


def program(n_queries: int, explain: bool = True, outcome: bool = False, details: bool = False) -> tuple[str, ...]:
    """The files of the program variant `solve` grounds (encoding/README.md)."""
    if (outcome or details) and not explain:
        raise ValueError("outcome.lp and details.lp need the explain program")
    files = CORE + (EXPLANATION if explain else ()) + (SELECTION if n_queries == 1 else WINNER) + SHOW
    return files + (OUTCOME if outcome else ()) + (DETAILS if details else ())


def ground(facts: Facts, files: tuple[str, ...]) -> clingo.Control:
    """The ground program of `files` on `facts` (for measuring it: the
    benchmarks' ground sizes, tests/test_scaling.py)."""
    return _ground(facts.program, files)


def _go_first_facts(facts: Facts, pins: dict[int, RuntimeRef]) -> str:
    identifiers = {ref: text for text, ref in facts.runtimes.items()}
    return "".join(
        str(clingo.Function("go_first", [clingo.Number(q), clingo.parse_term(identifiers[runtime])])) + ".\n"
        for q, runtime in sorted(pins.items())
    )


def _solve(facts: Facts, files: tuple[str, ...], n_queries: int, go_sort, sizes: bool, start: float) -> Answer:
    ctl = _ground(facts.program, files)
    grounded = time.perf_counter()
    optimal = []
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            if model.optimality_proven or n_queries != 1:
                optimal.append(model.symbols(shown=True))
        result = handle.get()
    solved = time.perf_counter()
    if not result.satisfiable:
        raise InternalError("the encoding has no answer set for this input")
    if len(optimal) != 1:
        raise InternalError(f"the answer is not unique ({len(optimal)} optimal answer sets)")
    answer = decode(optimal[0], n_queries, facts, go_sort)
    answer.stats = {"ground_s": grounded - start, "solve_s": solved - grounded, "decode_s": time.perf_counter() - solved}
    if sizes:
        lp = ctl.statistics["problem"]["lp"]
        answer.stats.update(atoms=lp["atoms"], rules=lp["rules"])
    return answer


def _ground(facts: str, files: tuple[str, ...]) -> clingo.Control:
    # optN enumerates every optimal model, which lets solve() prove uniqueness;
    # without optimization statements it enumerates all models (there is one).
    dropped: list[str] = []

    def log(code: clingo.MessageCode, message: str) -> None:
        # clingo's messages never reach the user's stderr. An undefined
        # operation means a rule instance was silently dropped, which the
        # encoding must never cause; the rest are infos such as a #show for
        # atoms this program variant does not derive. (A logger must not raise.)
        if code == clingo.MessageCode.OperationUndefined:
            dropped.append(message.strip())

    ctl = clingo.Control(["--opt-mode=optN", "--models=0"], logger=log)
    _load_encoding(ctl, files)
    ctl.add("base", [], facts)
    ctl.ground([("base", [])])
    if dropped:
        raise InternalError(f"clingo: {dropped[0]}")
    return ctl


# Parsing encoding/ as text costs about 2 ms per Control; adding statements
# parsed once (comments left out) costs about 0.5 ms. Parsing into statements
# costs about 5 ms, so a file is kept parsed from the second time a process
# loads it: the CLI grounds once, serve and the batch commands ground again
# and again. The statements are the file's, in its order, with its locations
# (messages).
_parsed: dict[str, list] = {}  # file name -> its statements
_loaded_once: set[str] = set()
# Statements free themselves through clingo's library, which is gone once the
# interpreter tears modules down ("Exception ignored" on stderr): free them first.
atexit.register(_parsed.clear)


def _load_encoding(ctl: clingo.Control, files: tuple[str, ...]) -> None:
    directory = encoding_dir()
    for name in files:
        if name not in _parsed and name not in _loaded_once:
            _loaded_once.add(name)
            ctl.load(str(directory / name))
            continue
        from clingo import ast  # only a process that grounds twice needs it

        if name not in _parsed:
            _parsed[name] = _statements(str(directory / name))
        with ast.ProgramBuilder(ctl) as builder:
            for statement in _parsed[name]:
                builder.add(statement)


def _statements(path: str) -> list:
    """The statements of an encoding file, less its comments (half of them)."""
    from clingo import ast

    statements = []

    def keep(statement) -> None:
        if statement.ast_type != ast.ASTType.Comment:
            statements.append(statement)

    ast.parse_files([path], keep)
    return statements


def admit(facts: Facts) -> Answer:
    """The admission webhook (W-rules) on every declared runtime: only
    input.lp and admission.lp are grounded; `denied` says which are denied."""
    ctl = _ground(facts.program, ADMIT + SHOW)
    with ctl.solve(yield_=True) as handle:
        models = [model.symbols(shown=True) for model in handle]
    if len(models) != 1:
        raise InternalError(f"the admission program has {len(models)} answer sets, not one")
    return decode(models[0], 0, facts)


def steer_control(facts: str) -> clingo.Control:
    """The ground program of encoding/steer.lp on steer's facts, ready to enumerate optima."""
    return _ground(facts, CORE + STEER)


def rank_by_reoptimizing(facts: Facts, query: int = 1) -> list[RuntimeRef]:
    """The order by definition: solve, exclude the winner, solve again.

    One optimization per qualifying runtime; quadratic, kept as the reference
    the fast ranking is tested against."""
    ctl = _ground(facts.program, CORE + SELECTION + SHOW)
    ctl.configuration.solve.opt_mode = "opt"
    ranking: list[clingo.Symbol] = []
    while True:
        excluded = [(clingo.Function("selected", [clingo.Number(query), r]), False) for r in ranking]
        best = None
        with ctl.solve(assumptions=excluded, yield_=True) as handle:
            for model in handle:  # the last model of an opt run is the optimum
                best = [s.arguments[1] for s in model.symbols(shown=True) if s.match("selected", 2)]
        if not best:
            return [facts.runtimes[str(r)] for r in ranking]
        ranking.append(best[0])


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

# Where one shown atom ends and the next begins in clingo's printing of a
# tuple of them: a comma before the name of a shown predicate. A string or a
# nested term can hold such a comma too, but then the split yields more
# pieces than there are atoms (every true boundary is found), and `_texts`
# prints the atoms one by one instead.
_SHOW = re.compile(r"#show\s+([a-z_]\w*)\s*(?:/\s*[1-9]\d*\s*\.|\()")  # a shown atom name(...)


@functools.lru_cache(maxsize=None)
def _next_atom() -> re.Pattern | None:
    """The boundary, from every #show statement of encoding/; None when one
    of them shows something that does not print as name(...) (its boundary
    could go unnoticed)."""
    names = set()
    for path in encoding_dir().glob("*.lp"):
        text = path.read_text(encoding="utf-8")
        for start in (m.start() for m in re.finditer("#show", text)):
            shown = _SHOW.match(text, start)
            if shown is None:
                return None
            names.add(shown.group(1))
    return re.compile(rf",(?=(?:{'|'.join(sorted(names))})\()")


def _texts(symbols: list[clingo.Symbol]) -> list[str]:
    """`[str(s) for s in symbols]` for shown atoms, computed as one call into
    clingo: printing a tuple of all the atoms and splitting it costs about a
    third of printing each (a call through cffi per atom)."""
    next_atom = _next_atom()
    if len(symbols) > 1 and next_atom is not None:  # a tuple of n >= 2 prints as (a1,...,an)
        pieces = next_atom.split(str(clingo.Function("", symbols))[1:-1])
        if len(pieces) == len(symbols):
            return pieces
    return [str(s) for s in symbols]


def decode(symbols: list[clingo.Symbol], n_queries: int, facts: Facts, go_sort=None) -> Answer:
    """The answer set as Python values (facts maps the ranks and identifiers
    of the answer back to numbers and runtimes). `go_sort(answer, facts)`,
    for code-v0.1.5, gives the order instead of the rank keys: a list of
    runtimes, or an outcome (name, detail) when Go leaves it unspecified."""
    with gc_paused():
        return _decode(symbols, n_queries, facts, go_sort)


def _decode(symbols: list[clingo.Symbol], n_queries: int, facts: Facts, go_sort) -> Answer:
    symbols = list(symbols)  # a Model's sequence makes a new Symbol at every step; _texts steps twice
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
    for s, text in zip(symbols, _texts(symbols)):
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
