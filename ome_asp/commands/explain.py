"""`ome-asp explain`: the runtimes for a model in the order OME ranks them,
and why the others do not qualify (spec E1–E18).

    ome-asp explain (--model NAME | --isvc NAME | --all-models) [-n NS] -f PATH... [-o table|wide|json|yaml] [-v]

Output streams and exit codes follow spec E2: results on stdout, notes and
warnings on stderr, `error: <message>` on stderr with exit code 1.
"""

from __future__ import annotations

import io
import time
from typing import TextIO

from ome_asp import __version__
from ome_asp.commands.options import (
    add_explain_targets,
    add_input_flags,
    add_jobs_flag,
    add_output_flags,
    add_overlay_flag,
    add_selection_flags,
    kubectl_view,
    load_cluster,
    print_denied,
    print_outcome,
    profile_of,
    selected_by,
    warn_denied,
)
from ome_asp.errors import Exit, UsageError
from ome_asp.input import profiles
from ome_asp.input.documents import quote, shown
from ome_asp.input.loader import closest
from ome_asp.input.objects import Query, RuntimeRef
from ome_asp.render import kubectl, reasons, report
from ome_asp.solver import ask
from ome_asp.solver.answer import Answer, QueryAnswer
from ome_asp.solver.programs import Variant
from ome_asp.solver.sight import Sight
from ome_asp.timing import Phases, gc_paused

NO_RUNTIMES = "No serving runtimes found in the selected namespace or at cluster scope."  # E6


def add_parser(commands) -> None:
    explain = commands.add_parser(
        "explain",
        help="list the runtimes for a model in the order OME ranks them, and why the others do not qualify",
        description="Like `kubectl ome runtime explain`, evaluated on manifests instead of a live cluster.",
    )
    target = add_explain_targets(explain)
    target.add_argument(
        "--all-models", action="store_true",
        help="every model in the input, in one run: each BaseModel in its namespace, each ClusterBaseModel in -n's",
    )
    add_input_flags(explain)
    add_overlay_flag(explain)
    add_selection_flags(explain, "--all-models", "models")
    add_output_flags(explain, ("table", "wide", "json", "yaml", "junit", "sarif", "github"),
                     "junit, sarif, github (--all-models): a check per model (served by a runtime) and per runtime "
                     "the admission webhook denies, for CI; exit 1 when one fails")
    explain.add_argument(
        "--show", choices=("facts", "opt"),
        help="instead of the result, facts: the facts of this run as a logic program "
        "(replay: python -m clingo FACTS.lp encoding/main.lp); opt: the optimum's criteria "
        "(selection.lp's levels, O1-O4) and their values",
    )
    add_jobs_flag(explain, "--all-models: answer the models")
    explain.add_argument("--timers", action="store_true", help="print the time of each phase on stderr (with -j, summed over the processes)")
    explain.add_argument("--runtime", action="append", default=[], metavar="NAME",
                         help="show only this runtime's row (why not NAME?); repeatable")
    explain.add_argument("--compatible-only", action="store_true", help="show only the Yes rows")
    explain.add_argument("--stats", action="store_true", help="print the size of the facts and the ground program on stderr")
    explain.add_argument(
        "-v", "--verbose", action="store_true",
        help="after the table, every failed check of each No row and why each Yes row ranks where it does",
    )
    explain.add_argument("--with-effective", action="store_true", help="not supported by ome-asp (needs a live cluster)")
    explain.add_argument("--ome-namespace", default="ome", help="accepted for compatibility; used only with --with-effective")
    explain.set_defaults(run=run)


def run(args, stdin, stdout: TextIO, stderr: TextIO) -> int:
    _check_explain_flags(args)
    if kubectl.is_format(args.output) and args.show != "facts":
        return kubectl_view(_explain, args, stdin, stdout, stderr)
    return _explain(args, stdin, stdout, stderr)


