"""compare's result and how every output shows it: the queries whose
answers differ (`Item`, `Comparison`: what analysis/compare.py finds), the
text report, the pull request's markdown and the JSON/YAML document
(`ComparisonReport`), beside explain's (report.py)."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, TextIO

from ome_asp.input import changes as diffing
from ome_asp.input.changes import Change, Place
from ome_asp.input.objects import Query, RuntimeRef
from ome_asp.render import reasons, report
from ome_asp.solver.answer import Criterion, QueryAnswer


@dataclass
class Item:
    """One query whose answer differs."""

    query: Query
    before: QueryAnswer
    after: QueryAnswer
    causes: list[list] = field(default_factory=list)  # minimal edit sets: Changes, or profile settings
    note: str | None = None  # why no cause was searched
    optimum: list[Criterion] = field(default_factory=list)  # compare.lp's, where the causes are its optima (--show opt)
    rejected: int = 0  # candidate sets Go's order rejected before the causes (code-v0.1.5; issue 36)
    proven: bool = True  # False: the search stopped after its rejections without a cause (note says so)


@dataclass(frozen=True)
class Snapshot:
    """Where one side was read, as a report's heading names it; `revision`:
    the git revision its files' names start with (`REV:path`)."""

    name: str
    revision: str | None = None


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
    snapshots: tuple[Snapshot, Snapshot] = (Snapshot("before"), Snapshot("after"))


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


# What happened to a query's selection, most severe first: the order of a
# report's rows and summaries, and --fail-on's kinds.
CHANGE_KINDS = ("lost", "moved", "changed", "gained")


def change_kind(item: Item) -> str:
    """moved: another runtime is selected; lost: a runtime was selected, none
    is now (no runtime, an error or an outcome); gained: the reverse;
    changed: an error or outcome became another."""
    old, new = state(item.before), state(item.after)
    had, has = old[0] == "selected" and old[1] is not None, new[0] == "selected" and new[1] is not None
    return "moved" if had and has else "lost" if had else "gained" if has else "changed"


def by_cause(items: list[Item]) -> list[list[Item]]:
    """The items grouped by their causes (the same smallest edit sets, or the
    same reason none was searched): a catalog change that moves many models
    is read once (issue 25). Most severe first (a group's most severe
    change, CHANGE_KINDS: a lost runtime before a move, issue 37), then
    largest first, then in query order."""
    groups: dict[tuple, list[Item]] = {}
    for item in items:
        key = (item.note, tuple(tuple(c.describe() for c in cause) for cause in item.causes))
        groups.setdefault(key, []).append(item)
    return sorted(groups.values(), key=lambda group: (min(CHANGE_KINDS.index(change_kind(i)) for i in group), -len(group)))


# --- presenting -------------------------------------------------------------------

CRITERIA = {  # rank_key's positions (encoding/ordering.lp), as explain -v and the spec name them
    0: ("O1", "namespaced first"), 1: ("O2", "higher score"), 2: ("O3", "smaller distance"), 3: ("O4", "name order"),
}



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
    if old is None:
        return ("Q9", f"{new} now qualifies ({earlier}, no runtime did)")
    if new is None:
        return _no_longer(old, verdicts, "no runtime qualifies any more")
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
    assert row.failed_check is not None  # a runtime that does not qualify fails a check
    return (row.failed_check, f"{lead}: {old} no longer qualifies, {row.failed_check}: {row.reason}")


def _earlier(labels: tuple[str, str]) -> str:
    return "before" if labels == ("before", "after") else f"under {labels[0]}"


def _answer_json(answer: QueryAnswer) -> dict:
    kind, *rest = state(answer)
    out: dict = {"selected": _runtime_json(first(answer)),
                 "order": [report.runtime_json(r) for r in answer.ranking]}
    if kind != "selected":
        out[kind] = " ".join(rest)
    return out


def _runtime_json(runtime: RuntimeRef | None) -> dict | None:
    return None if runtime is None else report.runtime_json(runtime)


def _query_json(item_query: Query, *answers: QueryAnswer) -> dict:
    answer = next((a for a in answers if a.model is not None), answers[0])
    if item_query.isvc is not None and answer.model is None:
        return {"namespace": item_query.namespace, "isvc": item_query.isvc}
    return report.query_json(item_query, answer)


