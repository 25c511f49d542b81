"""find's questions (issue 14, docs/find.md): what a condition compares of
the answers, the catalogue of properties, and the search with its
verification.

`run_question` searches the clusters within the bounds for the smallest one
on which the condition holds (ome_asp/solver/finder.py, encoding/find/),
then verifies it as a user would see it: the witness is written as
manifests, read back by the ordinary loader and answered again under each
side (analysis/edits.py's answer_again, through solver/ask.py: the programs
explain and select run), and the condition is checked again on explain's
and select's reports of those answers. A witness that fails is an internal
error, never a result. The command line is ome_asp/commands/find.py.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Callable

from ome_asp.analysis.edits import answer_again
from ome_asp.errors import InternalError
from ome_asp.input import profiles
from ome_asp.input.loader import load
from ome_asp.input.objects import Cluster, Query
from ome_asp.render import case_files, reasons, report
from ome_asp.render.selection import Selection
from ome_asp.solver import ask, finder, programs, space
from ome_asp.solver.answer import Answer
from ome_asp.solver.programs import Variant

LEVELS = ("selected", "order", "rows", "reasons")
QUERY = {"namespace": finder.NAMESPACE, "model": finder.MODEL_NAME}
ISVC_QUERY = {"namespace": finder.NAMESPACE, "isvc": finder.ISVC_NAME}


def query_of(bounds: finder.Bounds) -> dict:
    """What every world is asked: explain --model m, or with an InferenceService
    explain and select --isvc i (both in namespace default)."""
    return dict(ISVC_QUERY if bounds.isvc else QUERY)


# --- the answers a side gives, and what a condition compares of them --------


def runtime_key(kind: str, name: str) -> str:
    return f"{kind} {name}"


def view(answer: dict, on: str) -> dict:
    """What `--on` compares of one side's answer (encoding/find/differ.lp):
    the selected runtime (or the error or outcome ending the query) and,
    level by level, the order, the rows, the reasons."""
    if "error" in answer:
        return {"error": answer["error"]}
    if "outcome" in answer:
        return {"outcome": answer["outcome"], "detail": answer["detail"]}
    selected = answer["selected"]
    seen: dict = {"selected": selected and runtime_key(selected["kind"], selected["name"])}
    level = LEVELS.index(on)
    rows = answer["rows"]
    if level >= 1:
        seen["order"] = [runtime_key(r["kind"], r["runtime"]) for r in sorted(rows, key=lambda r: r["rank"] or 0)
                         if r["compatible"]]
    if level >= 2:
        seen["rows"] = sorted((runtime_key(r["kind"], r["runtime"]), "Yes", str(r["score"])) if r["compatible"]
                              else (runtime_key(r["kind"], r["runtime"]), "No", r["failedCheck"]) for r in rows)
    if level >= 3:
        seen["reasons"] = sorted((runtime_key(r["kind"], r["runtime"]), [[x["check"], x["message"]] for x in r["reasons"]])
                                 for r in rows)
    return seen


def yes_rows(answer: dict) -> list[dict]:
    if "rows" not in answer:
        return []
    return sorted((r for r in answer["rows"] if r["compatible"]), key=lambda r: r["rank"])


def _number(value) -> Fraction:
    return Fraction(str(value))


def _csr_before_sr(answers: dict, documents: list[dict]) -> bool:
    kinds = [r["kind"] for r in yes_rows(next(iter(answers.values())))]
    return "ServingRuntime" in kinds[kinds.index("ClusterServingRuntime"):] if "ClusterServingRuntime" in kinds else False


def _disabled_qualifies(answers: dict, documents: list[dict]) -> bool:
    disabled = {runtime_key(d["kind"], d["metadata"]["name"]) for d in documents if d["spec"].get("disabled") is True}
    return any(runtime_key(r["kind"], r["runtime"]) in disabled for r in yes_rows(next(iter(answers.values()))))


def _selected_not_first(answers: dict, documents: list[dict]) -> bool:
    answer = next(iter(answers.values()))
    rows = yes_rows(answer)
    if not rows:
        return False
    selected = answer["selected"]
    return selected is None or runtime_key(selected["kind"], selected["name"]) != runtime_key(rows[0]["kind"], rows[0]["runtime"])


def _tie(answers: dict, documents: list[dict]) -> bool:
    keys = [(r["kind"], -_number(r["score"]), _number(r["distance"] or 0), r["runtime"])
            for r in yes_rows(next(iter(answers.values())))]
    return len(set(keys)) != len(keys)


def _zero_score_qualifies(answers: dict, documents: list[dict]) -> bool:
    return any(_number(r["score"]) <= 0 for r in yes_rows(next(iter(answers.values()))))


def _winner_changes(answers: dict, documents: list[dict]) -> bool:
    before, after = answers["before"], answers["after"]
    return view(before, "selected") != view(after, "selected") and bool(before.get("selected"))


def _keys(answer: dict) -> list:
    return sorted((r["kind"], r["runtime"], _number(r["score"]), _number(r["distance"] or 0)) for r in yes_rows(answer))


def _order_changes(answers: dict, documents: list[dict]) -> bool:
    """The order, or a qualifying runtime's key (its score or distance: the
    property's statement compares the keys, encoding/find/properties)."""
    before, after = answers["before"], answers["after"]
    return view(before, "order") != view(after, "order") or _keys(before) != _keys(after)


