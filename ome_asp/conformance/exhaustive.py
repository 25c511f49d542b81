"""`ome-asp diff --exhaustive`: run an implementation on every cluster within
find's bounds, up to renaming (issue 27, docs/oracle.md).

    ome-asp diff --impl CMD --exhaustive [--runtimes N --entries N --models N --isvc --modes
                 --accelerators --pool NAME=V,...] [--profile P] [--start K] [--max-clusters N]
                 [--time-limit S] [--report text|json] [--batch] [-o DIR]

The clusters are ome_asp/solver/exhaustive.py's, one per renaming class
(encoding/find/canonical.lp, D-92), smallest first; each is asked of the
implementation with diff's protocol and of ome-asp in batches of worlds
(cases.answers), and compared as diff compares (ome_asp/conformance/
differential.py). The first disagreements (at most --max-counterexamples) are
shrunk and written as diff writes them. Exit 0: all checked clusters agree;
1: a disagreement; 2: usage; 3: internal. `ome-asp diff`
(ome_asp/conformance/diff.py) registers these flags and runs this mode.
"""

from __future__ import annotations

import argparse
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ome_asp.analysis import find
from ome_asp.commands.bounds_flags import add_bounds_flags, bounds_of, bounds_text, searchable
from ome_asp.commands.options import duration_argument
from ome_asp.conformance import cases, shards
from ome_asp.conformance.differential import (
    BATCH_ITEMS,
    Disagreement,
    Implementation,
    ImplementationError,
    Item,
    explain_request,
    judged,
    minimize,
    request,
    write_counterexample,
)
from ome_asp.errors import Exit, UsageError
from ome_asp.input import profiles
from ome_asp.render import report
from ome_asp.solver import exhaustive, finder, space

# The default bound: find's pools without versions, operators, weights,
# priorities and sizes, one runtime per scope (19,272 clusters up to renaming,
# docs/oracle.md); --runtimes and --pool widen it.
RUNTIMES = 1
POOLS = {**finder.DEFAULT_POOLS, "versions": (), "operators": (), "weights": (), "priorities": (), "sizes": ()}
PROGRESS_S = 2.0  # seconds between progress lines on stderr


def add_flags(parser: argparse.ArgumentParser) -> None:
    """--exhaustive's flags, on diff's parser (ome_asp/conformance/diff.py)."""
    add_bounds_flags(parser, f"{RUNTIMES} with --exhaustive")
    parser.add_argument("--start", type=int, default=0, metavar="K",
                        help="--exhaustive: begin at the K-th cluster (from 0: resume a run)")
    parser.add_argument("--max-clusters", type=int, default=None, metavar="N", help="--exhaustive: check at most N clusters")
    parser.add_argument("--time-limit", type=duration_argument, default=None, metavar="SECONDS",
                        help="--exhaustive: stop after this long, enumerating included: seconds, or 90s, 2m")


@dataclass
class Tally:
    start: int
    next: int  # where to resume: past the last cluster checked (a shard's next is its own)
    checked: int = 0
    agreed: int = 0
    disagreements: list[dict] = field(default_factory=list)  # the shrunk ones, smallest first
    disagreed: int = 0
    complete: bool = False


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    began = last = time.monotonic()  # the budget counts from here: the searchable check and the grounding spend it too
    deadline = None if args.time_limit is None else began + args.time_limit
    if args.runtimes is None:
        args.runtimes = RUNTIMES
    if args.start < 0 or (args.max_clusters is not None and args.max_clusters < 1):
        raise UsageError("--start must be 0 or more, --max-clusters at least 1")
    profile = profiles.resolve(args.profile or cases.DEFAULT_PROFILE, None)
    bounds = bounds_of(args, POOLS)
    searchable([profile], bounds)  # every cluster is valid input under the profile (I4)
    query = find.query_of(bounds)
    impl = Implementation(args.impl, args.batch, args.timeout)
    tally = Tally(args.start, args.start)
    clusters = exhaustive.clusters(bounds, profile, canonical=True, start=args.start, deadline=deadline, shard=args.shard)
    try:
        while True:
            if args.max_clusters is not None and tally.checked >= args.max_clusters or \
                    deadline is not None and time.monotonic() > deadline:
                break
            room = BATCH_ITEMS if args.max_clusters is None else min(BATCH_ITEMS, args.max_clusters - tally.checked)
            try:
                chunk = [c for _, c in zip(range(room), clusters)]
            except exhaustive.StartPastTheEnd as past:
                raise UsageError(f"--start {args.start} is past the last cluster: the bounds hold {past.count} "
                                 f"up to renaming (0 to {past.count - 1})") from None
            except exhaustive.OutOfTime:  # while enumerating: the clusters read so far are lost, the next is where they began
                break
            if not chunk:
                tally.complete = True
                break
            items = [Item(f"cluster-{c.number}", c.documents, query, profile.name) for c in chunk]
            answers = cases.answers([explain_request(item.documents, item) for item in items])
            theirs = impl.ask_all([request(item) for item in items])
            for item, ours, raw in zip(items, answers, theirs):
                _check(item, ours, raw, impl, tally, args, stderr if args.report == "json" else stdout)
            if len(chunk) < room:  # the last clusters: complete, whatever the clock says now
                tally.complete = True
                break
            if time.monotonic() - last >= PROGRESS_S:
                last = time.monotonic()
                print(f"exhaustive: {tally.next} clusters done ({tally.agreed} agree, {tally.disagreed} disagree), "
                      f"{tally.checked / (last - began):.0f} clusters/s", file=stderr, flush=True)
    finally:
        impl.close()
    print(f"exhaustive: {tally.next} clusters done ({tally.agreed} agree, {tally.disagreed} disagree)", file=stderr)
    total = space.clusters(bounds, {profile.model_rule})
    if args.report == "json":
        report.dump(_document(tally, bounds, profile.name, total, args.shard), "json", stdout)
    else:
        print(_text(tally, bounds, total, args.output, args.shard), file=stdout)
    return Exit.NEGATIVE if tally.disagreed else Exit.OK