def to_document(result: Comparison, gate: Verdict, listed: bool) -> dict:
    items = []
    for item in result.items:
        decided = decided_by(item, _earlier(result.labels))
        items.append({
            "query": _query_json(item.query, item.after, item.before),
            "before": _answer_json(item.before),
            "after": _answer_json(item.after),
            "rowsChanged": [{"runtime": report.runtime_json(r), "before": x, "after": y} for r, x, y in rows_changed(item)],
            "decidedBy": None if decided is None else {"criterion": decided[0], "message": decided[1]},
            "causes": [[_edit_json(c, result) for c in cause] for cause in item.causes],
            "note": item.note,
            "rejected": item.rejected,  # candidate sets Go's order rejected before the causes (code-v0.1.5, issue 36)
            "proven": item.proven,  # false: the search stopped after its rejections, no cause found (issue 36)
            "change": change_kind(item),
            "fragile": fragile(item),
        })
    document = {"apiVersion": report.API_VERSION, "kind": "ComparisonReport", "profile": result.profile,
                "compared": list(result.labels), "items": items, "unchanged": len(result.unchanged)}
    if listed:
        document["unchangedQueries"] = [
            {"query": _query_json(q, a), "selected": _runtime_json(first(a))}
            for q, a in result.unchanged]
    document["changes"] = [_edit_json(c, result) for c in result.changes]
    document["ignoredChanges"] = [_ignored_json(raw) for raw in result.ignored]
    document["summary"] = summary(result)
    position = {id(item): n for n, item in enumerate(result.items)}
    document["groups"] = [{"title": group_title(group), "items": [position[id(item)] for item in group]}
                          for group in by_cause(result.items)]
    document["ignoredCounts"] = [{"kind": kind, "field": top, "changes": changes, "objects": objects}
                                 for kind, top, changes, objects in ignored_counts(result)]
    found = idle(result)
    if found is not None:
        document["changedNoSelection"] = [
            {"object": _object_json(entry.object), "change": entry.change, "selectedBy": entry.selected_by,
             "qualifiesFor": entry.qualifies_for, "edits": [_edit_json(edit, result) for edit in entry.edits]}
            for entry in found]
    document["verdict"] = gate.json()
    return document


def _edit_json(edit: Any, result: Comparison) -> dict:
    """An edit's JSON; its file (and its entries') named within its side: a
    git revision's path from the repository's top, with `revision` beside it
    (what a CI annotation or SARIF location needs)."""
    out = edit.json()
    for place in [out, *out.get("entries", [])]:
        if "side" in place:
            place["file"], revision = within(place["side"], place["file"], result)
            if revision is not None:
                place["revision"] = revision
    return out


def within(side: str, file: str, result: Comparison) -> tuple[str, str | None]:
    """A file as its side names it: a git revision's `REV:path` as the path
    from the repository's top and the revision, else as the loader named it
    (and None)."""
    revision = result.snapshots[side == "after"].revision
    if revision is not None and file.startswith(f"{revision}:"):
        return file[len(revision) + 1:], revision
    return file, None


def _ignored_json(raw: tuple) -> dict:
    key, path, old, new = raw
    return {"object": _object_json(key), "path": path, "from": old, "to": new}


def _object_json(key: tuple) -> dict:
    kind, namespace, name = key
    return {"kind": kind, "namespace": namespace, "name": name}


def _header(query: Query) -> str:
    target = f"--model {query.model}" if query.model is not None else f"--isvc {query.isvc}"
    return f"# compare {target} -n {query.namespace}"


def answer_text(answer: QueryAnswer) -> str:
    kind, *rest = state(answer)
    if kind == "error":
        return f"error: {rest[0]}"
    if kind == "outcome":
        return f"outcome {rest[0]}: {rest[1]}"
    return "no runtime" if rest[0] is None else str(rest[0])


def summary(result: Comparison) -> dict[str, int]:
    """How many queries moved, lost, gained or changed otherwise, and kept their answer."""
    kinds = [change_kind(item) for item in result.items]
    return {**{kind: kinds.count(kind) for kind in CHANGE_KINDS}, "unchanged": len(result.unchanged)}


