"""compare's analysis: which selections two snapshots (or two profiles)
answer differently, and the causes: the smallest sets of the field changes
between the snapshots that, applied alone to the earlier one, already give
the later selection (found by encoding/compare.lp over encoding/edits.lp,
each verified by selecting again: analysis/edits.py), or the smallest sets of
profile settings that alone give the second profile's answer (by
re-selection: the settings act before, inside and after the encoding)."""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Callable

from ome_asp import records
from ome_asp.analysis.edits import (
    MAX_SETS,
    Claim,
    EditTerms,
    Found,
    scope_and_score_first,
    search,
    select_again,
    verify,
)
from ome_asp.errors import InternalError, OmeAspError
from ome_asp.input import changes as diffing
from ome_asp.input import profiles
from ome_asp.input.changes import Change
from ome_asp.input.objects import Cluster, Query, RuntimeRef
from ome_asp.render.compare import Comparison, Item, first, state
from ome_asp.solver import programs
from ome_asp.solver.answer import QueryAnswer
from ome_asp.solver.facts import INPUT_SCHEMA, Facet, FactBuilder, Term, build_variant_facts, facts_differ, runtime_id
from ome_asp.solver.programs import Variant

# A facet's changes are tried in every combination (2^k fact variants); past
# this many, the part is one edit (docs/decisions.md).
MAX_FACET_EDITS = 6


def compared(clusters: tuple[Cluster, Cluster], queries: list[Query]) -> tuple[list[Item], list[tuple[Query, QueryAnswer]]]:
    """The queries whose answers differ, with both answers as explain gives
    them (rows, reasons), and the others. Which differ is read from the
    ranking program (no No rows, a fraction of explain's cost); only those
    are explained. Each snapshot is asked alone: as two worlds of one
    grounding they ground as much, and the encoding rewritten for worlds
    costs each process about 0.2 s a variant (issue 40, D-361)."""
    ranked = [select_again([(c, queries)], Variant.RANK)[0] for c in clusters]
    changed = [q for q, a, b in zip(queries, *ranked) if state(a) != state(b)]
    unchanged = [(q, b) for q, a, b in zip(queries, *ranked) if state(a) == state(b)]
    if not changed:
        return [], unchanged
    explained = [select_again([(c, changed)], Variant.EXPLAIN)[0] for c in clusters]
    return [Item(q, a, b) for q, a, b in zip(changed, *explained)], unchanged


def compare_snapshots(before: Cluster, after: Cluster, queries: list[Query], noun: str) -> Comparison:
    every = diffing.diff(before, after)
    old, new = diffing.objects(before), diffing.objects(after)
    read = [c for c in every if _is_read(before.profile, c, old, new)]
    ignored = [raw for raw in diffing.raw_changes(before, after)
               if not any(c.object == raw[0] and diffing.covers(c.path, raw[1]) for c in read)]
    items, unchanged = compared((before, after), queries)
    searched = []
    alike: dict[tuple | None, Found[Change]] = {}  # the search of a model like an earlier one
    touched = {c.object for c in read}
    for item in items:
        query, a, b = item.query, item.before, item.after
        if state(a)[0] != "selected" or state(b)[0] != "selected":
            item.note = "no cause searched: a snapshot answers this query with an error or an outcome, not a selection"
        else:
            key = _model_alike(before, after, item, touched)
            if key is None or key not in alike:
                alike[key] = minimal_causes(before, after, query, a, b, read)
            found = alike[key]
            item.causes, item.optimum, item.rejected, item.proven = found.sets, found.optimum, found.rejected, found.proven
            if not found.proven:
                item.note = (f"no cause found: Go's order (profiles.md 3.3) rejected the {found.rejected} candidate "
                             f"set{'s' * (found.rejected > 1)} the search proposed, and it stopped there (a cause may still "
                             "exist)")
            searched.append(item)
    _verified(before, searched)  # every set, also a shared one, selected again for each of its queries
    return Comparison(("before", "after"), items, unchanged, len(queries), noun, read, ignored, before.profile.name)


def _model_alike(before: Cluster, after: Cluster, item: Item, touched: set) -> tuple | None:
    """What makes two model queries' searches the same one: the models the
    query reads (M1) equal but for their names, unchanged, in one namespace,
    with the same answers on both sides. Nothing else a search reads names
    the model (runtimes never do), so the facts differ only in that name and
    the smallest sets are the same (a catalog's models of one architecture
    and size band: one search, not one per model; issue 25). None: an
    InferenceService, or a model some change touches: searched alone."""
    query = item.query
    if query.model is None:
        return None
    models = [m for c in (before, after) for m in c.models if m.name == query.model and m.namespace in (None, query.namespace)]
    if any(diffing.object_key(m) in touched for m in models):
        return None
    shape = tuple(sorted(repr(records.replace(m, name="", source=None)) for m in models))
    return (query.namespace, shape, state(item.before), state(item.after))


