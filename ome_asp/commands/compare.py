"""`ome-asp compare`: what a change to the cluster, or another OME version,
does to every selection, and which edit caused it (issue 15).

    ome-asp compare --before PATH... --after PATH... (--model NAME | --isvc NAME | --all-models | --all) [-n NS] [-o table|json|yaml]
    ome-asp compare -f PATH... (--profiles A,B | --ome-versions X,Y) (--model ... | --all-models | --all)

Before/after: both snapshots are selected as explain selects them; for each
query whose selected runtime differs, the rows that changed, the criterion
that now decides between the old and the new winner, and the cause: the
smallest sets of the field changes between the snapshots that, applied alone
to the earlier one, already give the later selection. The sets are found by
the solver (encoding/compare.lp over encoding/edits.lp, which steer shares:
an optimization over which changes to apply) and each is verified by
selecting again on the earlier manifests plus the set.

Profiles: the same manifests under two profiles; for each query that
differs, the profile settings (docs/profiles.md's switch and settings rows)
that alone turn the first profile's answer into the second's, each verified
by selecting under a profile that differs from the first in those settings
only (the settings act before, inside and after the encoding, so this search
is by re-selection, not by the solver).

Exit codes: 0 no selection changed, 1 some changed, 2 usage or input error.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import itertools
from dataclasses import dataclass, field
from typing import TextIO

from ome_asp.commands.explain import add_explain_targets
from ome_asp.commands.steer import MAX_SETS
from ome_asp.errors import Exit, InternalError, OmeAspError, UsageError
from ome_asp.input import changes as diffing
from ome_asp.input import profiles
from ome_asp.input.changes import Change
from ome_asp.input.loader import STDIN, load
from ome_asp.input.objects import Cluster
from ome_asp.render import reasons, report
from ome_asp.solver import ask, programs
from ome_asp.solver.answer import Criterion, QueryAnswer
from ome_asp.solver.facts import (
    INPUT_SCHEMA,
    Facet,
    FactBuilder,
    Query,
    RuntimeRef,
    Term,
    build_variant_facts,
    facts_differ,
    runtime_id,
)
from ome_asp.solver.programs import Variant

# A facet's changes are tried in every combination (2^k fact variants); past
# this many, the part is one edit (docs/decisions.md).
MAX_FACET_EDITS = 6
CRITERIA = {  # rank_key's positions (encoding/ordering.lp), as explain -v and the spec name them
    0: ("O1", "namespaced first"), 1: ("O2", "higher score"), 2: ("O3", "smaller distance"), 3: ("O4", "name order"),
}


@dataclass
class Item:
    """One query whose answer differs."""

    query: Query
    before: QueryAnswer
    after: QueryAnswer
    causes: list[list] = field(default_factory=list)  # minimal edit sets: Changes, or profile settings
    note: str | None = None  # why no cause was searched
    optimum: list[Criterion] = field(default_factory=list)  # compare.lp's, where the causes are its optima (--show opt)


@dataclass
class Comparison:
    labels: tuple[str, str]  # "before"/"after", or the two profiles' names
    items: list[Item]
    unchanged: list[tuple[Query, QueryAnswer]]
    queries: int
    noun: str  # what the queries are: models, InferenceServices, queries
    changes: list[Change]  # the changes selection reads (before/after only)
    ignored: list[tuple]  # (object, path, from, to) of fields selection does not read
    profile: str


# --- the answers -------------------------------------------------------------


def first(answer: QueryAnswer) -> RuntimeRef | None:
    """The runtime OME selects: the first of the order (Go's order under code-v0.1.5)."""
    return answer.ranking[0] if answer.ranking else None


def state(answer: QueryAnswer) -> tuple:
    """What a query's answer is, for telling whether it changed."""
    if answer.error is not None:
        return ("error", reasons.text(answer.error))
    if answer.ended is not None:
        return ("outcome", *answer.ended)
    return ("selected", first(answer))


def answers_of(runs: list[tuple[Cluster, list[Query]]], explain: bool = True) -> list[list[QueryAnswer]]:
    """Each run's answers to its queries, all runs grounded together as
    worlds (issue 12: one world per snapshot, profile or edited snapshot)."""
    results = ask.ask_worlds(runs, Variant.EXPLAIN if explain else Variant.RANK)
    return [[r.answer.queries[n] for n in range(1, len(qs) + 1)] for r, (_, qs) in zip(results, runs)]


def compared(clusters: tuple[Cluster, Cluster], queries: list[Query]) -> tuple[list[Item], list[tuple[Query, QueryAnswer]]]:
    """The queries whose answers differ, with both answers as explain gives
    them (rows, reasons), and the others. Which differ is read from the
    ranking program (no No rows, a fraction of explain's cost); only those
    are explained."""
    ranked = answers_of([(c, queries) for c in clusters], explain=False)
    changed = [q for q, a, b in zip(queries, *ranked) if state(a) != state(b)]
    unchanged = [(q, b) for q, a, b in zip(queries, *ranked) if state(a) == state(b)]
    if not changed:
        return [], unchanged
    explained = answers_of([(c, changed) for c in clusters])
    return [Item(q, a, b) for q, a, b in zip(changed, *explained)], unchanged


def queries_of(clusters: list[Cluster], namespace: str, target) -> tuple[list[Query], str]:
    """The queries of the target, over both snapshots, and what to call them."""
    if target.model is not None or target.isvc is not None:
        return [Query(namespace, model=target.model, isvc=target.isvc)], "models" if target.model else "InferenceServices"
    models = {(m.namespace or namespace, m.name) for c in clusters for m in c.models}
    queries = [Query(ns, model=name) for ns, name in sorted(models)]
    if not target.all:
        return queries, "models"
    services = {(s.namespace, s.name) for c in clusters for s in c.inference_services}
    return queries + [Query(ns, isvc=name) for ns, name in sorted(services)], "queries"


def compare_snapshots(before: Cluster, after: Cluster, queries: list[Query], noun: str) -> Comparison:
    every = diffing.diff(before, after)
    old, new = diffing.objects(before), diffing.objects(after)
    read = [c for c in every if _is_read(before.profile, c, old, new)]
    ignored = [raw for raw in diffing.raw_changes(before, after)
               if not any(c.object == raw[0] and diffing.covers(c.path, raw[1]) for c in read)]
    items, unchanged = compared((before, after), queries)
    searched = []
    for item in items:
        query, a, b = item.query, item.before, item.after
        if before.profile.go_sort:
            item.note = (f"no cause searched under profile {before.profile.name}: its order is Go's sort "
                         "(profiles.md 3.3), not the #minimize order the search measures")
        elif state(a)[0] != "selected" or state(b)[0] != "selected":
            item.note = "no cause searched: a snapshot answers this query with an error or an outcome, not a selection"
        else:
            item.causes, item.optimum = minimal_causes(before, after, query, a, b, read)
            searched.append(item)
    _verify(before, searched)
    return Comparison(("before", "after"), items, unchanged, len(queries), noun, read, ignored, before.profile.name)


def _is_read(profile: profiles.Profile, change: Change, old: dict, new: dict) -> bool:
    """Whether selection reads the change: it changes the object's facts."""
    if not change.path:
        return True
    a = old[change.object]
    return facts_differ(profile, a, diffing.set_field(a, change.attrs, change.new))


# --- the cause: smallest sets of changes -----------------------------------------


def minimal_causes(before: Cluster, after: Cluster, query: Query, a: QueryAnswer, b: QueryAnswer,
                   read: list[Change]) -> tuple[list[list[Change]], list[Criterion]]:
    """Up to MAX_SETS smallest sets of `read` that, applied alone to `before`,
    make it select what `after` selects for `query` (each verified), and
    their optimum by name."""
    goal = first(b)
    keys = _relevant(before, after, query, a, b, read)
    relevant = [c for c in read if c.object in keys]
    edits = _edits(relevant, before, after)
    scope = diffing.rebuild(before, [o for k, o in diffing.objects(before).items() if k in keys])
    facets, numbering = _facets(edits, scope)

    def extend(builder: FactBuilder, entries) -> None:
        fact = builder.fact
        if goal is None:
            fact.wanted_nothing()
        else:
            fact.wanted(runtime_id(*goal))
        for facet, members in numbering:
            fact.facet(facet.term)
            for bit, number in enumerate(members):
                fact.edit(Term(f"e({number})"))
                fact.edit_bit(Term(f"e({number})"), facet.term, 1 << bit)

    facts = build_variant_facts(scope, [query], facets, extend, INPUT_SCHEMA + programs.COMPARE)
    found = ask.edit_sets(facts, Variant.COMPARE, MAX_SETS)
    numbers = sorted(sorted(term.arguments[0].number for term in terms) for terms in found.sets)  # e(N)
    if not numbers:
        raise InternalError(f"compare: no subset of the changes gives the later selection for {query}")
    return [[edits[n] for n in chosen] for chosen in numbers], found.optimum


def _relevant(before: Cluster, after: Cluster, query: Query, a: QueryAnswer, b: QueryAnswer,
              read: list[Change]) -> set[tuple]:
    """The objects that can matter to `query`: its model and InferenceService,
    the accelerator classes, and the candidate runtimes -- less those no
    change touches that qualify in neither snapshot when nothing the query
    reads changed (their verdicts cannot change then)."""
    changed = {c.object for c in read}
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
                    context_changed or ref in qualifying or diffing.object_key(rt) in changed):
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


