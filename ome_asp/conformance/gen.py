"""`ome-asp gen`: write random conformance cases whose expectations ome-asp computes.

    ome-asp gen --count N --seed S -o DIR [--profile P] [-j N]

Case i is the cluster and query that `ome_asp.testing.builders.seeded(S, i)`
builds from `random.Random("S:i")` (the same builders the Hypothesis strategies of
`ome_asp.testing.strategies` wrap), so a seed always gives the same cases, on
any machine and without Hypothesis. Each case checks `explain`, plus `select`
for an InferenceService query and `admit` when a runtime is denied; its
`rules` are the spec rule ids the answers show were exercised
(`exercised_rules`, ome_asp/render/case_files.py). The output passes `ome-asp check DIR`. Cases are
answered BATCH_CASES at a time, each batch's cases grounded together as
worlds (ome_asp/solver/worlds.py), the batches in `-j N` processes (default:
the cores gen may use; the output is the same for every N).
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import BinaryIO, TextIO

from ome_asp.analysis import batch
from ome_asp.commands.options import add_jobs_flag
from ome_asp.conformance import cases
from ome_asp.errors import Exit, UsageError
from ome_asp.render import case_files
from ome_asp.render.case_files import exercised_rules
from ome_asp.solver import worlds
from ome_asp.testing.builders import seeded

BATCH_CASES = 64


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Register `gen` on the CLI's subcommands."""
    parser = commands.add_parser(
        "gen",
        help="write random conformance cases with the answers ome-asp computes",
        description="Write N random cases (cluster, query, ome-asp's answers) as case directories, "
        "deterministically for a seed, and report the rule ids they exercise.",
    )
    parser.add_argument("--count", type=int, required=True, metavar="N", help="how many cases")
    parser.add_argument("--seed", type=int, required=True, metavar="S", help="the seed: the same seed gives the same cases")
    parser.add_argument("-o", "--output", required=True, metavar="DIR", help="directory to write the cases into")
    parser.add_argument("--profile", default=cases.DEFAULT_PROFILE, choices=cases.PROFILES, help="the profile of the expectations")
    add_jobs_flag(parser, "answer the cases")
    parser.set_defaults(run=run)
    return parser


def build_cases(generated: list[tuple[list[dict], dict]], profile: str) -> list[tuple[dict, dict]]:
    """(case.yaml, expected.yaml) of each cluster and query, answered by
    ome-asp: all of them together (`cases.answers`, one world each)."""
    requests = []
    for documents, query in generated:
        manifests = case_files.dump_manifests(documents).encode()
        commands = ("explain", "select", "admit") if "isvc" in query else ("explain", "admit")
        requests += [(command, manifests, query, profile, ()) for command in commands]
    found = iter(cases.answers(requests))
    built = []
    for documents, query in generated:
        answers = {"explain": next(found)}
        if "isvc" in query:
            answers["select"] = next(found)
        admission = next(found)
        if any(not item["allowed"] for item in admission.get("items", [])):
            answers["admit"] = admission
        spec = {
            "description": describe(query, answers["explain"]),
            "rules": exercised_rules(documents, query, answers),
            "profile": profile,
            "query": query,
            "check": list(answers),
        }
        built.append((spec, answers))
    return built


def run(args: argparse.Namespace, stdin: BinaryIO, stdout: TextIO, stderr: TextIO) -> int:
    if args.count < 1:
        raise UsageError("--count must be at least 1")
    counts: Counter = Counter()

    def built(start: int) -> list[tuple[list[dict], dict, dict]]:
        """(documents, case.yaml, expected.yaml) of the cases from `start` on, one batch."""
        generated = [seeded(args.seed, index) for index in range(start, min(start + BATCH_CASES, args.count))]
        return [(documents, *case) for (documents, _), case in zip(generated, build_cases(generated, args.profile))]

    starts = range(0, args.count, BATCH_CASES)
    jobs = min(args.jobs or batch.default_jobs(), len(starts))
    if jobs > 1:
        worlds.compile_all()  # once, before the fork: every worker inherits it
    for start, cases_built in zip(starts, batch.run(built, list(starts), jobs)):
        for index, (documents, spec, answers) in enumerate(cases_built, start):
            counts.update(spec["rules"])
            case_files.write(Path(args.output) / f"gen-{args.seed}-{index:04d}", spec, documents, answers)
    print(f"wrote {args.count} cases to {args.output} (seed {args.seed}, profile {args.profile})", file=stdout)
    print(f"rules exercised: {len(counts)}", file=stdout)
    for family, ids in _by_family(counts).items():
        print(f"  {family}: " + " ".join(f"{rule}×{counts[rule]}" for rule in ids), file=stdout)
    return Exit.OK


def describe(query: dict, explain: dict) -> str:
    target = f"--isvc {query['isvc']}" if "isvc" in query else f"--model {query['model']}"
    if "error" in explain:
        outcome = "an error"
    else:
        rows = len(explain["ranking"]) + len(explain["rejected"])
        selected = explain["selected"]["name"] if explain["selected"] else "none"
        outcome = f"{rows} candidates, {len(explain['ranking'])} qualify, selected {selected}"
    return f"generated: explain {target} -n {query['namespace']}: {outcome}"


def _by_family(counts: Counter) -> dict[str, list[str]]:
    families: dict[str, list[str]] = {}
    for rule in sorted(counts, key=lambda r: ("IMQVZADSOXWE".index(r[0]), int(r[1:]))):
        families.setdefault(rule[0], []).append(rule)
    return families
