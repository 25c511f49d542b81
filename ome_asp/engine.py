"""Ground and solve encoding/ on a set of facts, and decode the optimal answer set.

The encoding decides everything; this module only runs clingo and turns the
shown atoms (encoding/show.lp) into Python values. The ranking of qualifying
runtimes is read from the cost vectors the #minimize statements sum over
(`rank_cost/4`): selecting runtime R costs exactly R's vector, so the k-th
runtime of the order (the k-th successive optimum, "solve, exclude the winner,
solve again") is the k-th smallest vector. `rank_by_reoptimizing` computes the
order by that definition; tests check that both agree (docs/design.md).
"""

from __future__ import annotations

import importlib.util
import time
from dataclasses import dataclass, field
from pathlib import Path

import clingo

from .errors import OmeAspError


class InternalError(OmeAspError):
    """The encoding produced something it should never produce."""


MAIN_LP = "main.lp"


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

    runtime: clingo.Symbol  # sr(NS, Name) or csr(Name)
    qualifies: bool = False
    score: int | None = None
    distance: str | None = None  # exact decimal text
    priority: int | None = None
    weight: int | None = None
    failures: dict[str, clingo.Symbol] = field(default_factory=dict)  # check -> reason, every failed check
    first_failure: tuple[str, clingo.Symbol] | None = None
    # E15 pieces of a format failure: entry index -> pieces in E15 order
    format_details: dict[int, list[clingo.Symbol]] = field(default_factory=dict)
    cost: dict[int, int] = field(default_factory=dict)  # criterion level -> weight
    scoring_entries: list[int] = field(default_factory=list)
    in_no_runtime_message: bool = False


@dataclass
class QueryAnswer:
    error: clingo.Symbol | None = None
    note: clingo.Symbol | None = None
    model: clingo.Symbol | None = None  # bm(NS, Name) or cbm(Name)
    label: clingo.Symbol | None = None  # label(F, FV, A, Qz, Fw, FwV)
    verdicts: dict[clingo.Symbol, Verdict] = field(default_factory=dict)
    selected: clingo.Symbol | None = None
    ranking: list[clingo.Symbol] = field(default_factory=list)  # qualifying runtimes, O-order


@dataclass
class Answer:
    queries: dict[int, QueryAnswer]
    criteria: dict[int, str]  # level -> name, highest level = highest priority
    denied: dict[clingo.Symbol, clingo.Symbol]  # runtime -> admission reason
    unknown_classes: dict[clingo.Symbol, list[str]]  # runtime -> W3 names in list order
    # Phase times (seconds) and ground program size, for --timers/--stats and benchmarks.
    stats: dict[str, float] = field(default_factory=dict)


def solve(facts: str, n_queries: int) -> Answer:
    """The unique optimal answer set of encoding/ + facts, decoded."""
    start = time.perf_counter()
    ctl = _ground(facts)
    grounded = time.perf_counter()
    optimal = []
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            if model.optimality_proven:
                optimal.append(model.symbols(shown=True))
        result = handle.get()
    solved = time.perf_counter()
    if not result.satisfiable:
        raise InternalError("the encoding has no answer set for this input")
    if len(optimal) != 1:
        raise InternalError(f"the optimum is not unique ({len(optimal)} optimal answer sets)")
    answer = decode(optimal[0], n_queries)
    lp = ctl.statistics["problem"]["lp"]
    answer.stats = {
        "ground_s": grounded - start,
        "solve_s": solved - grounded,
        "decode_s": time.perf_counter() - solved,
        "atoms": lp["atoms"],
        "rules": lp["rules"],
    }
    return answer


def _ground(facts: str) -> clingo.Control:
    # optN enumerates every optimal model, which lets solve() prove uniqueness.
    ctl = clingo.Control(["--opt-mode=optN", "--models=0"])
    ctl.load(str(encoding_dir() / MAIN_LP))
    ctl.add("base", [], facts)
    ctl.ground([("base", [])])
    return ctl


