"""compare's result and how every output shows it: the queries whose
answers differ (`Item`, `Comparison`: what analysis/compare.py finds), the
text report, the pull request's markdown and the JSON/YAML document
(`ComparisonReport`), beside explain's (report.py)."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import TextIO

from ome_asp.input import changes as diffing
from ome_asp.input.changes import Change
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


# What happened to a query's selection, for grouping, summaries and --fail-on.
CHANGE_KINDS = ("moved", "lost", "gained", "changed")


def change_kind(item: Item) -> str:
    """moved: another runtime is selected; lost: a runtime was selected, none
    is now (no runtime, an error or an outcome); gained: the reverse;
    changed: an error or outcome became another."""
    old, new = state(item.before), state(item.after)
    had, has = old[0] == "selected" and old[1] is not None, new[0] == "selected" and new[1] is not None
    return "moved" if had and has else "lost" if had else "gained" if has else "changed"


def by_cause(items: list[Item]) -> list[list[Item]]:
    """The items grouped by their causes (the same smallest edit sets, or the
    same reason none was searched), largest group first, then in query order:
    a catalog change that moves many models is read once (issue 25)."""
    groups: dict[tuple, list[Item]] = {}
    for item in items:
        key = (item.note, tuple(tuple(c.describe() for c in cause) for cause in item.causes))
        groups.setdefault(key, []).append(item)
    return sorted(groups.values(), key=lambda group: -len(group))


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
            "rejected": item.rejected,  # candidate sets Go's order rejected before the causes (code-v0.1.5, issue 36)
            "proven": item.proven,  # false: the search stopped after its rejections, no cause found (issue 36)
            "change": change_kind(item),
        })
    document = {"apiVersion": report.API_VERSION, "kind": "ComparisonReport", "profile": result.profile,
                "compared": list(result.labels), "items": items, "unchanged": len(result.unchanged)}
    if listed:
        document["unchangedQueries"] = [
            {"query": _query_json(q, a), "selected": _runtime_json(first(a))}
            for q, a in result.unchanged]
    document["changes"] = [c.json() for c in result.changes]
    document["ignoredChanges"] = [_ignored_json(raw) for raw in result.ignored]
    document["summary"] = summary(result)
    position = {id(item): n for n, item in enumerate(result.items)}
    document["groups"] = [{"title": group_title(group), "items": [position[id(item)] for item in group]}
                          for group in by_cause(result.items)]
    document["ignoredCounts"] = [{"kind": kind, "field": top, "changes": changes, "objects": objects}
                                 for kind, top, changes, objects in ignored_counts(result)]
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


def render_text(result: Comparison, listed: bool, show_ignored: bool = False) -> str:
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
        lines += [f"  {_header(q)[2:]}: {_answer_text(a)}" for q, a in result.unchanged]
    lines += _ignored_text(result, show_ignored)
    return "\n".join(lines) + "\n"


def _item_text(item: Item, labels: tuple[str, str]) -> list[str]:
    """One query's comparison in full: its answers, what decides, the rows that changed, the causes."""
    lines = ["", _header(item.query),
             f"Selected: {_answer_text(item.before)} ({labels[0]}) → {_answer_text(item.after)} ({labels[1]})"]
    decided = decided_by(item, _earlier(labels))
    if decided is not None:
        lines.append(f"{'Decided by' if decided[0].startswith('O') else 'Why:'} {decided[1]}")
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
        lines.append(f"  {_header(item.query)[10:]}: {_answer_text(item.before)} → {_answer_text(item.after)}"
                     + ("" if decided is None else f" ({decided[1]})"))
    rows = rows_changed(group[0])
    if rows and all(rows_changed(item) == rows for item in group[1:]):  # one runtime's change, seen by each query
        lines.append(f"Rows that changed (for each of the {len(group)}):")
        lines += [f"  {ref}: {x} → {y}" for ref, x, y in rows]
    return lines + _causes_text(group[0], labels)


def render_markdown(result: Comparison) -> str:
    """-o markdown, for a pull request's comment: the summary table first,
    one row per cause, each cause's queries and the ignored changes folded."""
    counts = summary(result)
    lines = [f"### ome-asp compare: {result.labels[0]} → {result.labels[1]}", "",
             f"| {result.noun} | count |", "|---|---:|"]
    lines += [f"| {KIND_TEXT[kind]} | {counts[kind]} |" for kind in CHANGE_KINDS]
    lines += [f"| keep their answer | {counts['unchanged']} |", f"| **total** | **{result.queries}** |"]
    groups = by_cause(result.items)
    if groups:
        lines += ["", "| cause | what it did |", "|---|---|"]
        lines += [f"| {' | '.join(_cell(part) for part in title.rsplit(f' {GROUP_ARROW} ', 1))} |"
                  for title in map(group_title, groups)]
        details = [line for group in groups
                   for line in (_group_text(group, result.labels) if len(group) > 1 else _item_text(group[0], result.labels))]
        # a fence longer than any run of backticks in the manifests' values, so none ends it
        fence = "`" * max([3] + [len(run) + 1 for line in details for run in re.findall("`+", line)])
        lines += ["", "<details><summary>Details: each query and its causes</summary>", "", fence, *details, fence, "",
                  "</details>"]
    if result.ignored:
        count = len(result.ignored)
        lines += ["", f"<details><summary>{count} change{'s' * (count != 1)} selection does not read</summary>", "",
                  "| object kind | field | changes | objects |", "|---|---|---:|---:|"]
        lines += [f"| {kind} | `{_cell(top)}` | {changes} | {objects} |"
                  for kind, top, changes, objects in ignored_counts(result)]
        lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    """Text for a markdown table cell: one line, pipes and HTML escaped (values are the manifests')."""
    return html.escape(text, quote=False).replace("|", "\\|").replace("\n", " ")


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
        lines += [f"    {k}. {edit.describe()}" for k, edit in enumerate(cause, 1)]
    return lines


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
