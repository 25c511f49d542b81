#!/usr/bin/env python3
"""Issue 12's goals T1-T5 (worlds: many independent cases in one grounding),
each with a baseline measured in the same run (docs/performance.md, section
"Worlds").

    python benchmarks/worlds.py            # full run: writes the section into docs/performance.md
    python benchmarks/worlds.py --quick    # tiny sizes, prints only (the CI smoke run)

T1  serve --stdio --profile code-v0.1.5 on random clusters of 1-10 runtimes,
    each request with its own manifests, all written at once (read ahead:
    batches of worlds); baseline: the same server answering one line at a
    time (each line sent after the previous answer: batches of one), at serve's default -j (every core it may use); both
    rates leave out the first answer (the server's start). The Go selector's
    ~18,000 cases/s is not measured here (issue 12, an earlier measurement):
    it is printed as such, outside the same-run baseline.
T2  grounding per world of 4-runtime cases (1,000 worlds), the facts alone
    and each encoding file added in program order; baseline: one fresh
    grounding of one case (the one-query program).
T3  Python per 4-runtime case in a serve batch: JSON line -> objects -> facts
    -> decode -> JSON answer, i.e. everything but clingo's grounding (timed
    around it); the top functions by cProfile.
T4  check fixtures/cases (default -j, and -j 1); baseline: the same cases
    read and answered one command line at a time, in-process (the path
    before worlds), CPU time against -j 1's.
T5  serve's memory over 100,000 requests (the largest proportional set size
    of each tenth of the run), its -j workers included.

    python benchmarks/worlds.py --t1-only  # T1, and T1's work counted in one process (prints only)

--t1-only also answers T1's requests in this process as `serve -j 1` does,
fed in reads of at most --pipe-bytes (what a pipe of that size gives a
client writing ahead): CPU seconds per case (time.process_time, the best of
--repeat runs) and cProfile's function calls per case, which the load of a
shared machine does not change (docs/performance.md, "serve's CPU per case").
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import json
import os
import pstats
import random
import re
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT)]

from clusters import NAMESPACE, cluster_documents  # noqa: E402

from ome_asp.commands import serve  # noqa: E402
from ome_asp.conformance import cases  # noqa: E402
from ome_asp.input import profiles  # noqa: E402
from ome_asp.solver import engine, worlds  # noqa: E402
from ome_asp.solver.facts import Query, build_facts, build_world_facts  # noqa: E402
from ome_asp.solver.programs import Variant  # noqa: E402

GO_CASES_PER_S = 18_000  # OME's Go selector, JSON in and out, single thread: issue 12's figure, not measured here
PROFILE = "code-v0.1.5"
SERVE = [sys.executable, "-m", "ome_asp", "serve", "--stdio", "--profile", PROFILE]
MARK_BEGIN, MARK_END = "<!-- worlds: benchmarks/worlds.py -->", "<!-- /worlds -->"


def requests(count: int, runtimes: tuple[int, int] = (1, 10), seed: int = 0) -> list[bytes]:
    """JSON lines: clusters of benchmarks/clusters.py with a random number of runtimes."""
    rng = random.Random(seed)
    lines = []
    for n in range(count):
        documents = cluster_documents(rng.randint(*runtimes), models=1, seed=seed * 1_000_003 + n)
        lines.append(json.dumps({"id": n, "namespace": NAMESPACE, "model": "model-0000", "manifests": documents}).encode() + b"\n")
    return lines


def rss_kb(pid: int, file: str = "status", field: str = "VmRSS:") -> int:
    """The resident memory of a process and of its children (serve -j's
    workers); with `file` smaps_rollup and `field` Pss:, their proportional
    set size (a page shared by n processes counts 1/n in each). A worker may
    end between being listed and being read, or be a zombie (no VmRSS line):
    it holds no memory then."""
    try:
        with open(f"/proc/{pid}/{file}") as status:
            own = int(next((line.split()[1] for line in status if line.startswith(field)), 0))
        with open(f"/proc/{pid}/task/{pid}/children") as children:
            listed = children.read().split()
    except (FileNotFoundError, ProcessLookupError):
        return 0
    return own + sum(rss_kb(int(child), file, field) for child in listed)


def cpu_seconds(process: subprocess.Popen) -> float:
    """The CPU time (user + system) of a child process, once it has ended."""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def serve_piped(lines: list[bytes], samples: int = 0, argv: list[str] = SERVE, measure=rss_kb, **popen) -> tuple[float, list[int], float]:
    """Seconds from the first line written to the last answer read, all lines
    written at once by a thread; with `samples`, `measure(pid)` of serve
    (RSS in kB, its workers' included) after every len(lines)/samples
    answers; and serve's CPU seconds. `argv` and `popen` (cwd, env) start serve."""
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, **{"cwd": ROOT, **popen})
    every = len(lines) // samples if samples else 0
    rss = []

    def write() -> None:
        for line in lines:
            process.stdin.write(line)
        process.stdin.close()

    start = time.perf_counter()
    writer = threading.Thread(target=write)
    writer.start()
    for n in range(1, len(lines) + 1):
        answer = process.stdout.readline()
        if not answer:
            raise RuntimeError(f"serve stopped after {n - 1} answers")
        if every and n % every == 0:
            rss.append(measure(process.pid))
    seconds = time.perf_counter() - start
    writer.join()
    return seconds, rss, cpu_seconds(process)