def _explain(args, stdin, stdout: TextIO, stderr: TextIO) -> int:
    phases = Phases()
    with phases("load"):
        cluster = load_cluster(args, stdin, stderr)
    if args.all_models:
        queries = _batch_queries(cluster, args.namespace, args.selector, args.all_namespaces)
        return _run_batch(args, cluster, queries, phases, stdout, stderr)

    query = Query(namespace=args.namespace, model=args.model, isvc=args.isvc)
    with phases("facts"):
        facts = ask.facts_for(cluster, [query])
    if args.show == "facts":
        stdout.write(_facts_header(args) + facts.program)
        return Exit.OK

    details = args.verbose and args.output in ("table", "wide")  # explain_details reads them
    result = ask.solve(facts, 1, Variant.EXPLAIN_DETAILS if details else Variant.EXPLAIN, sizes=args.stats)
    answered = result.queries[1].error is None and result.queries[1].ended is None  # else: explain's error or outcome
    if args.show == "opt" and answered:
        return _show_opt(args.output, result, cluster.profile, stdout, stderr)
    _count(result)
    phases.update(result.stats)
    notes = report.notes_json(cluster.warnings, warn_denied(result, stderr))
    keep, missing = _row_filter(args, result, cluster)
    if not cluster.profile.explain_available:  # E1-E18 of v1.2.2 and code-v0.1.5
        print(explain_note(cluster.profile), file=stderr)
    with phases("output"), gc_paused():
        code = _print_single(args.output, query, result.queries[1], stdout, stderr, cluster.profile, notes, keep, cluster,
                             args.no_headers)
        if details and result.queries[1].ended is not None:  # no ranking to detail (issue 24): the outcome's why
            stdout.write(report.outcome_details(result.queries[1].ended, cluster.profile.name))
        elif details and result.queries[1].verdicts:
            for line in report.version_warnings(result.queries[1], facts.entry_names, keep):
                print(line, file=stderr)
            runtimes = {RuntimeRef(r.kind, r.namespace, r.name): r for r in cluster.runtimes}
            isvc = next((i for i in cluster.inference_services if args.isvc is not None
                         and (i.namespace, i.name) == (args.namespace, args.isvc)), None)
            criteria = None if cluster.profile.go_sort else result.criteria  # Go's sort has no criteria
            stdout.write(report.explain_details(result.queries[1], facts.entry_names, facts.weights, keep,
                                                runtimes, isvc, criteria, frozenset(c.name for c in cluster.accelerator_classes)))
    for line in missing:
        print(line, file=stderr)
    _print_phases(args, phases, [{**result.stats, "facts": facts.program.count("\n")}], stderr)
    return max(code, Exit.ERROR) if missing else code


def _show_opt(output: str, result: Answer, profile: profiles.Profile, stdout: TextIO, stderr: TextIO) -> int:
    """--show opt (as `spack solve --show opt`): selection.lp's optimum, each
    criterion and its value: the selected runtime's rank key (ordering.lp:
    0 or 1 for the scope, ranks of exact numbers for score, distance and
    name), all 0 when nothing is selected."""
    if profile.go_sort:
        print(f"note: under {profile.name} OME orders by Go's sort (profiles.md 3.3), not by these criteria", file=stderr)
    if output in ("json", "yaml"):
        report.dump(report.optimum_json("selection.lp", result.optimum), output, stdout)
    else:
        stdout.write(report.optimum_text("selection.lp", result.optimum))
    return Exit.OK


def _print_phases(args, phases: Phases, stats: list[dict], stderr: TextIO) -> None:
    if args.timers:
        print(phases.timers_line(), file=stderr)
    if args.stats:
        print(_stats_line(stats), file=stderr)


