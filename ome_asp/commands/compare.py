"""`ome-asp compare`: what a change to the cluster, or another OME version,
does to every selection, and which edit caused it (issue 15).

    ome-asp compare (--before PATH... | --before-k DIR | --before-from-cluster) (--after ... likewise) TARGET [-n NS] [-o ...]
    ome-asp compare --git REV1..REV2 (-f PATH | -k DIR)... TARGET
    ome-asp compare (-f PATH... | -k DIR | --from-cluster) (--profiles A,B | --ome-versions X,Y) TARGET
    TARGET: --model NAME | --isvc NAME | --all-models | --all

Each snapshot is read by explain's readers (commands/options.py); a flag
this mode does not read is a usage error, never ignored (issue 25).

Before/after: both snapshots are selected as explain selects them; for each
query whose selected runtime differs, the rows that changed, the criterion
that now decides between the old and the new winner, and the cause: the
smallest sets of the field changes between the snapshots that, applied alone
to the earlier one, already give the later selection. The sets are found by
the solver (encoding/compare.lp over encoding/edits.lp, which steer shares:
an optimization over which changes to apply) and each is verified by
selecting again on the earlier manifests plus the set
(ome_asp/analysis/compare.py is the search; this module reads the flags and
renders the result).

Profiles: the same manifests under two profiles; for each query that
differs, the profile settings (docs/profiles.md's switch and settings rows)
that alone turn the first profile's answer into the second's, each verified
by selecting under a profile that differs from the first in those settings
only (the settings act before, inside and after the encoding, so this search
is by re-selection, not by the solver).

Exit codes: 0 no selection changed (with --fail-on: none of that kind), 1
some changed, 2 usage or input error.
"""

from __future__ import annotations

import argparse
import contextlib
import html
import io
import os
import re
import tarfile
import tempfile
from typing import TextIO

from ome_asp.analysis.compare import (
    CHANGE_KINDS,
    Comparison,
    Item,
    by_cause,
    change_kind,
    compare_snapshots,
    compared,
    first,
    profile_settings,
    setting_causes,
    state,
)
from ome_asp.commands.options import add_explain_targets, load_cluster, source_inputs
from ome_asp.errors import Exit, InputError, OmeAspError, UsageError
from ome_asp.input import changes as diffing
from ome_asp.input import profiles
from ome_asp.input.documents import shown
from ome_asp.input.loader import KUSTOMIZATION_FILES, STDIN, load
from ome_asp.input.objects import Cluster, Query, RuntimeRef
from ome_asp.render import reasons, report
from ome_asp.solver.answer import QueryAnswer

CRITERIA = {  # rank_key's positions (encoding/ordering.lp), as explain -v and the spec name them
    0: ("O1", "namespaced first"), 1: ("O2", "higher score"), 2: ("O3", "smaller distance"), 3: ("O4", "name order"),
}


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



def compare_profiles(args, stdin, pair: tuple[profiles.Profile, profiles.Profile], stderr: TextIO) -> Comparison:
    a, b = pair
    inputs = source_inputs(args)  # -k and --from-cluster read once, loaded under each profile
    if STDIN in args.filename:  # read once, then under each profile
        stdin = io.BytesIO(stdin.read())

    def under(profile: profiles.Profile) -> Cluster:
        if isinstance(stdin, io.BytesIO):
            stdin.seek(0)
        return load(args.filename, stdin=stdin, strict=args.strict, max_bytes=args.max_input_size, profile=profile,
                    sources=inputs)

    first_cluster, second_cluster = under(a), under(b)
    for label, cluster in ((a.name, first_cluster), (b.name, second_cluster)):
        _warn(label, cluster.warnings, stderr)
        _check_contents(label, cluster, args.allow_empty, stderr)
    queries, noun = queries_of([first_cluster, second_cluster], args.namespace, args)
    items, unchanged = compared((first_cluster, second_cluster), queries)
    _check_found(args, unchanged)
    setting_causes(under, a, profile_settings(a, b), items)
    return Comparison((a.name, b.name), items, unchanged, len(queries), noun, [], [], f"{a.name},{b.name}")


