#!/usr/bin/env python3
"""`ome-asp compare --all-models` on two snapshots of 100 models × 550
runtimes that differ in 20 fields, against one `explain --all-models` of
the earlier snapshot, in the same run (issue 15: ≤ 3×).

    python benchmarks/compare.py            # writes its section of docs/performance.md
    python benchmarks/compare.py --quick    # 10 models × 50 runtimes, prints only

Both commands run in-process through the CLI (YAML in, JSON out); medians.
"""

from __future__ import annotations

import argparse
import copy
import io
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT)]

from clusters import NAMESPACE, SIZES, cluster_documents  # noqa: E402

from ome_asp.cli import main as cli  # noqa: E402
from ome_asp.input import changes  # noqa: E402
from ome_asp.input.loader import load  # noqa: E402
from ome_asp.solver import ask  # noqa: E402
from ome_asp.solver.facts import Query  # noqa: E402
from ome_asp.solver.programs import Variant  # noqa: E402

TARGET = ROOT / "docs" / "performance.md"
HEADING = "## compare: two snapshots against one explain"
FIELDS = 20


def mutate(documents: list[dict], count: int, rng: random.Random, winners: set[str]) -> list[dict]:
    """`documents` with `count` fields selection reads changed (priorities,
    weights, autoSelect, disabled, model sizes), one per object; half of the
    runtimes changed select a model, so that selections move."""
    after = copy.deepcopy(documents)
    runtimes = [d for d in after if d["kind"].endswith("ServingRuntime")]
    models = [d for d in after if d["kind"] == "ClusterBaseModel"]
    selecting = [d for d in runtimes if d["metadata"]["name"] in winners]
    chosen = rng.sample(selecting, min(len(selecting), (count - count // 5) // 2))
    chosen += rng.sample([d for d in runtimes if d not in chosen], count - count // 5 - len(chosen))
    for n, doc in enumerate(chosen):
        entries = doc["spec"]["supportedModelFormats"]
        kind = n % 4
        if kind == 0 and len(entries) == 1:  # one priority per runtime (W4): a runtime of one entry
            entries[0]["priority"] = entries[0]["priority"] % 4 + 1
        elif kind in (0, 1):
            entries[0]["modelFormat"]["weight"] = entries[0]["modelFormat"].get("weight", 1) + 3
        elif kind == 2:
            entries[0]["autoSelect"] = not entries[0]["autoSelect"]
        else:
            doc["spec"]["disabled"] = True
    for doc in rng.sample(models, count // 5):
        doc["spec"]["modelParameterSize"] = rng.choice([s for s in SIZES if s != doc["spec"]["modelParameterSize"]])
    return after


def snapshots(directory: Path, runtimes: int, models: int) -> tuple[str, str, int]:
    before = cluster_documents(runtimes, models=models, seed=15)
    (directory / "before.yaml").write_text(yaml.safe_dump_all(before, sort_keys=False))
    cluster = load([str(directory / "before.yaml")])
    queries = [Query(NAMESPACE, model=m.name) for m in cluster.models]
    result = ask.ask(cluster, queries, Variant.RANK).answer
    winners = {a.ranking[0].name for a in result.queries.values() if a.ranking}
    after = mutate(before, FIELDS, random.Random(15), winners)
    (directory / "after.yaml").write_text(yaml.safe_dump_all(after, sort_keys=False))
    fields = len(changes.diff(cluster, load([str(directory / "after.yaml")])))
    return str(directory / "before.yaml"), str(directory / "after.yaml"), fields


def timed(argv: list[str], repeat: int) -> tuple[float, str]:
    times, out = [], ""
    for _ in range(repeat):
        stdout = io.StringIO()
        start = time.perf_counter()
        cli(argv, stdout=stdout, stderr=io.StringIO())
        times.append(time.perf_counter() - start)
        out = stdout.getvalue()
    return statistics.median(times), out


def section(runtimes: int, models: int, fields: int, explain: float, compare: float, report: dict) -> str:
    changed = len(report["items"])
    sets = sum(len(item["causes"]) for item in report["items"])
    ratio = compare / explain
    return (
        f"{HEADING}\n\n"
        f"Measured by `python benchmarks/compare.py` (issue 15's goal: ≤ 3× one explain). Two snapshots of "
        f"{models} models × {runtimes} runtimes (benchmarks/clusters.py) that differ in {fields} fields selection "
        f"reads; both commands in-process through the CLI, YAML in, JSON out, medians of the same run. compare ranks "
        f"both snapshots (two worlds of one grounding, the ranking program: no No rows), explains only the {changed} "
        f"models whose runtime changed, runs one search for the smallest edit sets per changed model ({sets} sets "
        "found) and verifies every set in one more grounding (one world per set); so it costs less than one explain "
        "of every model with all its No rows. Absolute times depend on the machine's load (this one is shared); "
        "the ratio is of one run.\n\n"
        "| explain --all-models (one snapshot) | compare --all-models | ratio | goal ≤ 3× |\n|---:|---:|---:|---|\n"
        f"| {explain * 1000:,.1f} ms | {compare * 1000:,.1f} ms | {ratio:.2f}× | {'yes' if ratio <= 3 else '**no**'} |\n"
    )


_SECTION = re.compile(rf"^{re.escape(HEADING)}\n.*?(?=^## |\Z)", re.S | re.M)


def section_of(text: str) -> str:
    """This script's section of a docs/performance.md text ("" if none);
    benchmarks/run.py keeps it when it rewrites the file."""
    found = _SECTION.search(text)
    return found.group(0).rstrip("\n") + "\n" if found else ""


def write_section(text: str) -> None:
    """Replace this script's section of docs/performance.md (or add it at the end)."""
    current = TARGET.read_text()
    if section_of(current):
        TARGET.write_text(_SECTION.sub(lambda _: text.rstrip("\n") + "\n\n", current).rstrip("\n") + "\n")
    else:
        TARGET.write_text(current.rstrip("\n") + "\n\n" + text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    runtimes, models, repeat = (50, 10, 1) if args.quick else (550, 100, 3)
    import json

    with tempfile.TemporaryDirectory() as directory:
        before, after, fields = snapshots(Path(directory), runtimes, models)
        explain, _ = timed(["explain", "--all-models", "-n", NAMESPACE, "-f", before, "-o", "json"], repeat)
        compare, out = timed(["compare", "--before", before, "--after", after, "--all-models", "-n", NAMESPACE,
                              "-o", "json"], repeat)
    text = section(runtimes, models, fields, explain, compare, json.loads(out))
    print(text)
    if not args.quick:
        write_section(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