def _run_batch(args, cluster, queries: list[Query], phases: Phases, stdout: TextIO, stderr: TextIO) -> int:
    """--all-models: the queries in chunks over -j processes (ome_asp.analysis.batch),
    one report per query: a List of reports, or table sections headed by the
    equivalent single command. A query's error is part of its report; the exit
    code is 1 when any query has one, else 3 when any query ends with an
    outcome (docs/profiles.md section 0)."""
    if args.show == "facts":
        stdout.write(_facts_header(args) + ask.facts_for(cluster, queries).program)
        return Exit.OK
    from ome_asp.analysis import batch  # a one-query explain does not need it (start-up, tests/test_cli.py)

    jobs = args.jobs or batch.default_jobs()
    sight = Sight(cluster)
    parts = batch.cut(queries, jobs, sight.candidates)
    before = batch.unseen_denials(sight, parts, sizes=args.stats)  # once: each chunk reads only its namespaces (D-120)
    output, profile = args.output, cluster.profile
    checks = output in ("junit", "sarif", "github")
    if checks:
        from ome_asp.render import ci  # only the CI formats need it (start-up)

        models, runtimes = ci.model_sources(cluster), ci.runtime_sources(cluster)

    def work(chunk: list[tuple[int, Query]]) -> batch.Chunk:
        part = [q for _, q in chunk]
        run = ask.ask(sight.part(part), part, Variant.EXPLAIN, sizes=args.stats)
        result = run.answer
        _count(result)
        started = time.perf_counter()
        stderr = io.StringIO()
        denied = batch.denials(before, result)
        if batch.is_first(chunk):  # the cluster's warnings, once
            print_denied(denied, stderr)
            if not profile.explain_available:  # E1-E18 of v1.2.2 and code-v0.1.5
                print(explain_note(profile), file=stderr)
        notes = report.notes_json(cluster.warnings, denied)
        keep, _ = _row_filter(args, result)  # no names are checked against many queries
        cache = report.RowsCache()  # E15's texts, shared by the chunk's reports
        findings: tuple = ()
        with gc_paused():
            if checks:  # the cluster's denials once, after the first chunk's models
                pieces = []
                findings = (*(ci.selection(query, result.queries[n], models) for n, (_, query) in enumerate(chunk, 1)),
                            *(ci.admission(denied, runtimes) if batch.is_first(chunk) else ()))
            else:
                pieces = [_batch_piece(output, i == 0, query, result.queries[n], profile, notes, keep, cache,
                                       args.no_headers) for n, (i, query) in enumerate(chunk, 1)]
        codes = frozenset(Exit.ERROR if a.error is not None else Exit.OUTCOME if a.ended is not None else Exit.OK
                          for a in result.queries.values())
        return batch.Chunk(pieces, stderr.getvalue(), codes,
                           {**_sized(run), "output_s": time.perf_counter() - started}, findings)

    code, stats, findings = batch.answer(work, parts, jobs, output, stdout, stderr)
    if checks:  # D-240: the CI formats fail when a check does
        stdout.write(ci.render(output, findings, ci.RULES, "ome-asp explain --all-models"))
        code = Exit.ERROR if ci.failed(findings) else code
    if before is not None:
        _count(before.answer)
        stats.append(_sized(before))
    for phase in ("facts", "ground", "solve", "decode", "output"):  # summed over the groundings (CPU time with -j > 1)
        phases[phase] = sum(s.get(f"{phase}_s", 0.0) for s in stats)
    _print_phases(args, phases, stats, stderr)
    return code


_RELEASE = {"v1.2.2": "v1.2.2", "code-v0.1.5": "v0.1.5"}  # the OME release of each profile without explain


def explain_note(profile: profiles.Profile) -> str:
    """E1-E18 of a profile without kubectl ome runtime explain (docs/profiles.md 2, 3.1)."""
    release = _RELEASE[profile.name]
    return f"Note: kubectl ome runtime explain is not available in OME {release}; this table shows {release}'s selection."


def _row_filter(args, result: Answer, cluster=None):
    """--runtime NAME... and --compatible-only as a row predicate (None: every
    row), and the error line of each --runtime name that is no candidate of a
    single query: as `kubectl get` does, the rows found are printed and each
    missing name is an error after them (issue 16), naming a ServingRuntime of
    that name in another namespace (issue 36)."""
    if not args.runtime and not args.compatible_only:
        return None, []
    missing = []
    if not args.all_models:
        answer = result.queries[1]
        candidates = {r.name for r in answer.verdicts}
        for name in dict.fromkeys(args.runtime):
            if answer.error is None and answer.ended is None and name not in candidates:
                missing.append(f"error: --runtime {name}: {_why_no_candidate(name, result, candidates, cluster, args.namespace)}")
    names = set(args.runtime)
    return (lambda row: (not names or row.runtime.name in names) and (not args.compatible_only or row.rank is not None)), missing


