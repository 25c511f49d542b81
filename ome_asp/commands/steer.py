"""`ome-asp steer`: the smallest edits that make a wanted runtime the selected one.

The search is ome_asp/analysis/steer.py (its vocabulary, D-65, D-66); this
module reads the flags, runs it and renders the result: text, YAML/JSON,
`kubectl patch` commands (-o patch) or the edited objects (-o manifests); with
--write it has ome_asp/input/gitops.py edit the user's files in place, reads
them back and selects again.
"""

from __future__ import annotations

import argparse
import io
import json
import shlex

from ome_asp.analysis.edits import select_again
from ome_asp.analysis.steer import OWN, QUIRKS, Edit, EditSet, Ended, SteerResult, steer
from ome_asp.commands.options import (
    add_explain_targets,
    add_overlay_flag,
    jobs_count,
    load_cluster,
    print_denied,
    print_outcome,
)
from ome_asp.errors import Exit, InternalError, OmeAspError, UsageError
from ome_asp.input import gitops
from ome_asp.input.documents import quote
from ome_asp.input.documents import shown as shown_name
from ome_asp.input.loader import closest_in_reach
from ome_asp.input.objects import (
    CLUSTER_SERVING_RUNTIME,
    INFERENCE_SERVICE,
    SERVING_RUNTIME,
    Cluster,
    Query,
    RuntimeRef,
    Source,
)
from ome_asp.render import report
from ome_asp.solver import gosort
from ome_asp.solver.answer import QueryAnswer
from ome_asp.solver.programs import Variant


def resolve_want(cluster: Cluster, namespace: str, want: str) -> RuntimeRef:
    """--want NAME, ServingRuntime/NAME or ClusterServingRuntime/NAME."""
    kind, _, name = want.rpartition("/")
    if kind not in ("", SERVING_RUNTIME, CLUSTER_SERVING_RUNTIME):
        raise OmeAspError(f"--want: {kind!r} is not ServingRuntime or ClusterServingRuntime")
    found = [RuntimeRef(r.kind, r.namespace, r.name) for r in cluster.runtimes
             if r.name == name and r.kind in ((kind,) if kind else (SERVING_RUNTIME, CLUSTER_SERVING_RUNTIME))
             and r.namespace in (None, namespace)]
    if not found:
        close = closest_in_reach(name, cluster.runtimes, namespace)
        raise OmeAspError(f"--want: no runtime {want!r} is a candidate in namespace {namespace!r}"
                          + ("" if close is None else f"; did you mean {quote(close)}?"))
    if len(found) > 1:
        raise OmeAspError(f"--want: {name!r} names a ServingRuntime and a ClusterServingRuntime; "
                          f"write ServingRuntime/{name} or ClusterServingRuntime/{name}")
    return found[0]


# --- presenting a result -----------------------------------------------------


def render_text(result: SteerResult) -> str:
    """The edit sets as a readable list, each followed by the verified ranking."""
    want, query = result.want, result.query
    target = f"model {query.model}" if query.model is not None else f"InferenceService {query.isvc}"
    lines = [f"Want: {want} selected for {target} in namespace {query.namespace}."]
    if result.blockers:
        names = ", ".join(str(b) for b in result.blockers)
        lines.append(f"{names} comes before every ClusterServingRuntime in {query.namespace} whatever the score (O1), "
                     f"so only disabling it lets {want.name} win; other ways: name {want.name} in the InferenceService's "
                     f"spec.runtime.name, or create a ServingRuntime copy of {want.name} in {query.namespace}.")
    if result.denial is not None and result.edit_sets:
        lines.append(f"The admission webhook denies {want.name} as written ({result.denial}, I9): "
                     "each edit set below admits it too.")
    if not result.edit_sets:
        lines.append(f"Impossible: no {'robust ' if result.robust else ''}edit set makes {want.name} win, because")
        lines += [f"  {reason}" for reason in result.impossible]
        return "\n".join(lines + _other_sets_text(result) + _alternatives_text(result)) + "\n"
    if result.named is not None:
        lines.append(f"The InferenceService names {result.named} in spec.runtime.name: OME uses that runtime "
                     "whatever the ranking (X1), so the edit is the name.")
    if not result.edit_sets[0].edits:
        lines.append(f"{want.name} already {'is used' if result.named else 'ranks first'}: no edit is needed.")
    elif result.robust and result.quirks:
        lines.append(f"Robust edit sets (--robust): {want.name} wins on {_robust_basis(result)}; every such set needs "
                     f"a quirk edit ({QUIRKS}): each below has {result.quirks}.")
    elif result.robust:
        lines.append(f"Robust edit sets (--robust): {want.name} wins on {_robust_basis(result)}, and quirk edits (a weight "
                     "of 0, S3; an entry without a side) come only where nothing else works.")
    elif result.no_robust is not None:
        lines.append(f"No robust edit set: {result.no_robust}; the cheapest overall leads.")
    if result.rejected:
        lines.append(f"Smallest under Go's order (profiles.md 3.3): the search proposed {result.rejected} candidate "
                     f"set{'s' * (result.rejected > 1)} that Go's order rejected when selected again; its goal keeps "
                     "every set that can work under that order, so none smaller works.")
    lines += _sets_text(result, result.edit_sets, "Edit set")
    return "\n".join(lines + _other_sets_text(result) + _alternatives_text(result)) + "\n"