def _verify(before: Cluster, items: list[Item]) -> None:
    """Select again on the earlier manifests plus each set found: it must give
    the later selection. One world per distinct set, asked every query the
    set is a cause of."""
    by_set: dict[tuple, list[Item]] = {}
    for item in items:
        for cause in item.causes:
            by_set.setdefault(tuple(cause), []).append(item)
    runs = [(diffing.apply(before, list(edit_set)), [item.query for item in found]) for edit_set, found in by_set.items()]
    for (edit_set, found), answers in zip(by_set.items(), answers_of(runs, explain=False)):
        for item, answer in zip(found, answers):
            if first(answer) != first(item.after):
                raise InternalError(f"compare: the set {[c.describe() for c in edit_set]} gives {first(answer)} "
                                    f"for {item.query}, not {first(item.after)}")


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


def compare_profiles(paths: list[str], stdin, args, pair: tuple[profiles.Profile, profiles.Profile],
                     stderr: TextIO) -> Comparison:
    a, b = pair
    if STDIN in paths:  # read once, then under each profile
        stdin = io.BytesIO(stdin.read())
    load_under = functools.partial(_load, paths, stdin, args)
    first_cluster, second_cluster = load_under(a, stderr), load_under(b, stderr)
    queries, noun = queries_of([first_cluster, second_cluster], args.namespace, args)
    items, unchanged = compared((first_cluster, second_cluster), queries)
    settings = [Setting(s, getattr(a, s), getattr(b, s), _section(s, a, b)) for s in SETTING_RULES
                if getattr(a, s) != getattr(b, s)]
    _profile_causes(paths, stdin, args, a, settings, items)
    return Comparison((a.name, b.name), items, unchanged, len(queries), noun, [], [], f"{a.name},{b.name}")