def serve_lockstep(lines: list[bytes]) -> float:
    """Seconds for the lines after the first, sent one at a time, each after the previous answer."""
    process = subprocess.Popen(SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)
    process.stdin.write(lines[0])  # the first answer also pays the start: not timed
    process.stdin.flush()
    process.stdout.readline()
    start = time.perf_counter()
    for line in lines[1:]:
        process.stdin.write(line)
        process.stdin.flush()
        process.stdout.readline()
    seconds = time.perf_counter() - start
    process.stdin.close()
    process.wait()
    return seconds


def t1(count: int, lockstep: int) -> dict:
    """Both rates over the answers after the first (which pays the server's
    start): piped, the whole run less a run of the first line alone."""
    lines = requests(count)
    start_only, _, start_cpu = serve_piped(lines[:1])
    seconds, _, cpu = serve_piped(lines)
    per_s = (count - 1) / (seconds - start_only)
    return {"cases": count, "seconds": seconds, "start_s": start_only, "per_s": per_s,
            "per_cpu_s": (count - 1) / (cpu - start_cpu), "lockstep_per_s": (lockstep - 1) / serve_lockstep(lines[:lockstep]),
            "go_ratio": GO_CASES_PER_S / per_s, "load": os.getloadavg()[0]}


class _Pipe:
    """Reads of at most `size` bytes of `data`, as a pipe of that size gives a client writing ahead."""

    def __init__(self, data: bytes, size: int) -> None:
        self.data, self.size, self.at = data, size, 0

    def read1(self, n: int) -> bytes:
        chunk = self.data[self.at:self.at + min(n, self.size)]
        self.at += len(chunk)
        return chunk


def t1_counts(count: int, pipe_bytes: int, repeat: int) -> dict:
    """T1's requests answered in this process (serve's path, -j 1): CPU per
    case, batches, cProfile's calls per case, the top functions by own time."""
    data = b"".join(requests(count))
    profile = profiles.PROFILES[PROFILE]

    def run() -> tuple[str, int]:
        out, batches = io.StringIO(), 0
        read_ahead = serve.read_ahead

        def counted(*args, **kwargs):
            nonlocal batches
            for batch in read_ahead(*args, **kwargs):
                batches += 1
                yield batch

        serve.read_ahead = counted
        try:
            serve.serve(None, _Pipe(data, pipe_bytes), out, profile, jobs=1)
        finally:
            serve.read_ahead = read_ahead
        return out.getvalue(), batches

    run()  # the encoding parsed and rewritten: once per process, not per case
    cpu = []
    for _ in range(repeat):
        start = time.process_time()
        answers, batches = run()
        cpu.append(time.process_time() - start)
    profiler = cProfile.Profile()
    profiler.enable()
    run()
    profiler.disable()
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text)
    stats.sort_stats("tottime").print_stats(12)
    top = [line.strip() for line in text.getvalue().splitlines() if re.match(r"\s+\d", line)]
    return {"cases": count, "pipe_bytes": pipe_bytes, "batches": batches, "cpu_per_case_s": min(cpu) / count,
            "cpu_runs_s": cpu, "calls_per_case": stats.total_calls / count, "answers_sha256": hashlib.sha256(answers.encode()).hexdigest(),
            "top": top}


def four_runtime_cases(count: int) -> list:
    profile = profiles.PROFILES[PROFILE]
    return [(serve._case_cluster(cluster_documents(4, models=1, seed=n), profile), [Query(NAMESPACE, model="model-0000")])
            for n in range(count)]