def _robust_basis(result: SteerResult) -> str:
    """What a robust set wins on (D-99); under Go's order also never the fetch order (D-261)."""
    return "scope, score or size distance, not on its name (O4)" + (
        " nor on Go's fetch order (a distance difference below one parameter, profiles.md 3.3)" if result.go_order else "")


def _other_sets_text(result: SteerResult) -> list[str]:
    """The other search's cheapest set, apart (D-99); also where --robust found none (D-124)."""
    if not result.other_sets:
        return []
    lines = ["", "Cheapest overall, not robust (--no-robust):" if result.robust else
             f"Cheapest robust set (--robust): it wins on {_robust_basis(result)}:"]
    return lines + _sets_text(result, result.other_sets, "Other set")


_ALTERNATIVE = {"disable": "Disable the runtimes ranked before {}", "pin": "Pin {} in the InferenceService's spec.runtime.name (X1)"}


def _alternatives_text(result: SteerResult) -> list[str]:
    """The disable and pin alternatives, each selected again, with what they
    cost (issue 24); a cost the reasons above state already (--own isvc: the
    pin is the InferenceService's edit, its failure one of them) is not repeated."""
    if not result.alternatives:
        return []
    lines = ["", "Alternatives (each selected again on the edited manifests):"]
    for alternative in result.alternatives:
        lines.append(f"  {_ALTERNATIVE[alternative.kind].format(result.want.name)}: "
                     + ("works" if alternative.works else "does not do it") + f" ({len(alternative.edits)} edit"
                     + ("s" if len(alternative.edits) != 1 else "") + ")")
        lines += [f"    - {edit.describe()}" for edit in alternative.edits]
        lines += [f"    costs: {cost}" for cost in alternative.leaves if cost not in result.impossible]
    return lines


def _sets_text(result: SteerResult, edit_sets: list[EditSet], title: str) -> list[str]:
    """Each set's edits and the ranking selected again on the edited manifests;
    a set that relies on a quirk says so in its heading (issue 24)."""
    from ome_asp.render.report import explain_table

    lines = []
    for number, edit_set in enumerate(edit_sets, 1):
        if not edit_set.edits:
            continue
        count = len(edit_set.edits)
        notes = [] if result.pinned else win_notes(edit_set.answer, result.want, result.go_order)
        lines += ["", f"{title} {number} of {len(edit_sets)} ({count} edit{'s' if count > 1 else ''}"
                  + (", relies on a quirk" if notes else "") + "):"]
        lines += [f"  {k}. {edit.describe()}" for k, edit in enumerate(edit_set.edits, 1)]
        if result.pinned:
            lines += ["", f"Used after {title.lower()} {number} (selected again on the edited manifests): {edit_set.answer.outcome.used}"]
            continue
        lines += ["", f"Ranking after {title.lower()} {number} (selected again on the edited manifests):"]
        lines.append(explain_table(edit_set.answer).rstrip("\n"))
        lines += [f"Note: {note}" for note in notes]
        lines += [f"select still reports: {left}" for left in edit_set.left]
    return lines