def _why_no_candidate(name: str, result: Answer, candidates: set[str], cluster, namespace: str) -> str:
    """Why the runtime `name` has no row: denied by admission (I9), a
    ServingRuntime of other namespaces (Q1: only the query's namespace's and
    the cluster's are candidates), or none of that name (did you mean)."""
    if any(r.name == name for r in result.denied):
        return "the admission webhook would deny it (see its warning)"
    elsewhere = sorted(r.namespace for r in (cluster.runtimes if cluster is not None else ())
                       if r.name == name and r.namespace is not None)
    if elsewhere:
        where = ", ".join(f"ServingRuntime {ns}/{shown(name)}" for ns in elsewhere)
        return (f"no candidate for a query in namespace {shown(namespace)}: {where} is a candidate only in its own "
                f"namespace (Q1); explain it there with -n {shown(elsewhere[0])}")
    close = closest(name, tuple(sorted(candidates)))
    return "no candidate runtime of that name for this query" + ("" if close is None else f"; did you mean {quote(close)}?")


def _check_explain_flags(args) -> None:
    if args.all_models and (args.model is not None or args.isvc is not None):
        raise UsageError("--all-models cannot be combined with --model or --isvc")
    # E3
    if not args.all_models and (args.model is None) == (args.isvc is None):
        raise UsageError("exactly one of --model or --isvc is required")
    if args.with_effective and args.isvc is None:
        raise UsageError("--with-effective requires --isvc")
    if args.with_effective:
        raise UsageError("--with-effective is not supported by ome-asp: it reads the live cluster's effective runtime")
    if not args.all_models and args.output in ("junit", "sarif", "github"):
        raise UsageError(f"-o {args.output} needs --all-models: a check per model")
    if args.all_models and args.show == "opt":
        raise UsageError("--show opt needs one query (--model or --isvc): --all-models ranks by the keys, optimising nothing")
    selected_by(args, args.all_models)


def _batch_queries(cluster, namespace: str, selector=None, every_namespace: bool = False) -> list[Query]:
    """--all-models: each BaseModel in its namespace, each ClusterBaseModel in
    -n's (where a BaseModel of the same name would win, M1, it is the same
    query); with -A, each ClusterBaseModel in every namespace of the input as
    well (D-283); with -l, the models whose labels it selects."""
    namespaces = {namespace}
    if every_namespace:
        namespaces |= {o.namespace for o in (*cluster.models, *cluster.runtimes, *cluster.inference_services)
                       if o.namespace is not None}
    wanted = {(ns, m.name) for m in cluster.models if selector is None or selector(m.labels)
              for ns in ([m.namespace] if m.namespace is not None else namespaces)}
    return [Query(namespace=ns, model=name) for ns, name in sorted(wanted)]


def _print_single(
    output: str, query: Query, answer: QueryAnswer, stdout: TextIO, stderr: TextIO, profile: profiles.Profile,
    notes: dict = report.NO_NOTES, keep=None, cluster=None, no_headers: bool = False,
) -> int:
    reasons.check_single_answer(answer, cluster, query.namespace)
    if answer.note is not None:
        print(reasons.text(answer.note), file=stderr)
    if answer.ended is not None:
        document = report.outcome_json(report.query_json(query, answer), answer.ended, profile.name, notes)
        return print_outcome(output, document, stdout, stderr)
    if output in ("json", "yaml"):
        report.dump(report.explain_json(query, answer, profile.name, for_json=output == "json", notes=notes, keep=keep),
                    output, stdout)
    elif not answer.verdicts:
        print(NO_RUNTIMES, file=stderr)  # E6: no candidates at all, no table
    else:
        table = report.explain_table(answer, wide=output == "wide", keep=keep, headers=not no_headers)
        stdout.write(table)
        if output == "table":
            hint = _wide_hint(table.count("\n") - (not no_headers), report.rows(answer, keep), keep is not None)
            if hint is not None:
                print(hint, file=stderr)
    return Exit.OK


