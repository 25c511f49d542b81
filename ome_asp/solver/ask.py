"""Asking the encoding: the one way every command, search and tool runs it.

`ask(cluster, queries, variant)` builds the facts of the cluster and its
queries (facts.py), grounds the variant's files (programs.py, engine.py),
solves, pins Go's order (code-v0.1.5) and decodes the shown atoms
(answer.py); `ask_worlds` does the same for many cases in one grounding
(worlds.py). The edit programs (`edit_sets`) and find's `--where` check
(`satisfiable`) ground and solve here too.

The facts of the run in progress are recorded (errors.FACTS_IN_PROGRESS, a
context variable): an internal error's reproduction (commands/diagnostics.py)
holds them, whichever command, search or request failed.

The ranking of qualifying runtimes is read from the cost vectors the
#minimize statements sum over (`rank_key/3`): selecting runtime R costs
exactly R's vector, so the k-th runtime of the order (the k-th successive
optimum, "solve, exclude the winner, solve again") is the k-th smallest
vector. `rank_by_reoptimizing` computes the order by that definition; tests
check that both agree (docs/design.md).
"""

from __future__ import annotations

import time
from pathlib import Path

import clingo

from ome_asp import records
from ome_asp.errors import FACTS_IN_PROGRESS, InternalError
from ome_asp.input.objects import Cluster, Query, RuntimeRef
from ome_asp.solver import engine
from ome_asp.solver.answer import Answer, Criterion, _texts, criteria_of, decode, decode_texts, named_cost
from ome_asp.solver.facts import Facts, build_facts, build_world_facts
from ome_asp.solver.programs import OUTCOME, Variant
from ome_asp.timing import gc_paused


@records.record
class Run:
    """What one ask gives: the facts it solved and their answer (with the
    phase times, and with `sizes` the ground program's size, in `stats`)."""

    facts: Facts
    answer: Answer

    @property
    def stats(self) -> dict:
        return self.answer.stats


def ask(cluster: Cluster, queries: list[Query], variant: Variant, sizes: bool = False) -> Run:
    """The answer of `variant` (for that many queries: Variant.answering) to
    `queries` about `cluster`.

    A one-query variant's selection is the unique optimum of the #minimize
    statements (proved unique by enumerating all optima). The batch variants
    do no optimization (a sum of independent objectives); winner.lp finds
    each query's first runtime in the grounder, and each order is read from
    the same rank keys; tests check both against the one-query optimum.
    With outcome.lp, under code-v0.1.5, Go's order decides the runtime OME
    uses: when its first runtime is not the optimum, it goes back to the
    encoding as `go_first/2` and the program is solved again. With `sizes`,
    `stats` also holds the size of the ground program (`atoms`, `rules`):
    reading clingo's statistics costs about as much as solving a small
    query, so only --stats and the benchmarks ask."""
    started = time.perf_counter()
    facts = facts_for(cluster, queries)
    built = time.perf_counter() - started
    answer = solve(facts, len(queries), variant, sizes)
    answer.stats["facts_s"] = built
    return Run(facts, answer)


def facts_for(cluster: Cluster, queries: list[Query]) -> Facts:
    """The facts `ask` solves (explain --show facts prints them), recorded."""
    facts = build_facts(cluster, queries)
    FACTS_IN_PROGRESS.set(facts.program)
    return facts


def solve(facts: Facts, n_queries: int, variant: Variant, sizes: bool = False) -> Answer:
    """`ask` of facts already built (with `n_queries` queries)."""
    variant = variant.answering(n_queries)
    start = time.perf_counter()
    answer = _solve(facts, variant, n_queries, sizes, start)
    pins = _go_first(facts, answer, variant)
    if pins:
        answer = _solve(records.replace(facts, program=facts.program + pins), variant, n_queries, sizes, start)
    return answer