def _check(item: Item, ours: dict, answer: dict | ImplementationError, impl: Implementation, tally: Tally,
           args: argparse.Namespace, lines: TextIO) -> None:
    raw, theirs, found = judged(item, ours, answer)
    tally.checked += 1
    tally.next = int(item.name.split("-")[1]) + 1
    if not found:
        tally.agreed += 1
        return
    tally.disagreed += 1
    entry: dict[str, Any] = {"cluster": int(item.name.split("-")[1]), "differences": found, "manifests": item.documents}
    if len(tally.disagreements) < args.max_counterexamples:
        shrunk = minimize(item, impl, ours)
        if not shrunk.differences:  # a flaky implementation: keep the cluster as enumerated
            shrunk = Disagreement(item, found, item.documents, ours, theirs, raw)
        directory = Path(args.output) / re.sub(r"[^A-Za-z0-9._-]+", "-", item.name)
        write_counterexample(directory, shrunk, args.impl)
        entry.update(differences=shrunk.differences, manifests=shrunk.documents, directory=str(directory))
        tally.disagreements.append(entry)
    print(f"DISAGREE {item.name}: {entry['differences'][0]}"
          + (f"\n    shrunk to {len(entry['manifests'])} documents: {entry['directory']}" if "directory" in entry else ""),
          file=lines)


def _text(tally: Tally, bounds: finder.Bounds, total: int, output: str, shard: tuple[int, int] | None) -> str:
    every = "" if shard is None else f" (shard {shard[0]}/{shard[1]}: the clusters numbered {shard[0]} modulo {shard[1]})"
    head = (f"bounds: {bounds_text(bounds)}\n"
            f"clusters within the bounds: {space.describe(total)}; "
            f"checked {tally.checked} up to renaming from cluster {tally.start}{every}: "
            f"{tally.agreed} agree, {tally.disagreed} disagree")
    if tally.disagreed:
        return head + f"; counterexamples in {output}"
    if tally.complete and tally.start == 0 and shard is None:
        return head + f"\nagrees on all {tally.checked} clusters up to the bounds (up to renaming, D-92)"
    if tally.complete:
        return head + f"\nagrees on {'its ' * (shard is not None)}clusters {tally.start} to {tally.next - 1}, the last up to the bounds"
    again = "" if shard is None else f"--shard {shard[0]}/{shard[1]} "
    return head + f"\nstopped by the budget: resume with {again}--start {tally.next}"


def _document(tally: Tally, bounds: finder.Bounds, profile: str, total: int, shard: tuple[int, int] | None) -> dict:
    return {
        "apiVersion": report.API_VERSION,
        "kind": "ExhaustiveDiffReport",
        "profile": profile,
        "bounds": {**bounds.to_json(), **space.to_json(total)},
        "shard": shards.to_json(shard),
        "start": tally.start,
        "checked": tally.checked,
        "agreed": tally.agreed,
        "disagreed": tally.disagreed,
        "complete": tally.complete,
        "next": None if tally.complete else tally.next,
        "disagreements": tally.disagreements,
    }