def _summary_line(result: Comparison) -> str:
    counts = summary(result)
    parts = [f"{counts[kind]} {KIND_TEXT[kind]}" for kind in CHANGE_KINDS if counts[kind]]
    return f"{result.queries} {result.noun}: " + ", ".join(parts + [f"{counts['unchanged']} keep their answer"]) + "."


GROUP_ARROW = "⇒"  # between a cause and what it did (a cause's own values use →)
KIND_TEXT = {"moved": "moved", "lost": "lost their runtime", "gained": "gained a runtime", "changed": "changed otherwise"}


def ignored_counts(result: Comparison) -> list[tuple[str, str, int, int]]:
    """The changes selection does not read, as (kind, field, changes, objects):
    each field by its first two path steps, list positions left out, so a
    catalog's container edits are one line per field (issue 25)."""
    counts: dict[tuple[str, str], list] = {}
    for (kind, namespace, name), path, _, _ in result.ignored:
        top = ".".join(re.sub(r"\[.*", "", path).split(".")[:2])
        counts.setdefault((kind, top), []).append((namespace, name))
    return [(kind, top, len(objects), len(set(objects))) for (kind, top), objects in sorted(counts.items())]


def _ignored_text(result: Comparison, listed: bool) -> list[str]:
    if not result.ignored:
        return []
    if listed:
        return ["Changes not read by selection (ignored):"] + [
            f"  {diffing.object_text(key)}: {path}: {diffing.shown(old)} → {diffing.shown(new)}"
            for key, path, old, new in result.ignored]
    return [f"Changes not read by selection (ignored; --show-ignored lists them): {len(result.ignored)}"] + [
        f"  {kind} {top}: {changes} change{'s' * (changes != 1)} in {objects} object{'s' * (objects != 1)}"
        for kind, top, changes, objects in ignored_counts(result)]


def render_text(result: Comparison, gate: Verdict, listed: bool, show_ignored: bool = False) -> str:
    lines = []
    if result.labels == ("before", "after"):
        objects = len({c.object for c in result.changes})
        lines.append(f"Changes read by selection: {len(result.changes)} in {objects} object{'s' * (objects != 1)}; "
                     f"changes not read: {len(result.ignored)}.")
    else:
        lines.append(f"Profiles: {result.labels[0]} → {result.labels[1]}.")
    if len(result.items) > 1:
        lines.append(_summary_line(result))
    for group in by_cause(result.items):
        lines += _group_text(group, result.labels) if len(group) > 1 else _item_text(group[0], result.labels)
    count = len(result.unchanged)
    lines += ["", f"{count} of {result.queries} {result.noun} keep their runtime."]
    if listed:
        lines += [f"  {_header(q)[2:]}: {answer_text(a)}" for q, a in result.unchanged]
    found = idle(result)
    if found:
        lines += [f"Changes read by selection that changed no selection: {idle_summary(found, result.noun)}."]
        lines += [f"  {idle_line(entry)}" for entry in found]
    lines += _ignored_text(result, show_ignored)
    return "\n".join(lines + [gate.text()]) + "\n"


def _item_text(item: Item, labels: tuple[str, str]) -> list[str]:
    """One query's comparison in full: its answers, what decides, the rows that changed, the causes."""
    lines = ["", _header(item.query),
             f"Selected: {answer_text(item.before)} ({labels[0]}) → {answer_text(item.after)} ({labels[1]})"]
    decided = decided_by(item, _earlier(labels))
    if decided is not None:
        lines.append(f"{'Decided by' if decided[0].startswith('O') else 'Why:'} {decided[1]}")
    why = fragile(item)
    if why is not None:
        lines.append(f"Fragile: {why}")
    moved = rows_changed(item)
    if moved:
        lines.append("Rows that changed:")
        lines += [f"  {ref}: {x} → {y}" for ref, x, y in moved]
    return lines + _causes_text(item, labels)


