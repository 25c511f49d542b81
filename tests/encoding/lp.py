"""Ground one encoding file (or a few) on a small fact program.

A unit test of `encoding/X.lp` loads `input.lp` (the fact schema) and `X.lp`,
adds facts built with `ome_asp.solver.facts.FactBuilder`, and reads the answer set:

    result = run(("sizes.lp",), builder, upstream=("examined/2", ...))
    assert result.rows("size_outside") == {("1", 'csr("rt")')}

The predicates `X.lp` reads from *other* encoding files (its upstream, e.g.
`examined/2` from qualification.lp and explanation.lp) are given as facts and
must be named in `upstream`; the harness declares them `#defined`, so a case
that leaves one empty grounds silently. A file may also derive a predicate it
reads from upstream (qualification.lp derives examined/2 from supports/2;
explanation.lp adds every candidate): the facts then stand for the other
file's rules. Everything else clingo says fails the test: an "atom does not
occur in any rule head" warning means the test forgot an upstream predicate
(or the file reads a predicate nobody defines). A fact whose predicate is
neither an input predicate of input.lp nor declared upstream fails too, so a
misspelt fact cannot pass unnoticed.

Entries refer to signatures sig(N) and weights w(N) (input.lp); a test
writes their facts directly or interns `ome_asp.input.objects.Entry` objects with
`ome_asp.solver.facts.EntryTables`, the fact builder's own tables.

`run` returns the unique answer set (every file but selection.lp and
edits.lp is stratified: their choices of `selected/2` and `apply/1` are the
only ones); `answer_sets` every answer set; `optimum` the unique
optimal one of selection.lp, enumerated with `--opt-mode=optN`;
`successive_optima` the order by its definition (O5: the winner, then the
winner among the rest, ...).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import clingo

from ome_asp.solver.facts import FactBuilder, const

ENCODING = Path(__file__).resolve().parents[2] / "encoding"
INPUT_LP = ENCODING / "input.lp"
#: The input predicates, as input.lp declares them (`#defined name/arity.`).
INPUT_PREDICATES = frozenset(re.findall(r"^#defined\s+(\w+/\d+)\s*\.", INPUT_LP.read_text(), re.MULTILINE))

Facts = FactBuilder | Iterable[clingo.Symbol]


def text(term) -> str:
    """How clingo prints an identifier or constant made by ome_asp.solver.facts
    (`runtime_id`, `const`, ...), for writing expected atoms."""
    return str(clingo.parse_term(getattr(term, "text", None) or str(term)))


def term(written: str):
    """An identifier written as text (`cbm("m")`, `isvc("ns","i")`), checked
    by clingo's parser, as a FactBuilder argument."""
    return const(str(clingo.parse_term(written)))


def plain(symbol: clingo.Symbol) -> str:
    """An argument as a test reads it: an exact number val(K, D) as its
    decimal text D (K is a rank that depends on the other numbers of the
    program), anything else as clingo prints it."""
    if symbol.match("val", 2):
        return symbol.arguments[1].string
    return str(symbol)


@dataclass(frozen=True)
class Answer:
    symbols: frozenset[clingo.Symbol]

    def atoms(self) -> set[str]:
        """The whole answer set, each atom as clingo prints it."""
        return {str(s) for s in self.symbols}

    def rows(self, name: str) -> set[tuple[str, ...]]:
        """Every atom of predicate `name` as a tuple of its arguments (`plain`)."""
        return {tuple(plain(a) for a in s.arguments) for s in self.symbols if s.name == name}

    def terms(self, name: str) -> set[tuple[str, ...]]:
        """Every atom of predicate `name` as a tuple of its arguments exactly
        as clingo prints them (an exact number keeps its rank: val(K, D))."""
        return {tuple(str(a) for a in s.arguments) for s in self.symbols if s.name == name}


def _symbols(facts: Facts) -> list[clingo.Symbol]:
    return facts.symbols() if isinstance(facts, FactBuilder) else list(facts)