def rank_by_reoptimizing(facts: str, query: int = 1) -> list[clingo.Symbol]:
    """The order by definition: solve, exclude the winner, solve again.

    One optimization per qualifying runtime; quadratic, kept as the reference
    the fast ranking is tested against."""
    ctl = _ground(facts)
    ctl.configuration.solve.opt_mode = "opt"
    ranking: list[clingo.Symbol] = []
    while True:
        excluded = [(clingo.Function("selected", [clingo.Number(query), r]), False) for r in ranking]
        best = None
        with ctl.solve(assumptions=excluded, yield_=True) as handle:
            for model in handle:  # the last model of an opt run is the optimum
                best = [s.arguments[1] for s in model.symbols(shown=True) if s.match("selected", 2)]
        if not best:
            return ranking
        ranking.append(best[0])


def number(value: clingo.Symbol) -> str:
    """The exact decimal text of a val(K, D) term."""
    return value.arguments[1].string


def decode(symbols: list[clingo.Symbol], n_queries: int) -> Answer:
    queries = {q: QueryAnswer() for q in range(1, n_queries + 1)}
    criteria: dict[int, str] = {}
    denied: dict[clingo.Symbol, clingo.Symbol] = {}
    unknown: dict[clingo.Symbol, list[tuple[int, str]]] = {}

    def verdict(q: clingo.Symbol, r: clingo.Symbol) -> Verdict:
        answer = queries[q.number]
        if r not in answer.verdicts:
            answer.verdicts[r] = Verdict(r)
        return answer.verdicts[r]

    for s in symbols:
        name, args = s.name, s.arguments
        if name == "criterion":
            criteria[args[0].number] = args[1].name
        elif name == "denied":
            denied[args[0]] = args[1]
        elif name == "unknown_accelerator_class":
            unknown.setdefault(args[0], []).append((args[1].number, args[2].string))
        elif name == "query_error":
            queries[args[0].number].error = args[1]
        elif name == "query_note":
            queries[args[0].number].note = args[1]
        elif name == "query_model":
            queries[args[0].number].model = args[1]
        elif name == "query_label":
            queries[args[0].number].label = args[1]
        elif name == "selected":
            queries[args[0].number].selected = args[1]
        elif name == "candidate":
            verdict(args[0], args[1])
        elif name == "qualifies":
            verdict(args[0], args[1]).qualifies = True
        elif name == "rank_cost":
            verdict(args[0], args[1]).cost[args[2].number] = args[3].number
        elif name == "runtime_score":
            verdict(args[0], args[1]).score = int(number(args[2]))
        elif name == "distance":
            verdict(args[0], args[1]).distance = number(args[2])
        elif name == "scoring_entry":
            verdict(args[0], args[1]).scoring_entries.append(args[2].number)
        elif name == "explain_priority":
            verdict(args[0], args[1]).priority = args[2].number
        elif name == "explain_weight":
            verdict(args[0], args[1]).weight = int(number(args[2]))
        elif name == "fails":
            verdict(args[0], args[1]).failures[args[2].name] = args[3]
        elif name == "first_failure":
            verdict(args[0], args[1]).first_failure = (args[2].name, args[3])
        elif name == "format_mismatch_detail":
            details = verdict(args[0], args[1]).format_details
            details.setdefault(args[2].number, []).append((args[3].number, args[4]))
        elif name == "excluded_in_message":
            verdict(args[0], args[1]).in_no_runtime_message = True
        else:
            raise InternalError(f"unexpected shown atom {s}")

    levels = sorted(criteria, reverse=True)
    for q, answer in queries.items():
        for v in answer.verdicts.values():
            v.failures = dict(sorted(v.failures.items(), key=lambda item: int(item[0][1:])))
            v.format_details = {i: [p for _, p in sorted(pieces)] for i, pieces in sorted(v.format_details.items())}
            v.scoring_entries.sort()
        qualifying = [v for v in answer.verdicts.values() if v.qualifies]
        qualifying.sort(key=lambda v: tuple(v.cost.get(level, 0) for level in levels))
        answer.ranking = [v.runtime for v in qualifying]
        if answer.ranking[:1] != ([answer.selected] if answer.selected is not None else []):
            raise InternalError(f"query {q}: the optimum {answer.selected} is not the first of the order")
    return Answer(
        queries=queries,
        criteria=criteria,
        denied=denied,
        unknown_classes={r: [c for _, c in sorted(v)] for r, v in unknown.items()},
    )