@dataclass(frozen=True)
class Property:
    """A catalogue entry (docs/find.md): the program stating its violation
    (encoding/find/properties/NAME.lp) and the same violation checked on the
    ordinary answers."""

    rules: str
    statement: str
    violated: Callable[[dict, list[dict]], bool]
    variant: str | None = None  # a second world: raise_winner | add_disabled
    runtimes: int = finder.Bounds.runtimes  # the default of --runtimes (docs/find.md, the catalogue)


PROPERTIES = {
    "namespaced-first": Property(
        "O1", "a qualifying ServingRuntime of the namespace ranks before every ClusterServingRuntime", _csr_before_sr),
    "disabled-never-selected": Property(
        "Q2, W2", "a runtime with spec.disabled: true never qualifies, so is never selected", _disabled_qualifies),
    "selected-is-first-of-order": Property(
        "O5", "the selected runtime is the first of the order; a query with a qualifying runtime selects one",
        _selected_not_first),
    "order-is-total": Property("O1-O4", "no two qualifying runtimes tie in the order", _tie),
    "zero-score-never-qualifies": Property("Q8, S1", "a runtime whose score is 0 or less does not qualify",
                                           _zero_score_qualifies),
    "raising-winner-priority-keeps-it-first": Property(
        "S5, W4", "raising the priority of every entry of the selected runtime by one keeps it selected",
        _winner_changes, "raise_winner"),
    "adding-disabled-runtime-changes-nothing": Property(
        "Q2, W2, O5", "adding a runtime with spec.disabled: true changes neither the selection nor the order",
        _order_changes, "add_disabled", runtimes=1),
}


# --- a question --------------------------------------------------------------


@dataclass
class Side:
    name: str
    profile: profiles.Profile
    encoding: Path
    extra: bool = False  # the side's cluster has the add_disabled runtime
    raise_winner: bool = False  # the side's cluster has the winner's priorities raised


@dataclass
class Question:
    description: dict  # the FindReport's condition
    sides: list[Side]
    files: list[Path]  # the condition's programs
    facts: str = ""  # the condition's parameters (differ_on/1)
    where: Path | None = None
    explain: bool = False  # the worlds need explanation.lp (rows, reasons)
    check: Callable[[Found], bool] | None = None  # the condition on the ordinary answers
    extra: dict = field(default_factory=dict)

    @property
    def compares(self) -> bool:
        """Two worlds' answers must differ (--differ, --differ-encoding)."""
        return finder.find_dir() / "differ.lp" in self.files


def differ_check(a: str, b: str, on: str) -> Callable[[Found], bool]:
    """--differ's condition on the answers: explain's view at level `on` and,
    with an InferenceService, what select reports (find/select.lp)."""
    def seen(found: Found, side: str) -> tuple:
        return view(found.answers[side], on), found.selections.get(side)
    return lambda found: seen(found, a) != seen(found, b)


# --- search and verification ---------------------------------------------------


@dataclass
class Found:
    question: Question
    bounds: finder.Bounds
    witness: finder.Witness | None
    answers: dict[str, dict] = field(default_factory=dict)  # explain's report, per side
    selections: dict[str, dict] = field(default_factory=dict)  # select's answer (cases.py), per side (--isvc)
    manifests: dict[str, str] = field(default_factory=dict)  # per side

    @property
    def query(self) -> dict:
        return query_of(self.bounds)

    @property
    def documents(self) -> list[dict]:
        """The witness's documents (what is verified has a witness)."""
        assert self.witness is not None
        return self.witness.documents