def group_title(group: list[Item]) -> str:
    """`CAUSE → 8 models moved`: the one edit set, or how many alternatives, and what it did."""
    item = group[0]
    if item.note is not None:
        cause = "no cause searched" if item.proven else "no cause found"
    elif len(item.causes) == 1:
        cause = "; ".join(edit.describe() for edit in item.causes[0])
    else:
        cause = f"any of {len(item.causes)} smallest sets" if item.causes else "no cause found"
    kinds = [change_kind(i) for i in group]
    counted = [f"{kinds.count(k)} {KIND_TEXT[k]}" for k in CHANGE_KINDS if k in kinds]
    noun = ("query" if len(group) == 1 else "queries") if any(i.query.isvc is not None for i in group) else \
        ("model" if len(group) == 1 else "models")
    what = f"{len(group)} {noun} {KIND_TEXT[kinds[0]]}" if len(counted) == 1 else f"{len(group)} {noun}: {', '.join(counted)}"
    return f"{cause} {GROUP_ARROW} {what}"


def _group_text(group: list[Item], labels: tuple[str, str]) -> list[str]:
    """Queries with the same causes: the cause once, one line per query."""
    lines = ["", f"# {group_title(group)}"]
    for item in group:
        decided = decided_by(item, _earlier(labels))
        lines.append(f"  {_header(item.query)[10:]}: {answer_text(item.before)} → {answer_text(item.after)}"
                     + ("" if decided is None else f" ({decided[1]})"))
    weak = [(item, why) for item in group if (why := fragile(item)) is not None]
    if weak:
        lines.append("Fragile (the name order alone decides, O4):")
        lines += [f"  {_header(item.query)[10:]}: {why}" for item, why in weak]
    rows = rows_changed(group[0])
    if rows and all(rows_changed(item) == rows for item in group[1:]):  # one runtime's change, seen by each query
        lines.append(f"Rows that changed (for each of the {len(group)}):")
        lines += [f"  {ref}: {x} → {y}" for ref, x, y in rows]
    return lines + _causes_text(group[0], labels)


# --- the gate ---------------------------------------------------------------------

_SINGULAR = {"models": "model", "InferenceServices": "InferenceService", "queries": "query"}
_VERB = {"lost": "lost its runtime", "moved": "moved", "changed": "changed otherwise", "gained": "gained a runtime"}


@dataclass(frozen=True)
class Verdict:
    """Whether the comparison passes the gate --fail-on sets (the kinds of
    change that fail it), and why: a line in every output."""

    gate: tuple[str, ...]  # CHANGE_KINDS order
    counts: dict[str, int]  # queries changed in each kind
    noun: str

    @property
    def failing(self) -> list[str]:
        return [kind for kind in self.gate if self.counts[kind]]

    def flag(self) -> str:
        return "--fail-on " + ("any, the default" if self.gate == CHANGE_KINDS else ",".join(self.gate))

    def text(self) -> str:
        if self.failing:
            return (f"Verdict: fail ({self.flag()}): "
                    + ", ".join(f"{self.counts[kind]} {KIND_TEXT[kind]}" for kind in self.failing) + ".")
        others = [f"{self.counts[kind]} {KIND_TEXT[kind]}" for kind in CHANGE_KINDS if self.counts[kind]]
        changed = "changed" if self.gate == CHANGE_KINDS else " or ".join(_VERB[kind] for kind in self.gate)
        return (f"Verdict: pass ({self.flag()}): no {_SINGULAR.get(self.noun, self.noun)} {changed}"
                + (f"; not failing the gate: {', '.join(others)}" if others else "") + ".")

    def json(self) -> dict:
        return {"result": "fail" if self.failing else "pass", "failOn": list(self.gate),
                "failing": {kind: self.counts[kind] for kind in self.failing}, "message": self.text()}


def verdict(result: Comparison, fail_on: list[str] | None) -> Verdict:
    """The gate of --fail-on's kinds (None or `any`: every kind)."""
    chosen = set(fail_on or ["any"])
    gate = CHANGE_KINDS if "any" in chosen else tuple(kind for kind in CHANGE_KINDS if kind in chosen)
    return Verdict(gate, summary(result), result.noun)


# --- wins on the name order alone -------------------------------------------------------