def to_document(result: SteerResult) -> dict:
    """The result for -o yaml/json: each edit set as edits and as JSON patches per object."""
    def ref(r: RuntimeRef) -> dict:
        return {"kind": r.kind, "namespace": r.namespace, "name": r.name}

    def sets(edit_sets: list[EditSet]) -> list[dict]:
        return [set_document(edit_set) for edit_set in edit_sets]

    def set_document(edit_set: EditSet) -> dict:
        return {
            "edits": [{"object": ref(e.runtime), "path": e.path, "from": e.old, "to": e.new} for e in edit_set.edits],
            "patches": [{"object": ref(r), "type": kind, "patch": patch} for r, kind, patch in _patches(edit_set)],
            "rankingAfter": [ref(r) for r in edit_set.answer.ranking],
            # the runtime OME uses after the edits: the first of the ranking, or the named one (X1)
            "selectedAfter": ref(edit_set.answer.outcome.used if result.pinned else edit_set.answer.ranking[0]),
            "notes": [] if result.pinned else win_notes(edit_set.answer, result.want, result.go_order),
            "left": edit_set.left,  # select's warnings, advisories, denial and events after the edits (issue 24)
        }

    query = {"namespace": result.query.namespace}
    query.update({"model": result.query.model} if result.query.model is not None else {"isvc": result.query.isvc})
    return {
        "apiVersion": "ome-asp/v1alpha1",
        "kind": "SteerResult",
        "query": query,
        "want": ref(result.want),
        "blockedBy": [ref(b) for b in result.blockers],
        "editSets": sets(result.edit_sets),
        "robust": result.robust,  # editSets win on scope, score or distance, quirk edits last (issue 24)
        "quirkEdits": result.quirks,  # robust editSets rely on this many quirk edits: none exists without (issue 36)
        "rejected": result.rejected,  # candidate sets Go's order rejected before editSets (code-v0.1.5, issue 36)
        "proven": result.proven,  # false: no set found, the search stopped after its rejections (not proven impossible)
        "noRobustSet": result.no_robust,  # why the cheapest overall leads by default (issue 36), or null
        # the other search's cheapest set: overall when editSets are robust, else robust
        "otherEditSets": sets(result.other_sets),
        "impossible": result.impossible or None,
        "alternatives": [{"kind": a.kind, "works": a.works, "costs": a.leaves,
                          "edits": [{"object": ref(e.runtime), "path": e.path, "from": e.old, "to": e.new} for e in a.edits]}
                         for a in result.alternatives],
        "deniedBefore": result.denial,  # the webhook's message for the wanted runtime as written (I9), or null
    }


def _patches(edit_set: EditSet) -> list[tuple[RuntimeRef, str, list[dict] | dict]]:
    """The edit set as patches per object, in the set's order: RFC 6902
    operations (type json), and for the fields whose maps may be absent one
    RFC 7386 document (type merge, Edit.merge): the InferenceService's, a
    runtime's acceleratorClasses and mode annotations (a runtime may need both)."""
    by_object: dict[tuple[RuntimeRef, bool], list[Edit]] = {}
    for edit in edit_set.edits:
        by_object.setdefault((edit.runtime, edit.merge), []).append(edit)
    patches: list[tuple[RuntimeRef, str, list[dict] | dict]] = []
    for (obj, merge), edits in by_object.items():
        if merge:
            document: dict = {}
            for e in edits:
                _deep_merge(document, e.merge_patch())
            patches.append((obj, "merge", document))
        else:
            patches.append((obj, "json", [e.json_patch() for e in edits]))
    return patches


def _deep_merge(into: dict, document: dict) -> None:
    for key, value in document.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _deep_merge(into[key], value)
        else:
            into[key] = value


RESOURCES = {SERVING_RUNTIME: "servingruntimes.ome.io", CLUSTER_SERVING_RUNTIME: "clusterservingruntimes.ome.io",
             INFERENCE_SERVICE: "inferenceservices.ome.io"}