def _section(name: str, a: profiles.Profile, b: profiles.Profile) -> str:
    default = getattr(profiles.V1_3, name)
    names = [p.name for p in (b, a) if getattr(p, name) != default]
    return SECTIONS[names[0]]


def _profile_causes(paths, stdin, args, a: profiles.Profile, settings: list[Setting], items: list[Item]) -> None:
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
                runs.append((_load(paths, stdin, args, dataclasses.replace(a, **{s.name: s.new for s in chosen}), None),
                             [item.query for item in open_items]))
            except OmeAspError:  # these settings alone do not make a readable snapshot
                continue
            tried.append(list(chosen))
        for chosen, answers in zip(tried, answers_of(runs, explain=False)):
            for item, answer in zip(open_items, answers):
                if state(answer) == state(item.after) and len(item.causes) < MAX_SETS:
                    item.causes.append(chosen)


def _load(paths: list[str], stdin, args, profile: profiles.Profile, stderr: TextIO | None) -> Cluster:
    if isinstance(stdin, io.BytesIO):
        stdin.seek(0)
    cluster = load(paths, stdin=stdin, strict=args.strict, max_bytes=args.max_input_size, profile=profile)
    if stderr is not None:
        for warning in cluster.warnings:
            print(f"warning: {warning}", file=stderr)
    return cluster


# --- presenting -------------------------------------------------------------------


