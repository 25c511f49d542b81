"""steer's search: the smallest edits that make a wanted runtime the selected one.

Python offers candidate edits from a fixed vocabulary, each with the exact
values it would write (the thresholds the rivals' scores set); the encoding
(encoding/steer.lp) re-evaluates the whole specification on the edited cluster
and picks the minimal edit sets by optimization. Every edit set found is then
applied to the manifests and checked by a fresh selection, never assumed
(analysis/edits.py's verify).

Vocabulary (docs/troubleshooting.md, D-65, D-66): set the priority of one of
the wanted runtime's entries; set one of its weights; set `autoSelect: true`
on an entry; set an entry's version to the model's (or remove it) or its
operator (V3-V9); widen its size range to the model's size, fix a bound's
unit typo, or drop the range; re-enable it; disable a rival; with --isvc, set
or remove one of the InferenceService's accelerator-class requests (A1) or
deployment-mode annotations (D3), or name the runtime in its spec.runtime
(X1: used whatever the ranking).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from ome_asp import records
from ome_asp.analysis.edits import (
    Checked,
    Claim,
    EditTerms,
    Found,
    aside,
    scope_and_score_first,
    search,
    select_again,
    verify,
)
from ome_asp.errors import UsageError
from ome_asp.input.documents import shown as shown_name
from ome_asp.input.objects import (
    CLUSTER_SERVING_RUNTIME,
    INFERENCE_SERVICE,
    SERVING_RUNTIME,
    Cluster,
    Entry,
    InferenceService,
    Model,
    Query,
    Runtime,
    RuntimeRef,
)
from ome_asp.input.sizes import is_size, parse_size
from ome_asp.render import reasons, report
from ome_asp.render.selection import Selection
from ome_asp.solver import ask, gosort, programs
from ome_asp.solver.answer import Criterion, QueryAnswer, Verdict
from ome_asp.solver.facts import (
    INPUT_SCHEMA,
    EntryTables,
    FactBuilder,
    Term,
    add_version,
    build_facts,
    const,
    runtime_id,
    term,
)
from ome_asp.solver.programs import Variant

# The predicates an edit can change; their facts arrive as base_* (steer.lp).
EDITABLE = frozenset({
    "entry", "entry_priority", "entry_auto_select", "runtime_disabled",
    "runtime_size_range", "runtime_size_bound", "runtime_range_width",
    "isvc_accelerator_request", "isvc_mode_annotation", "runtime_accelerator_class", "runtime_mode",
})
# The edit kinds, as encoding/steer.lp names them (its kind_rank/2 orders them
# for minimality); this order is only how an edit set is listed.
KINDS = ("priority", "weight", "auto_select", "operator", "version", "size_range", "runtime_classes", "runtime_mode",
         "accelerator_class", "deployment_mode", "disable", "enable", "runtime_name")
# What each kind changes, for "only ... helps" (issue 16: say which kind would).
KIND_TEXT = {
    "priority": "an entry's priority", "weight": "an entry's weight", "auto_select": "an entry's autoSelect",
    "operator": "an entry's version operator", "version": "an entry's version", "size_range": "the size range",
    "runtime_classes": "the runtime's acceleratorClasses", "runtime_mode": "the runtime's deployment-mode annotation",
    "accelerator_class": "the InferenceService's accelerator class",
    "deployment_mode": "the InferenceService's deployment-mode annotation",
    "disable": "disabling a rival", "enable": "re-enabling the runtime",
    "runtime_name": "naming the runtime in the InferenceService's spec.runtime.name",
}
# V4: the operators with a meaning of their own, the values an operator edit writes.
OPERATORS = ("Equal", "GreaterThan", "GreaterThanOrEqual")
# The InferenceService fields steer may set or remove (A1, D3): (kind, the
# source or component as accelerators.lp/deployment.lp name it, the loaded
# attribute, the keys of its YAML path, which a merge patch writes).
ISVC_FIELDS = (
    ("accelerator_class", "annotation", "accelerator_annotation", ("metadata", "annotations", "ome.io/accelerator-class")),
    ("accelerator_class", "selector", "selector_class", ("spec", "acceleratorSelector", "acceleratorClass")),
    ("accelerator_class", "engine", "engine_class", ("spec", "engine", "acceleratorOverride", "acceleratorClass")),
    ("accelerator_class", "decoder", "decoder_class", ("spec", "decoder", "acceleratorOverride", "acceleratorClass")),
    ("deployment_mode", "engine", "engine_mode", ("spec", "engine", "annotations", "ome.io/deploymentMode")),
    ("deployment_mode", "decoder", "decoder_mode", ("spec", "decoder", "annotations", "ome.io/deploymentMode")),
)
# The runtime's own fields steer may set (issue 24: W3, A2, D2), as ISVC_FIELDS.
RUNTIME_FIELDS = (
    ("runtime_classes", None, "accelerator_classes", ("spec", "acceleratorRequirements", "acceleratorClasses")),
    ("runtime_mode", "engine", "engine_mode", ("spec", "engineConfig", "annotations", "ome.io/deploymentMode")),
    ("runtime_mode", "decoder", "decoder_mode", ("spec", "decoderConfig", "annotations", "ome.io/deploymentMode")),
)
INT32_MAX, INT64_MIN, INT64_MAX = 2**31 - 1, -(2**63), 2**63 - 1
# What steer.lp's quirk_edit/1 counts, worded for the headers (S3).
QUIRKS = "a weight of 0, which reads as 10 or 5, S3; a priority or weight of an entry without a side"


@dataclass(frozen=True)
class Edit:
    """One change to one object's manifest (a runtime's, or the InferenceService's)."""

    kind: str  # one of KINDS
    runtime: RuntimeRef  # the object it changes (kind InferenceService for the InferenceService's kinds)
    path: str  # the YAML path it sets or removes, e.g. spec.supportedModelFormats[0].priority
    old: object  # the value before (None: absent)
    new: object  # the value after (None: removed)
    entry: int | None = None
    side: str | None = None  # format | framework, for a weight, a version or an operator
    bound: str | None = None  # min | max, for a widened range
    field: str | None = None  # the InferenceService's attribute, for accelerator_class and deployment_mode
    keys: tuple = ()  # the YAML path as keys, for the InferenceService's fields (a merge patch writes them)

    def describe(self) -> str:
        # an empty string is a value (spec 0.2: "set"), quoted so it does not read as nothing
        shown = lambda v: ("absent" if v is None else "true" if v is True else "false" if v is False else '""' if v == ""  # noqa: E731
                           else "[" + ", ".join(v) + "]" if isinstance(v, (list, tuple)) else str(v))
        if self.kind == "runtime_name":
            change = f"spec.runtime.name: {shown(self.old['name'])} → {self.new['name']}"
            if self.old["kind"] != self.new["kind"]:
                change += f", spec.runtime.kind: {shown(self.old['kind'])} → {self.new['kind']}"
            return f"{object_text(self.runtime)}: {change}"
        if self.kind in ("disable", "enable"):
            return f"{self.runtime}: spec.disabled: {shown(self.old)} → {shown(self.new)}"
        if self.new is None:
            return f"{object_text(self.runtime)}: remove {self.path}" + (f" (was {shown(self.old)})" if isinstance(self.old, (str, list)) else "")
        return f"{object_text(self.runtime)}: {self.path}: {shown(self.old)} → {shown(self.new)}"

    @property
    def merge(self) -> bool:
        """Written as a JSON merge patch (RFC 7386): the InferenceService's
        maps it goes into (metadata.annotations, spec.acceleratorSelector, ...)
        may be absent, which a JSON patch `add` cannot create."""
        return bool(self.keys)

    def json_patch(self) -> dict:
        """The RFC 6902 operation (as `kubectl patch --type=json` takes it)."""
        pointer = "/" + self.path.replace("[", ".").replace("]", "").replace(".", "/")
        if self.new is None:
            return {"op": "remove", "path": pointer}
        # "add" sets a member whether or not the manifest wrote it (a weight
        # may be absent and defaulted, I3).
        return {"op": "add", "path": pointer, "value": self.new}

    def merge_patch(self) -> dict:
        """The RFC 7386 document (as `kubectl patch --type=merge` takes it); null removes."""
        document = self.new
        for key in reversed(self.keys):
            document = {key: document}
        return document

    def apply(self, obj):
        """The object (a Runtime, or the InferenceService for its kinds) with the edit made."""
        if self.kind == "runtime_name":
            return records.replace(obj, runtime_name=self.new["name"], runtime_kind=self.new["kind"])
        if self.field is not None:  # a list is stored as the loader's tuple
            return records.replace(obj, **{self.field: tuple(self.new) if isinstance(self.new, list) else self.new})
        if self.kind in ("disable", "enable"):
            return records.replace(obj, disabled=self.new)
        if self.kind == "size_range":
            if self.new is None:
                return records.replace(obj, size_range=None)
            return records.replace(obj, size_range=records.replace(obj.size_range, **{self.bound: self.new}))
        entries = list(obj.entries)
        entries[self.entry] = self.apply_to_entry(entries[self.entry])
        return records.replace(obj, entries=tuple(entries))

    def apply_to_entry(self, entry: Entry) -> Entry:
        """The entry with the edit made (the kinds that change one entry)."""
        if self.kind == "priority":
            return records.replace(entry, priority=self.new)
        if self.kind == "auto_select":
            return records.replace(entry, auto_select=True)
        side = "model_format" if self.side == "format" else "model_framework"
        ref = getattr(entry, side)
        if self.kind == "weight":
            ref = records.replace(ref, weight=self.new)
        elif self.kind == "version":
            ref = records.replace(ref, version=self.new)
        else:  # operator
            ref = records.replace(ref, operator=self.new, operator_written=True)
        return records.replace(entry, **{side: ref})


