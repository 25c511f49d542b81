"""The `ome-asp` command line (also installed as the kubectl plugin `kubectl-ome_asp`).

    ome-asp explain (--model NAME | --isvc NAME) [-n NS] -f PATH... [-o table|wide|json|yaml]

Output streams and exit codes follow spec E2: results on stdout, notes and
warnings on stderr, `error: <message>` on stderr with exit code 1. A failure
of ome-asp itself is `internal error: <what>` with exit code 3 (diagnostics).
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import os
import sys
from typing import TextIO

from . import __version__, engine, limits, profiles, reasons, report
from .collector import gc_paused
from .errors import InternalError, OmeAspError, UsageError
from .facts import Query, build_facts
from .loader import load
from .timing import Phases

EXIT_OK = 0
EXIT_ERROR = 1  # E2: every error of explain; the normal negative result of the other commands
EXIT_USAGE = 2  # input or usage error of the commands other than explain
EXIT_OUTCOME = 3  # an outcome without a table (profiles.md section 0): unsupported input, panic, order unspecified
CANDIDATE_LIMIT = 1000  # E4: a single-query explain refuses larger snapshots
NO_RUNTIMES = "No serving runtimes found in the selected namespace or at cluster scope."  # E6


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as UsageError instead of exiting 2."""

    def error(self, message: str):
        raise UsageError(message)


def _program_name(argv0: str) -> str:
    # krew convention: as a plugin, show usage as `kubectl ome-asp`.
    return "kubectl ome-asp" if os.path.basename(argv0).startswith("kubectl-") else "ome-asp"


# The subcommands in help order. Those of other modules are registered by the
# module's add_parser; True: it takes the shared input flags (add_input_flags).
COMMANDS = {"explain": None, "serve": None, "select": True, "admit": True, "steer": True,
            "check": False, "gen": False, "diff": False}