def _is_read(profile: profiles.Profile, change: Change, old: dict, new: dict) -> bool:
    """Whether selection reads the change: it changes the object's facts."""
    if not change.path:
        return True
    a = old[change.object]
    return facts_differ(profile, a, diffing.set_field(a, change.attrs, change.new))


# --- the cause: smallest sets of changes -----------------------------------------


def minimal_causes(before: Cluster, after: Cluster, query: Query, a: QueryAnswer, b: QueryAnswer,
                   read: list[Change]) -> Found[Change]:
    """Up to MAX_SETS smallest sets of `read` that, applied alone to `before`,
    make it select what `after` selects for `query` (each verified after),
    with their optimum by name. Under Go's order (code-v0.1.5) the search's
    goal is scope and score only (edits.lp's order_by_score) and each
    optimum is selected again before it counts; one that does not give the
    later selection is excluded and the search goes on (edits.search)."""
    goal = first(b)
    keys = _relevant(before, after, query, a, b, read)
    relevant = [c for c in read if c.object in keys]
    edits = _edits(relevant, before, after)
    scope = diffing.rebuild(before, [o for k, o in diffing.objects(before).items() if k in keys])
    facets, numbering = _facets(edits, scope)
    terms: EditTerms[Change] = EditTerms()
    for number, change in enumerate(edits):
        terms.name(Term(f"e({number})"), change)

    def extend(builder: FactBuilder, entries) -> None:
        fact = builder.fact
        if goal is None:
            fact.wanted_nothing()
        else:
            fact.wanted(runtime_id(*goal))
        if before.profile.go_sort:
            fact.order_by_score()
        for facet, members in numbering:
            fact.facet(facet.term)
            for bit, number in enumerate(members):
                fact.edit(Term(f"e({number})"))
                fact.edit_bit(Term(f"e({number})"), facet.term, 1 << bit)

    def wrong(k: int, answer: QueryAnswer) -> str | None:
        return None if state(answer) == state(b) else f"gives {first(answer)} for {query}, not {goal}"

    def holds(sets: list[list[Change]]) -> list[bool]:
        claims = [Claim(chosen, diffing.apply(before, chosen), [query], wrong,
                        None if goal is None else lambda k, answer: scope_and_score_first(answer, goal)) for chosen in sets]
        return [checked.wrong is None for checked in verify("compare", claims, Variant.RANK)]

    facts = build_variant_facts(scope, [query], facets, extend, INPUT_SCHEMA + programs.COMPARE)
    found = search(facts, Variant.COMPARE, terms, holds if before.profile.go_sort else None, ordered=True)
    if not found.sets and found.proven:
        raise InternalError(f"compare: no subset of the changes gives the later selection for {query}")
    return found


def _relevant(before: Cluster, after: Cluster, query: Query, a: QueryAnswer, b: QueryAnswer,
              read: list[Change]) -> set[tuple]:
    """The objects that can matter to `query`: its model and InferenceService,
    the accelerator classes, and the candidate runtimes -- less, when
    nothing the query reads changed, those that qualify in neither snapshot
    and that no change touches (their verdicts cannot change then) or that a
    change creates or deletes (present, such a runtime is its snapshot's
    version, which does not qualify: issue 40, D-362). Not under W5, where a
    runtime's priorities can deny another's, nor for an InferenceService,
    whose spec.runtime.name may name one."""
    changed = {c.object for c in read}
    whole = {c.object for c in read if not c.path}  # created or deleted
    edited = changed - whole if query.model is not None and not before.profile.cross_runtime_check else changed
    isvcs = [s for c in (before, after) for s in c.inference_services
             if query.isvc is not None and (s.namespace, s.name) == (query.namespace, query.isvc)]
    names = {query.model} if query.model is not None else {s.model_name for s in isvcs}
    keys = {diffing.object_key(s) for s in isvcs}
    for cluster in (before, after):
        keys |= {diffing.object_key(m) for m in cluster.models
                 if m.name in names and m.namespace in (None, query.namespace)}
        keys |= {diffing.object_key(c) for c in cluster.accelerator_classes}
    context_changed = bool(keys & changed)
    qualifying = set(a.ranking) | set(b.ranking)
    for cluster in (before, after):
        for rt in cluster.runtimes:
            ref = RuntimeRef(rt.kind, rt.namespace, rt.name)
            if rt.namespace in (None, query.namespace) and (
                    context_changed or ref in qualifying or diffing.object_key(rt) in edited):
                keys.add(diffing.object_key(rt))
    return keys


def _edits(relevant: list[Change], before: Cluster, after: Cluster) -> list[Change]:
    """The candidate edits: the changes, those of an over-large facet merged into one."""
    out: list[Change] = []
    for _, group in itertools.groupby(relevant, key=lambda c: (c.object, c.facet)):
        group = list(group)
        out += [diffing.merged(group, before, after)] if len(group) > MAX_FACET_EDITS else group
    return out


