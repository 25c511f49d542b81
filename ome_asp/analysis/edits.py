"""What the edit searches share (steer, compare): the terms that name their
candidate edits in the edit programs (encoding/edits.lp), decoded back from
an optimum's apply/1 atoms; the one verifier: apply an edit set to the
manifests and select again (find's witnesses are answered again by it too:
ome_asp/analysis/find.py); and the search under an order the programs do
not state (code-v0.1.5's Go sort), whose optima that verifier checks under
the order itself, rejecting some and solving again (docs/design.md,
"Searches under Go's order")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Generic, Protocol, TypeVar

import clingo

from ome_asp.errors import InternalError
from ome_asp.input.objects import Cluster, Query, RuntimeRef
from ome_asp.solver import ask, gosort
from ome_asp.solver.answer import Answer, Criterion, QueryAnswer
from ome_asp.solver.facts import Facts, Term
from ome_asp.solver.programs import Variant

MAX_SETS = 5  # the optimal edit sets a search reports at most
# The candidate sets a search under Go's order checks before it stops
# without a set (then it says so: it proved nothing; docs/design.md).
MAX_REJECTED = 25


class Described(Protocol):
    def describe(self) -> str: ...


Edit = TypeVar("Edit", bound=Described)


class EditTerms(Generic[Edit]):
    """The candidate edits of a search, each under the term that names it in
    the program (`edit(E)`, `apply(E)`), in the order they were named."""

    def __init__(self) -> None:
        self._positions: dict[clingo.Symbol, int] = {}
        self._edits: list[Edit] = []

    def name(self, term: Term, edit: Edit) -> Term:
        """`term` names `edit` (a term named again names its latest edit, in its first place)."""
        symbol = clingo.parse_term(term.text)
        if symbol in self._positions:
            self._edits[self._positions[symbol]] = edit
        else:
            self._positions[symbol] = len(self._edits)
            self._edits.append(edit)
        return term

    @property
    def edits(self) -> list[Edit]:
        return list(self._edits)

    def decode(self, optima: list[list[clingo.Symbol]], ordered: bool = False) -> list[list[Edit]]:
        """Each optimum's apply/1 arguments (ask.edit_sets) as the edits they
        name, in the order they were named; the optima as the solver found
        them or, `ordered`, in the order of their edits."""
        sets = [sorted(self._positions[symbol] for symbol in applied) for applied in optima]
        return [[self._edits[k] for k in chosen] for chosen in (sorted(sets) if ordered else sets)]


def answer_again(runs: list[tuple[Cluster, list[Query]]], variant: Variant) -> list[Answer]:
    """Each (edited) cluster's whole answer to its queries (its denials with
    them: what a report of it shows), all grounded together as worlds: one
    world per snapshot, profile or edited snapshot (issue 12)."""
    return [run.answer for run in ask.ask_worlds(runs, variant)]


def select_again(runs: list[tuple[Cluster, list[Query]]], variant: Variant) -> list[list[QueryAnswer]]:
    """Each (edited) cluster's answers to its queries (answer_again)."""
    return [[answer.queries[n] for n in range(1, len(queries) + 1)]
            for answer, (_, queries) in zip(answer_again(runs, variant), runs)]


@dataclass
class Claim(Generic[Edit]):
    """What a search claims of one edit set: the manifests with the set
    applied (`edited`) answer each query as `wrong` finds nothing wrong with.
    `refutes` is what the search itself vouches for, where that is less: a
    search under an order no #minimize states vouches only for what every
    such order keeps (docs/design.md, "Searches under Go's order"), an
    alternative tried aside for nothing (`aside`); None: all of `wrong`."""

    edits: list[Edit]
    edited: Cluster
    queries: list[Query]
    wrong: Callable[[int, QueryAnswer], str | None]  # what is wrong with the k-th query's answer, or None
    refutes: Callable[[int, QueryAnswer], str | None] | None = None