def _go_sort(facts: Facts):
    if facts.profile is None or not facts.profile.go_sort:
        return None
    from ome_asp.solver import gosort  # code-v0.1.5's sort: imported by the profiles that sort as Go

    return gosort.order


def _go_first(facts: Facts, answer: Answer, variant: Variant) -> str:
    """code-v0.1.5 with outcome.lp: the Go order's first runtime is the one
    OME uses; selection.lp and winner.lp read it (go_first/2) and outcome.lp
    derives the rest from it. The facts that pin it where it is not the
    optimum ("" where nothing needs pinning)."""
    if OUTCOME[0] not in variant.files or _go_sort(facts) is None:
        return ""
    identifiers = {ref: text for text, ref in facts.runtimes.items()}
    pins = {q: a.ranking[0] for q, a in answer.queries.items() if a.ranking and a.ranking[0] != a.selected}
    return "".join(
        str(clingo.Function("go_first", [clingo.Number(q), clingo.parse_term(identifiers[runtime])])) + ".\n"
        for q, runtime in sorted(pins.items())
    )


def _solve(facts: Facts, variant: Variant, n_queries: int, sizes: bool, start: float) -> Answer:
    ctl = engine.ground_program(facts.whole, variant.files)
    grounded = time.perf_counter()
    optimal = []
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            if model.optimality_proven or not variant.one_query:
                optimal.append((model.symbols(shown=True), model.cost))
        result = handle.get()
    solved = time.perf_counter()
    if not result.satisfiable:
        raise InternalError("the encoding has no answer set for this input")
    if len(optimal) != 1:
        raise InternalError(f"the answer is not unique ({len(optimal)} optimal answer sets)")
    symbols, cost = optimal[0]
    answer = decode(symbols, n_queries, facts, _go_sort(facts))
    if variant.one_query:  # the batch programs optimise nothing (winner.lp)
        answer.optimum = named_cost(answer.criteria, cost)
    answer.stats = {"ground_s": grounded - start, "solve_s": solved - grounded, "decode_s": time.perf_counter() - solved}
    if sizes:
        lp = ctl.statistics["problem"]["lp"]
        answer.stats.update(atoms=lp["atoms"], rules=lp["rules"])
    return answer


def ask_worlds(cases: list[tuple[Cluster, list[Query]]], variant: Variant) -> list[Run]:
    """`ask(cluster, queries, variant)` of each case, all grounded together
    as worlds of `variant.batch` (worlds.py; winner.lp: each world's first
    runtime without search, the variant explain --all-models uses; tests
    check it equals the one-query optimum). A batch whose program has no
    single answer set is answered case by case, so a case fails as it fails
    alone. The facts recorded are those of the case last built. One case is
    asked alone, in `variant` itself (explain -v's details included)."""
    if len(cases) <= 1:
        return [ask(*case, variant) for case in cases]
    batch = build_world_facts(cases)
    FACTS_IN_PROGRESS.set(batch[-1].whole)
    return [Run(facts, answer) for facts, answer in zip(batch, solve_worlds(batch, [len(q) for _, q in cases], variant))]


def solve_worlds(batch: list[Facts], n_queries: list[int], variant: Variant) -> list[Answer]:
    """`ask_worlds` of facts already built together (facts.build_world_facts,
    each with its `n_queries`)."""
    if not batch:  # no world: nothing to ground (batch_program reads the value tables of some world)
        return []
    answers = _solve_worlds(batch, n_queries, variant.batch)
    if answers is None:
        alone = []
        for facts, n in zip(batch, n_queries):
            FACTS_IN_PROGRESS.set(facts.whole)
            alone.append(solve(facts, n, variant))
        return alone
    pinned = {w: records.replace(facts, program=facts.program + pins)
              for w, facts in enumerate(batch) if (pins := _go_first(facts, answers[w], variant))}
    if pinned:  # solved again, as `solve` pins
        for w, answer in zip(pinned, solve_worlds(list(pinned.values()), [n_queries[w] for w in pinned], variant)):
            answers[w] = answer
    return answers


