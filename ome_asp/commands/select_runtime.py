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

from ome_asp.commands import batch
from ome_asp.commands.explain import print_outcome, warn_denied
from ome_asp.commands.options import load_cluster, name_argument
from ome_asp.errors import Exit, UsageError
from ome_asp.input import profiles
from ome_asp.render import reasons, report
from ome_asp.solver import ask, gosort
from ome_asp.solver.answer import QueryAnswer, outcome_detail
from ome_asp.solver.facts import Query
from ome_asp.solver.programs import Variant


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
    batch.add_jobs_flag(parser, "--all: answer the InferenceServices")
    parser.add_argument("-o", "--output", choices=("text", "json", "yaml"), default="text")
    parser.set_defaults(run=run)
    return parser


def run(args, stdin, stdout: TextIO, stderr: TextIO) -> int:
    if sum((args.model is not None, args.isvc is not None, args.all)) != 1:
        raise UsageError("exactly one of --model, --isvc or --all is required")
    cluster = load_cluster(args, stdin, stderr)
    if args.all:
        queries = [Query(namespace=i.namespace, isvc=i.name) for i in cluster.inference_services]
        return _run_batch(args, cluster, queries, stdout, stderr)
    query = Query(namespace=args.namespace, model=args.model, isvc=args.isvc)
    result = ask.ask(cluster, [query], Variant.SELECT).answer
    notes = report.notes_json(cluster.warnings, warn_denied(result, stderr))
    selection = Selection(query, result.queries[1], cluster.profile.name, notes)
    if selection.error is not None:
        raise UsageError(selection.error)
    if selection.ended is not None:  # profiles.md section 0: the same report for every command
        return print_outcome(args.output, selection.document(), stdout, stderr)
    if args.output != "text":
        report.dump(selection.document(), args.output, stdout)
    else:
        stdout.write(selection.text_output(stderr))
    return Exit.OK if selection.outcome.used is not None else Exit.NEGATIVE


def _run_batch(args, cluster, queries: list[Query], stdout: TextIO, stderr: TextIO) -> int:
    """--all: the queries in chunks over -j processes (ome_asp.commands.batch),
    as explain --all-models: exit 1 when any query uses no runtime (or has an
    error), else 3 when any ends with an outcome."""
    facts = ask.cluster_facts(cluster, queries)  # the cluster's, once: the forked workers share them
    output, profile = args.output, cluster.profile.name

    def work(chunk: list[tuple[int, Query]]) -> batch.Chunk:
        result = ask.ask(facts, [q for _, q in chunk], Variant.SELECT).answer
        stderr = io.StringIO()
        if batch.is_first(chunk):  # the cluster's warnings, once
            warn_denied(result, stderr)
        notes = report.notes_json(cluster.warnings, report.denials(result))
        selections = [Selection(query, result.queries[n], profile, notes) for n, (_, query) in enumerate(chunk, 1)]
        text = "".join(_batch_piece(output, i == 0, s, stderr) for (i, _), s in zip(chunk, selections))
        codes = frozenset(
            Exit.NEGATIVE if s.ended is None and s.outcome.used is None else Exit.OUTCOME if s.ended is not None
            else Exit.OK for s in selections
        )
        return batch.Chunk(text, stderr.getvalue(), codes, result.stats)

    return batch.answer(work, list(enumerate(queries)), args.jobs or batch.default_jobs(), output, stdout, stderr)[0]


def _batch_piece(output: str, first: bool, selection: Selection, stderr: TextIO) -> str:
    """A query's part of --all: its report as a List's item, or its text
    section headed by the equivalent single command (after a blank line)."""
    if output != "text":
        return report.list_item(output, selection.document(), first)
    query = selection.query
    return ("" if first else "\n") + f"# select --isvc {query.isvc} -n {query.namespace}\n{selection.text_output(stderr, named=True)}"


def ended_by(answer: QueryAnswer) -> tuple[str, str] | None:
    """The outcome without a table that ends this selection: Z3's where
    selection reaches it (select_outcome/3), or an auto-selection whose Go
    order is unspecified (code-v0.1.5), unless selection stops before it
    ranks (M2, M3) or does not rank (a named runtime, X7)."""
    outcome = answer.outcome
    if outcome.ended is not None:
        return outcome_detail(*outcome.ended)
    ranks = not outcome.explicit and outcome.failure is None
    if answer.ended is not None and answer.ended[0] == gosort.ORDER_UNSPECIFIED and ranks:
        return answer.ended
    return None


