"""`ome-asp diff`: run another implementation on cases, compare with ome-asp,
and shrink every disagreement to a minimal counterexample case.

    ome-asp diff --impl 'CMD' (--corpus DIR | --generate N --seed S) [--profile P] [--batch] [-j N] [-o DIR]
                 [--shard I/N] [--report text|json]
    ome-asp diff --merge REPORT...

The protocol, the comparison and the shrinking are ome_asp/conformance/
differential.py's (docs/oracle.md, "Differential testing"); --exhaustive runs
every cluster within find's bounds instead (ome_asp/conformance/exhaustive.py);
--shard and --merge split a run over machines (ome_asp/conformance/shards.py).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import BinaryIO, TextIO

import yaml

from ome_asp.analysis import batch
from ome_asp.commands.options import add_jobs_flag, duration_argument
from ome_asp.conformance import cases, exhaustive, shards
from ome_asp.conformance.differential import (
    BATCH_ITEMS,
    Disagreement,
    Implementation,
    Item,
    examine,
    explain_request,
    minimize,
    write_counterexample,
)
from ome_asp.errors import Exit, InputError, UsageError
from ome_asp.render import report
from ome_asp.solver import worlds
from ome_asp.testing.builders import seeded


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Register `diff` on the CLI's subcommands."""
    parser = commands.add_parser(
        "diff",
        help="compare another implementation with ome-asp case by case and shrink each disagreement",
        description="Run another implementation of runtime selection on conformance or generated cases "
        "(JSON protocol: docs/oracle.md), compare its answers with ome-asp's, and write a shrunk "
        "counterexample case for every disagreement.",
    )
    parser.add_argument("--impl", metavar="CMD", help="the implementation: a shell command speaking the protocol (required but with --merge)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--corpus", metavar="DIR", help="run the cases under DIR (recursively)")
    source.add_argument("--generate", type=int, metavar="N", help="run N generated cases (with --seed, as `ome-asp gen`)")
    source.add_argument("--exhaustive", action="store_true",
                        help="run every cluster within find's bounds, up to renaming, smallest first (docs/oracle.md; "
                        "ome_asp/conformance/exhaustive.py)")
    source.add_argument("--merge", nargs="+", metavar="REPORT",
                        help="merge the JSON reports of a run's shards (--shard, --report json) into that run's report")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="the seed of --generate (default %(default)s)")
    parser.add_argument("--profile", choices=cases.PROFILES, default=None,
                        help=f"the profile to compare under (default {cases.DEFAULT_PROFILE}); with --corpus, only the cases of that profile")
    parser.add_argument("--batch", action="store_true", help="start CMD once and send it every request as a JSON line")
    parser.add_argument("-o", "--output", default="ome-asp-diff", metavar="DIR",
                        help="where to write the counterexamples (default %(default)s)")
    parser.add_argument("--timeout", type=duration_argument, default=30.0, metavar="SECONDS",
                        help="time allowed per answer: seconds, or 90s, 2m (default %(default)g)")
    parser.add_argument("--max-counterexamples", type=int, default=10, metavar="K",
                        help="shrink and write at most K disagreements; the others are counted (default %(default)s)")
    add_jobs_flag(parser, "compute ome-asp's answers")
    parser.add_argument("--shard", type=shards.shard_argument, default=None, metavar="I/N",
                        help="check only the cases or clusters numbered I modulo N (from 0): one of N runs that "
                        "together check what one run checks (merge their reports with --merge)")
    parser.add_argument("--report", choices=("text", "json"), default="text",
                        help="the summary on stdout as text or as a report (JSON): a DiffReport, an "
                        "ExhaustiveDiffReport with --exhaustive; the DISAGREE lines then go to stderr")
    exhaustive.add_flags(parser)
    parser.set_defaults(run=run)
    return parser


def corpus_items(directory: str, profile: str | None) -> tuple[list[Item], list[str]]:
    """The cases under `directory` that another implementation can answer, and
    the names of those it cannot (explain flags, manifests that are not YAML objects)."""
    items, skipped = [], []
    for path, name in cases.find([directory]):
        case = cases.load_case(path, name)
        if profile is not None and case.profile != profile:
            continue
        try:
            documents = case.documents()
        except yaml.YAMLError:
            documents = None
        if case.query.get("flags") or documents is None or not all(isinstance(d, dict) for d in documents):
            skipped.append(name)
            continue
        items.append(Item(name, documents, case.query, case.profile))
    return items, skipped


