#!/usr/bin/env python3
"""Issue 40's serve goals, every figure of one run measured alike
(docs/performance.md, "serve: issue 40's goals").

    python benchmarks/serve.py             # every goal; writes its section into docs/performance.md
    python benchmarks/serve.py --quick     # tiny sizes, print only (the CI smoke run)
    python benchmarks/serve.py --tree DIR  # the servers of another checkout (the base commit's: a before column), print only

S1  T1's workload (benchmarks/worlds.py: random clusters of 1-10 runtimes,
    each request with its own manifests, code-v0.1.5), all written at once:
    cases/s after the first two answers (the server's start and the
    encoding's rewrite left out) and CPU ms per case (every process of
    serve's, its workers included), for serve's default -j, -j 1 and -j 2;
    on the machine as it is and with one core kept busy by a spinning
    process. A wall figure means something only on an otherwise idle
    machine: the load is printed with each.
S2  memory: T5's requests (200 distinct, cycled) at the default -j; the
    proportional set size of serve and its workers, the largest of each
    tenth of the run; the growth is the largest tenth less the first.
S3  a preloaded cluster (-f): 500 runtimes (a quarter ServingRuntimes in
    `bench`) and 150 ClusterBaseModels; 200 requests, explain about random
    models in `bench` and three namespaces without ServingRuntimes, select
    and admit, all written at once and one at a time: CPU ms per request
    (serve's CPU less that of one reading the cluster and answering
    nothing), against `explain --all-models -n bench -o json -j 1`'s CPU per
    model on the same cluster (the issue's ~30 ms).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "benchmarks")]

from clusters import NAMESPACE, cluster_documents  # noqa: E402
from worlds import cpu_seconds, pss_kb, requests, serve_piped, write_section  # noqa: E402

MARK_BEGIN, MARK_END = "<!-- serve: benchmarks/serve.py -->", "<!-- /serve -->"
PROFILE = "code-v0.1.5"
OTHER_NAMESPACES = ("team-a", "team-b", "team-c")


class Server:
    """`ome-asp serve --stdio` of a checkout (this one, or --tree's)."""

    def __init__(self, tree: Path) -> None:
        self.tree = tree
        self.env = {**os.environ, "PYTHONPATH": str(tree)}
        self.serve = [sys.executable, "-m", "ome_asp", "serve", "--stdio"]

    def start(self, *argv: str) -> subprocess.Popen:
        return subprocess.Popen([*self.serve, *argv], cwd=self.tree, env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def piped(self, argv: tuple[str, ...], lines: list[bytes], samples: int = 0) -> dict:
        """serve_piped of benchmarks/worlds.py: seconds, serve's CPU seconds, and with `samples`
        serve's memory (MB of PSS, its workers' included: a fork shares its
        parent's pages) every len/samples answers."""
        seconds, memory, cpu = serve_piped(lines, samples, [*self.serve, *argv], pss_kb, cwd=self.tree, env=self.env)
        return {"seconds": seconds, "cpu": cpu, "memory_mb": [kb / 1024 for kb in memory]}

    def lockstep(self, argv: tuple[str, ...], lines: list[bytes]) -> dict:
        """Each line sent after the previous answer: seconds and serve's CPU seconds."""
        process = self.start(*argv)
        start = time.perf_counter()
        for line in lines:
            process.stdin.write(line)
            process.stdin.flush()
            process.stdout.readline()
        seconds = time.perf_counter() - start
        process.stdin.close()
        return {"seconds": seconds, "cpu": cpu_seconds(process)}

    def cpu_of(self, *argv: str) -> float:
        """The CPU seconds of one `ome-asp` command line, its output dropped."""
        process = subprocess.Popen([sys.executable, "-m", "ome_asp", *argv], cwd=self.tree, env=self.env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return cpu_seconds(process)


class Spinner:
    """A process keeping one core busy while the block runs."""

    def __enter__(self) -> Spinner:
        self.process = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        time.sleep(1)  # the scheduler has seen it
        return self

    def __exit__(self, *_) -> None:
        self.process.kill()
        self.process.wait()


def load() -> float:
    return os.getloadavg()[0]


def s1(server: Server, count: int, quick: bool = False) -> list[dict]:
    """T1's rate and CPU per case for each -j, idle and with one core busy;
    a run of the first two lines (the start, and the encoding's rewrite for
    worlds, D-49) left out."""
    lines = requests(count)
    rows = []
    for busy in (False,) if quick else (False, True):
        for jobs in ((), ("-j", "1")) if quick else ((), ("-j", "1"), ("-j", "2")):
            with Spinner() if busy else contextlib.nullcontext():
                before = load()
                first = server.piped(("--profile", PROFILE, *jobs), lines[:2])
                run = server.piped(("--profile", PROFILE, *jobs), lines)
            rows.append({"jobs": " ".join(jobs) or "default", "busy": busy, "load": before,
                         "per_s": (count - 2) / (run["seconds"] - first["seconds"]),
                         "cpu_ms": (run["cpu"] - first["cpu"]) / (count - 2) * 1e3})
    return rows


def s2(server: Server, count: int) -> dict:
    """Memory sampled every hundredth of the run, the largest of each tenth
    kept: a worker replaced between two samples is then not read as memory given back."""
    pool = requests(200, runtimes=(1, 4), seed=5)
    lines = [pool[n % len(pool)] for n in range(count)]
    before = load()
    samples = server.piped(("--profile", PROFILE), lines, samples=100)["memory_mb"]
    tenths = [max(samples[k:k + 10]) for k in range(0, len(samples), 10)]
    return {"requests": count, "load": before, "memory_mb": tenths, "growth_mb": max(tenths) - tenths[0]}


def preloaded_requests(count: int, models: int, seed: int = 3) -> list[bytes]:
    """S3's mixed requests about the preloaded cluster."""
    rng = random.Random(seed)
    lines = []
    for n in range(count):
        model = f"model-{rng.randrange(models):04d}"
        pick = rng.random()
        if pick < 0.55:
            request = {"namespace": NAMESPACE, "model": model}
        elif pick < 0.75:
            request = {"namespace": rng.choice(OTHER_NAMESPACES), "model": model}
        elif pick < 0.9:
            request = {"command": "select", "namespace": NAMESPACE, "model": model}
        else:
            request = {"command": "admit"}
        lines.append(json.dumps({"id": n, **request}).encode() + b"\n")
    return lines


def s3(server: Server, runtimes: int, models: int, count: int, directory: Path) -> dict:
    dump = directory / "dump.yaml"
    dump.write_text(yaml.safe_dump_all(cluster_documents(runtimes, models=models, seed=1)))
    lines = preloaded_requests(count, models)
    argv = ("-f", str(dump))
    before = load()
    explain = server.cpu_of("explain", "--all-models", "-n", NAMESPACE, "-f", str(dump), "-o", "json", "-j", "1")
    nothing = server.piped(argv, [])
    result = {"runtimes": runtimes, "models": models, "requests": count, "load": before,
              "all_models_cpu_ms_per_model": explain / models * 1e3, "start_cpu_s": nothing["cpu"]}
    for name, jobs in (("j1", ("-j", "1")), ("default", ())):
        piped = server.piped(argv + jobs, lines)
        one = server.lockstep(argv + jobs, lines)
        result[name] = {"piped_s": piped["seconds"], "piped_cpu_ms": (piped["cpu"] - nothing["cpu"]) / count * 1e3,
                        "lockstep_s": one["seconds"], "lockstep_cpu_ms": (one["cpu"] - nothing["cpu"]) / count * 1e3}
    return result


def markdown(r: dict, tree: str) -> str:
    lines = [MARK_BEGIN, "## serve: issue 40's goals", "",
             f"Measured by `python benchmarks/serve.py` ({tree}); the load average (1 min) before each measurement "
             "is given with it. CPU figures add up every process of serve's (its workers included).", "",
             "S1 — T1's workload, 1,000 cases, written at once: cases/s after the first two answers, CPU per case.", "",
             "| -j | one core busy | load before | cases/s | CPU ms per case |", "|---|---|---:|---:|---:|"]
    lines += [f"| {row['jobs']} | {'yes' if row['busy'] else 'no'} | {row['load']:.1f} | {row['per_s']:,.0f} | "
              f"{row['cpu_ms']:.2f} |" for row in r["S1"]]
    two = r["S2"]
    lines += ["", f"S2 — memory over {two['requests']:,} requests (default -j, load {two['load']:.1f} before), the "
              "largest proportional set size of serve and its workers in each tenth of the run: "
              + ", ".join(f"{mb:.1f}" for mb in two["memory_mb"]) + f" MB; growth {two['growth_mb']:.1f} MB (goal ≤ 5 MB).", ""]
    three = r["S3"]
    lines += [f"S3 — a preloaded cluster of {three['runtimes']} runtimes and {three['models']} ClusterBaseModels, "
              f"{three['requests']} mixed requests (load {three['load']:.1f} before): `explain --all-models` "
              f"{three['all_models_cpu_ms_per_model']:.1f} ms CPU per model; serve's start (reading the cluster) "
              f"{three['start_cpu_s']:.2f} s CPU.", "",
              "| -j | written at once: s, CPU ms per request | one at a time: s, CPU ms per request |", "|---|---|---|"]
    for name, label in (("j1", "1"), ("default", "default")):
        row = three[name]
        lines.append(f"| {label} | {row['piped_s']:.1f} s, {row['piped_cpu_ms']:.1f} ms | "
                     f"{row['lockstep_s']:.1f} s, {row['lockstep_cpu_ms']:.1f} ms |")
    return "\n".join(lines + [MARK_END]) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, print only (CI smoke run)")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose serve is measured (default: this one)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args(argv)
    quick, tree = args.quick, args.tree.resolve()
    with tempfile.TemporaryDirectory() as directory:
        results = {
            "S1": s1(Server(tree), 20 if quick else 1000, quick),
            "S2": s2(Server(tree), 200 if quick else 10_000),
            "S3": s3(Server(tree), 20 if quick else 500, 6 if quick else 150, 12 if quick else 200, Path(directory)),
        }
    label = "this checkout" if tree == ROOT else f"the serve of {tree}"
    text = markdown(results, label)
    print(text)
    if args.json:
        print(json.dumps(results, indent=1))
    if not quick and tree == ROOT:
        write_section(text, MARK_BEGIN, MARK_END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
