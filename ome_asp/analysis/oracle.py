"""Each command's `-o json` report of an answer, and cases answered together:
what serve answers (ome_asp/commands/serve.py, docs/oracle.md) and what check
and diff compare with the corpus (ome_asp/conformance/cases.py).

`answer_worlds` grounds the cases of each command (explain, select, admit)
together, one world each (ome_asp/solver/worlds.py, through solver/ask.py),
and gives each case its report or the error the command line prints.
"""

from __future__ import annotations

from ome_asp.errors import OmeAspError
from ome_asp.input import profiles
from ome_asp.input.objects import Cluster, Query
from ome_asp.render import admission_report, reasons, report
from ome_asp.render.selection import Selection
from ome_asp.solver import ask
from ome_asp.solver.answer import Answer, QueryAnswer
from ome_asp.solver.facts import Facts
from ome_asp.solver.programs import Variant


def answer_worlds(cases: list[tuple[str, Cluster, Query | None, profiles.Profile]]) -> list[dict]:
    """{"report": ...} or {"error": ...} of each (command, cluster, query,
    profile), as `ome-asp <command> -o json` reports it; the cases of each
    command grounded together, one world each."""
    answers: list[dict] = [{} for _ in cases]
    for command in REPORTS:
        chosen = [i for i, case in enumerate(cases) if case[0] == command]
        if not chosen:
            continue
        batch = [(cases[i][1], [] if cases[i][2] is None else [cases[i][2]]) for i in chosen]
        for i, run in zip(chosen, ask.ask_worlds(batch, VARIANTS[command])):
            _, _, query, profile = cases[i]
            try:
                answers[i] = REPORTS[command](query, run.answer, profile, run.facts, cases[i][1])
            except OmeAspError as error:
                answers[i] = error_answer(error)
    return answers


def error_answer(error: OmeAspError) -> dict:
    """{"error": ...}: the text the command prints after `error: `, and the
    `hint` it prints under it where it has one (a "did you mean", issue 24)."""
    return {"error": str(error), **({} if error.hint is None else {"hint": error.hint})}


def explain_report(query: Query, answer: Answer | QueryAnswer, profile: profiles.Profile, facts=None,
                   cluster: Cluster | None = None, notes: dict | None = None, stand_in: bool = False) -> dict:
    """explain -o json's report, or the error explain prints (with the
    cluster, a misspelt name's hint); `notes` (the report's warnings and
    denied) default to an Answer's denials. `stand_in`: the answer is that of
    a name the cluster lacks too (reasons.query_error, D-321)."""
    if notes is None:
        notes = report.notes_json([], report.denials(answer))
    answer = answer.queries[1] if isinstance(answer, Answer) else answer
    asked = (query.model if query.model is not None else query.isvc) if stand_in else None
    reasons.check_single_answer(answer, cluster, query.namespace, asked)
    if answer.ended is not None:
        return {"report": report.outcome_json(report.query_json(query, answer), answer.ended, profile.name, notes)}
    return {"report": report.explain_json(query, answer, profile.name, notes=notes)}


def select_report(query: Query, answer: Answer, profile: profiles.Profile, facts=None, cluster: Cluster | None = None) -> dict:
    """select -o json's report (an outcome's report too), or the error select prints (with its hint)."""
    return selection_report(query, answer.queries[1], profile, report.notes_json([], report.denials(answer)), cluster)


def selection_report(query: Query, answer: QueryAnswer, profile: profiles.Profile, notes: dict,
                     cluster: Cluster | None = None) -> dict:
    """select_report of one query's answer, with the report's warnings and denied (`notes`)."""
    selection = Selection(query, answer, profile.name, notes)
    if selection.error is not None:
        error = OmeAspError(selection.error)
        error.hint = None if cluster is None else reasons.did_you_mean(selection.outcome.error, cluster, query.namespace)
        raise error
    return {"report": selection.document()}


def admit_report(query, answer: Answer, profile: profiles.Profile, facts: Facts, cluster=None) -> dict:
    """admit -o json's AdmissionReport."""
    return {"report": admission_report.document(admission_report.verdicts(facts, answer))}


REPORTS = {"explain": explain_report, "select": select_report, "admit": admit_report}
VARIANTS = {"explain": Variant.EXPLAIN, "select": Variant.SELECT, "admit": Variant.ADMIT}