def object_text(ref: RuntimeRef) -> str:
    """A runtime as RuntimeRef prints it; an InferenceService as `InferenceService ns/name`."""
    if ref.kind == INFERENCE_SERVICE:
        return f"{INFERENCE_SERVICE} {shown_name(ref.namespace)}/{shown_name(ref.name)}"
    return str(ref)


def apply_edits(cluster: Cluster, edits: list[Edit]) -> Cluster:
    """The cluster with the edits made to its runtimes and InferenceServices."""
    by_ref: dict[RuntimeRef, list[Edit]] = {}
    for e in edits:
        by_ref.setdefault(e.runtime, []).append(e)

    def edited(obj, ref: RuntimeRef):
        for e in by_ref.get(ref, ()):
            obj = e.apply(obj)
        return obj

    return records.replace(
        cluster,
        runtimes=[edited(rt, RuntimeRef(rt.kind, rt.namespace, rt.name)) for rt in cluster.runtimes],
        inference_services=[edited(i, RuntimeRef(INFERENCE_SERVICE, i.namespace, i.name)) for i in cluster.inference_services])


@dataclass
class EditSet:
    edits: list[Edit]
    answer: QueryAnswer  # selection re-run on the edited manifests
    left: list[str] = field(default_factory=list)  # select's warnings, advisories, denial and events after it (issue 24)


@dataclass
class Alternative:
    """A way steer always lists besides its edit sets (issue 24): disable the
    runtimes ranked before the wanted one, or pin it in spec.runtime.name;
    with what it costs."""

    kind: str  # disable | pin
    edits: list[Edit]
    works: bool  # OME uses the wanted runtime after it, and select reports nothing left
    leaves: list[str]  # what it leaves: select's warnings and advisories (X6), the other models that move


@dataclass
class SteerResult:
    want: RuntimeRef
    query: Query
    blockers: list[RuntimeRef]  # ServingRuntimes that come before the wanted ClusterServingRuntime whatever its score
    edit_sets: list[EditSet]
    before: QueryAnswer
    impossible: list[str]  # why no edit set exists (reason texts), when none does
    candidates: list[Edit]  # every edit considered (the vocabulary applied to this cluster)
    denied: list  # report.denials: runtimes admission would deny (warned on stderr, `denied` in the report)
    named: RuntimeRef | None = None  # the runtime the InferenceService names (spec.runtime.name): no ranking decides
    optimum: list[Criterion] = field(default_factory=list)  # steer.lp's, where the edit sets are its optima (--show opt)
    denial: str | None = None  # the webhook's message for the wanted runtime before the edits (I9, W3, W4)
    robust: bool = False  # edit_sets are robust: no name tie-break win, quirk edits last (--robust, issue 24)
    other_sets: list[EditSet] = field(default_factory=list)  # the other search's cheapest (robust, or overall)
    alternatives: list[Alternative] = field(default_factory=list)
    quirks: int = 0  # the quirk edits of each robust set that leads: none exists without (issue 36)
    rejected: int = 0  # candidate sets Go's order rejected before these (code-v0.1.5; issue 36)
    proven: bool = True  # False: no set found, and the search stopped after MAX_REJECTED rejections
    go_order: bool = False  # the profile's order is Go's sort (code-v0.1.5, docs/profiles.md 3.3)
    no_robust: str | None = None  # why the cheapest overall leads by default: no robust set without a quirk (issue 36)

    @property
    def pinned(self) -> bool:
        """The InferenceService names the runtime, before or after the edits: select's outcome decides (X1)."""
        return self.named is not None or any(e.kind == "runtime_name" for s in self.edit_sets for e in s.edits)