class Selection:
    """One answer of select, rendered: every text of the outcome."""

    def __init__(self, query: Query, answer: QueryAnswer, profile: str = profiles.DEFAULT, notes: dict = report.NO_NOTES) -> None:
        self.query, self.answer, self.outcome, self.profile = query, answer, answer.outcome, profile
        self.notes = notes
        outcome = self.outcome
        # an InferenceService that select cannot answer for (a usage error alone; --all reports it)
        self.error = None if outcome.error is None else reasons.outcome_text(outcome.error)
        self.ended = None if outcome.error is not None else ended_by(answer)
        self.message = None if outcome.failure is None else self.text(outcome.failure)
        self.warnings = [self.text(w) for w in outcome.warnings]
        self.denial = None if outcome.admission_denial is None else self.text(outcome.admission_denial)

    def text(self, term) -> str:
        used = self.outcome.used
        details = self.answer.verdicts[used].format_details if used in self.answer.verdicts else None
        no_runtime = report.no_runtime_message(self.answer, self.query.namespace) if self.answer.label is not None else None
        return reasons.outcome_text(term, details, no_runtime)

    def text_output(self, stderr: TextIO, named: bool = False) -> str:
        """stdout of the text output; the warnings go to stderr as kubectl prints
        them, each naming its InferenceService when several are answered (`named`,
        select --all: issue 16)."""
        if self.error is not None:
            return f"error: {self.error}\n"
        if self.ended is not None:
            return "error: outcome {}: {}\n".format(*self.ended)
        prefix = f"InferenceService {self.query.namespace}/{self.query.isvc}: " if named else ""
        for warning in self.warnings:
            print(f"Warning: {prefix}{warning}", file=stderr)
        if self.outcome.used is not None:
            return f"{self.outcome.used}\n"
        denial = "" if self.denial is None else reasons.isvc_denial(self.denial) + "\n"
        return f"{self.message}\n{denial}"

    def document(self) -> dict:
        """The RuntimeSelection report (README, "select"); with --all, an InferenceService
        select cannot answer for has `error` instead of the outcome."""
        if self.error is not None:
            return {"apiVersion": report.API_VERSION, "kind": "RuntimeSelection", "profile": self.profile,
                    "query": self.query_json(), "selected": None, "error": self.error}
        if self.ended is not None:
            return report.outcome_json(self.query_json(), self.ended, self.profile, self.notes)
        outcome = self.outcome
        condition = None
        if outcome.condition is not None:
            status, reason, message = outcome.condition
            condition = {
                "type": "RuntimeReady",
                "status": "True" if status else "False",
                "reason": reasons.event_reason(reason),
                "message": None if message.match(reasons.NONE, 0) else self.text(message),
            }
        return {
            "apiVersion": report.API_VERSION,
            "kind": "RuntimeSelection",
            "profile": self.profile,
            "query": self.query_json(),
            "explicit": outcome.explicit,
            "selected": None if outcome.used is None else report.runtime_json(outcome.used),
            "message": self.message,
            "warnings": self.warnings,
            "admission": {
                "path": outcome.admission_path,
                "allowed": outcome.admission_denial is None,
                "warnings": [self.text(w) for w in outcome.admission_warnings],
                "denial": self.denial,
            },
            "condition": condition,
            "events": [
                {"type": "Warning", "reason": reasons.event_reason(reason), "message": self.text(message)}
                for reason, message in outcome.events
            ],
            # `warnings` is the webhook's (above); the `warning:` lines of stderr are these (issue 16, D-63)
            "inputWarnings": self.notes["warnings"],
            "denied": self.notes["denied"],
        }

    def query_json(self) -> dict:
        """explain's `query`: the model is spec.model.name (null without spec.model, M6)."""
        if self.query.isvc is None:
            return {"namespace": self.query.namespace, "model": self.query.model}
        return {"namespace": self.query.namespace, "isvc": self.query.isvc, "model": self.outcome.model_name}