def fragile(item: Item) -> str | None:
    """Where the later winner beats the runtime after it on the name order
    alone (O4): namespace scope, score and distance tie, so a rename or a
    copy-pasted field decides the selection (issue 37); what ties, by field."""
    answer = item.after
    if state(answer)[0] != "selected" or len(answer.ranking) < 2:
        return None
    winner, runner = (answer.verdicts.get(ref) for ref in answer.ranking[:2])
    if winner is None or runner is None or not winner.cost or winner.cost[:3] != runner.cost[:3]:
        return None
    basis = winner.distance_basis
    distance = ("no distance (the model has no modelParameterSize)" if basis is None else
                f"distance {winner.distance} ({'spec.modelSizeRange' if basis.name in ('both_bounds', 'one_bound') else 'no modelSizeRange bound'})")
    return (f"{winner.runtime.name} wins over {runner.runtime.name} on the name order alone (O4): both have score "
            f"{winner.score} (spec.supportedModelFormats[].priority and weights) and {distance}")


# --- changes that changed no selection -------------------------------------------------


@dataclass(frozen=True)
class Idle:
    """An object whose changes selection reads, in no cause: what it does now
    (a runtime: how many of the queries compared select it, or it qualifies for)."""

    object: tuple
    change: str  # created, deleted or changed
    edits: list[Change]
    selected_by: int | None  # None: not a runtime, or deleted
    qualifies_for: int | None

    def text(self) -> str:
        if self.selected_by is None:
            return "no selection changed"
        if self.selected_by:
            return f"selected by {self.selected_by}"
        return "selected by none" + (f", qualifies for {self.qualifies_for}" if self.qualifies_for else ", qualifies for none")


def idle(result: Comparison) -> list[Idle] | None:
    """The objects whose changes (read by selection) are in no cause, each
    with what it does after (issue 37: of 41 such changes a reviewer saw 15;
    37 runtimes created, 23 selected by no model). None where some changed
    query had no cause searched: what changed it is not known."""
    if any(item.note is not None for item in result.items):
        return None
    caused = [edit for item in result.items for cause in item.causes for edit in cause if isinstance(edit, Change)]
    answers = [item.after for item in result.items] + [answer for _, answer in result.unchanged]
    selected = Counter(first(answer) for answer in answers)
    qualifies = Counter(ref for answer in answers for ref in set(answer.ranking))
    by_object: dict[tuple, list[Change]] = {}
    for change in result.changes:
        if not any(edit.object == change.object and diffing.covers(edit.path, change.path) for edit in caused):
            by_object.setdefault(change.object, []).append(change)
    out = []
    for key, edits in by_object.items():
        kind = ("created" if edits[0].old is None else "deleted") if not edits[0].path else "changed"
        runtime = key[0] in ("ServingRuntime", "ClusterServingRuntime") and kind != "deleted"
        ref = RuntimeRef(*key)
        out.append(Idle(key, kind, edits, selected[ref] if runtime else None, qualifies[ref] if runtime else None))
    return out


def idle_summary(found: list[Idle], noun: str) -> str:
    """`41 changes in 38 objects: 37 runtimes created (23 selected by no model, 9 qualifying for none); …`"""
    changes = sum(len(entry.edits) for entry in found)
    parts = []
    for change in ("created", "changed", "deleted"):
        runtimes = [e for e in found if e.change == change and e.object[0] in ("ServingRuntime", "ClusterServingRuntime")]
        if runtimes:
            none = sum(1 for e in runtimes if e.selected_by == 0)
            unqualified = sum(1 for e in runtimes if e.qualifies_for == 0)
            detail = "" if change == "deleted" else (
                f" ({none} selected by no {_SINGULAR.get(noun, noun)}, {unqualified} qualifying for none)")
            parts.append(f"{len(runtimes)} runtime{'s' * (len(runtimes) != 1)} {change}{detail}")
    others = [e for e in found if e.object[0] not in ("ServingRuntime", "ClusterServingRuntime")]
    if others:
        parts.append(f"{len(others)} other object{'s' * (len(others) != 1)}")
    return (f"{changes} change{'s' * (changes != 1)} in {len(found)} object{'s' * (len(found) != 1)}: "
            + "; ".join(parts))


def idle_line(entry: Idle) -> str:
    """`FILE:LINE: ClusterServingRuntime x: created; selected by none, qualifies for none`"""
    place = entry.edits[0].place
    what = entry.change if entry.change != "changed" else "; ".join(line for edit in entry.edits for line in edit.lines())
    return f"{'' if place is None else f'{place}: '}{diffing.object_text(entry.object)}: {what}; {entry.text()}"


# --- markdown -----------------------------------------------------------------------

