"""The `ome-asp` command line (also installed as the kubectl plugin `kubectl-ome_asp`).

    ome-asp explain (--model NAME | --isvc NAME) [-n NS] -f PATH... [-o table|wide|json|yaml]

Output streams and exit codes follow spec E2: results on stdout, notes and
warnings on stderr, `error: <message>` on stderr with exit code 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TextIO

import yaml

from . import __version__, engine, reasons, report
from .errors import OmeAspError, UsageError
from .facts import Query, build_facts
from .loader import load

EXIT_OK = 0
EXIT_ERROR = 1  # E2: every error of explain
CANDIDATE_LIMIT = 1000  # E4: a single-query explain refuses larger snapshots


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as UsageError instead of exiting 2."""

    def error(self, message: str):
        raise UsageError(message)


def _program_name(argv0: str) -> str:
    # krew convention: as a plugin, show usage as `kubectl ome-asp`.
    return "kubectl ome-asp" if os.path.basename(argv0).startswith("kubectl-") else "ome-asp"


def build_parser(prog: str = "ome-asp") -> argparse.ArgumentParser:
    parser = _Parser(prog=prog, description="Which serving runtime will OME pick for a model, and why not the others?")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    explain = commands.add_parser(
        "explain",
        help="list the runtimes for a model in the order OME ranks them, and why the others do not qualify",
        description="Like `kubectl ome runtime explain`, evaluated on manifests instead of a live cluster.",
    )
    target = explain.add_argument_group("target (exactly one)")
    target.add_argument("--model", metavar="NAME", help="a BaseModel in the namespace, else a ClusterBaseModel")
    target.add_argument("--isvc", metavar="NAME", help="an InferenceService: also applies its accelerator class and deployment mode")
    explain.add_argument("-n", "--namespace", default="default", help="the namespace to evaluate in (default: %(default)s)")
    explain.add_argument(
        "-f", "--filename", action="append", default=[], metavar="PATH",
        help="manifests: a file, a directory (read recursively) or - for stdin; repeatable",
    )
    explain.add_argument("-o", "--output", choices=("table", "wide", "json", "yaml"), default="table")
    explain.add_argument("--strict", action="store_true", help="treat every warning as an input error")
    explain.add_argument(
        "--show", choices=("facts",),
        help="print the facts of this run as a logic program instead of the result "
        "(replay: python -m clingo FACTS.lp encoding/main.lp)",
    )
    explain.add_argument("--with-effective", action="store_true", help="not supported by ome-asp (needs a live cluster)")
    explain.add_argument("--ome-namespace", default="ome", help="accepted for compatibility; used only with --with-effective")
    explain.set_defaults(run=run_explain)
    return parser


def main(argv: list[str] | None = None, stdin=None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run one command; returns the exit code. Never lets a traceback reach the user
    for anything the user can cause."""
    argv = sys.argv[1:] if argv is None else argv
    stdin = sys.stdin.buffer if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    try:
        args = build_parser(_program_name(sys.argv[0] if sys.argv else "ome-asp")).parse_args(argv)
        return args.run(args, stdin, stdout, stderr)
    except OmeAspError as error:
        print(f"error: {error}", file=stderr)
        return EXIT_ERROR


def console_main() -> None:
    sys.exit(main())


def run_explain(args, stdin, stdout: TextIO, stderr: TextIO) -> int:
    # E3
    if (args.model is None) == (args.isvc is None):
        raise UsageError("exactly one of --model or --isvc is required")
    if args.with_effective and args.isvc is None:
        raise UsageError("--with-effective requires --isvc")
    if args.with_effective:
        raise UsageError("--with-effective is not supported by ome-asp: it reads the live cluster's effective runtime")
    if not args.filename:
        raise UsageError("no input: pass the manifests with -f FILE, -f DIR or -f - (stdin)")

    cluster = load(args.filename, stdin=stdin, strict=args.strict)
    for warning in cluster.warnings:
        print(f"warning: {warning}", file=stderr)

    query = Query(namespace=args.namespace, model=args.model, isvc=args.isvc)
    facts = build_facts(cluster, [query])
    if args.show == "facts":
        stdout.write(_facts_header(args) + facts)
        return EXIT_OK

    result = engine.solve(facts, 1)
    _warn_denied(result, stderr)
    answer = result.queries[1]
    if answer.error is not None:
        raise OmeAspError(reasons.text(answer.error))
    if len(answer.verdicts) > CANDIDATE_LIMIT:
        raise OmeAspError("runtime candidate snapshot exceeds the CLI collection limit")
    if answer.note is not None:
        print(reasons.text(answer.note), file=stderr)

    if args.output in ("json", "yaml"):
        document = report.explain_json(query, answer)
        if args.output == "json":
            stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        else:
            stdout.write(yaml.safe_dump(document, sort_keys=False, allow_unicode=True))
        return EXIT_OK
    if not answer.verdicts:
        # E6: no candidates at all, no table.
        print("No serving runtimes found in the selected namespace or at cluster scope.", file=stderr)
        return EXIT_OK
    stdout.write(report.explain_table(answer, wide=args.output == "wide"))
    return EXIT_OK


def _warn_denied(result: engine.Answer, stderr: TextIO) -> None:
    """I9: one line per runtime the admission webhook would deny."""
    for runtime in sorted(result.denied, key=report.runtime_sort_key):
        message = reasons.admission_text(result.denied[runtime], runtime, result.unknown_classes.get(runtime, []))
        print(f"warning: {report.object_ref(runtime)} would be denied by admission: {message}", file=stderr)


def _facts_header(args) -> str:
    # User strings go through json.dumps: a newline in a name must not end the comment.
    target = f"--model {json.dumps(args.model)}" if args.model is not None else f"--isvc {json.dumps(args.isvc)}"
    return (
        f"% ome-asp {__version__} facts for: explain {target} -n {json.dumps(args.namespace)}\n"
        "% replay: python -m clingo THIS_FILE encoding/main.lp\n"
    )