class Ended(Exception):
    """The query ends with an outcome without a table (docs/profiles.md section 0):
    there is no order to steer; the command reports it as explain does (exit 4)."""

    def __init__(self, answer: QueryAnswer, denied: list) -> None:
        super().__init__("outcome {}: {}".format(*answer.ended))
        self.answer, self.denied = answer, denied


OWN = ("all", "runtime", "isvc")  # --own: which objects steer may change


def steer(cluster: Cluster, query: Query, want: RuntimeRef, own: str = "all", robust: bool | None = None) -> SteerResult:
    """The smallest edit sets making `want` the one selected; `own` says which
    objects may change: the wanted runtime only, the InferenceService only
    (its accelerator classes and deployment-mode annotations, else its
    spec.runtime), or any (the runtime, rivals, the InferenceService's fields).
    `robust` (--robust): the sets must not win on the name tie-break and use
    quirk edits last (steer.lp); None: robust where a robust set without
    quirk edits exists, else the cheapest overall; False: cheapest overall."""
    isvc = next((i for i in cluster.inference_services
                 if query.isvc is not None and (i.namespace, i.name) == (query.namespace, query.isvc)), None)
    # An edit of the InferenceService's requests can let in runtimes that fail
    # only on them, so a priority or weight must beat their scores too (issue
    # 36): its model asked alone requests no class and no mode (A6, D7), and
    # those rank there; asked with the query, in one grounding.
    unrequested = [Query(query.namespace, model=isvc.model_name)] if isvc is not None and isvc.model_name is not None else []
    run = ask.ask(cluster, [query, *unrequested], Variant.EXPLAIN)
    result = run.answer
    before, denied = result.queries[1], report.denials(result)
    if before.error is not None:
        raise reasons.query_error(before.error, cluster, query.namespace)
    if before.ended is not None:  # docs/profiles.md section 0: there is no order to steer
        raise Ended(before, denied)
    # I9: only a denied runtime is no candidate; the search looks for edits that
    # admit it too (issue 24: W3, W4; steer.lp evaluates admission on the edits)
    denial = dict(denied).get(want)
    if own == "isvc" and isvc is None:
        raise UsageError("--own isvc needs --isvc: the edits are the InferenceService's")
    if isvc is not None and isvc.runtime_name and own != "runtime":
        return _steer_named(cluster, query, want, isvc, before, denied)
    if isvc is not None and isvc.runtime_name:  # --own runtime: no edit of the runtime changes a named choice
        named = _named(isvc)
        return SteerResult(want, query, [], [], before, [
            f"only changing the InferenceService helps (--own isvc or all): it names {named} in spec.runtime.name, "
            "which OME uses whatever the ranking (X1)"], [], denied, named)
    # O1: qualifying ServingRuntimes come before a ClusterServingRuntime whatever
    # its score; only disabling them (an edit of the vocabulary) lets it win, so
    # the goal is always the first place, never "first ClusterServingRuntime"
    # (issue 16: steer said success where the ranking after still had another first).
    blockers = [] if want.namespaced else [r for r in before.ranking if r.namespaced]
    runtime = next(r for r in cluster.runtimes if RuntimeRef(r.kind, r.namespace, r.name) == want)
    let_in = set() if not unrequested or result.queries[2].error is not None else {
        result.queries[2].verdicts[r].score for r in result.queries[2].ranking if r != want}
    # W5 (code-v0.1.5): the runtime whose entry's priority the wanted one's repeats denies it
    clash = result.denied.get(want)
    clashing = run.facts.runtimes[str(clash.arguments[0])] if clash is not None and clash.match("same_priority", 2) else None
    asked = _Asked(cluster, query, runtime, before, isvc, let_in, clashing)
    searched = {mode: _search(asked, own, mode) for mode in (True, False)
                if robust is not False or not mode}
    nothing = (Found([], []), [])
    robust_sets = searched.get(True, nothing)[0].sets
    overall = searched.get(False, nothing)[0].sets
    already = bool(overall) and not overall[0]  # it wins as written: that leads, the robust set follows
    quirks = _quirks(searched[True][0].optimum) if robust_sets else 0
    leads = robust is True or (robust is None and bool(robust_sets) and quirks == 0 and not already)
    lead, candidates = searched[leads]
    found, optimum = lead.sets, lead.optimum
    # said plainly where the default leads with the cheapest overall for want of a robust set (issue 36)
    allowed = "" if own == "all" else f" of the edits --own {own} allows"
    no_robust = (None if leads or robust is not None or already or not overall else
                 f"every robust set{allowed} relies on a quirk edit ({QUIRKS})" if robust_sets else
                 f"every set{allowed} that makes {want.name} win wins on the name tie-break alone (O4)")
    others = searched.get(not leads, nothing)[0].sets[:1]  # the other search's cheapest, where it differs
    others = [s for s in others if not found or {e.describe() for e in s} != {e.describe() for e in found[0]}]
    elsewhere = _Elsewhere.of(cluster, query)
    verified, disabled = _verified(asked, found + others, elsewhere, [_disabling(_ahead(asked))] if _ahead(asked) else [])
    edit_sets, other_sets = verified[:len(found)], verified[len(found):]
    alternatives = _alternatives(asked, elsewhere, disabled)
    if edit_sets:
        return SteerResult(want, query, blockers, edit_sets, before, [], candidates, denied, optimum=optimum, denial=denial,
                           robust=leads, other_sets=other_sets, alternatives=alternatives,
                           quirks=quirks if leads else 0, no_robust=no_robust, rejected=lead.rejected,
                           go_order=cluster.profile.go_sort)
    unnamed = []  # why naming the runtime does not make OME use it either
    if own == "isvc":  # D-66: the InferenceService's fields cannot steer the ranking: name the runtime (X1)
        named = _steer_named(cluster, query, want, isvc, before, denied)
        if named.edit_sets:
            return named
        unnamed = named.impossible
    helps = _what_helps(asked, own, leads)
    if other_sets:  # --robust asked for, none exists (D-124): the cheapest overall is shown apart, exit 1
        why = ["every set that makes it win wins on the name tie-break alone (O4); the cheapest overall is shown apart (--no-robust)"]
    elif denial is not None:
        why = [f"the admission webhook denies it ({denial}) and no edit set admits it and makes it win"]
    else:
        why = _why_impossible(before.verdicts[want])
    if not lead.proven:  # no set found, none proven absent either
        why = [f"{cluster.profile.name}'s order (Go's sort, profiles.md 3.3) rejected the {lead.rejected} candidate "
               f"set{'s' * (lead.rejected > 1)} the search proposed, and it stopped there: a larger set may still make it win"]
    impossible = helps + unnamed + ([] if helps else why)
    return SteerResult(want, query, blockers, [], before, impossible, candidates, denied, denial=denial, robust=leads,
                       other_sets=other_sets, alternatives=alternatives, rejected=lead.rejected, proven=lead.proven,
                       go_order=cluster.profile.go_sort)