def build_parser(prog: str = "ome-asp", command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with `command`, only that subcommand is
    registered, so one run imports only its own command's module (diff, gen
    and check pull in much more than explain needs)."""
    parser = _Parser(prog=prog, description="Which serving runtime will OME pick for a model, and why not the others?")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    for name, common in COMMANDS.items():
        if command not in (None, name):
            continue
        if name == "explain":
            _add_explain(commands)
        elif name == "serve":
            _add_serve(commands)
        else:
            module = importlib.import_module(f".{name}", __package__)
            if common:
                module.add_parser(commands, add_input_flags)
            else:
                module.add_parser(commands)
    return parser


def _add_explain(commands) -> None:
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
    explain.add_argument("-o", "--output", choices=("table", "wide", "json", "yaml"), default="table")
    explain.add_argument(
        "--show", choices=("facts",),
        help="print the facts of this run as a logic program instead of the result "
        "(replay: python -m clingo FACTS.lp encoding/main.lp)",
    )
    explain.add_argument("--timers", action="store_true", help="print the time of each phase on stderr")
    explain.add_argument("--stats", action="store_true", help="print the size of the facts and the ground program on stderr")
    explain.add_argument(
        "-v", "--verbose", action="store_true",
        help="after the table, every failed check of each No row and why each Yes row ranks where it does",
    )
    explain.add_argument("--with-effective", action="store_true", help="not supported by ome-asp (needs a live cluster)")
    explain.add_argument("--ome-namespace", default="ome", help="accepted for compatibility; used only with --with-effective")
    explain.set_defaults(run=run_explain)


def add_explain_targets(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """--model and --isvc as explain reads them (E7); steer asks about the same query."""
    target = parser.add_argument_group("target (exactly one)")
    target.add_argument("--model", metavar="NAME", help="a BaseModel in the namespace, else a ClusterBaseModel")
    target.add_argument("--isvc", metavar="NAME", help="an InferenceService: also applies its accelerator class and deployment mode")
    return target


def _add_serve(commands) -> None:
    serve = commands.add_parser(
        "serve",
        help="answer explain queries as JSON lines, keeping the encoding and the cluster loaded",
        description="Read one JSON request per line on stdin, write one JSON answer per line (docs/oracle.md).",
    )
    serve.add_argument("--stdio", action="store_true", required=True, help="talk JSON lines on stdin/stdout (the only transport)")
    serve.add_argument(
        "-f", "--filename", action="append", default=[], metavar="PATH",
        help="the cluster to answer about (requests may also bring their own manifests)",
    )
    serve.add_argument("--strict", action="store_true", help="treat every warning as an input error")
    add_profile_flags(serve)
    serve.set_defaults(run=run_serve)


def add_input_flags(parser: argparse.ArgumentParser, namespace: bool = True) -> None:
    """The flags every command that reads manifests shares."""
    if namespace:
        parser.add_argument("-n", "--namespace", default="default", help="the namespace to evaluate in (default: %(default)s)")
    parser.add_argument(
        "-f", "--filename", action="append", default=[], metavar="PATH",
        help="manifests: a file, a directory (read recursively) or - for stdin; repeatable",
    )
    parser.add_argument("--strict", action="store_true", help="treat every warning as an input error")
    parser.add_argument(
        "--max-input-size", type=limits.parse_byte_size, default=limits.format_byte_size(limits.MAX_INPUT_BYTES),
        metavar="SIZE", help="refuse inputs larger than SIZE in total: bytes, or a quantity such as 512Mi (default: %(default)s)",
    )
    add_profile_flags(parser)


def add_profile_flags(parser: argparse.ArgumentParser) -> None:
    """--profile and --ome-version (docs/profiles.md): which OME version to emulate."""
    parser.add_argument(
        "--profile", choices=tuple(profiles.PROFILES), default=None,
        help=f"the OME version to emulate (default: {profiles.DEFAULT}); see docs/profiles.md",
    )
    parser.add_argument(
        "--ome-version", metavar="X.Y.Z", default=None,
        help="an OME release, mapped to its profile: 0.x code-v0.1.5, 1.0 to 1.2 v1.2.2, 1.3 and later v1.3",
    )


def profile_of(args) -> profiles.Profile:
    """The profile the flags choose (UsageError for both flags or a bad version)."""
    return profiles.resolve(args.profile, args.ome_version)


def load_cluster(args, stdin, stderr: TextIO):
    """The manifests of -f, read under the chosen profile, with their warnings
    (I11) printed on stderr."""
    profile = profile_of(args)
    if not args.filename:
        raise UsageError("no input: pass the manifests with -f FILE, -f DIR or -f - (stdin)")
    cluster = load(args.filename, stdin=stdin, strict=args.strict, max_bytes=args.max_input_size, profile=profile)
    for warning in cluster.warnings:
        print(f"warning: {warning}", file=stderr)
    return cluster


def _error_exit(argv: list[str]) -> int:
    """explain keeps spec E2 (1 for every error); the other commands keep 1 for
    their normal negative result and exit 2 on input and usage errors."""
    return EXIT_ERROR if argv[:1] == ["explain"] else EXIT_USAGE


def main(argv: list[str] | None = None, stdin=None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run one command; returns the exit code. Never lets a traceback reach the user
    for anything the user can cause."""
    argv = sys.argv[1:] if argv is None else argv
    stdin = sys.stdin.buffer if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    args = None
    # argv[0] names the command unless it is an option (--help, --version) or
    # a mistake, whose messages list every command.
    command = argv[0] if argv and argv[0] in COMMANDS else None
    try:
        args = build_parser(_program_name(sys.argv[0] if sys.argv else "ome-asp"), command).parse_args(argv)
        return args.run(args, stdin, stdout, stderr)
    except InternalError as error:  # an OmeAspError, but ome-asp's fault, not the user's
        return _internal_error(error, argv, args, stderr)
    except OmeAspError as error:
        print(f"error: {error}", file=stderr)
        return _error_exit(argv)
    except BrokenPipeError:  # the reader is gone (`... | head`): nothing is wrong, stop quietly
        return EXIT_BROKEN_PIPE
    except Exception as error:  # a bug: a reproduction for us, no traceback for the user
        return _internal_error(error, argv, args, stderr)


