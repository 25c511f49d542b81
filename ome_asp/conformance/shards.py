"""Splitting one `ome-asp diff` run over machines (issue 40, D-341):
`--shard I/N` keeps the cases (--generate, --corpus) or clusters
(--exhaustive) whose number is I modulo N, a partition fixed by the run's
order alone, so N runs with I = 0 … N-1 check exactly what one run checks;
`diff --merge REPORT...` reads their JSON reports (`--report json`) and
writes the one report that run would have written, with which shard holds
the first disagreement (docs/oracle.md, "Beyond one machine")."""

from __future__ import annotations

import argparse
import json
import re
from typing import TextIO

from ome_asp.errors import Exit, InputError
from ome_asp.render import report
from ome_asp.solver import space

#: The most shards a run is cut into: more machines than clusters a second each checks.
MAX_SHARDS = 10_000
_SHARD = r"([0-9]+)/([0-9]+)"

# What every shard of one run reports alike, by report kind; the rest is summed or merged.
SAME = {"ExhaustiveDiffReport": ("profile", "bounds", "start"), "DiffReport": ("profile", "source", "skipped")}


def shard_argument(text: str) -> tuple[int, int]:
    """--shard I/N: the I-th of N shards, from 0 (Kubernetes' JOB_COMPLETION_INDEX)."""
    match = re.fullmatch(_SHARD, text)
    if match is None or not 0 < int(match[2]) <= MAX_SHARDS or int(match[1]) >= int(match[2]):
        raise argparse.ArgumentTypeError(f"not a shard: {text!r} (use I/N with 0 <= I < N <= {MAX_SHARDS:,}, such as 0/4)")
    return int(match[1]), int(match[2])


def mine(number: int, shard: tuple[int, int] | None) -> bool:
    """Whether the case or cluster numbered `number` (from 0, in the run's order) is the shard's."""
    return shard is None or number % shard[1] == shard[0]


def to_json(shard: tuple[int, int] | None) -> dict | None:
    return None if shard is None else {"index": shard[0], "count": shard[1]}


def read(paths: list[str]) -> list[dict]:
    """The shards' reports, checked to be the N shards of one run, in shard order."""
    reports = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as file:
                document = json.load(file)
        except OSError as error:
            raise InputError(f"{path}: cannot read the report: {error.strerror}") from None
        except ValueError as error:
            raise InputError(f"{path}: not a JSON report: {error}") from None
        if not isinstance(document, dict) or document.get("kind") not in SAME:
            raise InputError(f"{path}: not a report of diff --report json (kind DiffReport or ExhaustiveDiffReport)")
        if not isinstance(document.get("shard"), dict):
            raise InputError(f"{path}: not a shard's report: run diff with --shard I/N")
        reports.append((path, document))
    first_path, first = reports[0]
    count = first["shard"]["count"]
    for path, document in reports[1:]:
        for key in ("kind", *SAME[first["kind"]]):
            if document.get(key) != first.get(key):
                raise InputError(f"{path}: not a shard of the run {first_path} is: another {key}")
        if document["shard"]["count"] != count:
            raise InputError(f"{path}: one of {document['shard']['count']} shards, {first_path} one of {count}")
    indexes = sorted(document["shard"]["index"] for _, document in reports)
    if len(set(indexes)) != len(indexes):
        twice = sorted({i for i in indexes if indexes.count(i) > 1})
        raise InputError(f"shard {', '.join(map(str, twice))} given twice")
    missing = sorted(set(range(count)) - set(indexes))
    if missing:
        raise InputError(f"shard {', '.join(map(str, missing))} of {count} missing: merge needs every shard's report")
    return [document for _, document in sorted(reports, key=lambda r: r[1]["shard"]["index"])]


def merge(reports: list[dict]) -> dict:
    """One run's report from its shards' (read's order): the counts summed,
    the disagreements in the run's order, and `merged`: each shard's
    counts and resume point, and the shard holding the first disagreement."""
    first = reports[0]
    exhaustive = first["kind"] == "ExhaustiveDiffReport"
    order = "cluster" if exhaustive else "index"
    disagreements = sorted((d for r in reports for d in r["disagreements"]), key=lambda d: d[order])
    counts = ("checked", "agreed", "disagreed") if exhaustive else ("cases", "agreed", "disagreed")
    merged = {**first, "shard": None, **{key: sum(r[key] for r in reports) for key in counts}, "disagreements": disagreements}
    shards = [{"index": r["shard"]["index"], **{key: r[key] for key in counts}} for r in reports]
    if exhaustive:
        merged["complete"] = all(r["complete"] for r in reports)
        # every cluster below the least resume point is checked, by one shard or another
        merged["next"] = None if merged["complete"] else min(r["next"] for r in reports if not r["complete"])
        for shard, r in zip(shards, reports):
            shard.update(complete=r["complete"], next=r["next"])
    failing = [r["shard"]["index"] for r in reports if r["disagreed"]]
    owner = {id(d): r["shard"]["index"] for r in reports for d in r["disagreements"]}
    merged["merged"] = {"shards": shards,
                        "firstFailingShard": owner[id(disagreements[0])] if disagreements else (failing or [None])[0]}
    return merged


def run(paths: list[str], output: str, stdout: TextIO) -> int:
    """`diff --merge REPORT...`: the merged report, as JSON or as text."""
    merged = merge(read(paths))
    if output == "json":
        report.dump(merged, "json", stdout)
    else:
        print(text(merged), file=stdout)
    return Exit.NEGATIVE if merged["disagreed"] else Exit.OK


def text(merged: dict) -> str:
    shards = merged["merged"]["shards"]
    if merged["kind"] == "ExhaustiveDiffReport":
        clusters = merged["bounds"]["clusters"]
        within = space.describe(clusters) if clusters is not None else f"10^{merged['bounds']['clustersLog10']}"
        head = (f"clusters within the bounds: {within}; checked {merged['checked']} up to renaming "
                f"from cluster {merged['start']} in {len(shards)} shards: {merged['agreed']} agree, {merged['disagreed']} disagree")
        unfinished = [s for s in shards if not s["complete"]]
        head += "".join(f"\nshard {s['index']} stopped by the budget: resume it with --shard {s['index']}/{len(shards)} "
                        f"--start {s['next']}" for s in unfinished)
    else:
        skipped = f", {len(merged['skipped'])} skipped" if merged["skipped"] else ""
        head = f"{merged['cases']} cases in {len(shards)} shards: {merged['agreed']} agree, {merged['disagreed']} disagree{skipped}"
    first = merged["merged"]["firstFailingShard"]
    if first is None:
        return head
    where = merged["disagreements"][0] if merged["disagreements"] else None
    what = "" if where is None else f": {where.get('case') or 'cluster-' + str(where['cluster'])}, {where['differences'][0]}"
    return head + f"\nfirst failing shard: {first}{what}"