def t2(count: int) -> dict:
    cases = four_runtime_cases(count)
    facts = build_world_facts(cases)
    files = Variant.BATCH_EXPLAIN.files
    program = worlds.batch_program(facts)
    for k in range(len(files) + 1):
        worlds.compiled(files[:k])  # parsed and rewritten once per process: not a batch's cost

    def ground(k: int) -> tuple[float, int]:
        start = time.process_time()
        ctl = engine.ground_program(program, files[:k], worlds.load)
        seconds = time.process_time() - start
        ctl.solve()
        return seconds, ctl.statistics["problem"]["lp"]["atoms"]

    rows, previous = [], ground(0)
    rows.append(("(facts, world/1)", previous[0] / count, previous[1] / count))
    for k in range(1, len(files) + 1):
        current = ground(k)
        rows.append((files[k - 1], (current[0] - previous[0]) / count, (current[1] - previous[1]) / count))
        previous = current
    fresh = []
    for case in cases[:50]:
        start = time.process_time()
        engine.ground(build_facts(*case), Variant.EXPLAIN)
        fresh.append(time.process_time() - start)
    fresh.sort()
    return {"worlds": count, "per_world_s": previous[0] / count, "atoms": previous[1] / count, "files": rows,
            "fresh_s": fresh[len(fresh) // 2]}


def t3(count: int) -> dict:
    parsed = [json.loads(line) for line in requests(count, runtimes=(4, 4))]
    clingo_s = 0.0
    ground = engine.ground_program

    def timed(*args, **kwargs):
        nonlocal clingo_s
        start = time.process_time()
        try:
            return ground(*args, **kwargs)
        finally:
            clingo_s += time.process_time() - start

    engine.ground_program = timed
    profiler = cProfile.Profile()
    try:
        serve.respond_all(parsed[:10], None, profiles.PROFILES[PROFILE])  # compile the encoding first
        clingo_s = 0.0
        lines = [json.dumps(r).encode() for r in parsed]
        start = time.process_time()
        out = [json.dumps(a, ensure_ascii=False) for a in serve.respond_all([json.loads(x) for x in lines], None, profiles.PROFILES[PROFILE])]
        total, grounding = time.process_time() - start, clingo_s
        profiler.enable()
        serve.respond_all([json.loads(x) for x in lines], None, profiles.PROFILES[PROFILE])
        profiler.disable()
    finally:
        engine.ground_program = ground
    assert len(out) == count
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text)
    stats.sort_stats("tottime").print_stats(8)
    top = [line.strip() for line in text.getvalue().splitlines() if re.match(r"\s+\d", line)][:8]
    # the calls (to Python and built-in functions alike) each module of ome_asp makes: counts, unlike times, the load leaves alone
    made: dict[str, int] = {}
    for *_, callers in stats.stats.values():
        for (path, _, _), (_, calls, *_) in callers.items():
            if "/ome_asp/" in path:
                module = path.rpartition("/ome_asp/")[2]
                made[module] = made.get(module, 0) + calls
    ranked = sorted(made.items(), key=lambda item: -item[1])[:6]
    return {"cases": count, "python_s": (total - grounding) / count, "clingo_s": grounding / count, "top": top,
            "calls": sum(calls for _, calls, *_ in stats.stats.values()) / count,
            "made": ", ".join(f"{module} {calls / count:,.0f}" for module, calls in ranked)}


def t4(corpus: Path, baseline: bool) -> dict:
    argv = [sys.executable, "-m", "ome_asp", "check", str(corpus)]
    result = {}
    for name, extra in (("jobs_default", []), ("jobs_1", ["-j", "1"])):
        start, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(argv + extra, capture_output=True, text=True, cwd=ROOT)
        result[name] = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        result[name + "_cpu"] = after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime
        result["summary"] = done.stdout.strip().splitlines()[-1]
    if baseline:  # the path before worlds: every command of every case its own command line
        start = time.process_time()  # reading the cases too, as check -j 1 does
        for case in [cases.load_case(d, n) for d, n in cases.find([str(corpus)])]:
            for command in case.spec["check"]:
                want = tuple(k for k in cases.OPTIONAL_KEYS if k in (case.expected or {}).get(command, {}))
                cases.answer(command, case.manifests, case.query, case.profile, want)
        result["one_by_one_s"] = time.process_time() - start  # CPU: compare with jobs_1_cpu
    return result


def pss_kb(pid: int) -> int:
    """The proportional set size of serve and its workers: a worker forked
    from serve shares its pages, which RSS counts in both."""
    return rss_kb(pid, "smaps_rollup", "Pss:")


def t5(count: int) -> dict:
    """Memory sampled every hundredth of the run, the largest of each tenth
    kept: serve replaces a worker that has grown (D-320), and one replaced
    between two samples is not memory given back."""
    pool = requests(200, runtimes=(1, 4), seed=5)
    lines = [pool[n % len(pool)] for n in range(count)]
    seconds, memory, _ = serve_piped(lines, samples=100, measure=pss_kb)
    tenths = [max(memory[k:k + 10]) / 1024 for k in range(0, len(memory), 10)]
    return {"requests": count, "seconds": seconds, "rss_mb": tenths}


def markdown(r: dict) -> str:
    one, two, three, four, five = r["T1"], r["T2"], r["T3"], r["T4"], r["T5"]
    lines = [
        MARK_BEGIN,
        "## Worlds: many independent cases in one grounding (issue 12)",
        "",
        f"Measured by `python benchmarks/worlds.py` on this 2-core machine, shared with other work (load "
        f"average {one['load']:.1f} during T1): wall-clock times stretch with the load, so each goal also "
        f"gives CPU time, and the ratios are within one run.",
        "",
        "| # | goal | measured | baseline (same run) | met |",
        "|---|---|---|---|---|",
        f"| T1 | serve --stdio --profile code-v0.1.5, {one['cases']:,} clusters of 1-10 runtimes, own manifests: "
        f"≥ 5,000 cases/s | {one['per_s']:,.0f} cases/s after the first answer ({one['seconds']:.1f} s in all, the first "
        f"line alone {one['start_s']:.2f} s); {one['per_cpu_s']:,.0f} cases per CPU second | "
        f"one line at a time, after the first answer: {one['lockstep_per_s']:,.0f} cases/s "
        f"({one['per_s'] / one['lockstep_per_s']:.1f}× slower) | {'yes' if one['per_s'] >= 5000 else 'no'} |",
        f"| T2 | grounding per world, 4-runtime case ≤ 0.15 ms | {two['per_world_s'] * 1e3:.2f} ms "
        f"({two['atoms']:.0f} atoms) | one fresh one-case grounding: {two['fresh_s'] * 1e3:.1f} ms "
        f"({two['fresh_s'] / two['per_world_s']:.0f}× a world) | {'yes' if two['per_world_s'] <= 0.15e-3 else 'no'} |",
        f"| T3 | Python per 4-runtime case ≤ 0.1 ms | {three['python_s'] * 1e3:.2f} ms CPU | clingo's grounding per case "
        f"in the same batches (with parsing the facts): {three['clingo_s'] * 1e3:.2f} ms CPU | {'yes' if three['python_s'] <= 0.1e-3 else 'no'} |",
        f"| T4 | check fixtures/cases ≤ 0.5 s on 2 cores | {four['jobs_default']:.1f} s (-j 1: {four['jobs_1']:.1f} s; "
        f"CPU {four['jobs_default_cpu']:.1f} s, -j 1 {four['jobs_1_cpu']:.1f} s) | "
        + (f"one command line per command, in-process: {four['one_by_one_s']:.1f} s CPU "
           f"({four['one_by_one_s'] / four['jobs_1_cpu']:.1f}× -j 1's CPU)" if "one_by_one_s" in four else "—")
        + f" | {'yes' if four['jobs_default'] <= 0.5 else 'no'} |",
        f"| T5 | memory flat over {five['requests']:,} serve requests | PSS "
        + ", ".join(f"{mb:.0f}" for mb in five["rss_mb"]) + f" MB, the largest of each {five['requests'] // 10:,} | first sample | "
        f"{'yes' if max(five['rss_mb']) <= 1.1 * five['rss_mb'][0] + 5 else 'no'} |",
        "",
        f"Not measured in this run: OME's Go selector answers ~{GO_CASES_PER_S:,} cases/s (issue 12, JSON in and out, "
        f"one thread); T1's rate is {one['go_ratio']:.0f}× slower than that figure.",
        "",
        f"Grounding per world by file (T2; {two['worlds']:,} worlds, CPU time, files added in program order; "
        "each row is the difference of two groundings, so a small or negative one is noise of the load):",
        "",
        "| file | ms per world | atoms per world |",
        "|---|---|---|",
    ]
    lines += [f"| {name} | {seconds * 1e3:.3f} | {atoms:.1f} |" for name, seconds, atoms in two["files"]]
    lines += ["", "Python per case (T3), the functions with the most own time in one batch "
              "(cProfile: ncalls, tottime, percall, cumtime, percall, function):", "", "```"] + three["top"] + ["```", ""]
    lines += ["Missed goals, by how much (T1 and T4 by CPU time: T1's server on one idle core, T4's check on "
              "two), and the next lever:", ""] + [
        f"- {goal}: missed by {factor:.1f}×. {lever}" for goal, factor, lever in missed(r)] + [MARK_END]
    return "\n".join(lines) + "\n"


LEVERS = {
    "T1": "Python per case (T3) is most of a case's time, then its facts' parsing (T2): both levers below; "
          "serve's batches use one core, so a second server process (or -j for serve) would double it on 2 cores.",
    "T2": "Most of a world's grounding is reading its facts (the first row: parsing a 4-runtime case's facts). "
          "The value-only facts are world-free and ground once per batch already (D-130); adding the rest "
          "through clingo's backend as symbols would skip the parser.",
    "T3": "{calls:,.0f} Python calls per case in the profiled batch (cProfile's counts, which the load does not "
          "change), by the module that makes them: {made}. A batch's facts are built once for all its cases "
          "(facts.build_world_facts, D-130) and its value classes are records (D-135), so what is left is per case: "
          "reading each field of the request's manifests (input/loader.py), writing each fact's text (solver/facts.py) "
          "and decoding the world's atoms (solver/answer.py); a loader path for requests already in JSON and fact "
          "text written without a call per argument are the next steps.",
    "T4": "Reading and validating the cases (YAML, jsonschema), the CLI start and the cases whose expected "
          "answer includes the table, stderr or exit (a command line each) are fixed costs beyond the budget; "
          "answering those parts from the worlds' answers is the next lever.",
    "T5": "RSS grew by more than 10 %: find what a batch keeps.",
}


def missed(r: dict) -> list[tuple[str, float, str]]:
    """(goal, measured / goal, lever) of each goal missed; T1 and T4 by CPU
    time (what an otherwise idle machine gives: T1's one server on one core,
    T4's check on both), since wall-clock time stretches with the load."""
    factors = {
        "T1": 5000 / r["T1"]["per_cpu_s"],
        "T2": r["T2"]["per_world_s"] / 0.15e-3,
        "T3": r["T3"]["python_s"] / 0.1e-3,
        "T4": r["T4"]["jobs_default_cpu"] / 2 / 0.5,
        "T5": max(r["T5"]["rss_mb"]) / (1.1 * r["T5"]["rss_mb"][0] + 5),
    }
    return [(goal, factor, LEVERS[goal].format(**r[goal])) for goal, factor in factors.items() if factor > 1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, print only (CI smoke run)")
    parser.add_argument("--t5-requests", type=int, default=100_000, metavar="N", help="T5's requests (default 100,000)")
    parser.add_argument("--t1-only", action="store_true", help="T1 and its work counted in one process; print only")
    parser.add_argument("--pipe-bytes", type=int, default=serve.PIPE_BYTES, metavar="N",
                        help="--t1-only: the reads' size (default serve's pipe, PIPE_BYTES)")
    parser.add_argument("--repeat", type=int, default=3, metavar="N", help="--t1-only: CPU runs, the best kept (default 3)")
    args = parser.parse_args(argv)
    quick = args.quick
    if args.t1_only:
        counts = t1_counts(40 if quick else 1000, args.pipe_bytes, args.repeat)
        print(json.dumps({"T1": t1(40 if quick else 1000, 10 if quick else 100), "T1 in one process": counts}, indent=1))
        return 0
    results = {
        "T1": t1(40 if quick else 1000, 10 if quick else 100),
        "T2": t2(20 if quick else 1000),
        "T3": t3(20 if quick else 1000),
        "T4": t4(ROOT / "fixtures" / "cases" / ("ordering" if quick else ""), baseline=not quick),
        "T5": t5(200 if quick else args.t5_requests),
    }
    text = markdown(results)
    print(text)
    if not quick:
        write_section(text, MARK_BEGIN, MARK_END)
    return 0


def write_section(text: str, begin: str, end: str) -> None:
    """Put `text` between its markers in docs/performance.md (at its end the first time)."""
    path = ROOT / "docs" / "performance.md"
    old = path.read_text()
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end) + "\n", re.DOTALL)
    path.write_text(pattern.sub(lambda _: text, old) if pattern.search(old) else old.rstrip("\n") + "\n\n" + text)


if __name__ == "__main__":
    sys.exit(main())