# --- the snapshots ------------------------------------------------------------------

# The flags that give one side's snapshot (before/after mode).
SIDE_FLAGS = ("before", "after", "before_k", "after_k", "before_from_cluster", "after_from_cluster")


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def check_mode(args, pair) -> None:
    """Every flag given is one this mode reads (issue 25: an ignored -k
    compared nothing and said nothing changed)."""
    sides = [_flag(d) for d in SIDE_FLAGS if getattr(args, d)]
    if pair is not None or args.git is not None:
        mode = "--git" if pair is None else "--profiles/--ome-versions"
        if pair is not None and args.git is not None:
            raise UsageError("--git and --profiles/--ome-versions cannot be combined")
        if sides:
            raise UsageError(f"{sides[0]}: {mode} reads both snapshots from -f/-k; --before and --after do not apply")
        if not (args.filename or args.kustomize or (pair is not None and args.from_cluster)):
            raise UsageError(f"no input: {mode} needs -f PATH or -k DIR" + (" or --from-cluster" if pair else ""))
        if args.git is not None and (args.from_cluster or args.context or args.kubeconfig or args.request_timeout):
            raise UsageError("--from-cluster, --context, --kubeconfig and --request-timeout: --git reads both "
                             "snapshots from the repository, no cluster")
        if args.show_ignored and pair is not None:
            raise UsageError("--show-ignored: profiles compare one set of manifests, no field changes")
        return
    for flag, value, instead in (("-f", args.filename, "--before PATH/--after PATH"),
                                 ("-k", args.kustomize, "--before-k DIR/--after-k DIR"),
                                 ("--from-cluster", args.from_cluster, "--before-from-cluster/--after-from-cluster")):
        if value:
            raise UsageError(f"{flag} applies to --profiles/--ome-versions and --git; give each snapshot with {instead}")
    for side in ("before", "after"):
        if not any(getattr(args, f"{side}{suffix}") for suffix in ("", "_k", "_from_cluster")):
            raise UsageError(f"no {side} snapshot: compare needs --{side} PATH..., --{side}-k DIR or "
                             f"--{side}-from-cluster (or -f PATH... with --profiles A,B, or --git REV1..REV2)")
    if STDIN in args.before and STDIN in args.after:
        raise UsageError("- (stdin) can be one snapshot only")
    if (args.context or args.kubeconfig or args.request_timeout) and not (args.before_from_cluster or args.after_from_cluster):
        raise UsageError("--context, --kubeconfig and --request-timeout need --before-from-cluster or --after-from-cluster")


def side_args(args, paths: list[str], kustomizations: list[str], from_cluster: bool) -> argparse.Namespace:
    """The flags of one snapshot, as explain would be given them (so the
    snapshot is read by explain's readers): a path holding a kustomization
    is read as -k."""
    held = [p for p in paths if p != STDIN and os.path.isdir(p)
            and any(os.path.isfile(os.path.join(p, name)) for name in KUSTOMIZATION_FILES)]
    cluster = {} if from_cluster else {"context": None, "kubeconfig": None, "request_timeout": None}
    return argparse.Namespace(**{**vars(args), "filename": [p for p in paths if p not in held],
                                 "kustomize": kustomizations + held, "from_cluster": from_cluster, **cluster})


def load_side(label: str, args, stdin, stderr: TextIO, tree: str | None = None) -> Cluster:
    """One snapshot, read by explain's readers; its warnings named by the
    side. `tree`: the temporary directory of a git revision, named in
    messages as `REV:` (as `git show REV:PATH` names a file)."""
    captured = io.StringIO()
    try:
        cluster = load_cluster(args, stdin, captured)
    except OmeAspError as error:
        if tree is None:
            raise
        raise type(error)(str(error).replace(tree, f"{label}:")) from None
    lines = [line.removeprefix("warning: ") for line in captured.getvalue().splitlines()]
    _warn(label, [line if tree is None else line.replace(tree, f"{label}:") for line in lines], stderr)
    _check_contents(label, cluster, args.allow_empty, stderr)
    return cluster