def _status(answer: QueryAnswer) -> dict[RuntimeRef, tuple[str, str]]:
    """runtime -> (short, long) status of its row."""
    out = {}
    for row in report.rows(answer):
        if row.rank is not None:
            out[row.runtime] = (f"Yes, rank {row.rank}", f"Yes, rank {row.rank}")
        else:
            out[row.runtime] = ("No", f"No: {row.failed_check}: {row.reason}")
    return out


def rows_changed(item: Item) -> list[tuple[RuntimeRef, str, str]]:
    """(runtime, before, after) of each row that became Yes or No, or moved
    (a runtime that is No or not a candidate on both sides is left out)."""
    x, y = _status(item.before), _status(item.after)
    out = []
    for ref in sorted(x.keys() | y.keys(), key=report.runtime_sort_key):
        old, new = x.get(ref, ("-", "not a candidate")), y.get(ref, ("-", "not a candidate"))
        if old[0] != new[0] and "Yes" in old[0] + new[0]:
            out.append((ref, old[1], new[1]))
    return out


def decided_by(item: Item, earlier: str = "before") -> tuple[str, str] | None:
    """The criterion that now decides between the old and the new winner, and
    what it says: (id, message)."""
    old, new = first(item.before), first(item.after)
    if state(item.before)[0] != "selected" or state(item.after)[0] != "selected":
        return None
    verdicts = item.after.verdicts
    if new is None:
        return _no_longer(old, verdicts, "no runtime qualifies any more")
    if old is None:
        return ("Q9", f"{new} now qualifies ({earlier}, no runtime did)")
    if old not in verdicts or not verdicts[old].qualifies:
        return _no_longer(old, verdicts, f"{new} is selected")
    v_old, v_new = verdicts[old], verdicts[new]
    level = next(i for i, (p, q) in enumerate(zip(v_new.cost, v_old.cost)) if p != q)
    rule, name = CRITERIA[level]
    text = {
        0: f"{new} is a ServingRuntime of the namespace, {old} a ClusterServingRuntime",
        1: f"{new.name} has score {v_new.score}, {old.name} score {v_old.score}",
        2: f"{new.name} has distance {v_new.distance}, {old.name} distance {v_old.distance}",
        3: f"{new.name} comes before {old.name} in name order",
    }[level]
    return (rule, f"{rule} ({name}): {text}")


def _no_longer(old: RuntimeRef, verdicts: dict, lead: str) -> tuple[str, str]:
    if old not in verdicts:
        return ("Q1", f"{lead}: {old} is no longer a candidate")
    row = report.Row(verdicts[old], None)
    return (row.failed_check, f"{lead}: {old} no longer qualifies, {row.failed_check}: {row.reason}")


def _earlier(labels: tuple[str, str]) -> str:
    return "before" if labels == ("before", "after") else f"under {labels[0]}"


def _answer_json(answer: QueryAnswer) -> dict:
    kind, *rest = state(answer)
    out: dict = {"selected": None if first(answer) is None else report.runtime_json(first(answer)),
                 "order": [report.runtime_json(r) for r in answer.ranking]}
    if kind != "selected":
        out[kind] = " ".join(rest)
    return out


def _query_json(item_query: Query, *answers: QueryAnswer) -> dict:
    answer = next((a for a in answers if a.model is not None), answers[0])
    if item_query.isvc is not None and answer.model is None:
        return {"namespace": item_query.namespace, "isvc": item_query.isvc}
    return report.query_json(item_query, answer)


def to_document(result: Comparison, listed: bool) -> dict:
    items = []
    for item in result.items:
        decided = decided_by(item, _earlier(result.labels))
        items.append({
            "query": _query_json(item.query, item.after, item.before),
            "before": _answer_json(item.before),
            "after": _answer_json(item.after),
            "rowsChanged": [{"runtime": report.runtime_json(r), "before": x, "after": y} for r, x, y in rows_changed(item)],
            "decidedBy": None if decided is None else {"criterion": decided[0], "message": decided[1]},
            "causes": [[c.json() for c in cause] for cause in item.causes],
            "note": item.note,
        })
    document = {"apiVersion": report.API_VERSION, "kind": "ComparisonReport", "profile": result.profile,
                "compared": list(result.labels), "items": items, "unchanged": len(result.unchanged)}
    if listed:
        document["unchangedQueries"] = [
            {"query": _query_json(q, a), "selected": None if first(a) is None else report.runtime_json(first(a))}
            for q, a in result.unchanged]
    document["changes"] = [c.json() for c in result.changes]
    document["ignoredChanges"] = [_ignored_json(raw) for raw in result.ignored]
    return document