SCREEN_LINES = 50  # D-97: a table longer than this no longer fits one terminal screen


def _wide_hint(lines: int, shown: list, filtered: bool) -> str | None:
    """E12 wraps RUNTIME and REASON to 80 columns: on a real catalog one model's
    table is thousands of lines where -o wide has one per runtime (issue 24).
    A hint when wrapping makes the table longer than a screen (`lines`: the
    rows' lines, without the header)."""
    if lines + 1 <= SCREEN_LINES or lines == len(shown):  # fits, or nothing wrapped
        return None
    yes = sum(row.rank is not None for row in shown)
    return (f"hint: the table wraps to {lines + 1} lines at 80 columns (E12); -o wide prints one line per runtime "
            f"({len(shown) + 1} lines)" + ("" if filtered else f", --compatible-only only the {yes} compatible") + ".")


def _batch_piece(output: str, first: bool, query: Query, answer: QueryAnswer, profile: profiles.Profile,
                 notes: dict = report.NO_NOTES, keep=None, cache: report.RowsCache | None = None,
                 no_headers: bool = False) -> str:
    """A query's part of a batch: its report as a List's item, or its table
    section headed by the equivalent single command (after a blank line);
    `cache`: what the JSON of the queries of one Answer share."""
    if output in ("json", "yaml"):
        item = (report.outcome_json(report.query_json(query, answer), answer.ended, profile.name, notes)
                if answer.ended is not None
                else report.explain_json(query, answer, profile.name, output == "json", notes, keep, cache))
        return report.list_item(output, item, first)
    header = ("" if first else "\n") + f"# explain --model {query.model} -n {query.namespace}\n"
    if answer.error is not None:
        return header + f"error: {reasons.text(answer.error)}\n"
    if answer.ended is not None:
        return header + "error: outcome {}: {}\n".format(*answer.ended)
    if not answer.verdicts:
        return header + NO_RUNTIMES + "\n"
    return header + report.explain_table(answer, wide=output == "wide", keep=keep, headers=not no_headers)


def _count(result: Answer) -> None:
    """What --stats reports of an answer besides its ground size, kept with it."""
    answers = result.queries.values()
    result.stats.update(queries=len(answers), rows=sum(len(a.verdicts) for a in answers),
                        qualifying=sum(len(a.ranking) for a in answers))


def _sized(run: ask.Run) -> dict:
    """A grounding's stats with the number of its facts, for --stats."""
    return {**run.stats, "facts": run.facts.program.count("\n")}


def _stats_line(stats: list[dict]) -> str:
    """--stats; a batch's sizes are summed over its groundings: its chunks,
    each on what its queries read, and the admission webhook's on the cluster."""
    total = {key: sum(s[key] for s in stats) for key in ("queries", "facts", "atoms", "rules", "rows", "qualifying")}
    return (
        f"stats: queries {total['queries']}, facts {total['facts']}, "
        f"ground atoms {total['atoms']:.0f}, ground rules {total['rules']:.0f}, "
        f"rows {total['rows']}, qualifying {total['qualifying']}"
    )


def _facts_header(args) -> str:
    import json  # only --show facts: D-142

    # User strings go through json.dumps: a newline in a name must not end the comment.
    if args.all_models:
        target = "--all-models"
    elif args.model is not None:
        target = f"--model {json.dumps(args.model)}"
    else:
        target = f"--isvc {json.dumps(args.isvc)}"
    return (
        f"% ome-asp {__version__} facts for: explain {target} -n {json.dumps(args.namespace)} "
        f"--profile {profile_of(args).name}\n"
        "% replay: python -m clingo THIS_FILE encoding/main.lp\n"
    )