def run_question(q: Question, bounds: finder.Bounds, threads: int = 1) -> Found:
    world_list = [finder.World(s.profile, s.encoding, "add_disabled" if s.extra else "raise_winner" if s.raise_winner else None)
                  for s in q.sides]
    files = q.files + ([finder.find_dir() / "select.lp"] if bounds.isvc and q.compares else [])
    witness = finder.search(bounds, world_list, files, q.facts, q.where, extra_runtime=any(s.extra for s in q.sides),
                            explain=q.explain, threads=threads)
    found = Found(q, bounds, witness)
    if witness is not None:
        verify(found)
    return found


def side_documents(found: Found, side: Side) -> list[dict]:
    documents = [dict(d) for d in found.witness.documents]
    if side.extra:
        documents += found.witness.extra
    if side.raise_winner:
        before = found.answers["before"].get("selected")
        if before:
            documents = raised(documents, (before["kind"], before["name"]))
    return documents


def raised(documents: list[dict], winner: tuple[str, str]) -> list[dict]:
    """The documents with every entry of the runtime `winner` (kind, name) at
    its priority + 1 (absent read as 1): raise_winner's second cluster."""
    def up(document: dict) -> dict:
        entries = [{**e, "priority": e.get("priority", 1) + 1} for e in document["spec"]["supportedModelFormats"]]
        return {**document, "spec": {**document["spec"], "supportedModelFormats": entries}}

    return [up(d) if (d["kind"], d["metadata"]["name"]) == winner else d for d in documents]


def explained(cluster: Cluster, answer: Answer, side: Side, query: Query) -> dict:
    """`explain -o json`'s report of the witness under the side (its warnings
    and denials in it), or the error explain prints for it."""
    one = answer.queries[1]
    if one.error is not None:
        return {"error": reasons.text(one.error)}
    notes = report.notes_json(cluster.warnings, report.denials(answer))
    document = (report.outcome_json(report.query_json(query, one), one.ended, side.profile.name, notes)
                if one.ended is not None else report.explain_json(query, one, side.profile.name, for_json=True, notes=notes))
    return json.loads(report.to_json(document))


def selected(cluster: Cluster, answer: Answer, side: Side, query: Query) -> dict:
    """What `select -o json` answers for the witness under the side, reduced
    as a conformance case records it (render/case_files.py), or its error."""
    selection = Selection(query, answer.queries[1], side.profile.name, report.notes_json(cluster.warnings, report.denials(answer)))
    if selection.error is not None:
        return {"error": selection.error}
    document = json.loads(report.to_json(selection.document()))
    return case_files.outcome_answer(document) if "outcome" in document else case_files.select_answer(document)


def verify(found: Found) -> None:
    """Write, read back, answer again under each side, and check the condition again."""
    q = found.question
    query = Query(**found.query)
    clusters = []
    for side in q.sides:  # "before" first: raise_winner reads its answer
        documents = side_documents(found, side)
        manifests = case_files.dump_manifests(documents)
        # Valid input for the side (I4), strictly: only a field its OME version
        # does not have is a warning (v1.2.2's and v0.1.5's spec.deploymentMode, D3).
        lacks = "deployment_mode" not in finder.reads(side.profile) and any(
            "deploymentMode" in d["spec"] for d in documents if d["kind"] == "InferenceService")
        cluster = load(["-"], stdin=io.BytesIO(manifests.encode()), strict=not lacks, profile=side.profile)
        clusters.append(cluster)
        found.manifests[side.name] = manifests
        with programs.using_encoding(side.encoding):
            [answer] = answer_again([(cluster, [query])], Variant.EXPLAIN)
            found.answers[side.name] = explained(cluster, answer, side, query)
            if found.bounds.isvc:
                [answer] = answer_again([(cluster, [query])], Variant.SELECT)
                found.selections[side.name] = selected(cluster, answer, side, query)
    if q.check is not None and not q.check(found):
        raise InternalError(f"find: the witness does not satisfy the condition when explained: {_summary(found)}")
    if q.where is not None:
        with programs.using_encoding(q.sides[0].encoding):
            # --where re-checked: the ordinary batch explain program on the facts
            # of the loaded witness, with the user's constraints, has its answer set
            holds = ask.satisfiable(clusters[0], [query], finder.world_variant(found.bounds, explain=True), q.where)
        if not holds:
            raise InternalError(f"find: the witness does not satisfy {q.where} when explained: {_summary(found)}")


def _summary(found: Found) -> str:
    return "; ".join(f"{name}: {json.dumps(view(answer, 'selected'))}" for name, answer in found.answers.items())


def clusters(q: Question, bounds: finder.Bounds) -> int:
    """How many clusters the search ranges over (with add_disabled, with their added runtime)."""
    return space.clusters(bounds, {s.profile.model_rule for s in q.sides}, any(s.extra for s in q.sides))