def generated_items(count: int, seed: int, profile: str | None) -> list[Item]:
    return [Item(f"gen-{seed}-{index:04d}", *seeded(seed, index), profile or cases.DEFAULT_PROFILE)
            for index in range(count)]


def run(args: argparse.Namespace, stdin: BinaryIO, stdout: TextIO, stderr: TextIO) -> int:
    if args.merge:
        if args.impl is not None:
            raise UsageError("--merge reads reports: it takes no --impl")
        return shards.run(args.merge, args.report, stdout)
    if args.impl is None:
        raise UsageError("the following arguments are required: --impl")
    if args.exhaustive:
        return exhaustive.run(args, stdout, stderr)
    if args.generate is not None:
        if args.generate < 1:
            raise UsageError("--generate needs at least 1 case")
        every, skipped = generated_items(args.generate, args.seed, args.profile), list[str]()
        source: dict = {"generate": args.generate, "seed": args.seed}
    else:
        every, skipped = corpus_items(args.corpus, args.profile)
        if not every:
            raise InputError(f"no case under {args.corpus} that an implementation can answer")
        source = {"corpus": args.corpus}
    numbers = [k for k in range(len(every)) if shards.mine(k, args.shard)]  # each case's place in the whole run
    items = [every[k] for k in numbers]
    # ome-asp's answers to the items, BATCH_ITEMS at a time as worlds of one
    # grounding, the batches in -j processes; before CMD starts, so no worker
    # holds its pipes open
    starts = range(0, len(items), BATCH_ITEMS)
    jobs = min(args.jobs or batch.default_jobs(), len(starts))
    if jobs > 1:
        worlds.compile_all()  # once, before the fork: every worker inherits it
    answers = [answer for answered in batch.run(
        lambda start: cases.answers([explain_request(item.documents, item) for item in items[start:start + BATCH_ITEMS]]),
        list(starts), jobs) for answer in answered]
    impl = Implementation(args.impl, args.batch, args.timeout)
    lines = stderr if args.report == "json" else stdout
    found_in: list[dict] = []  # the report's disagreements
    written: dict[str, Path] = {}  # shrunk case -> its directory
    try:
        for number, item, answer in zip(numbers, items, answers):
            timeouts = impl.timeouts
            ours, raw, theirs, found = examine(item, impl, ours=answer)
            if not found:
                continue
            entry: dict = {"case": item.name, "index": number, "differences": found, "directory": None}
            found_in.append(entry)
            if len(written) >= args.max_counterexamples:
                print(f"DISAGREE {item.name}: {found[0]} (not shrunk: --max-counterexamples {args.max_counterexamples})", file=lines)
                continue
            timed_out = impl.timeouts > timeouts  # each try while shrinking would wait the whole timeout again
            shrunk = Disagreement(item, found, item.documents, ours, theirs, raw) if timed_out else minimize(item, impl, ours)
            if not shrunk.differences:  # flaky implementation: keep the original
                shrunk = Disagreement(item, found, item.documents, ours, theirs, raw)
            key = json.dumps([shrunk.documents, item.query], sort_keys=True)
            if key not in written:
                written[key] = Path(args.output) / re.sub(r"[^A-Za-z0-9._-]+", "-", item.name)
                write_counterexample(written[key], shrunk, args.impl)
            directory = written[key]
            entry.update(differences=shrunk.differences, directory=str(directory))
            runtimes = sum(1 for d in shrunk.documents if d.get("kind") in ("ServingRuntime", "ClusterServingRuntime"))
            how = f"not shrunk (no answer within {args.timeout:g} s):" if timed_out else "shrunk to"
            print(f"DISAGREE {item.name}: {shrunk.differences[0]}\n"
                  f"    {how} {len(shrunk.documents)} documents ({runtimes} runtimes): {directory}", file=lines)
    finally:
        impl.close()
    disagreements = len(found_in)
    if args.report == "json":
        report.dump({"apiVersion": report.API_VERSION, "kind": "DiffReport", "profile": args.profile, "source": source,
                     "shard": shards.to_json(args.shard), "cases": len(items), "agreed": len(items) - disagreements,
                     "disagreed": disagreements, "skipped": skipped, "disagreements": found_in}, "json", stdout)
    else:
        print(f"{len(items)} cases: {len(items) - disagreements} agree, {disagreements} disagree"
              + (f", {len(skipped)} skipped" if skipped else "")
              + (f"; counterexamples in {args.output}" if written else ""), file=stdout)
    return Exit.NEGATIVE if disagreements else Exit.OK
