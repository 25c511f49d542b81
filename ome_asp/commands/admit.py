"""`ome-asp admit`: the runtime admission webhook (spec W1-W6, I9, I10) on
every ServingRuntime and ClusterServingRuntime of the input.

    ome-asp admit -f PATH... [-o text|json|yaml|junit|sarif|github]

Each runtime is checked in the canonical order of I10 (kind, namespace,
name) against the other objects given; only encoding/input.lp and
encoding/admission.lp are grounded (`Variant.ADMIT`), which decide the
denials; the messages are render/admission_report.py's. Text: one line per
runtime, `<Kind> <ns>/<name>: ALLOWED` or `... : DENIED: <message>`, then
`<n> runtimes: <a> allowed, <d> denied`; -o junit|sarif|github: a check per
runtime at its file and line (render/ci.py). Exit 1 when any is denied, 2 on a
usage or input error, 3 on an internal error.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from ome_asp.commands.options import add_output_flags, add_overlay_flag, kubectl_view, load_cluster
from ome_asp.errors import Exit
from ome_asp.render import admission_report, kubectl, report
from ome_asp.solver import ask
from ome_asp.solver.programs import Variant


def add_parser(commands, common) -> argparse.ArgumentParser:
    """Register `admit` on the CLI's subcommands; `common` adds the shared input flags."""
    parser = commands.add_parser(
        "admit",
        help="the runtime admission webhook's verdict on every runtime of the manifests",
        description="Check every ServingRuntime and ClusterServingRuntime as OME's admission webhook "
        "does (W-rules), in the context of the other objects given.",
    )
    common(parser, namespace=False)  # admission does not depend on a namespace
    add_overlay_flag(parser)
    add_output_flags(parser, ("text", "json", "yaml", "junit", "sarif", "github"),
                     "junit, sarif, github: a check per runtime, for CI (docs/compare.md)")
    parser.set_defaults(run=run)
    return parser


def run(args, stdin, stdout: TextIO, stderr: TextIO) -> int:
    if kubectl.is_format(args.output):
        return kubectl_view(_admit, args, stdin, stdout, stderr)
    return _admit(args, stdin, stdout, stderr)


def _admit(args, stdin, stdout: TextIO, stderr: TextIO) -> int:
    cluster = load_cluster(args, stdin, stderr)
    run = ask.ask(cluster, [], Variant.ADMIT)
    verdicts = admission_report.verdicts(run.facts, run.answer)
    denied = sum(1 for _, message in verdicts if message is not None)
    if args.output == "text":
        for runtime, message in verdicts:
            print(f"{runtime}: ALLOWED" if message is None else f"{runtime}: DENIED: {message}", file=stdout)
        print(f"{len(verdicts)} runtime{'' if len(verdicts) == 1 else 's'}: "
              f"{len(verdicts) - denied} allowed, {denied} denied", file=stdout)
    elif args.output in ("json", "yaml"):
        report.dump(admission_report.document(verdicts), args.output, stdout)
    else:
        from ome_asp.render import ci

        findings = ci.admission(verdicts, ci.runtime_sources(cluster))
        stdout.write(ci.render(args.output, findings, {ci.ADMISSION: ci.RULES[ci.ADMISSION]}, "ome-asp admit"))
    return Exit.NEGATIVE if denied else Exit.OK