def _ignored_json(raw: tuple) -> dict:
    (kind, namespace, name), path, old, new = raw
    return {"object": {"kind": kind, "namespace": namespace, "name": name}, "path": path, "from": old, "to": new}


def _header(query: Query) -> str:
    target = f"--model {query.model}" if query.model is not None else f"--isvc {query.isvc}"
    return f"# compare {target} -n {query.namespace}"


def _answer_text(answer: QueryAnswer) -> str:
    kind, *rest = state(answer)
    if kind == "error":
        return f"error: {rest[0]}"
    if kind == "outcome":
        return f"outcome {rest[0]}: {rest[1]}"
    return "no runtime" if rest[0] is None else str(rest[0])


def render_text(result: Comparison, listed: bool) -> str:
    old_label, new_label = result.labels
    lines = []
    if result.labels == ("before", "after"):
        objects = len({c.object for c in result.changes})
        lines.append(f"Changes read by selection: {len(result.changes)} in {objects} object{'s' * (objects != 1)}; "
                     f"changes not read: {len(result.ignored)}.")
    else:
        lines.append(f"Profiles: {old_label} → {new_label}.")
    for item in result.items:
        lines += ["", _header(item.query),
                  f"Selected: {_answer_text(item.before)} ({old_label}) → {_answer_text(item.after)} ({new_label})"]
        decided = decided_by(item, _earlier(result.labels))
        if decided is not None:
            lines.append(f"{'Decided by' if decided[0].startswith('O') else 'Why:'} {decided[1]}")
        moved = rows_changed(item)
        if moved:
            lines.append("Rows that changed:")
            lines += [f"  {ref}: {x} → {y}" for ref, x, y in moved]
        lines += _causes_text(item, result.labels)
    count = len(result.unchanged)
    lines += ["", f"{count} of {result.queries} {result.noun} keep their runtime."]
    if listed:
        lines += [f"  {_header(q)[2:]}: {_answer_text(a)}" for q, a in result.unchanged]
    if result.ignored:
        lines.append("Changes not read by selection (ignored):")
        lines += [f"  {diffing.object_text(key)}: {path}: {diffing.shown(old)} → {diffing.shown(new)}"
                  for key, path, old, new in result.ignored]
    return "\n".join(lines) + "\n"


def _causes_text(item: Item, labels: tuple[str, str]) -> list[str]:
    if item.note is not None:
        return [f"Cause: {item.note}."]
    if not item.causes:
        return [f"Cause: no one or two profile settings alone give {labels[1]}'s answer."]
    count = len(item.causes)
    if labels == ("before", "after"):
        lines = [f"Cause: {count} smallest edit set{'s' * (count > 1)}, each verified by selecting again "
                 "on the before manifests plus the set:"]
    else:
        lines = [f"Cause: {count} smallest set{'s' * (count > 1)} of profile settings, each verified by "
                 f"selecting under {labels[0]} with only those settings of {labels[1]}:"]
    for number, cause in enumerate(item.causes, 1):
        size = len(cause)
        unit = "edit" if labels == ("before", "after") else "setting"
        lines.append(f"  Set {number} of {count} ({size} {unit}{'s' * (size > 1)}):")
        lines += [f"    {k}. {edit.describe()}" for k, edit in enumerate(cause, 1)]
    return lines


# --- the command line --------------------------------------------------------------


