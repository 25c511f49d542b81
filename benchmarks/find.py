#!/usr/bin/env python3
"""`ome-asp find` (issue 14): the time of each default-bounds question, and
the search space and time as the bounds grow (docs/performance.md, "find").

    python benchmarks/find.py            # measure; print the section, write it into docs/performance.md
                                         # (between its markers) and docs/find-performance.png
    python benchmarks/find.py --quick    # the two profile questions and two bounds only; print only

Each question runs in-process as `ome-asp find` runs it (search, then the
verification through the ordinary loader and explain). The baseline, measured
in the same run, is one ordinary `explain` of the v1.3 witness (what a user
runs on a cluster they wrote): the ratio says how many explains a search
costs. Times are wall-clock seconds and this process's CPU seconds: on a
shared machine the CPU time is the stable figure.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from ome_asp import cli  # noqa: E402
from ome_asp.analysis import batch, find  # noqa: E402
from ome_asp.solver import finder  # noqa: E402
from ome_asp.solver import space as space_  # noqa: E402

GOAL_S = 30.0
LIMIT_S = 120.0  # a growth point slower than this (wall) is left out: "> 120 s" in the table
# The growth table's questions: a witness, a proof the grounder gives, two hard proofs.
GROWTH = (
    ("--differ v1.3,code-v0.1.5", "o-", "(a witness)"),
    ("--property namespaced-first", "s-", "(none: the grounder's proof)"),
    ("--property raising-winner-priority-keeps-it-first", "^-", "(a proof by search where it holds)"),
    ("--property adding-disabled-runtime-changes-nothing", "v-", "(a proof by search where it holds)"),
)
# this script's section of docs/performance.md (issue 14: each default-bounds question within 30 s on this machine)
MARKER, END = "<!-- benchmarks/find.py -->", "<!-- /benchmarks/find.py -->"


def timed(argv: list[str]) -> tuple[int, float, float]:
    out, err = io.StringIO(), io.StringIO()
    wall, cpu = time.perf_counter(), time.process_time()
    code = cli.main(argv, stdin=io.BytesIO(b""), stdout=out, stderr=err)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(argv)}: exit {code}: {err.getvalue()}")
    return code, wall, cpu


# One find run in a child process, so that a slow point can be stopped: its CPU seconds.
CHILD = """
import io, json, sys, time
from ome_asp import cli
cpu = time.process_time()
code = cli.main(["find", *sys.argv[1:]], stdin=io.BytesIO(b""), stdout=io.StringIO(), stderr=sys.stderr)
print(json.dumps({"code": code, "cpu": time.process_time() - cpu}))
"""


def limited(argv: list[str]) -> tuple[float, int] | None:
    """CPU seconds and exit code of `ome-asp find ARGV`, or None when it takes over LIMIT_S (then stopped)."""
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, *argv], cwd=ROOT, capture_output=True, text=True,
                              timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        return None
    result = json.loads(done.stdout.splitlines()[-1]) if done.returncode == 0 and done.stdout else {"code": -1}
    if result["code"] not in (0, 1):
        raise SystemExit(f"find {' '.join(argv)}: exit {result['code']}: {done.stderr}")
    return result["cpu"], result["code"]


def space(bounds: finder.Bounds) -> float:
    """log10 of the number of clusters within the bounds, as find's header
    counts them (ome_asp/solver/space.py, under v1.3)."""
    return math.log10(space_.clusters(bounds, {"model-or-runtime"}))


def baseline() -> float:
    """One ordinary explain of a small cluster (the witness of the first question), CPU seconds."""
    from ome_asp.conformance import cases

    out = io.StringIO()
    cli.main(["find", "--differ", "v1.3,v1.2.2"], stdin=io.BytesIO(b""), stdout=out, stderr=io.StringIO())
    manifests = out.getvalue().encode()
    cpu = time.process_time()
    for _ in range(10):
        cases.run_cli(["explain", "-f", "-", "--model", "m", "-n", "default"], manifests)
    return (time.process_time() - cpu) / 10


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--plot", default=str(ROOT / "docs" / "find-performance.png"))
    args = parser.parse_args(argv)
    lines: list[str] = []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    explain_cpu = baseline()
    questions = [["--differ", "v1.3,code-v0.1.5"], ["--differ", "v1.3,v1.2.2"]]
    if not args.quick:
        questions += [["--property", name] for name in find.PROPERTIES]
        # with an InferenceService (D-70): the smallest difference, and one with every object in play
        questions += [["--differ", "v1.3,v1.2.2", "--isvc"],
                      ["--differ", "v1.3,code-v0.1.5", "--isvc", "--modes", "--accelerators", "--on", "reasons"]]
    load = os.getloadavg()[0]  # the machine is shared: say how busy it was (CPU time is inflated less than wall)
    say(f"Baseline, same run: one ordinary explain of a witness, {explain_cpu * 1000:.0f} ms CPU "
        f"(load average {load:.1f} on {os.cpu_count()} cores at the start).")
    say()
    say(f"The questions on the default `-j` ({batch.default_jobs()} threads decide whether a witness exists, D-69), "
        "judged on wall time, the wait a user has; the growth table on `-j 1`, the search itself.")
    say()
    say("| question (default bounds) | exit | wall s | CPU s | CPU / explain | within 30 s |")
    say("|---|---|---|---|---|---|")
    for q in questions:
        code, wall, cpu = timed(["find", *q])
        say(f"| `find {' '.join(q)}` | {code} | {wall:.1f} | {cpu:.1f} | {cpu / explain_cpu:,.0f}× | "
            f"{'yes' if wall <= GOAL_S else 'no'} |")
    growth = [(r, e) for r, e in ((1, 1), (2, 1), (3, 1), (1, 2), (2, 2))]
    if args.quick:
        growth = growth[:2]
    say()
    say(f"Growth, on `-j 1`: CPU seconds of each question as the bounds grow; a point over {LIMIT_S:.0f} s "
        "(wall) is stopped and shown as `>`; *(violation)*: the property does not hold within those bounds "
        "(a witness was found and verified).")
    say()
    say("| bounds | clusters (log10) | " + " | ".join(f"`{q}` CPU s" for q, _, _ in GROWTH) + " |")
    say("|---|---|" + "---|" * len(GROWTH))
    points = []
    for runtimes, entries in growth:
        flags = ["--runtimes", str(runtimes), "--entries", str(entries), "-j", "1"]
        size = space(finder.Bounds(runtimes, entries))
        times = [limited([*q.split(), *flags]) for q, _, _ in GROWTH]
        points.append((size, times, f"{runtimes}×{entries}"))
        cells = " | ".join(f"> {LIMIT_S:.0f}" if t is None else f"{t[0]:.1f}" + (" (violation)" if t[1] == 0 and "--property" in q
                           else "") for t, (q, _, _) in zip(times, GROWTH))
        say(f"| {runtimes} runtimes per scope, {entries} entries | {size:.1f} | {cells} |")
    say()
    say(f"Load average at the end: {os.getloadavg()[0]:.1f}.")
    if not args.quick:
        _plot(points, args.plot)
        _write(lines)
    return 0


def _write(lines: list[str]) -> None:
    """docs/performance.md between the markers (benchmarks/run.py keeps them,
    and the earlier measurements written by hand after them): only what this
    run measured."""
    path = ROOT / "docs" / "performance.md"
    text = path.read_text()
    body = "\n".join([MARKER, "## find (issue 14)", "", "Measured by `python benchmarks/find.py`, every figure in this run. "
                      "What makes the proofs fast: docs/decisions.md D-67, D-68, D-69, D-71.",
                      "", *lines, "", "![find: time against the search space](find-performance.png)", END, ""])
    if MARKER in text and END in text:
        text = text[:text.index(MARKER)] + body + text[text.index(END) + len(END) + 1:]
    else:
        text = text.rstrip("\n") + "\n\n" + body
    path.write_text(text)


def _plot(points: list, path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib not installed: no plot; pip install -e '.[bench]')")
        return
    figure, axes = plt.subplots(figsize=(7, 6))
    points = sorted(points)  # by the search space, so the lines run left to right
    for column, (question, style, note) in enumerate(GROWTH):
        shown = [(size, times[column][0]) for size, times, _ in points if times[column] is not None]
        axes.plot([s for s, _ in shown], [t for _, t in shown], style, label=f"{question} {note}")
    violations = [(size, t[0]) for size, times, _ in points for t, (q, _, _) in zip(times, GROWTH)
                  if t is not None and t[1] == 0 and "--property" in q]
    if violations:
        axes.plot([s for s, _ in violations], [t for _, t in violations], "kx", markersize=9,
                  label="a violation found (the property does not hold at those bounds)")
    for size, times, label in points:
        axes.annotate(label, (size, min(t[0] for t in times if t is not None)), textcoords="offset points",
                      xytext=(4, -10), fontsize=8)
    axes.axhline(GOAL_S, color="grey", linestyle=":", label=f"30 s (points over {LIMIT_S:.0f} s are left out)")
    axes.set_xlabel("clusters within the bounds (log10); labels: runtimes per scope × entries")
    axes.set_ylabel("CPU seconds")
    axes.set_yscale("log")
    axes.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.15))
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
