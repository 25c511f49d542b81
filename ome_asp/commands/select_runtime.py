"""`ome-asp select`: the runtime OME uses for a model or an InferenceService,
or why it uses none, and where OME says so (spec O5, O8, O9, M2-M4, M6, X1-X7).

    ome-asp select (--model NAME | --isvc NAME | --all) [-n NS] -f PATH... [-o text|json|yaml]

The one-query selection program (its #minimize optimum is proved unique) with
encoding/outcome.lp decides everything: the runtime used, the failure, the
X6 advisory, the admission path, the denial, the warnings, the RuntimeReady
condition and the events. This module renders those terms (ome_asp/render/reasons.py)
and prints them.

Text: stdout is the runtime used (`<Kind> <ns>/<name>`, exit 0) or the
failure message, followed, when the InferenceService admission webhook would
deny it, by kubectl's denial line (exit 1); stderr gets the loader and I9
warnings, then each warning as kubectl shows admission warnings (`Warning:
...`). Usage and input errors (bad flags, manifests, InferenceService not
found) exit 2, an internal error 3.

`--all` answers for every InferenceService of the input, each in its own
namespace, in one grounding (winner.lp instead of the #minimize statements):
text sections headed by the equivalent single command, or a `List` of
RuntimeSelection reports; exit 1 when any of them uses no runtime.
"""

from __future__ import annotations

import argparse
import io
from typing import TextIO

from ome_asp.analysis import batch
from ome_asp.commands.options import (
    add_jobs_flag,
    add_output_flags,
    add_overlay_flag,
    add_selection_flags,
    kubectl_view,
    load_cluster,
    name_argument,
    print_denied,
    print_outcome,
    selected_by,
    warn_denied,
)
from ome_asp.errors import Exit, UsageError
from ome_asp.input.objects import Query
from ome_asp.render import kubectl, reasons, report
from ome_asp.render.selection import Selection
from ome_asp.solver import ask
from ome_asp.solver.programs import Variant
from ome_asp.solver.sight import Sight


def add_parser(commands, common) -> argparse.ArgumentParser:
    """Register `select` on the CLI's subcommands; `common` adds the shared input flags."""
    parser = commands.add_parser(
        "select",
        help="the runtime OME uses for a model or an InferenceService, or why none",
        description="What OME does: auto-select a runtime, or use the one spec.runtime.name names "
        "(with the advisory when it does not declare the model); where the result surfaces.",
    )
    target = parser.add_argument_group("target (exactly one)")
    target.add_argument("--model", metavar="NAME", type=name_argument, help="a model, as an InferenceService naming only it would get")
    target.add_argument("--isvc", metavar="NAME", type=name_argument, help="an InferenceService of the namespace")
    target.add_argument("--all", action="store_true", help="every InferenceService of the input, each in its namespace, in one run")
    common(parser)
    add_overlay_flag(parser)
    add_selection_flags(parser, "--all", "InferenceServices")
    add_jobs_flag(parser, "--all: answer the InferenceServices")
    add_output_flags(parser, ("text", "json", "yaml"))
    parser.set_defaults(run=run)
    return parser


def run(args, stdin, stdout: TextIO, stderr: TextIO) -> int:
    if sum((args.model is not None, args.isvc is not None, args.all)) != 1:
        raise UsageError("exactly one of --model, --isvc or --all is required")
    selected_by(args, args.all)
    if kubectl.is_format(args.output):
        return kubectl_view(_select, args, stdin, stdout, stderr)
    return _select(args, stdin, stdout, stderr)


def _select(args, stdin, stdout: TextIO, stderr: TextIO) -> int:
    cluster = load_cluster(args, stdin, stderr)
    if args.all:  # every namespace's, -A or not; -l: those whose labels it selects (D-283)
        queries = [Query(namespace=i.namespace, isvc=i.name) for i in cluster.inference_services
                   if args.selector is None or args.selector(i.labels)]
        return _run_batch(args, cluster, queries, stdout, stderr)
    query = Query(namespace=args.namespace, model=args.model, isvc=args.isvc)
    result = ask.ask(cluster, [query], Variant.SELECT).answer
    notes = report.notes_json(cluster.warnings, warn_denied(result, stderr))
    selection = Selection(query, result.queries[1], cluster.profile.name, notes, cluster)
    if selection.error is not None:
        error = UsageError(selection.error)
        error.hint = reasons.did_you_mean(selection.outcome.error, cluster, query.namespace)
        raise error
    if selection.ended is not None:  # docs/profiles.md section 0: the same report for every command
        return print_outcome(args.output, selection.document(), stdout, stderr)
    if args.output != "text":
        report.dump(selection.document(), args.output, stdout)
    else:
        stdout.write(selection.text_output(stderr))
    return Exit.OK if selection.outcome.used is not None else Exit.NEGATIVE


def _run_batch(args, cluster, queries: list[Query], stdout: TextIO, stderr: TextIO) -> int:
    """--all: the queries in chunks over -j processes (ome_asp.analysis.batch),
    as explain --all-models: exit 1 when any query uses no runtime (or has an
    error), else 3 when any ends with an outcome."""
    jobs = args.jobs or batch.default_jobs()
    parts, sight = batch.cut(queries, jobs), Sight(cluster)
    before = batch.unseen_denials(sight, parts)  # once: each chunk reads only its namespaces (D-120)
    output, profile = args.output, cluster.profile.name

    def work(chunk: list[tuple[int, Query]]) -> batch.Chunk:
        part = [q for _, q in chunk]
        result = ask.ask(sight.part(part), part, Variant.SELECT).answer
        stderr = io.StringIO()
        denied = batch.denials(before, result)
        if batch.is_first(chunk):  # the cluster's warnings, once
            print_denied(denied, stderr)
        notes = report.notes_json(cluster.warnings, denied)
        selections = [Selection(query, result.queries[n], profile, notes, cluster) for n, (_, query) in enumerate(chunk, 1)]
        pieces = [_batch_piece(output, i == 0, s, stderr) for (i, _), s in zip(chunk, selections)]
        codes = frozenset(
            Exit.NEGATIVE if s.ended is None and s.outcome.used is None else Exit.OUTCOME if s.ended is not None
            else Exit.OK for s in selections
        )
        return batch.Chunk(pieces, stderr.getvalue(), codes, result.stats)

    return batch.answer(work, parts, jobs, output, stdout, stderr)[0]


def _batch_piece(output: str, first: bool, selection: Selection, stderr: TextIO) -> str:
    """A query's part of --all: its report as a List's item, or its text
    section headed by the equivalent single command (after a blank line)."""
    if output != "text":
        return report.list_item(output, selection.document(), first)
    query = selection.query
    return ("" if first else "\n") + f"# select --isvc {query.isvc} -n {query.namespace}\n{selection.text_output(stderr, named=True)}"