#: GitHub's limit on a comment's body, in characters: the default budget (--max-bytes).
MARKDOWN_BYTES = 65536
#: Characters a markdown renderer reads as a line's end (CommonMark: CR, LF; many also NEL, LS, PS).
_BREAKS = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")


def one_line(text: str) -> str:
    """`text` on one line: every control or line-ending character shown as its escape (`\\r`, `\\u2028`)."""
    return _BREAKS.sub(lambda m: json.dumps(m[0])[1:-1], text)


def code(text: str, cell: bool = True) -> str:
    """`text` as a code span: whatever it holds is text -- no emphasis, link,
    image, @mention, HTML or heading (issue 38 item 4). One line; a fence
    longer than any run of backticks in it, spaces inside so one at either
    end is kept; in a table cell, `|` escaped (GFM reads the cell's pipes
    before the span)."""
    text = one_line(text)
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    span = f"{fence} {text} {fence}"
    return span.replace("|", "\\|") if cell else span


@dataclass
class _Part:
    """A piece of the markdown that --max-bytes may cut: `rows` from the end,
    a note saying how many are left out; never mid-row, never its head
    without a row (a table's header, a fence's opening)."""

    head: list[str]
    rows: list[str]
    tail: list[str]
    what: str  # what a row is, for the note: "lines", "causes"
    shown: int = -1  # rows kept (-1: all)

    def lines(self, budget: int) -> list[str]:
        kept = len(self.rows) if self.shown < 0 else self.shown
        if kept == len(self.rows):
            return self.head + self.rows + self.tail
        note = (f"_{len(self.rows) - kept} of {len(self.rows)} {self.what} left out to fit --max-bytes {budget}; "
                "`-o json` has them all._")
        return (self.head + self.rows[:kept] + self.tail if kept else []) + ["", note]


def fit(parts: list[_Part], order: list[int], budget: int) -> str:
    """The parts joined, cutting rows of the parts in `order` (least needed
    first) until the text is at most `budget` bytes (UTF-8: never fewer than
    GitHub's characters), or nothing is left to cut."""
    def text() -> str:
        return "\n".join(line for part in parts for line in part.lines(budget)) + "\n"

    for index in order:
        if len(text().encode()) <= budget:
            break
        part, low, high = parts[index], 0, len(parts[index].rows)
        while low < high:  # the most rows that fit
            part.shown = (low + high + 1) // 2
            low, high = (part.shown, high) if len(text().encode()) <= budget else (low, part.shown - 1)
        part.shown = low
    return text()


def render_markdown(result: Comparison, gate: Verdict, budget: int = MARKDOWN_BYTES) -> str:
    """-o markdown, for a pull request's comment: a heading naming the two
    snapshots, the profile and the verdict; the summary table; one row per
    cause, most severe first, at its files and lines; wins on the name order
    alone; then, folded, each query and its causes, the changes that changed
    no selection and those selection does not read. Every value from the
    manifests is a code span (`code`); at most `budget` bytes (`fit`)."""
    counts = summary(result)
    names = [s.name for s in result.snapshots] if result.labels == ("before", "after") else list(result.labels)
    head = [f"### ome-asp compare: {code(names[0], False)} → {code(names[1], False)} · profile "
            f"{code(result.profile, False)} · {'fail' if gate.failing else 'pass'}", "", gate.text(), "",
            f"| {result.noun} | count |", "|---|---:|"]
    head += [f"| {KIND_TEXT[kind]} | {counts[kind]} |" for kind in CHANGE_KINDS]
    head += [f"| keep their answer | {counts['unchanged']} |", f"| **total** | **{result.queries}** |"]
    parts = [_Part(head, [], [], "")]
    groups = by_cause(result.items)
    if groups:
        parts.append(_Part(["", "| what it did | cause | where |", "|---|---|---|"],
                           [_cause_row(group) for group in groups], [], "causes"))
        weak = [(item, why) for item in result.items if (why := fragile(item)) is not None]
        if weak:
            parts.append(_Part(["", "**Fragile**: the name order alone (O4) decides these selections; a rename or "
                                "one more copied field changes them:", ""],
                               [f"- {code(_header(item.query)[10:], False)}: {code(why, False)}" for item, why in weak],
                               [], "fragile selections"))
        details = [one_line(line) for group in groups
                   for line in (_group_text(group, result.labels) if len(group) > 1 else _item_text(group[0], result.labels))]
        # a fence longer than any run of backticks in the manifests' values, so none ends it
        fence = "`" * max([3] + [len(run) + 1 for line in details for run in re.findall("`+", line)])
        parts.append(_Part(["", "<details><summary>Details: each query and its causes</summary>", "", fence], details,
                           [fence, "", "</details>"], "lines of details"))
    found = idle(result)
    if found:
        parts.append(_Part(["", f"<details><summary>Changes read by selection that changed no selection: "
                            f"{idle_summary(found, result.noun)}</summary>", "",
                            "| object | change | now | where |", "|---|---|---|---|"],
                           [f"| {code(diffing.object_text(e.object))} | {_idle_change(e)} | {e.text()} | "
                            f"{_places(e.edits)} |" for e in found], ["", "</details>"], "objects"))
    if result.ignored:
        count = len(result.ignored)
        parts.append(_Part(["", f"<details><summary>{count} change{'s' * (count != 1)} selection does not read</summary>",
                            "", "| object kind | field | changes | objects |", "|---|---|---:|---:|"],
                           [f"| {kind} | {code(top)} | {changes} | {objects} |"
                            for kind, top, changes, objects in ignored_counts(result)], ["", "</details>"], "fields"))
    return fit(parts, [n for what in _CUT_FIRST for n, part in enumerate(parts) if part.what == what], budget)