def _warn(label: str, warnings: list[str], stderr: TextIO) -> None:
    for warning in warnings:
        print(f"warning: {label}: {warning}", file=stderr)


def _check_contents(label: str, cluster: Cluster, allow_empty: bool, stderr: TextIO) -> None:
    """A snapshot without runtimes or models compares nothing: an error, or
    with --allow-empty a warning (a catalog deleted on purpose)."""
    missing = [what for what, present in (("runtimes", cluster.runtimes), ("models", cluster.models)) if not present]
    if not missing:
        return
    message = f"the {label} snapshot has no {' and no '.join(missing)}"
    if not allow_empty:
        raise InputError(f"{message}; check its paths, or pass --allow-empty to compare it anyway")
    print(f"warning: {message}: every answer on that side is 'no runtime' (--allow-empty)", file=stderr)


def _check_found(args, unchanged: list[tuple[Query, QueryAnswer]]) -> None:
    """--model/--isvc that neither snapshot has: explain's error (an answer
    that is the same error on both sides is the error, not 'unchanged')."""
    if (args.model is not None or args.isvc is not None) and unchanged:
        reasons.check_single_answer(unchanged[0][1])


@contextlib.contextmanager
def snapshots(args, stdin, stderr: TextIO):
    """(before, after) of --before/--after/-k/--from-cluster, or of --git's
    two revisions (their files written to a temporary directory: no
    checkout, the working tree untouched)."""
    if args.git is None:
        before = load_side("before", side_args(args, args.before, args.before_k, args.before_from_cluster), stdin, stderr)
        after = load_side("after", side_args(args, args.after, args.after_k, args.after_from_cluster), stdin, stderr)
        yield before, after
        return
    revisions = args.git.split("..")
    if len(revisions) != 2 or not all(revisions):
        raise UsageError(f"--git: expected REV1..REV2, found {shown(args.git)}")
    if STDIN in args.filename:
        raise UsageError("--git: -f names files of the repository; - (stdin) does not apply")
    from ome_asp.input import sources  # git's runner, imported only when asked for (as -k's, issue 26)

    bounds = sources.Bounds(args.max_input_size, args.kubectl_timeout)
    with tempfile.TemporaryDirectory(prefix="ome-asp-git-") as top:
        clusters = []
        for n, revision in enumerate(revisions):
            prefix, tar = sources.git_tree(revision, bounds)
            root = os.path.join(top, str(n))
            with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
                archive.extractall(root, filter="data")
            where = os.path.join(root, prefix)
            paths = [_inside(root, where, p) for p in args.filename]
            kustomizations = [_inside(root, where, d) for d in args.kustomize]
            clusters.append(load_side(revision, side_args(args, paths, kustomizations, False), stdin, stderr,
                                      root + os.sep))
        yield clusters[0], clusters[1]


