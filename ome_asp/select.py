"""`ome-asp select`: the runtime OME uses for a model or an InferenceService,
or why it uses none, and where OME says so (spec O5, O8, O9, M2-M4, M6, X1-X7).

    ome-asp select (--model NAME | --isvc NAME) [-n NS] -f PATH... [-o text|json|yaml]

The one-query selection program (its #minimize optimum is proved unique) with
encoding/outcome.lp decides everything: the runtime used, the failure, the
X6 advisory, the admission path, the denial, the warnings, the RuntimeReady
condition and the events. This module renders those terms (ome_asp/reasons.py)
and prints them.

Text: stdout is the runtime used (`<Kind> <ns>/<name>`, exit 0) or the
failure message, followed, when the InferenceService admission webhook would
deny it, by kubectl's denial line (exit 1); stderr gets the loader and I9
warnings, then each warning as kubectl shows admission warnings (`Warning:
...`). Usage and input errors (bad flags, manifests, InferenceService not
found) exit 2, an internal error 3.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from . import engine, gosort, profiles, reasons, report
from .errors import UsageError
from .facts import Query, build_facts

EXIT_SELECTED = 0
EXIT_NONE = 1  # the normal negative result: no runtime is used


def add_parser(commands, common) -> argparse.ArgumentParser:
    """Register `select` on the CLI's subcommands; `common` adds the shared input flags."""
    parser = commands.add_parser(
        "select",
        help="the runtime OME uses for a model or an InferenceService, or why none",
        description="What OME does: auto-select a runtime, or use the one spec.runtime.name names "
        "(with the advisory when it does not declare the model); where the result surfaces.",
    )
    target = parser.add_argument_group("target (exactly one)")
    target.add_argument("--model", metavar="NAME", help="a model, as an InferenceService naming only it would get")
    target.add_argument("--isvc", metavar="NAME", help="an InferenceService of the namespace")
    common(parser)
    parser.add_argument("-o", "--output", choices=("text", "json", "yaml"), default="text")
    parser.set_defaults(run=run)
    return parser


def run(args, stdin, stdout: TextIO, stderr: TextIO) -> int:
    from .cli import _dump, _warn_denied, load_cluster, print_outcome  # cli imports this module

    if (args.model is None) == (args.isvc is None):
        raise UsageError("exactly one of --model or --isvc is required")
    cluster = load_cluster(args, stdin, stderr)
    query = Query(namespace=args.namespace, model=args.model, isvc=args.isvc)
    facts = build_facts(cluster, [query])
    args.facts = facts.program  # for the reproduction of an internal error (diagnostics)
    result = engine.solve(facts, 1, outcome=True)
    _warn_denied(result, stderr)
    answer = result.queries[1]
    outcome = answer.outcome
    if outcome.error is not None:
        raise UsageError(reasons.outcome_text(outcome.error))
    ended = ended_by(answer)
    if ended is not None:  # profiles.md section 0: the same report for every command
        document = report.outcome_json(Selection(query, answer).query_json(), ended, cluster.profile.name)
        return print_outcome(args.output, document, stdout, stderr)
    selection = Selection(query, answer, cluster.profile.name)

    if args.output != "text":
        _dump(selection.document(), args.output, stdout)
    else:
        for warning in selection.warnings:
            print(f"Warning: {warning}", file=stderr)
        if outcome.used is not None:
            print(outcome.used, file=stdout)
        else:
            print(selection.message, file=stdout)
            if selection.denial is not None:
                print(reasons.isvc_denial(selection.denial), file=stdout)
    return EXIT_SELECTED if outcome.used is not None else EXIT_NONE


def ended_by(answer: engine.QueryAnswer) -> tuple[str, str] | None:
    """The outcome without a table that ends this selection: Z3's where
    selection reaches it (select_outcome/3), or an auto-selection whose Go
    order is unspecified (code-v0.1.5), unless selection stops before it
    ranks (M2, M3) or does not rank (a named runtime, X7)."""
    outcome = answer.outcome
    if outcome.ended is not None:
        return engine.outcome_detail(*outcome.ended)
    ranks = not outcome.explicit and outcome.failure is None
    if answer.ended is not None and answer.ended[0] == gosort.ORDER_UNSPECIFIED and ranks:
        return answer.ended
    return None


class Selection:
    """One answer of select, rendered: every text of the outcome."""

    def __init__(self, query: Query, answer: engine.QueryAnswer, profile: str = profiles.DEFAULT) -> None:
        self.query, self.answer, self.outcome, self.profile = query, answer, answer.outcome, profile
        outcome = self.outcome
        self.message = None if outcome.failure is None else self.text(outcome.failure)
        self.warnings = [self.text(w) for w in outcome.warnings]
        self.denial = None if outcome.admission_denial is None else self.text(outcome.admission_denial)

    def text(self, term) -> str:
        used = self.outcome.used
        details = self.answer.verdicts[used].format_details if used in self.answer.verdicts else None
        no_runtime = report.no_runtime_message(self.answer, self.query.namespace) if self.answer.label is not None else None
        return reasons.outcome_text(term, details, no_runtime)

    def document(self) -> dict:
        """The RuntimeSelection report (README, "select")."""
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
        }

    def query_json(self) -> dict:
        """explain's `query`: the model is spec.model.name (null without spec.model, M6)."""
        if self.query.isvc is None:
            return {"namespace": self.query.namespace, "model": self.query.model}
        return {"namespace": self.query.namespace, "isvc": self.query.isvc, "model": self.outcome.model_name}