def _quirks(optimum: list[Criterion]) -> int:
    """The quirk edits of a robust search's optimum (steer.lp's fewest_quirk_edits)."""
    return next(c.value for c in optimum if c.name == "fewest_quirk_edits")


@dataclass
class _Asked:
    """What steer's searches are asked about: the cluster, the query, the
    wanted runtime, the answer before the edits, the InferenceService of an
    --isvc query, and the scores of the runtimes an edit of its requests
    can let in."""

    cluster: Cluster
    query: Query
    runtime: Runtime
    before: QueryAnswer
    isvc: InferenceService | None
    let_in: set[int]
    clashing: RuntimeRef | None = None  # W5 (code-v0.1.5): the runtime whose priority denies the wanted one

    @property
    def want(self) -> RuntimeRef:
        return RuntimeRef(self.runtime.kind, self.runtime.namespace, self.runtime.name)


def _search(asked: _Asked, own: str, robust: bool = False) -> tuple[Found[Edit], list[Edit]]:
    """The optimal edit sets of steer.lp over the edits `own` allows (robust
    ones: steer_robust), with their optimum by name, and every candidate
    edit. Under Go's order (code-v0.1.5) the overall search's goal is scope
    and score only (edits.lp's order_by_score) and each optimum is selected
    again before it counts: first in Go's order, and for a robust set first
    whatever the names and creation times (gosort.wins_without_names); a set
    that is not is excluded and the search goes on (edits.search)."""
    candidates = _Candidates(asked, own, robust)
    facts = build_facts(asked.cluster, [asked.query], renamed=EDITABLE, extend=candidates.add_facts,
                        schema=INPUT_SCHEMA + programs.STEER)
    holds = None
    if asked.cluster.profile.go_sort:
        def holds(sets: list[list[Edit]]) -> list[bool]:
            claims = [Claim(chosen, apply_edits(asked.cluster, chosen), [asked.query], _wins(asked.want, robust),
                            lambda k, answer: scope_and_score_first(answer, asked.want)) for chosen in sets]
            return [checked.wrong is None for checked in verify("steer", claims, Variant.SELECT)]
    return search(facts, Variant.STEER, candidates.terms, holds), candidates.terms.edits


def _wins(want: RuntimeRef, robust: bool = False):
    """What is wrong with an answer to the steered query, if anything: it
    must end with no outcome, the wanted runtime the first of the order and
    the one OME uses (a --model query uses none); `robust`, under Go's
    order, first whatever the names and creation times."""
    def wrong(k: int, answer: QueryAnswer) -> str | None:
        if k == 0 and answer.ended is not None:  # no order: explain prints no table (docs/profiles.md section 0)
            return f"ends the query with outcome {answer.ended[0]}"
        first = bool(answer.ranking) and answer.ranking[0] == want
        if k > 0 or (first and answer.outcome.used in (None, want)
                     and not (robust and not gosort.wins_without_names(answer, want))):
            return None
        return f"does not make {want} win" + (" on score or distance" if first and robust else "")

    return wrong


def _what_helps(asked: _Asked, own: str, robust: bool) -> list[str]:
    """Where no edit `own` allows helps, which kind would (issue 16): the edits
    of a set over every object (robust ones where the sets must be), or
    naming the runtime in the InferenceService's spec.runtime (X1); [] when
    neither does."""
    cluster, query, before, isvc, want = asked.cluster, asked.query, asked.before, asked.isvc, asked.want
    if own != "all":
        helping = _search(asked, "all", robust)[0].sets
        if helping:
            edits = sorted(helping[0], key=lambda e: (KINDS.index(e.kind), e.path))
            owners = ["runtime" if e.runtime == want else "isvc" if e.runtime.kind == INFERENCE_SERVICE else "all"
                      for e in edits]
            outside = [e for e, owner in zip(edits, owners) if owner != own]  # the edits `own` does not allow
            inside = [e for e, owner in zip(edits, owners) if owner == own]
            objects = set(owners)
            allowed = f"--own {objects.pop()} or all" if len(objects) == 1 and objects != {"all"} else "--own all"
            kinds = [KIND_TEXT[k] for k in dict.fromkeys(e.kind for e in outside)]
            return [f"only {' and '.join(kinds)} {'helps' if len(kinds) == 1 else 'help'} ({allowed}): " + "; ".join(e.describe() for e in outside)
                    + ("" if not inside else ", with " + "; ".join(e.describe() for e in inside))]
    if isvc is not None and own != "isvc":
        named = _steer_named(cluster, query, want, isvc, before, [])
        if named.edit_sets:
            return [f"only {KIND_TEXT['runtime_name']} helps (--own isvc): OME then uses it whatever the ranking (X1): "
                    + "; ".join(e.describe() for e in named.edit_sets[0].edits)]
    return []


def _named(isvc) -> RuntimeRef:
    """The runtime an InferenceService's spec.runtime names (X1: kind defaults to ClusterServingRuntime, I3)."""
    kind = isvc.runtime_kind or CLUSTER_SERVING_RUNTIME
    return RuntimeRef(kind, isvc.namespace if kind == SERVING_RUNTIME else None, isvc.runtime_name)