# What --max-bytes cuts first: the folded details, then the lists, the causes last.
_CUT_FIRST = ("lines of details", "objects", "fields", "fragile selections", "causes")


def _cause_row(group: list[Item]) -> str:
    """| what it did (and to which queries) | the cause | where: each edit's file and line |"""
    cause, what = group_title(group).rsplit(f" {GROUP_ARROW} ", 1)
    names = [code(item.query.model or item.query.isvc or "") for item in group]
    listed = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    edits = [edit for cause_set in group[0].causes for edit in cause_set if isinstance(edit, Change)]
    return f"| {what}: {listed} | {code(cause)} | {_places(edits)} |"


def _places(edits: list[Change]) -> str:
    """Each edit's file and line (a list's entries each), one a line in the cell."""
    return "<br>".join(code(place) for place in dict.fromkeys(str(p) for edit in edits for p in places(edit))) or "—"


def places(edit: Any) -> list[Place]:
    """Where an edit is written, the line a reviewer opens: a list's entries
    each, else the change's own; none for a profile setting or an input
    without lines."""
    if not isinstance(edit, Change):
        return []
    return [place for place in ([edit.place] if not edit.parts else [part[3] for part in edit.parts]) if place is not None]


def _idle_change(entry: Idle) -> str:
    if entry.change != "changed":
        return entry.change
    return "<br>".join(code(line) for edit in entry.edits for line in edit.lines())


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
    if item.rejected:
        lines.append(f"  (under Go's order, profiles.md 3.3: the search proposed {item.rejected} candidate "
                     f"set{'s' * (item.rejected > 1)} that Go's order rejected when selected again; its goal keeps every "
                     "set that can work under that order, so none smaller works)")
    for number, cause in enumerate(item.causes, 1):
        size = len(cause)
        unit = "edit" if labels == ("before", "after") else "setting"
        lines.append(f"  Set {number} of {count} ({size} {unit}{'s' * (size > 1)}):")
        for k, edit in enumerate(cause, 1):
            lines += edit_lines(edit, f"    {k}. ")
    return lines


def edit_lines(edit: Any, lead: str) -> list[str]:
    """An edit at its file and line (`FILE:LINE: Kind name: path: from → to`);
    a list's entries a line each, under their object."""
    if not isinstance(edit, Change) or (edit.place is None and not edit.parts):
        return [lead + edit.describe()]
    if not edit.parts:
        return [f"{lead}{edit.place}: {edit.describe()}"]
    indent = " " * (len(lead) + 2)
    return [f"{lead}{diffing.object_text(edit.object)}:"] + [
        f"{indent}{'' if place is None else f'{place}: '}{text}" for (_, _, _, place), text in zip(edit.parts, edit.lines())]


def show_optimum(result: Comparison, output: str, stdout: TextIO) -> None:
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