def _solve_worlds(batch: list[Facts], n_queries: list[int], variant: Variant) -> list[Answer] | None:
    from ome_asp.solver import worlds  # clingo.ast: only batches of worlds (serve, check) rewrite the encoding

    ctl = engine.ground_program(worlds.batch_program(batch), variant.files, worlds.load)
    with ctl.solve(yield_=True) as handle:
        models = [model.symbols(shown=True) for model in handle]
    del ctl  # a batch's Control is freed with it: memory stays flat over batches
    if len(models) != 1:
        return None
    with gc_paused():
        atoms = worlds.split_worlds(_texts(models[0]))
        return [decode_texts(atoms.get(w, []), n, facts, _go_sort(facts)) for w, (facts, n) in enumerate(zip(batch, n_queries))]


@records.record
class EditSets:
    """The optima of an edit program: each one's edits, and their common cost by name."""

    sets: list[list[clingo.Symbol]]  # the arguments of each optimum's apply/1 atoms
    optimum: list[Criterion]  # [] when there is no edit set


def edit_sets(facts: Facts, variant: Variant, limit: int) -> EditSets:
    """The optima of an edit program (Variant.STEER, Variant.COMPARE) on its
    facts, up to `limit` of them; the caller verifies each by selecting again."""
    return EditSearch(facts, variant).optima(limit)


class EditSearch:
    """An edit program grounded once, solved for its optima, and solved again
    with sets excluded: a search whose program states less than the order
    its sets must meet rejects some and goes on (analysis/edits.py)."""

    def __init__(self, facts: Facts, variant: Variant) -> None:
        FACTS_IN_PROGRESS.set(facts.whole)
        self._ctl = engine.ground_program(facts.whole, variant.files)
        self._excluded = 0

    def optima(self, limit: int) -> EditSets:
        """Up to `limit` optima of the program and what it excludes, in one order."""
        found: list[list[clingo.Symbol]] = []
        cost: list[int] = []
        with self._ctl.solve(yield_=True) as handle:
            for model in handle:
                if model.optimality_proven:
                    found.append([s.arguments[0] for s in model.symbols(shown=True)])
                    cost = model.cost
                    if len(found) == limit:
                        break
        # sets of equal cost in one order whatever order the solver met them in,
        # which changes with any edit to the encoding (the docs print them)
        found.sort(key=lambda symbols: sorted(map(str, symbols)))
        return EditSets(found, named_cost(criteria_of(self._ctl), cost) if found else [])

    def exclude(self, sets: list[list[clingo.Symbol]]) -> None:
        """No optimum is one of `sets` any more (a set exactly: a superset still may be)."""
        part = f"excluded_{self._excluded}"
        self._excluded += 1
        self._ctl.add(part, [], "".join(
            ":- " + "".join(f"apply({edit}), " for edit in chosen) + f"#count{{ E : apply(E) }} = {len(chosen)}.\n"
            for chosen in sets))
        self._ctl.ground([(part, [])])


def satisfiable(cluster: Cluster, queries: list[Query], variant: Variant, extra: Path) -> bool:
    """Whether `variant` and the program `extra` (find --where's constraints)
    have an answer set on the facts of `cluster` and `queries`."""
    facts = build_facts(cluster, queries)
    FACTS_IN_PROGRESS.set(facts.program)
    ctl = engine.ground_program(facts.program + Path(extra).read_text(encoding="utf-8"), variant.files)
    return ctl.solve().satisfiable


def rank_by_reoptimizing(facts: Facts, query: int = 1) -> list[RuntimeRef]:
    """The order by definition: solve, exclude the winner, solve again.

    One optimization per qualifying runtime; quadratic, kept as the reference
    the fast ranking is tested against."""
    FACTS_IN_PROGRESS.set(facts.whole)
    ctl = engine.ground_program(facts.whole, Variant.RANK.files)
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