def aside(k: int, answer: QueryAnswer) -> None:
    """An edit set tried aside (an alternative): no answer refutes a search."""
    return None


@dataclass
class Checked:
    """One claim selected again: its answers, and why it does not do what
    was asked (None: it does)."""

    answers: list[QueryAnswer]
    wrong: str | None


def verify(search: str, claims: list[Claim], variant: Variant) -> list[Checked]:
    """Apply each edit set to the manifests and select again, all in one
    grounding: an answer the search vouched for that does not hold is the
    search's error (an internal error naming it and the set), on any query
    of the claim; one that holds only that is why the set is rejected."""
    checked = []
    for claim, found in zip(claims, select_again([(claim.edited, claim.queries) for claim in claims], variant)):
        wrong = [claim.wrong(k, answer) for k, answer in enumerate(found)]
        refuted = wrong if claim.refutes is None else [claim.refutes(k, answer) for k, answer in enumerate(found)]
        for why in filter(None, refuted):
            raise InternalError(f"{search}: the edit set {[e.describe() for e in claim.edits]} {why} when applied")
        checked.append(Checked(found, next(filter(None, wrong), None)))
    return checked


@dataclass
class Found(Generic[Edit]):
    """What a search found: its optimal sets that hold (all of them where
    its program states the order), their optimum, and the candidate sets the
    order itself rejected on the way. `proven`: no set cheaper than `sets`
    holds (the search ran to the end); False only where it stopped after
    MAX_REJECTED rejections without a set."""

    sets: list[list[Edit]]
    optimum: list[Criterion]
    rejected: int = 0
    proven: bool = True


def search(facts: Facts, variant: Variant, terms: EditTerms[Edit], holds: Callable[[list[list[Edit]]], list[bool]] | None,
           ordered: bool = False) -> Found[Edit]:
    """The optimal sets of an edit program (`terms` names its edits; `ordered`
    as EditTerms.decode). `holds` is None where the program states the order
    the sets must meet: its optima are the answer (the caller verifies them,
    and a set that fails is the search's error). Otherwise the program's goal
    is necessary only (edits.lp's order_by_score), and `holds` says which of
    the optima meet the order itself (selected again): those that do are
    the answer; none: the rest are excluded and the program solved again,
    up to MAX_REJECTED rejections (counterexample-guided)."""
    program, rejected = ask.EditSearch(facts, variant), 0
    while True:
        optima = program.optima(MAX_SETS)
        found = terms.decode(optima.sets, ordered)
        if holds is None or not found:
            return Found(found, optima.optimum, rejected)
        verdicts = holds(found)
        if any(verdicts):
            return Found([s for s, ok in zip(found, verdicts) if ok], optima.optimum, rejected + verdicts.count(False))
        rejected += len(found)
        if rejected >= MAX_REJECTED:
            return Found([], [], rejected, proven=False)
        program.exclude(optima.sets)


def scope_and_score_first(answer: QueryAnswer, want: RuntimeRef) -> str | None:
    """What a search under Go's order vouches for (edits.lp's order_by_score):
    `want` qualifies and no runtime has an earlier scope (O1) or its scope
    and a higher score (O2), read from the rank keys, and the query ends
    with no outcome (edits.lp) but Go's own (its order unspecified, which
    the order decides); what is wrong, or None."""
    if answer.ended is not None:
        return None if answer.ended[0] == gosort.ORDER_UNSPECIFIED else f"ends the query with outcome {answer.ended[0]}"
    if want not in answer.verdicts or not answer.verdicts[want].qualifies:
        return f"does not make {want} qualify"
    key = answer.verdicts[want].cost[:2]
    ahead = [r for r in answer.verdicts if r != want and answer.verdicts[r].qualifies and answer.verdicts[r].cost[:2] < key]
    return None if not ahead else f"leaves {ahead[0]} before {want} on scope or score"