def _steer_named(cluster: Cluster, query: Query, want: RuntimeRef, isvc, before: QueryAnswer, denied: list) -> SteerResult:
    """An InferenceService that names a runtime uses that one (X1), whatever the
    ranking (issue 16: steer --isvc ranked as if it did not): the edit is the name."""
    named = _named(isvc) if isvc.runtime_name else None
    edits = []
    if named != want:
        # the whole spec.runtime in one JSON patch operation, autoSync kept
        sync = {} if isvc.runtime_auto_sync is None else {"autoSync": isvc.runtime_auto_sync}
        edits = [Edit("runtime_name", RuntimeRef(INFERENCE_SERVICE, isvc.namespace, isvc.name), "spec.runtime",
                      {"name": isvc.runtime_name, "kind": isvc.runtime_kind}, {"name": want.name, "kind": want.kind, **sync})]
    answer = select_again([(apply_edits(cluster, edits), [query])], Variant.SELECT)[0][0]
    left = _left(query, answer)
    if answer.outcome.used == want and not left:
        return SteerResult(want, query, [], [EditSet(edits, answer)], before, [], edits, denied, named)
    if answer.outcome.used == want:  # X6: used, but what the InferenceService asks for is unmet (issue 24)
        return SteerResult(want, query, [], [], before, [
            f"with spec.runtime.name naming {want.name} OME uses it, but the request stays unmet: {'; '.join(left)}"], edits, denied, named)
    why = Selection(query, answer).message or "OME uses no runtime"
    return SteerResult(want, query, [], [], before, [f"with spec.runtime.name naming {want.name}: {why}"], edits, denied, named)