def _internal_error(error: BaseException, argv: list[str], args, stderr: TextIO) -> int:
    from . import diagnostics  # only a failing run needs it

    return diagnostics.report(error, argv, getattr(args, "facts", None), stderr)


# As a shell reports a process ended by SIGPIPE (128 + 13); docs/decisions.md D-48.
EXIT_BROKEN_PIPE = 141


def console_main() -> None:
    code = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = EXIT_BROKEN_PIPE
    if code == EXIT_BROKEN_PIPE:  # what is still buffered for the closed pipe goes nowhere
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(code)


def run_explain(args, stdin, stdout: TextIO, stderr: TextIO) -> int:
    _check_explain_flags(args)
    phases = Phases()
    with phases("load"):
        cluster = load_cluster(args, stdin, stderr)

    queries = _batch_queries(cluster, args.namespace) if args.all_models else [
        Query(namespace=args.namespace, model=args.model, isvc=args.isvc)
    ]
    with phases("facts"):
        facts = build_facts(cluster, queries)
    args.facts = facts.program  # for the reproduction of an internal error (diagnostics)
    if args.show == "facts":
        stdout.write(_facts_header(args) + facts.program)
        return EXIT_OK

    details = args.verbose and args.output in ("table", "wide")  # explain_details reads them
    result = engine.solve(facts, len(queries), details=details, sizes=args.stats)
    phases.update(result.stats)
    _warn_denied(result, stderr)
    if not cluster.profile.explain_available:  # E1-E18 of v1.2.2 and code-v0.1.5
        print(explain_note(cluster.profile), file=stderr)
    with phases("output"), gc_paused():
        if args.all_models:
            code = _print_batch(args.output, queries, result, stdout, cluster.profile)
        else:
            code = _print_single(args.output, queries[0], result.queries[1], stdout, stderr, cluster.profile)
            if details and result.queries[1].verdicts:
                stdout.write(report.explain_details(result.queries[1], facts.entry_names, facts.weights))
    if args.timers:
        print(phases.timers_line(), file=stderr)
    if args.stats:
        print(_stats_line(facts, result), file=stderr)
    return code


_RELEASE = {"v1.2.2": "v1.2.2", "code-v0.1.5": "v0.1.5"}  # the OME release of each profile without explain


def explain_note(profile: profiles.Profile) -> str:
    """E1-E18 of a profile without kubectl ome runtime explain (profiles.md 2, 3.1)."""
    release = _RELEASE[profile.name]
    return f"Note: kubectl ome runtime explain is not available in OME {release}; this table shows {release}'s selection."


def run_serve(args, stdin, stdout: TextIO, stderr: TextIO) -> int:
    if "-" in args.filename:
        raise UsageError("serve reads its requests from stdin, so -f - cannot be the cluster")
    profile = profile_of(args)
    from .serve import serve  # only serve needs it

    requests = io.TextIOWrapper(stdin, encoding="utf-8")
    if not args.filename:
        return serve(None, requests, stdout, profile)
    cluster = load(args.filename, strict=args.strict, profile=profile)
    for warning in cluster.warnings:
        print(f"warning: {warning}", file=stderr)

    def loaded(other: profiles.Profile):
        """A request may ask for another profile: the cluster is read again under it."""
        return cluster if other == profile else load(args.filename, strict=args.strict, profile=other)

    return serve(loaded, requests, stdout, profile)


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


def _batch_queries(cluster, namespace: str) -> list[Query]:
    """--all-models: each BaseModel in its namespace, each ClusterBaseModel in
    `namespace` (where a BaseModel of the same name would win, M1, it is the
    same query)."""
    wanted = {(m.namespace or namespace, m.name) for m in cluster.models}
    return [Query(namespace=ns, model=name) for ns, name in sorted(wanted)]


