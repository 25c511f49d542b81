"""`ome-asp check`: run conformance cases and report the ones ome-asp fails.

    ome-asp check PATH... [-v] [-j N]

Every directory under the paths that holds a case.yaml is a case (format in
ome_asp/conformance/cases.py and docs/oracle.md). Each case is answered by ome-asp's own
commands, in-process, and compared with its expected.yaml; a failing case
prints `FAIL <case>` and a unified diff per command (expected vs ome-asp), a
case without expected.yaml prints ome-asp's answer in expected.yaml form. The
last line is `N passed, M failed`. Exit 0 when all pass, 1 when any fails, 2
when a case is malformed or no case is found (usage or input error). Cases
are independent: they are answered in batches, each batch's cases grounded
together as worlds (ome_asp/solver/worlds.py), and `-j N` answers the
batches in N processes (default: the cores check may use; analysis/batch.py's
pool, as serve, gen and diff use it); the output is the same, in the same order. `-v`'s time of a case is its batch's time per case.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TextIO

from ome_asp.analysis import batch
from ome_asp.commands.options import add_jobs_flag
from ome_asp.conformance import cases
from ome_asp.errors import Exit
from ome_asp.solver import worlds

BATCH_CASES = 64  # cases per batch: beyond this a batch saves little, and -j needs several


def add_parser(commands) -> argparse.ArgumentParser:
    """Register `check` on the CLI's subcommands."""
    parser = commands.add_parser(
        "check",
        help="run conformance cases (fixtures/cases/...) and show where ome-asp's answers differ",
        description="Run every case directory (one with a case.yaml) found under the paths and compare "
        "ome-asp's answers with expected.yaml.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a case directory or a directory of cases (searched recursively)")
    parser.add_argument("-v", "--verbose", action="store_true", help="also list the cases that pass, with their time")
    add_jobs_flag(parser, "answer the cases")
    parser.set_defaults(run=run)
    return parser


def run(args, stdin, stdout: TextIO, stderr: TextIO) -> int:
    found = cases.find(args.paths)
    failed = 0
    jobs = min(args.jobs or batch.default_jobs(), len(found))
    size = max(1, min(BATCH_CASES, -(-len(found) // (2 * jobs))))  # two batches per process at least
    batches = [found[i:i + size] for i in range(0, len(found), size)]
    if jobs > 1:
        worlds.compile_all()  # once, before the fork: every worker inherits it
    results = [result for answered in batch.run(timed_check, batches, jobs) for result in answered]
    for name, diffs, seconds in results:
        if cases.EXPECTED_FILE in diffs:
            # a new case: its answer as expected.yaml holds it, unindented, under a
            # comment line, so `ome-asp check CASE | sed '$d' > CASE/expected.yaml`
            # saves it (issue 16)
            failed += 1
            print(f"# FAIL {name}: no {cases.EXPECTED_FILE}; ome-asp answers:", file=stdout)
            stdout.write(diffs[cases.EXPECTED_FILE])
        elif diffs:
            failed += 1
            print(f"FAIL {name}", file=stdout)
            for text in diffs.values():
                stdout.write(_indent(text))
        elif args.verbose:
            print(f"ok   {name} ({seconds * 1000:.0f} ms)", file=stdout)
    print(f"{len(results) - failed} passed, {failed} failed", file=stdout)
    return Exit.NEGATIVE if failed else Exit.OK


def timed_check(found: list[tuple[Path, str]]) -> list[tuple[str, dict[str, str], float]]:
    """(name, diffs, seconds) of each case of a batch: read (a malformed case
    raises), answered together, with the batch's time per case."""
    started = time.perf_counter()
    batch = [cases.load_case(directory, name) for directory, name in found]
    diffs = [compare(case, actual) for case, actual in zip(batch, cases.run_all(batch))]
    seconds = (time.perf_counter() - started) / len(batch)
    return [(case.name, d, seconds) for case, d in zip(batch, diffs)]


def compare(case: cases.Case, actual: dict) -> dict[str, str]:
    """command -> diff text for each command whose answer differs from expected.yaml."""
    if case.expected is None:
        return {cases.EXPECTED_FILE: cases.dump(actual)}
    return cases.differences(case.expected, actual)


def _indent(text: str) -> str:
    return "".join(f"    {line}" for line in text.splitlines(keepends=True))
