"""admit's answer, rendered: each declared runtime's verdict (its denial
message, reasons.admission_text's) in I10's order, and the AdmissionReport
(README, "admit"); admit and serve render them alike."""

from __future__ import annotations

from ome_asp.render import reasons, report
from ome_asp.solver.answer import Answer
from ome_asp.solver.facts import Facts


def verdicts(facts: Facts, answer: Answer) -> list[tuple]:
    """(runtime, denial message or None) for every declared runtime, in I10's order."""
    return [
        (
            runtime,
            None if runtime not in answer.denied
            else reasons.admission_text(answer.denied[runtime], runtime, answer.unknown_classes.get(runtime, [])),
        )
        for runtime in sorted(facts.runtimes.values(), key=report.runtime_sort_key)
    ]


def document(verdicts: list[tuple]) -> dict:
    """The AdmissionReport (README, "admit")."""
    denied = sum(1 for _, message in verdicts if message is not None)
    return {
        "apiVersion": report.API_VERSION,
        "kind": "AdmissionReport",
        "items": [
            {**report.runtime_json(runtime), "allowed": message is None, "message": message}
            for runtime, message in verdicts
        ],
        "allowed": len(verdicts) - denied,
        "denied": denied,
    }