def _facets(edits: list[Change], scope: Cluster) -> tuple[list[Facet], list[tuple[Facet, list[int]]]]:
    """Each facet's versions of its object, one per combination of its edits."""
    base = diffing.objects(scope)
    facets, numbering = [], []
    groups: dict[tuple, list[int]] = {}
    for number, change in enumerate(edits):
        groups.setdefault((change.object, change.facet), []).append(number)
    for (key, _), members in groups.items():
        variants = []
        for mask in range(1 << len(members)):
            chosen = [edits[n] for bit, n in enumerate(members) if mask >> bit & 1]
            variants.append(functools.reduce(lambda o, c: diffing.set_field(o, c.attrs, c.new), chosen, base.get(key)))
        facet = Facet(Term(f"f({len(facets)})"), key, tuple(variants))
        facets.append(facet)
        numbering.append((facet, members))
    return facets, numbering


def _verified(before: Cluster, items: list[Item]) -> None:
    """Each set found applied to the earlier manifests and selected again: it
    must give the later selection. One world per distinct set, asked every
    query the set is a cause of."""
    by_set: dict[tuple, list[Item]] = {}
    for item in items:
        for cause in item.causes:
            by_set.setdefault(tuple(cause), []).append(item)

    def claim(edit_set: tuple, found: list[Item]) -> Claim:
        def wrong(k: int, answer: QueryAnswer) -> str | None:
            if state(answer) == state(found[k].after):  # the runtime, and no outcome (edits.lp)
                return None
            return f"gives {first(answer)} for {found[k].query}, not {first(found[k].after)}"

        return Claim(list(edit_set), diffing.apply(before, list(edit_set)), [item.query for item in found], wrong)

    verify("compare", [claim(edit_set, found) for edit_set, found in by_set.items()], Variant.RANK)


# --- profiles mode ----------------------------------------------------------------

# The profile settings (profiles.py's attributes) with the rules docs/profiles.md gives them.
SETTING_RULES = {
    "absent_weight": "I3, S3", "schema_validation": "I4, Q13, Q14, S5", "lenient_score_versions": "S2",
    "mode_filter": "Q4, D1, D3", "size_syntax": "Z1, Z5", "one_bounded_range": "Z3", "go_sort": "O3, O4",
    "explicit_lookup": "X2, X3", "explicit_incompatible": "X3, X4, X6", "failure_surface": "O9",
    "excluded_list": "O8", "webhook_quirks": "W3, W4", "cross_runtime_check": "W5", "model_rule": "M6, I4",
    "virtual_deployment_skip": "Q1",
}
SECTIONS = {"v1.2.2": "Profile v1.2.2 (profiles.md section 2)",
            "code-v0.1.5": "Profile code-v0.1.5 (profiles.md section 3): the quirks"}


@dataclass(frozen=True)
class Setting:
    """One profile setting in which two profiles differ."""

    name: str
    old: object
    new: object
    section: str  # the docs/profiles.md section that describes the non-default value

    def describe(self) -> str:
        return (f"{self.name}: {diffing.shown(self.old)} → {diffing.shown(self.new)} "
                f"({SETTING_RULES[self.name]}; docs/profiles.md, {self.section})")

    def json(self) -> dict:
        return {"setting": self.name, "from": self.old, "to": self.new, "rules": SETTING_RULES[self.name],
                "section": self.section}


def _section(name: str, a: profiles.Profile, b: profiles.Profile) -> str:
    default = getattr(profiles.V1_3, name)
    names = [p.name for p in (b, a) if getattr(p, name) != default]
    return SECTIONS[names[0]]


def profile_settings(a: profiles.Profile, b: profiles.Profile) -> list[Setting]:
    """The settings in which two profiles differ."""
    return [Setting(s, getattr(a, s), getattr(b, s), _section(s, a, b)) for s in SETTING_RULES if getattr(a, s) != getattr(b, s)]


def setting_causes(load_under: Callable[[profiles.Profile], Cluster], a: profiles.Profile, settings: list[Setting],
                   items: list[Item]) -> None:
    """For each item, the smallest sets of settings that alone give the second
    profile's answer: first single settings, then pairs. Each set is a
    profile that is the first one but for those settings, the manifests read
    under it: one world per set, all sets of a size grounded together."""
    for size in (1, 2):
        open_items = [item for item in items if not item.causes]
        if not open_items:
            return
        runs, tried = [], []
        for chosen in itertools.combinations(settings, size):
            try:
                runs.append((load_under(records.replace(a, **{s.name: s.new for s in chosen})),
                             [item.query for item in open_items]))
            except OmeAspError:  # these settings alone do not make a readable snapshot
                continue
            tried.append(list(chosen))
        for chosen, answers in zip(tried, select_again(runs, Variant.RANK)):
            for item, answer in zip(open_items, answers):
                if state(answer) == state(item.after) and len(item.causes) < MAX_SETS:
                    item.causes.append(chosen)