def _print_single(
    output: str, query: Query, answer: engine.QueryAnswer, stdout: TextIO, stderr: TextIO, profile: profiles.Profile
) -> int:
    if answer.error is not None:
        raise OmeAspError(reasons.text(answer.error))
    if len(answer.verdicts) > CANDIDATE_LIMIT:
        raise OmeAspError("runtime candidate snapshot exceeds the CLI collection limit")
    if answer.note is not None:
        print(reasons.text(answer.note), file=stderr)
    if answer.ended is not None:
        document = report.outcome_json(report.query_json(query, answer), answer.ended, profile.name)
        return print_outcome(output, document, stdout, stderr)
    if output in ("json", "yaml"):
        report.dump(report.explain_json(query, answer, profile.name), output, stdout)
    elif not answer.verdicts:
        print(NO_RUNTIMES, file=stderr)  # E6: no candidates at all, no table
    else:
        stdout.write(report.explain_table(answer, wide=output == "wide"))
    return EXIT_OK


def print_outcome(output: str, document: dict, stdout: TextIO, stderr: TextIO) -> int:
    """Section 0 of profiles.md: an outcome has no table; one stderr line, or
    the report with `outcome` for -o json/yaml; exit 3 either way."""
    if output in ("json", "yaml"):
        report.dump(document, output, stdout)
    else:
        print(f"error: outcome {document['outcome']}: {document['detail']}", file=stderr)
    return EXIT_OUTCOME


def _print_batch(
    output: str, queries: list[Query], result: engine.Answer, stdout: TextIO, profile: profiles.Profile
) -> int:
    """One report per query: a List of reports, or table sections headed by the
    equivalent single command. A query's error is part of its report; the exit
    code is 1 when any query has one, else 3 when any query ends with an
    outcome (profiles.md section 0)."""
    answers = [result.queries[n] for n in range(1, len(queries) + 1)]
    if output in ("json", "yaml"):
        items = [
            report.outcome_json(report.query_json(q, a), a.ended, profile.name) if a.ended is not None
            else report.explain_json(q, a, profile.name)
            for q, a in zip(queries, answers)
        ]
        report.dump({"apiVersion": report.API_VERSION, "kind": "List", "items": items}, output, stdout)
    else:
        sections = []
        for query, answer in zip(queries, answers):
            header = f"# explain --model {query.model} -n {query.namespace}\n"
            if answer.error is not None:
                body = f"error: {reasons.text(answer.error)}\n"
            elif answer.ended is not None:
                body = "error: outcome {}: {}\n".format(*answer.ended)
            elif not answer.verdicts:
                body = NO_RUNTIMES + "\n"
            else:
                body = report.explain_table(answer, wide=output == "wide")
            sections.append(header + body)
        stdout.write("\n".join(sections))
    if any(a.error is not None for a in answers):
        return EXIT_ERROR
    return EXIT_OUTCOME if any(a.ended is not None for a in answers) else EXIT_OK


def _warn_denied(result: engine.Answer, stderr: TextIO) -> None:
    """I9: one line per runtime the admission webhook would deny."""
    for runtime in sorted(result.denied, key=report.runtime_sort_key):
        message = reasons.admission_text(result.denied[runtime], runtime, result.unknown_classes.get(runtime, []))
        print(f"warning: {runtime} would be denied by admission: {message}", file=stderr)


def _stats_line(facts, result: engine.Answer) -> str:
    rows = sum(len(a.verdicts) for a in result.queries.values())
    qualifying = sum(len(a.ranking) for a in result.queries.values())
    return (
        f"stats: queries {len(result.queries)}, facts {facts.program.count(chr(10))}, "
        f"ground atoms {result.stats['atoms']:.0f}, ground rules {result.stats['rules']:.0f}, "
        f"rows {rows}, qualifying {qualifying}"
    )


def _facts_header(args) -> str:
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


if __name__ == "__main__":
    console_main()