def _inside(root: str, where: str, path: str) -> str:
    """A -f/-k path of --git, relative to the working directory, in the revision's tree."""
    target = os.path.normpath(os.path.join(where, path))
    if os.path.isabs(path) or os.path.commonpath([target, root]) != root:
        raise UsageError(f"--git: {shown(path)} is not a path inside the repository")
    return target


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
            "change": change_kind(item),
        })
    document = {"apiVersion": report.API_VERSION, "kind": "ComparisonReport", "profile": result.profile,
                "compared": list(result.labels), "items": items, "unchanged": len(result.unchanged)}
    if listed:
        document["unchangedQueries"] = [
            {"query": _query_json(q, a), "selected": None if first(a) is None else report.runtime_json(first(a))}
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
        cause = "no cause searched"
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
    sides = parser.add_argument_group("the two snapshots (each read as explain reads -f, -k and --from-cluster)")
    sides.add_argument("--before", nargs="+", action="extend", default=[], metavar="PATH",
                       help="the earlier manifests: files, directories (one holding a kustomization.yaml is read "
                       "as -k), or - (stdin, one side only)")
    sides.add_argument("--after", nargs="+", action="extend", default=[], metavar="PATH", help="the later manifests, as --before")
    sides.add_argument("--before-k", action="append", default=[], metavar="DIR", help="the earlier snapshot's kustomization")
    sides.add_argument("--after-k", action="append", default=[], metavar="DIR", help="the later snapshot's kustomization")
    sides.add_argument("--before-from-cluster", action="store_true",
                       help="the earlier snapshot is the live cluster (kubectl get; --context, --kubeconfig apply)")
    sides.add_argument("--after-from-cluster", action="store_true", help="the later snapshot is the live cluster")
    sides.add_argument("--git", metavar="REV1..REV2",
                       help="both snapshots from this git repository at two revisions, without a checkout: "
                       "-f PATH and -k DIR name its files (relative to the working directory)")
    sides.add_argument("--allow-empty", action="store_true",
                       help="compare a snapshot without runtimes or models (else an error), with a warning")
    parser.add_argument("--profiles", metavar="A,B", help="compare -f's manifests under two profiles")
    parser.add_argument("--ome-versions", metavar="X,Y", help="compare -f's manifests under two OME releases' profiles")
    parser.add_argument("-o", "--output", choices=("table", "json", "yaml", "markdown"), default="table",
                        help="markdown: for a pull request's comment (a summary table, details folded)")
    parser.add_argument("--fail-on", choices=("moved", "lost", "any"),
                        help="exit 1 only when some selection moved to another runtime (moved), some lost its "
                        "runtime (lost), or anything changed (any, the default); else 0")
    parser.add_argument("--show", choices=("opt",),
                        help="opt: the optimum of the causes' search (compare.lp's criteria and their values) "
                        "for each query whose selection changed, instead of the comparison")
    parser.add_argument("--show-ignored", action="store_true",
                        help="list each change selection does not read (default: their counts by object and field)")
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
    check_mode(args, pair)
    if args.show_ignored and args.output != "table":
        raise UsageError(f"--show-ignored: -o {args.output} " + ("lists every ignored change (ignoredChanges)"
                         if args.output != "markdown" else "counts them; -o json lists them"))
    if args.show == "opt" and (args.output == "markdown" or args.fail_on is not None):
        raise UsageError("--show opt prints the causes' optimum: -o markdown and --fail-on do not apply")
    if pair is not None:
        if args.profile is not None or args.ome_version is not None:
            raise UsageError("--profile/--ome-version cannot be combined with --profiles/--ome-versions")
        if args.show == "opt":
            raise UsageError("--show opt: a comparison of profiles optimises nothing (each setting is tried); "
                             "compare --before/--after searches the smallest causes (compare.lp)")
        result = compare_profiles(args, stdin, pair, stderr)
    else:
        Query(args.namespace, args.model, args.isvc)  # the names asked about, checked before any input is read
        with snapshots(args, stdin, stderr) as (before, after):
            queries, noun = queries_of([before, after], args.namespace, args)
            result = compare_snapshots(before, after, queries, noun)
        _check_found(args, result.unchanged)
    if args.show == "opt":
        return _show_opt(result, args.output, stdout)
    if args.output == "table":
        stdout.write(render_text(result, args.all, args.show_ignored))
    elif args.output == "markdown":
        stdout.write(render_markdown(result))
    else:
        report.dump(to_document(result, args.all), args.output, stdout)
    failing = {change_kind(item) for item in result.items} & set(CHANGE_KINDS if args.fail_on in (None, "any") else [args.fail_on])
    return Exit.NEGATIVE if failing else Exit.OK