class _Candidates:
    """The candidate edits `own` allows: for each, the facts that describe it."""

    def __init__(self, asked: _Asked, own: str, robust: bool = False) -> None:
        runtime, before, isvc = asked.runtime, asked.before, asked.isvc
        self.runtime = runtime
        self.robust = robust
        self.want = RuntimeRef(runtime.kind, runtime.namespace, runtime.name)
        self.before = before
        self.own_runtime = own in ("all", "runtime")
        # W5 (code-v0.1.5): disabling the runtime whose priority denies the wanted one admits it
        self.rivals = [r for r in dict.fromkeys([*before.ranking, *filter(None, [asked.clashing])])
                       if r != self.want] if own == "all" else []
        self.isvc = isvc if own in ("all", "isvc") else None
        self.asking = isvc  # what the InferenceService asks for, whoever may change it
        # the scores a priority or weight must beat or tie: the rivals' as
        # written, and those an edit of the InferenceService lets in (issue
        # 36; values of every --own alike, so each finds what another would)
        self.targets = sorted({before.verdicts[r].score for r in before.ranking if r != self.want} | asked.let_in | {0})
        self.known_classes = {c.name for c in asked.cluster.accelerator_classes}
        self.go_sort = asked.cluster.profile.go_sort
        self.clashing = asked.clashing
        self.model = _model(asked.cluster, before)
        self.model_size = None if self.model is None or self.model.size is None else (self.model.size, parse_size(self.model.size))
        self.terms: EditTerms[Edit] = EditTerms()

    def add_facts(self, builder: FactBuilder, entries: EntryTables) -> None:
        fact = builder.fact
        t = runtime_id(self.runtime.kind, self.runtime.namespace, self.runtime.name)
        fact.wanted(t)
        if self.robust:
            fact.steer_robust()
        elif self.go_sort:  # a robust set wins on score or distance: #minimize's order rules out no such set
            fact.order_by_score()
        if self.own_runtime:
            self._runtime_edits(builder, entries, t)
        for rival in self.rivals:
            rival_rt = runtime_id(rival.kind, rival.namespace, rival.name)
            edit = Edit("disable", rival, "spec.disabled", None, True)
            fact.edit_disable(self._edit(builder, edit, term("disable", rival_rt), term("disable", rival_rt)), rival_rt)
        if self.isvc is not None:
            self._isvc_edits(builder)

    def _runtime_edits(self, builder: FactBuilder, entries: EntryTables, t: Term) -> None:
        fact, targets = builder.fact, self.targets
        # W4: setting one entry's priority to another's resolves a conflict;
        # W5: one next to its own, a clash with another runtime's
        priorities = {e.priority for e in self.runtime.entries if e.priority is not None}
        if self.clashing is not None:
            priorities |= {p + step for p in priorities for step in (-1, 1) if 1 <= p + step <= INT32_MAX}
        for entry in self.runtime.entries:
            a = _reading(entry.model_format, 10) + _reading(entry.model_framework, 5)
            priorities |= {p for s in targets for p in _thresholds(s, a) if 1 <= p <= INT32_MAX}
        for i, entry in enumerate(self.runtime.entries):
            for p in sorted(priorities - {entry.priority or 1}):
                edit = Edit("priority", self.want, f"spec.supportedModelFormats[{i}].priority", entry.priority, p, entry=i)
                edit_term = self._edit(builder, edit, term("priority", i, p), term("number", i), abs(p - (entry.priority or 1)))
                fact.edit_priority(edit_term, i, p)
                fact.edit_weights(edit_term, i, entries.weights(edit.apply_to_entry(entry)))
            p = entry.priority or 1
            for side, ref, other, default in (("format", entry.model_format, entry.model_framework, (10, 5)),
                                              ("framework", entry.model_framework, entry.model_format, (5, 10))):
                if ref is None:  # code-v0.1.5 (I4 unchecked): a weight of a side the entry lacks has no path
                    continue
                other_read = _reading(other, default[1])
                values = {w for s in targets for w in _weight_thresholds(s, p, other_read) if INT64_MIN <= w <= INT64_MAX}
                for w in sorted(values - {ref.weight}):
                    path = f"spec.supportedModelFormats[{i}].{'modelFormat' if side == 'format' else 'modelFramework'}.weight"
                    edit = Edit("weight", self.want, path, ref.weight, w, entry=i, side=side)
                    edit_term = self._edit(builder, edit, term("weight", i, const(side), _int_arg(w)), term("number", i), abs(w - ref.weight))
                    fact.edit_side(edit_term, const(side))
                    fact.edit_weights(edit_term, i, entries.weights(edit.apply_to_entry(entry)))
            if entry.auto_select is not True:
                edit = Edit("auto_select", self.want, f"spec.supportedModelFormats[{i}].autoSelect", entry.auto_select, True, entry=i)
                fact.edit_auto_select(self._edit(builder, edit, term("auto_select", i), term("auto_select", i)), i)
            self._signature_edits(builder, entries, i, entry)
        self._range_edits(builder)
        self._runtime_field_edits(builder)
        if self.runtime.disabled:  # Q2: re-enabling is an edit of the wanted runtime's own manifest
            edit = Edit("enable", self.want, "spec.disabled", True, False)
            fact.edit_enable(self._edit(builder, edit, const("enable"), const("enable")), t)

    def _signature_edits(self, builder: FactBuilder, entries: EntryTables, i: int, entry: Entry) -> None:
        """Versions and operators of entry i (V3-V9, issue 16): set a side's
        version to the model's (or remove it where the model has none), set its
        operator to one of V4's named ones; each a field of its own (one line),
        and a signature for every combination of them, built as any entry's
        (EntryTables.signature): the V rules decide which one matches."""
        fact, model = builder.fact, self.model
        fields = []  # per field (a side's version or operator): its candidate edits
        for side, attr, key in (("format", "model_format", "modelFormat"), ("framework", "model_framework", "modelFramework")):
            ref, model_ref = getattr(entry, attr), None if model is None else getattr(model, attr)
            if ref is None or model_ref is None or model_ref.name != ref.name:
                continue  # versions are compared only when the names are equal (Q13, Q14): no version edit helps
            path = f"spec.supportedModelFormats[{i}].{key}"
            if model_ref.version != ref.version:
                edit = Edit("version", self.want, f"{path}.version", ref.version, model_ref.version, entry=i, side=side)
                fields.append([(edit, self._edit(builder, edit, term("version", i, const(side)), term("version", i, const(side))))])
            if model_ref.version is not None:  # an operator compares only where both sides have a version (V3)
                old = ref.operator if ref.operator_written else None
                operators = []
                for op in OPERATORS:
                    if op != ref.operator:
                        edit = Edit("operator", self.want, f"{path}.operator", old, op, entry=i, side=side)
                        operators.append((edit, self._edit(builder, edit, term("operator", i, const(side), op),
                                                           term("operator", i, const(side)))))
                fields.append(operators)
        for _, edit_term in itertools.chain.from_iterable(fields):
            fact.edit_signature_field(edit_term, i)
        options = itertools.product(*([None, *candidates] for candidates in fields))
        for number, option in enumerate((o for o in options if any(o)), 1):
            edited = entry
            for edit, edit_term in filter(None, option):
                edited = edit.apply_to_entry(edited)
                fact.sig_option_edit(i, number, edit_term)
                if edit.kind == "version" and edit.new is not None:
                    add_version(builder, edit.new)  # V1: parsed as every version is
            fact.sig_option(i, number, entries.signature(edited))

    def _isvc_edits(self, builder: FactBuilder) -> None:
        """The InferenceService's accelerator-class requests (A1) and
        deployment-mode annotations (D3, issue 16): set one to the wanted
        runtime's value (a class it lists, the mode it declares), or remove it.
        Only fields that exist are edited; an annotation only on a component
        the InferenceService has (creating spec.engine or spec.decoder would
        change what other rules read, O9, D3)."""
        fact, isvc = builder.fact, self.isvc
        i = term("isvc", isvc.namespace, isvc.name)
        ref = RuntimeRef(INFERENCE_SERVICE, isvc.namespace, isvc.name)
        for kind, where, attr, keys in ISVC_FIELDS:
            old = getattr(isvc, attr)
            if kind == "accelerator_class":
                field = term("accelerator", const(where))
                values = sorted(set(self.runtime.accelerator_classes or ()) - {old}) if old is not None else []
            else:
                if not (isvc.has_engine if where == "engine" else isvc.has_decoder):
                    continue
                field = term("mode", const(where))
                mode = self.runtime.engine_mode if where == "engine" else self.runtime.decoder_mode
                values = [mode] if mode is not None and mode != old else []
            path = ".".join(keys[:-1]) + (f'["{keys[-1]}"]' if "/" in keys[-1] else f".{keys[-1]}")
            for value in values + ([None] if old is not None else []):
                edit = Edit(kind, ref, path, old, value, field=attr, keys=keys)
                edit_term = self._edit(builder, edit, term("set", field, value) if value is not None else term("remove", field),
                                       field, 0 if value is not None else 1)
                fact.edit_isvc_field(edit_term, i, field)
                if value is not None:
                    (fact.edit_accelerator if kind == "accelerator_class" else fact.edit_mode)(edit_term, i, const(where), value)

    def _runtime_field_edits(self, builder: FactBuilder) -> None:
        """The wanted runtime's acceleratorClasses and deployment-mode
        annotations (issue 24): drop the classes W3 denies; add a class the
        InferenceService asks for (A2); set a mode annotation the runtime
        writes to the one it asks for (D4), or remove it. A written list or
        annotation only: creating acceleratorRequirements or an engineConfig
        would change what the webhook's other checks read."""
        fact, rt, isvc = builder.fact, self.runtime, self.asking
        for kind, component, attr, keys in RUNTIME_FIELDS:
            old = getattr(rt, attr)
            if old is None:
                continue
            path = ".".join(keys[:-1]) + (f'["{keys[-1]}"]' if "/" in keys[-1] else f".{keys[-1]}")
            if kind == "runtime_classes":
                known = [c for c in old if c in self.known_classes]
                asked = [] if isvc is None else [isvc.accelerator_annotation, isvc.selector_class, isvc.engine_class, isvc.decoder_class]
                values = ([known or None] if len(known) < len(old) else [])
                values += [[*known, c] for c in dict.fromkeys(a for a in asked if a is not None and a not in old)]
                for n, value in enumerate(values):
                    edit = Edit(kind, self.want, path, list(old), value, field=attr, keys=keys)
                    # adding a class changes what every InferenceService using the runtime gets:
                    # counted as an edit to other objects; dropping one W3 denies changes nothing else
                    edit_term = self._edit(builder, edit, term("classes", n), const("runtime_classes"),
                                           others=value is not None and len(value) > len(known))
                    fact.edit_runtime_classes(edit_term)
                    for position, name in enumerate(value or ()):
                        fact.edit_runtime_class(edit_term, position, name)
            else:
                asked = [] if isvc is None else [isvc.engine_mode if component == "engine" else isvc.decoder_mode, isvc.deployment_mode]
                for value in [*dict.fromkeys(a for a in asked if a is not None and a != old), None]:
                    edit = Edit(kind, self.want, path, old, value, field=attr, keys=keys)
                    edit_term = self._edit(builder, edit, term("runtime_mode", const(component), value if value is not None else const("none")),
                                           term("runtime_mode", const(component)), 0 if value is not None else 1, others=True)
                    fact.edit_runtime_mode(edit_term, const(component))
                    if value is not None:
                        fact.edit_runtime_mode_value(edit_term, const(component), value)

    def _range_edits(self, builder: FactBuilder) -> None:
        fact, exact = builder.fact, builder.exact
        size_range = self.runtime.size_range
        if size_range is None:
            return
        worst = 0  # dropping is the largest change a range edit can make
        typo = False  # a bound with a unit typo: moving or dropping it discards a range the fix keeps
        if self.model_size is not None:
            text, size = self.model_size
            fact.size_gap(exact(size), exact(size), exact(0))
            for bound, outside in (("min", lambda b: size < b), ("max", lambda b: size > b)):
                old = getattr(size_range, bound)
                if old is None or not outside(parse_size(old)):
                    continue
                fixable = self._unit_fix(builder, bound, old, size, outside)
                typo |= fixable
                edit = Edit("size_range", self.want, f"spec.modelSizeRange.{bound}", old, text, bound=bound)
                change = abs(parse_size(old) - size)
                worst = max(worst, change)
                edit_term = self._edit(builder, edit, term("widen", const(bound)), const("range"), change)
                if fixable:
                    fact.edit_discards_range(edit_term)
                fact.edit_bound(edit_term, const(bound), text, exact(size))
                other = size_range.max if bound == "min" else size_range.min
                if other is not None:
                    low, high = (size, parse_size(other)) if bound == "min" else (parse_size(other), size)
                    fact.edit_width(edit_term, exact(high - low))
        edit = Edit("size_range", self.want, "spec.modelSizeRange", {k: v for k, v in (("min", size_range.min), ("max", size_range.max)) if v is not None}, None)
        drop = self._edit(builder, edit, const("drop_range"), const("range"), worst + 1)
        fact.edit_drop_range(drop)
        if typo:
            fact.edit_discards_range(drop)

    def _unit_fix(self, builder: FactBuilder, bound: str, old: str, size, outside) -> bool:
        """A bound that reads as 0 (Z2) for a lower-case unit (`70b`) is a typo:
        fixing it keeps the range meaningful, so it is offered as the smallest
        change of its kind (0), ahead of moving the bound to the model's size."""
        fixed = old[:-1] + old[-1].upper()
        if is_size(old) or not is_size(fixed) or outside(parse_size(fixed)):
            return False
        fact, exact = builder.fact, builder.exact
        value = parse_size(fixed)
        edit = Edit("size_range", self.want, f"spec.modelSizeRange.{bound}", old, fixed, bound=bound)
        edit_term = self._edit(builder, edit, term("fix_unit", const(bound)), const("range"), 0)
        fact.edit_bound(edit_term, const(bound), fixed, exact(value))
        fact.size_gap(exact(size), exact(value), exact(abs(value - size)))
        other = self.runtime.size_range.max if bound == "min" else self.runtime.size_range.min
        if other is not None:
            low, high = (value, parse_size(other)) if bound == "min" else (parse_size(other), value)
            fact.edit_width(edit_term, exact(high - low))
        return True

    def _edit(self, builder: FactBuilder, edit: Edit, edit_term: Term, slot: Term, change=None, others: bool = False) -> Term:
        """Name `edit` in the program; `others`: it changes what other objects get, as an edit of them does."""
        fact = builder.fact
        self.terms.name(edit_term, edit)
        fact.edit(edit_term)
        fact.edit_kind(edit_term, const(edit.kind))
        fact.edit_slot(edit_term, slot)
        if edit.runtime != self.want or others:
            fact.edit_on_other(edit_term)
        if change is not None:
            fact.edit_change(edit_term, builder.exact(change))
        return edit_term