def render_patch(result: SteerResult) -> str:
    """-o patch: each edit set as `kubectl patch` commands ready to paste (issue 16)."""
    lines = [f"# impossible: {reason}" for reason in result.impossible]
    numbered = [(f"edit set {n} of {len(result.edit_sets)}", s) for n, s in enumerate(result.edit_sets, 1)]
    numbered += [(("cheapest overall, not robust" if result.robust else "cheapest robust set") + f" {n} of {len(result.other_sets)}", s)
                 for n, s in enumerate(result.other_sets, 1)]
    for heading, edit_set in numbered:
        lines.append(f"# {heading}" + ("" if edit_set.edits else ": no edit is needed"))
        for obj, kind, patch in _patches(edit_set):
            # Nothing user-derived where kubectl reads a flag (issue 28): the
            # namespace inside --namespace=, the object after `--`.
            namespace = [f"--namespace={obj.namespace}"] if obj.namespace is not None else []
            lines.append(shlex.join(["kubectl", "patch", *namespace, f"--type={kind}",
                                     "-p", json.dumps(patch, separators=(",", ":")), "--", f"{RESOURCES[obj.kind]}/{obj.name}"]))
    return "\n".join(lines) + "\n"


def object_patches(cluster: Cluster, edit_set: EditSet) -> list[tuple[Source, dict, str, list[dict] | dict]]:
    """Each patch of an edit set with the object's place and document as read
    (-o manifests, --write)."""
    objects = {RuntimeRef(r.kind, r.namespace, r.name): r.source for r in cluster.runtimes}
    objects.update((RuntimeRef(INFERENCE_SERVICE, i.namespace, i.name), i.source) for i in cluster.inference_services)
    return [(objects[ref], cluster.contents[(ref.kind, ref.namespace, ref.name)], kind, patch)
            for ref, kind, patch in _patches(edit_set)]


def write_edits(args, stdin, cluster: Cluster, result: SteerResult, number: int, stderr) -> None:
    """--write: edit set `number` into the files its objects were read from
    (ome_asp/input/gitops.py), then the manifests read again as the flags
    read them and selected again: the wanted runtime must be used, else an
    internal error naming the files (they stay written, for a look)."""
    edit_set = result.edit_sets[number - 1]
    if not edit_set.edits:
        print(f"--write: {result.want.name} already wins: no file changed", file=stderr)
        return
    files, warnings = gitops.write([(source, kind, patch) for source, _, kind, patch in object_patches(cluster, edit_set)])
    for warning in warnings:
        print(f"warning: {warning}", file=stderr)
    again = load_cluster(args, stdin, io.StringIO())  # its warnings were printed for the first reading
    used = select_again([(again, [result.query])], Variant.SELECT)[0][0].outcome.used
    named = ", ".join(shown_name(file, cut=False) for file in files)
    if used != result.want:
        raise InternalError(f"--write: after edit set {number} written to {named}, OME uses {used or 'no runtime'}, "
                            f"not {result.want}")
    count = len(edit_set.edits)
    print(f"wrote edit set {number} ({count} edit{'s' if count > 1 else ''}) to {named}; "
          f"read back and selected again: {used}", file=stderr)


def win_notes(answer: QueryAnswer, want: RuntimeRef, go_order: bool = False) -> list[str]:
    """Why the wanted runtime wins where the reason is easy to miss (issue 16):
    only the name tie-break (O4) puts it before the runtime after it (under
    Go's order: the fetch order, before any score or distance does), or its
    score counts a stored weight of 0 as 10 / 5 (S3)."""
    notes = []
    verdict = answer.verdicts[want]
    after = answer.ranking[1] if len(answer.ranking) > 1 else None
    if go_order:
        if not gosort.wins_without_names(answer, want):
            notes.append(f"{shown_name(want.name)} comes first on Go's fetch order alone (a newer creationTimestamp, then "
                         "the name; profiles.md 3.3): no score or distance difference of one parameter or more puts it "
                         "before the runtimes of its kind; a rename or a re-creation would change the winner")
    elif after is not None and after.namespaced == want.namespaced:
        other = answer.verdicts[after]
        if (other.score, other.distance) == (verdict.score, verdict.distance):
            notes.append(f"{shown_name(want.name)} comes before {shown_name(after.name)} on the name tie-break alone (O4): the same score "
                         f"{verdict.score} and distance; a rename would change the winner")
    readings = {reading for _, _, *sides in verdict.scoring for reading in sides}
    if readings & {"ten", "five"}:
        notes.append(f"{shown_name(want.name)}'s score {verdict.score} counts a stored weight of 0 as "
                     + " and ".join(t for r, t in (("ten", "10 (format)"), ("five", "5 (framework)")) if r in readings)
                     + " (S3): setting a weight of 1 would lower it")
    return notes


# --- the command line ---------------------------------------------------------


