"""select's answer, rendered (README, "select"): the texts of an outcome
(the runtime used or the failure, warnings, the RuntimeReady condition,
events) as select prints them and as the RuntimeSelection report holds them;
select, serve and steer render a selection alike."""

from __future__ import annotations

from typing import TextIO

from ome_asp.input import profiles
from ome_asp.input.objects import Query
from ome_asp.render import reasons, report
from ome_asp.solver import gosort
from ome_asp.solver.answer import QueryAnswer, outcome_detail


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

    def __init__(self, query: Query, answer: QueryAnswer, profile: str = profiles.DEFAULT, notes: dict = report.NO_NOTES,
                 cluster=None) -> None:
        self.query, self.answer, self.outcome, self.profile = query, answer, answer.outcome, profile
        self.notes = notes
        # a `hint:` line under the text (with the cluster: a misspelt spec.runtime.name, issue 36)
        self.hint = None if cluster is None else reasons.runtime_did_you_mean(answer.outcome.failure, cluster)
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
        if self.hint is not None:
            print(f"hint: {prefix}{self.hint}", file=stderr)
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