def _int_arg(value: int) -> int | str:
    """An int64 as a term argument clingo can read: the int when it fits 32 bits, else its decimal string."""
    return value if -(2**31) <= value <= INT32_MAX else str(value)


def _reading(side, zero_reads_as: int) -> int:
    """S3: a stored weight of 0 counts as 10 (format) or 5 (framework); a
    side the entry lacks (code-v0.1.5, I4 unchecked) as 0."""
    return 0 if side is None else zero_reads_as if side.weight == 0 else side.weight


def _thresholds(score: int, per_priority: int) -> set[int]:
    """Priorities P with per_priority x P just above, or equal to, `score`."""
    if per_priority <= 0:
        return set()
    above = {score // per_priority + 1}
    return above | ({score // per_priority} if score % per_priority == 0 else set())


def _weight_thresholds(score: int, priority: int, other: int) -> set[int]:
    """Weights w with (w + other) x priority just above, or equal to, `score`."""
    above = {score // priority - other + 1}
    return above | ({score // priority - other} if score % priority == 0 else set())


def _model(cluster: Cluster, before: QueryAnswer) -> Model | None:
    """The model the query is evaluated against."""
    model = before.model
    name = model.arguments[-1].string
    namespace = model.arguments[0].string if model.name == "bm" else None
    return next((m for m in cluster.models if m.name == name and m.namespace == namespace), None)


def _verified(asked: _Asked, found: list[list[Edit]], elsewhere: _Elsewhere,
              tried: list[list[Edit]]) -> tuple[list[EditSet], list[Checked]]:
    """Each edit set applied to the manifests and selected again, and the
    sets `tried` aside (the alternatives) with them: one verifier run for
    all, as explain ranks and as select uses (issue 24). Each must make the
    wanted runtime the first and the one OME uses, or steer reports no
    success (issue 16), and an alternative does not do it (issue 36: judged
    as the sets, so the two never disagree); what select still reports
    (warnings, advisories, a denial) is kept, and what it newly reports for
    the cluster's other InferenceServices (D-125)."""
    query, cluster = asked.query, asked.cluster
    claims = [Claim(edits, apply_edits(cluster, edits), [query, *elsewhere.queries], _wins(asked.want), refutes)
              for edits, refutes in [*((e, None) for e in found), *((e, aside) for e in tried)]]
    checked = verify("steer", claims, Variant.SELECT_DETAILS) if claims else []  # details: win_notes reads the scoring entries
    return ([EditSet(sorted(edits, key=lambda e: (KINDS.index(e.kind), e.path)), answer, _left(query, answer) + elsewhere.changes(rest))
             for edits, (answer, *rest) in zip(found, (c.answers for c in checked))], checked[len(found):])


@dataclass
class _Elsewhere:
    """The cluster's other InferenceServices and what select reports for each
    before the edits (the runtime it uses, its texts): an edit set's changes
    to them are part of what it leaves (issue 24, D-125): a rival disabled
    that one of them names (X4), a runtime's class or mode changed under one
    that names it (an X6 advisory), one that moves to the wanted runtime."""

    queries: list[Query]
    before: list[tuple[RuntimeRef | None, list[str]]]

    @classmethod
    def of(cls, cluster: Cluster, query: Query) -> _Elsewhere:
        queries = [Query(i.namespace, isvc=i.name) for i in cluster.inference_services
                   if (i.namespace, i.name) != (query.namespace, query.isvc)]
        answers = select_again([(cluster, queries)], Variant.SELECT)[0] if queries else []
        return cls(queries, [_reported(q, a) for q, a in zip(queries, answers)])

    def changes(self, answers: list[QueryAnswer]) -> list[str]:
        """What select reports after the edits that it did not before, per InferenceService."""
        lines = []
        for q, (used, texts), answer in zip(self.queries, self.before, answers):
            now, now_texts = _reported(q, answer)
            name = f"InferenceService {shown_name(q.namespace)}/{shown_name(q.isvc or '')}"
            if now != used:
                lines.append(f"{name} moves from {used or 'no runtime'} to {now or 'no runtime'}")
            lines += [f"{name} ({now or 'no runtime'}): {text}" for text in now_texts if text not in texts]
        return lines


def _reported(query: Query, answer: QueryAnswer) -> tuple[RuntimeRef | None, list[str]]:
    """The runtime select says OME uses, and what else it reports: why none,
    and _left's texts but the webhook's note of the runtime it auto-selects
    (a move says that)."""
    selection = Selection(query, answer)
    why = [] if selection.message in (None, selection.denial) else [selection.message]  # a denial says it once
    return answer.outcome.used, why + _left(query, answer, auto_selected=False)


def _left(query: Query, answer: QueryAnswer, auto_selected: bool = True) -> list[str]:
    """What select still reports after the edits: its warnings (an X6
    advisory among them), the webhook's (its note of the runtime it
    auto-selects unless not `auto_selected`), a denial, the Warning events."""
    selection = Selection(query, answer)
    texts = [selection.text(w) for w in (*answer.outcome.warnings, *answer.outcome.admission_warnings)
             if auto_selected or w.name != "auto_selected"]
    texts += [] if selection.denial is None else [f"the InferenceService is denied: {selection.denial}"]
    texts += [f"Warning event {reasons.event_reason(reason)}" for reason, _ in answer.outcome.events]
    return list(dict.fromkeys(texts))


def _ahead(asked: _Asked) -> list[RuntimeRef]:
    """The runtimes ranked before the wanted one (all ranked, where it is not)."""
    ranking = asked.before.ranking
    return ranking[:ranking.index(asked.want)] if asked.want in ranking else list(ranking)


def _alternatives(asked: _Asked, elsewhere: _Elsewhere, disabled: list[Checked]) -> list[Alternative]:
    """Disabling the runtimes ranked before the wanted one (`disabled`: that
    set verified with the edit sets, when there are such runtimes) and
    pinning it in the InferenceService's spec.runtime.name, with what each
    costs: what select still reports, the other models whose first runtime a
    disabled rival is (they move), the advisories a pin leaves (X6). Listed
    whatever --own allows."""
    cluster, query, want, isvc = asked.cluster, asked.query, asked.want, asked.isvc
    found = []
    for checked in disabled:
        ahead = _ahead(asked)
        answer, *rest = checked.answers
        found.append(Alternative("disable", _disabling(ahead), checked.wrong is None, _left(query, answer)
                                 + _moved(cluster, apply_edits(cluster, _disabling(ahead)), query, isvc, ahead)
                                 + elsewhere.changes(rest)))
    if isvc is not None and (isvc.runtime_name is None or _named(isvc) != want):
        pinned = _steer_named(cluster, query, want, isvc, asked.before, [])  # its impossible says what a pin leaves
        found.append(Alternative("pin", list(pinned.candidates), bool(pinned.edit_sets), pinned.impossible))
    return found


def _disabling(runtimes: list[RuntimeRef]) -> list[Edit]:
    return [Edit("disable", r, "spec.disabled", None, True) for r in runtimes]


def _moved(cluster: Cluster, edited: Cluster, query: Query, isvc: InferenceService | None,
           disabled: list[RuntimeRef]) -> list[str]:
    """The other models (ClusterBaseModels, and BaseModels of the query's
    namespace) whose first runtime is one of `disabled`: where each moves.
    The query's own model (the InferenceService's, with --isvc) is not
    among them: its move is the point of the steer."""
    own = query.model if isvc is None else isvc.model_name
    models = sorted({m.name for m in cluster.models if m.namespace in (None, query.namespace)} - {own})
    if not models:
        return []
    # Only each model's order is read (RANK: no row's reasons, a ninth of
    # EXPLAIN's ground atoms), and only the models that move are asked again.
    now = ask.ask(cluster, [Query(query.namespace, model=m) for m in models], Variant.RANK).answer.queries
    firsts = {model: now[n].ranking[0] for n, model in enumerate(models, 1) if now[n].ranking[:1] and now[n].ranking[0] in disabled}
    if not firsts:
        return []
    after = ask.ask(edited, [Query(query.namespace, model=m) for m in firsts], Variant.RANK).answer.queries
    return [f"model {model} moves from {first} to {after[n].ranking[0] if after[n].ranking else 'no runtime'}"
            for n, (model, first) in enumerate(firsts.items(), 1)]


def _why_impossible(verdict: Verdict) -> list[str]:
    """The failed checks no edit of the vocabulary can fix (Q2-Q5), with their reasons."""
    unfixable = {
        "q3": "steer changes the InferenceService's requested classes, not a runtime's acceleratorClasses",
        "q4": "steer changes the InferenceService's deployment-mode annotations, not a runtime's",
        "q5": "steer changes versions and operators, not formats, frameworks, architectures, quantizations or pipelines",
    }
    texts = [f"{reasons.check_id(c)}: {reasons.text(term, verdict.format_details)} ({unfixable[c]})"
             for c, term in verdict.failures.items() if c in unfixable]
    return texts or ["no edit of the vocabulary lets it outrank the runtimes ahead of it"]