def add_parser(commands, common) -> None:
    """Register `steer` on the CLI's subcommands; `common` adds the shared flags."""
    parser = commands.add_parser(
        "steer",
        help="the smallest edits to the manifests that make a runtime the selected one",
        description="Compute minimal edit sets that make RUNTIME win, and verify each by selecting again.",
    )
    add_explain_targets(parser)
    parser.add_argument("--want", required=True, metavar="RUNTIME",
                        help="the runtime to make win: NAME, ServingRuntime/NAME or ClusterServingRuntime/NAME")
    parser.add_argument("-o", "--output", choices=("text", "yaml", "json", "patch", "manifests"), default="text",
                        help="patch: each edit set as kubectl patch commands; manifests: the objects edit set N "
                             "(--edit-set) changes, as YAML documents")
    parser.add_argument("--write", action="store_true",
                        help="edit the files the objects were read from (-f) in place with edit set N: only the "
                             "fields it changes, comments and formatting kept; then read them back and select again")
    parser.add_argument("--edit-set", type=jobs_count, default=1, metavar="N",
                        help="the edit set -o manifests and --write use (default: 1, the first listed)")
    parser.add_argument("--show", choices=("opt",),
                        help="opt: the optimum of the search (steer.lp's criteria and their values) instead of the edit sets")
    parser.add_argument("--robust", action=argparse.BooleanOptionalAction, default=None,
                        help="the runtime must win on scope, score or size distance, not its name (O4), quirk edits "
                             "(a weight of 0, S3) last; default: on where such a set without quirk edits exists; "
                             "the other search's cheapest set is shown after them")
    parser.add_argument("--own", choices=OWN, default="all",
                        help="the objects steer may change: the wanted runtime, the InferenceService (its accelerator classes and "
                             "deployment-mode annotations, else its spec.runtime), or all (default)")
    common(parser)
    add_overlay_flag(parser)
    parser.set_defaults(run=run)


def show_opt(result: SteerResult, output: str, stdout) -> None:
    """--show opt: steer.lp's optimum, its criteria and their values (every
    edit set steer reports is an optimum), instead of the edit sets."""
    if output in ("json", "yaml"):
        report.dump(report.optimum_json("steer.lp", result.optimum), output, stdout)
    elif result.optimum:
        stdout.write(report.optimum_text("steer.lp", result.optimum))
    else:
        stdout.write("No optimum: " + ("the InferenceService names the runtime (X1), no search decides.\n" if result.pinned
                                      else "no edit set of the candidates makes the runtime win.\n"))


def run(args, stdin, stdout, stderr) -> int:
    if (args.model is None) == (args.isvc is None):
        raise UsageError("exactly one of --model or --isvc is required")
    if args.write and args.show is not None:
        raise UsageError("--write writes an edit set: leave out --show")
    cluster = load_cluster(args, stdin, stderr)
    query = Query(args.namespace, model=args.model, isvc=args.isvc)
    try:
        result = steer(cluster, query, resolve_want(cluster, args.namespace, args.want), args.own, args.robust)
    except Ended as ended:
        answer, notes = ended.answer, report.notes_json(cluster.warnings, print_denied(ended.denied, stderr))
        document = report.outcome_json(report.query_json(query, answer), answer.ended, cluster.profile.name, notes)
        return print_outcome(args.output, document, stdout, stderr)
    print_denied(result.denied, stderr)
    if result.edit_sets and args.edit_set > len(result.edit_sets):
        raise UsageError(f"--edit-set {args.edit_set}: steer found {len(result.edit_sets)} edit "
                         f"set{'s' if len(result.edit_sets) > 1 else ''}")
    if args.show == "opt":
        show_opt(result, args.output, stdout)
    elif args.output == "text":
        stdout.write(render_text(result))
    elif args.output == "patch":
        stdout.write(render_patch(result))
    elif args.output == "manifests":
        chosen = object_patches(cluster, result.edit_sets[args.edit_set - 1]) if result.edit_sets else []
        stdout.write(gitops.manifests([(content, kind, patch) for _, content, kind, patch in chosen]))
    else:
        report.dump({**to_document(result), **report.notes_json(cluster.warnings, result.denied)}, args.output, stdout)
    if args.write and result.edit_sets:
        write_edits(args, stdin, cluster, result, args.edit_set, stderr)
    return Exit.OK if result.edit_sets else Exit.NEGATIVE
