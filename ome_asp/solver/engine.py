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
import time
from pathlib import Path

import clingo

from ome_asp.errors import InternalError
from ome_asp.solver import gosort
from ome_asp.solver.answer import Answer, decode
from ome_asp.solver.facts import Facts, RuntimeRef
from ome_asp.solver.programs import CORE, DETAILS, EXPLANATION, OUTCOME, SELECTION, SHOW, WINNER, Variant, encoding_dir


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
            pinned = go_first_facts(facts, pins)
            answer = _solve(dataclasses.replace(facts, program=facts.program + pinned), files, n_queries, go_sort, sizes, start)
    return answer


def program(n_queries: int, explain: bool = True, outcome: bool = False, details: bool = False) -> tuple[str, ...]:
    """The files of the program variant `solve` grounds (encoding/README.md)."""
    if (outcome or details) and not explain:
        raise ValueError("outcome.lp and details.lp need the explain program")
    files = CORE + (EXPLANATION if explain else ()) + (SELECTION if n_queries == 1 else WINNER) + SHOW
    return Variant(files + (OUTCOME if outcome else ()) + (DETAILS if details else ())).files


def ground(facts: Facts, files: tuple[str, ...]) -> clingo.Control:
    """The ground program of `files` on `facts` (for measuring it: the
    benchmarks' ground sizes, tests/test_scaling.py)."""
    return ground_program(facts.program, files)


def go_first_facts(facts: Facts, pins: dict[int, RuntimeRef]) -> str:
    identifiers = {ref: text for text, ref in facts.runtimes.items()}
    return "".join(
        str(clingo.Function("go_first", [clingo.Number(q), clingo.parse_term(identifiers[runtime])])) + ".\n"
        for q, runtime in sorted(pins.items())
    )


def _solve(facts: Facts, files: tuple[str, ...], n_queries: int, go_sort, sizes: bool, start: float) -> Answer:
    ctl = ground_program(facts.program, files)
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


def ground_program(facts: str, files: tuple[str, ...], load=None) -> clingo.Control:
    """`load(ctl, files)` adds the encoding (default: the files as written;
    worlds.py adds them rewritten for many worlds)."""
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
    (load or _load_encoding)(ctl, files)
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
_parsed: dict[str, list] = {}  # file path -> its statements
_loaded_once: set[str] = set()
# Statements free themselves through clingo's library, which is gone once the
# interpreter tears modules down ("Exception ignored" on stderr): free them first.
atexit.register(_parsed.clear)


def _load_encoding(ctl: clingo.Control, files: tuple[str, ...]) -> None:
    directory = encoding_dir()
    for name in files:
        path = str(directory / name)
        if path not in _parsed and path not in _loaded_once:
            _loaded_once.add(path)
            ctl.load(path)
            continue
        from clingo import ast  # only a process that grounds twice needs it

        if path not in _parsed:
            _parsed[path] = statements(path)
        with ast.ProgramBuilder(ctl) as builder:
            for statement in _parsed[path]:
                builder.add(statement)


def statements(path: str) -> list:
    """The statements of an encoding file, less its comments (half of them)."""
    from clingo import ast

    found = []

    def keep(statement) -> None:
        if statement.ast_type != ast.ASTType.Comment:
            found.append(statement)

    ast.parse_files([path], keep)
    return found


def admit(facts: Facts) -> Answer:
    """The admission webhook (W-rules) on every declared runtime: only
    input.lp and admission.lp are grounded; `denied` says which are denied."""
    ctl = ground_program(facts.program, Variant.ADMIT.files)
    with ctl.solve(yield_=True) as handle:
        models = [model.symbols(shown=True) for model in handle]
    if len(models) != 1:
        raise InternalError(f"the admission program has {len(models)} answer sets, not one")
    return decode(models[0], 0, facts)


def satisfiable(facts: Facts, files: tuple[str, ...], extra: Path) -> bool:
    """Whether `files` and the program `extra` (find --where's constraints)
    have an answer set on `facts`."""
    ctl = ground_program(facts.program + Path(extra).read_text(encoding="utf-8"), files)
    return ctl.solve().satisfiable


def minimal_edit_sets(facts: str, variant: Variant, limit: int) -> list[list[str]]:
    """The optima of an edit program (Variant.STEER, Variant.COMPARE) on its facts, up to
    `limit` of them, each as the arguments of its apply/1 atoms (as clingo
    prints them); the caller verifies each by selecting again."""
    ctl = ground_program(facts, variant.files)
    found: list[list[str]] = []
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            if model.optimality_proven:
                found.append([str(s.arguments[0]) for s in model.symbols(shown=True)])
                if len(found) == limit:
                    break
    return found


def rank_by_reoptimizing(facts: Facts, query: int = 1) -> list[RuntimeRef]:
    """The order by definition: solve, exclude the winner, solve again.

    One optimization per qualifying runtime; quadratic, kept as the reference
    the fast ranking is tested against."""
    ctl = ground_program(facts.program, Variant.RANK.files)
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