def _control(
    files: Sequence[str], facts: Facts, upstream: Sequence[str], arguments: list[str], extra: str = ""
) -> clingo.Control:
    for signature in upstream:
        if not re.fullmatch(r"\w+/\d+", signature):
            raise ValueError(f"upstream predicates are name/arity, not {signature!r}")
        if signature in INPUT_PREDICATES:
            raise ValueError(f"{signature} is an input predicate (input.lp), not an upstream one")
    symbols = _symbols(facts)
    stray = {f"{s.name}/{len(s.arguments)}" for s in symbols} - INPUT_PREDICATES - set(upstream)
    if stray:
        raise AssertionError(f"facts of predicates neither in input.lp nor declared upstream: {sorted(stray)}")

    messages: list[str] = []
    ctl = clingo.Control(arguments, logger=lambda _code, message: messages.append(message), message_limit=1000)
    ctl.load(str(INPUT_LP))
    for name in files:
        ctl.load(str(ENCODING / name))
    program = "".join(f"#defined {signature}.\n" for signature in upstream)
    program += "".join(f"{s}.\n" for s in symbols)
    ctl.add("base", [], program + extra)
    ctl.ground([("base", [])])
    if messages:
        raise AssertionError("clingo warned while grounding " + ", ".join(files) + ":\n" + "".join(messages))
    return ctl


def answer_sets(files: Sequence[str], facts: Facts, *, upstream: Sequence[str] = (), extra: str = "") -> list[Answer]:
    """Every answer set of input.lp + `files` + `facts` (+ the rules `extra`),
    optimization statements ignored: a choice's candidates (edits.lp)."""
    ctl = _control(files, facts, upstream, ["--models=0", "--opt-mode=ignore"], extra)
    with ctl.solve(yield_=True) as handle:
        return [Answer(frozenset(model.symbols(atoms=True))) for model in handle]


def run(files: Sequence[str], facts: Facts, *, upstream: Sequence[str] = ()) -> Answer:
    """The unique answer set of input.lp + `files` + `facts` (every answer set
    is enumerated, optimization statements ignored)."""
    models = answer_sets(files, facts, upstream=upstream)
    if len(models) != 1:
        raise AssertionError(f"expected exactly one answer set, got {len(models)}")
    return models[0]


@dataclass(frozen=True)
class Optimum:
    answer: Answer
    cost: list[int]  # one entry per #minimize level, highest level first


def optimal_models(
    files: Sequence[str], facts: Facts, *, upstream: Sequence[str] = (), extra: str = ""
) -> list[Optimum]:
    """Every optimal answer set (`--opt-mode=optN`); [] when unsatisfiable."""
    ctl = _control(files, facts, upstream, ["--opt-mode=optN", "--models=0"], extra)
    optimal = []
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            if model.optimality_proven:
                optimal.append(Optimum(Answer(frozenset(model.symbols(atoms=True))), list(model.cost)))
    return optimal


def optimum(files: Sequence[str], facts: Facts, *, upstream: Sequence[str] = (), extra: str = "") -> Optimum:
    """The unique optimal answer set."""
    optimal = optimal_models(files, facts, upstream=upstream, extra=extra)
    if len(optimal) != 1:
        raise AssertionError(f"expected exactly one optimal answer set, got {len(optimal)}")
    return optimal[0]


def successive_optima(
    files: Sequence[str], facts: Facts, *, upstream: Sequence[str] = (), query: int = 1
) -> list[str]:
    """The order of `selected(query, R)` by its definition: the optimum's R,
    then the optimum's R with that one excluded, and so on until no runtime
    is left. Each step's optimum must be unique."""
    order: list[str] = []
    while True:
        excluded = "".join(f":- selected({query},{r}).\n" for r in order)
        optimal = optimal_models(files, facts, upstream=upstream, extra=excluded)
        if not optimal:
            return order
        if len(optimal) != 1:
            raise AssertionError(f"after {order}: {len(optimal)} optimal answer sets")
        (chosen,) = [s for s in optimal[0].answer.symbols if s.match("selected", 2) and s.arguments[0].number == query]
        order.append(str(chosen.arguments[1]))


#: Q1's candidate scopes (lookup.lp), which ordering.lp's keys read (D-111).
SCOPES = ("runtime_scope/2", "query_scope/2")


def scoped(b: FactBuilder, queries: Iterable[int], runtimes: Iterable) -> FactBuilder:
    """The scopes lookup.lp derives, as facts, for files tested without it:
    each runtime's (its namespace, or `cluster`) and each query's (the
    namespace "ns" and `cluster`)."""
    for r in runtimes:
        symbol = clingo.parse_term(r.text)
        b.fact.runtime_scope(r, const("cluster") if symbol.name == "csr" else term(str(symbol.arguments[0])))
    for q in queries:
        b.fact.query_scope(q, term('"ns"'))
        b.fact.query_scope(q, const("cluster"))
    return b