def add_parser(commands, common) -> None:
    parser = commands.add_parser(
        "compare",
        help="what a change to the manifests, or another OME version, does to every selection, and which edit caused it",
        description="Compare the selections of two snapshots (--before/--after) or of one snapshot under two profiles.",
    )
    target = add_explain_targets(parser)
    target.add_argument("--all-models", action="store_true", help="every model of either snapshot")
    target.add_argument("--all", action="store_true",
                        help="every model and every InferenceService, and list the queries that keep their runtime")
    parser.add_argument("--before", nargs="+", action="extend", default=[], metavar="PATH", help="the earlier manifests")
    parser.add_argument("--after", nargs="+", action="extend", default=[], metavar="PATH", help="the later manifests")
    parser.add_argument("--profiles", metavar="A,B", help="compare -f's manifests under two profiles")
    parser.add_argument("--ome-versions", metavar="X,Y", help="compare -f's manifests under two OME releases' profiles")
    parser.add_argument("-o", "--output", choices=("table", "json", "yaml"), default="table")
    parser.add_argument("--show", choices=("opt",),
                        help="opt: the optimum of the causes' search (compare.lp's criteria and their values) "
                        "for each query whose selection changed, instead of the comparison")
    common(parser)
    parser.set_defaults(run=run)


def _pair(args) -> tuple[profiles.Profile, profiles.Profile] | None:
    if args.profiles is not None and args.ome_versions is not None:
        raise UsageError("--profiles and --ome-versions cannot be combined")
    text = args.profiles if args.profiles is not None else args.ome_versions
    if text is None:
        return None
    parts = text.split(",")
    if len(parts) != 2:
        raise UsageError(f"expected two comma-separated values, found {text!r}")
    if args.profiles is not None:
        unknown = [p for p in parts if p not in profiles.PROFILES]
        if unknown:
            raise UsageError(f"--profiles: unknown profile {unknown[0]!r} (choose from {', '.join(profiles.PROFILES)})")
        return profiles.PROFILES[parts[0]], profiles.PROFILES[parts[1]]
    return profiles.for_release(parts[0]), profiles.for_release(parts[1])


def _show_opt(result: Comparison, output: str, stdout: TextIO) -> int:
    """--show opt: compare.lp's optimum (its criteria and their values) for
    each query whose selection changed, instead of the comparison."""
    searched = [item for item in result.items if item.optimum]
    if output == "table":
        for item in searched:
            stdout.write(_header(item.query) + "\n" + report.optimum_text("compare.lp", item.optimum))
        if not searched:
            stdout.write("No cause was searched: no selection changed between the snapshots.\n")
    else:
        items = [{"query": _query_json(item.query, item.after, item.before), **report.optimum_json("compare.lp", item.optimum)}
                 for item in searched]
        report.dump({"apiVersion": report.API_VERSION, "kind": "List", "items": items}, output, stdout)
    return Exit.NEGATIVE if result.items else Exit.OK


def run(args, stdin, stdout: TextIO, stderr: TextIO) -> int:
    targets = [args.model is not None, args.isvc is not None, args.all_models, args.all]
    if sum(targets) != 1:
        raise UsageError("exactly one of --model, --isvc, --all-models or --all is required")
    pair = _pair(args)
    if pair is not None:
        if args.before or args.after:
            raise UsageError("--profiles/--ome-versions compare -f's manifests: --before and --after do not apply")
        if args.profile is not None or args.ome_version is not None:
            raise UsageError("--profile/--ome-version cannot be combined with --profiles/--ome-versions")
        if not args.filename:
            raise UsageError("no input: pass the manifests with -f")
        if args.show == "opt":
            raise UsageError("--show opt: a comparison of profiles optimises nothing (each setting is tried); "
                             "compare --before/--after searches the smallest causes (compare.lp)")
        result = compare_profiles(args.filename, stdin, args, pair, stderr)
    else:
        if not args.before or not args.after:
            raise UsageError("compare needs --before PATH... and --after PATH... (or -f PATH... with --profiles A,B)")
        if args.filename:
            raise UsageError("-f applies to --profiles/--ome-versions; give the snapshots with --before and --after")
        profile = profiles.resolve(args.profile, args.ome_version)
        before = _load(args.before, stdin, args, profile, stderr)
        after = _load(args.after, stdin, args, profile, stderr)
        queries, noun = queries_of([before, after], args.namespace, args)
        result = compare_snapshots(before, after, queries, noun)
    if args.show == "opt":
        return _show_opt(result, args.output, stdout)
    if args.output == "table":
        stdout.write(render_text(result, args.all))
    else:
        report.dump(to_document(result, args.all), args.output, stdout)
    return Exit.NEGATIVE if result.items else Exit.OK
