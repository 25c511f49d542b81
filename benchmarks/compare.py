#!/usr/bin/env python3
"""`ome-asp compare --all-models` on a catalog the size of OME's (issue 25:
~200 ClusterServingRuntimes with full engine configs × ~200 ClusterBaseModels,
a catalog upgrade between them) against one `explain --all-models` of the
earlier snapshot, in the same run: the ratio (goal ≤ 1.5×) and each command's
peak memory (goal ≤ 300 MB).

    python benchmarks/compare.py            # writes its section of docs/performance.md
    python benchmarks/compare.py --quick    # 20 runtimes × 20 models, prints only
    python benchmarks/compare.py --profile  # cProfile of one compare, in-process: the top functions

Each command runs in its own process through the CLI (YAML in; compare as
text and as JSON, explain as JSON), so its peak RSS is its own (wait4's
ru_maxrss); medians of the repeats. Timings are only meaningful on an idle
machine.
"""

from __future__ import annotations

import argparse
import copy
import cProfile
import io
import os
import pstats
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from clusters import catalog_documents

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

TARGET = ROOT / "docs" / "performance.md"
HEADING = "## compare: two snapshots against one explain"
NAMESPACE = "default"
API = "ome.io/v1beta1"

# (architecture, family, sizes in B): the shape of OME's catalog, one runtime per family and size band
FAMILIES = [
    ("LlamaForCausalLM", "llama", [1, 3, 8, 70, 405]), ("MistralForCausalLM", "mistral", [7, 12, 22]),
    ("MixtralForCausalLM", "mixtral", [47, 141]), ("Qwen2ForCausalLM", "qwen2", [0.5, 1.5, 7, 14, 32, 72]),
    ("Qwen3ForCausalLM", "qwen3", [4, 8, 30, 235]), ("DeepseekV3ForCausalLM", "deepseek-v3", [671]),
    ("Gemma2ForCausalLM", "gemma2", [2, 9, 27]), ("Phi3ForCausalLM", "phi3", [4, 14]),
    ("MistralModel", "e5-mistral", [7]), ("BertModel", "bge", [0.3]),
]
ENGINES = [("srt", "docker.io/lmsysorg/sglang", "sglang"), ("vllm", "docker.io/vllm/vllm-openai", "vllm")]


def _size(b: float) -> str:
    return f"{b:g}B" if b >= 1 else f"{int(b * 1000)}M"


def runtime(name: str, arch: str, low: float, high: float, engine: tuple, image: str, priority: int = 1,
            auto: bool = True, gpus: int = 1, decoder: bool = False) -> dict:
    """A ClusterServingRuntime as OME's config/runtimes writes them: one entry, a size band, and the
    full engine config (runner, command, args, resources, probes, volumes) that selection does not read."""
    prefix, repository, launcher = engine
    args = (f"python3 -m {launcher}.launch_server --host=0.0.0.0 --port=8080 --enable-metrics --log-requests "
            f'--model-path="$MODEL_PATH" --tp-size={gpus} --mem-frac=0.9 --max-running-requests=256 '
            f"--chunked-prefill-size=8192 --served-model-name={name}")
    runner = {
        "name": "ome-container", "image": f"{repository}:{image}",
        "ports": [{"containerPort": 8080, "name": "http1", "protocol": "TCP"}],
        "command": ["/bin/bash", "-lc", "--"], "args": [args],
        "env": [{"name": "NCCL_DEBUG", "value": "WARN"}, {"name": "PYTHONUNBUFFERED", "value": "1"}],
        "volumeMounts": [{"mountPath": "/dev/shm", "name": "dshm"}],
        "resources": {kind: {"cpu": 10 * gpus, "memory": f"{40 * gpus}Gi", "nvidia.com/gpu": gpus}
                      for kind in ("requests", "limits")},
        "readinessProbe": {"httpGet": {"path": "/health_generate", "port": 8080}, "failureThreshold": 3,
                           "successThreshold": 1, "periodSeconds": 60, "timeoutSeconds": 200},
        "livenessProbe": {"httpGet": {"path": "/health", "port": 8080}, "failureThreshold": 5,
                          "successThreshold": 1, "periodSeconds": 60, "timeoutSeconds": 60},
        "startupProbe": {"httpGet": {"path": "/health_generate", "port": 8080}, "failureThreshold": 150,
                         "periodSeconds": 6, "initialDelaySeconds": 60, "timeoutSeconds": 30},
    }
    component = {
        "annotations": {"prometheus.io/scrape": "true", "prometheus.io/port": "8080", "prometheus.io/path": "/metrics"},
        "labels": {"logging-forward": "enabled"},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory"}}],
        "runner": runner,
    }
    spec: dict = {
        "disabled": False,
        "supportedModelFormats": [{
            "modelFramework": {"name": "transformers", "version": "4.47.0"},
            "modelFormat": {"name": "safetensors", "version": "1.0.0"},
            "modelArchitecture": arch, "autoSelect": auto, "priority": priority,
        }],
        "protocolVersions": ["openAI"],
        "modelSizeRange": {"min": _size(low), "max": _size(high)},
        "engineConfig": component,
    }
    if decoder:  # a prefill-decode disaggregated runtime: a decoder with its own runner
        spec["decoderConfig"] = copy.deepcopy(component)
    return {"apiVersion": API, "kind": "ClusterServingRuntime", "metadata": {"name": name}, "spec": spec}


def model(name: str, arch: str, size: float) -> dict:
    return {"apiVersion": API, "kind": "ClusterBaseModel", "metadata": {"name": name},
            "spec": {"vendor": "example", "disabled": False, "displayName": name,
                     "modelFormat": {"name": "safetensors", "version": "1.0.0"},
                     "modelFramework": {"name": "transformers", "version": "4.47.0"},
                     "modelArchitecture": arch, "modelParameterSize": _size(size),
                     "storage": {"storageUri": f"hf://example/{name}", "path": f"/raid/models/{name}",
                                 "key": "hf-token", "nodeSelector": {"node.kubernetes.io/instance-type": "BM.GPU.H100.8"}}}}


def catalog(runtimes: int, models: int, seed: int) -> tuple[list[dict], list[dict]]:
    """(runtimes, models): `runtimes` over the families' size bands and both engines (variants of a
    band at other priorities and GPU counts, a tenth disaggregated), `models` over the families' sizes."""
    rng = random.Random(seed)
    bands = [(arch, family, size) for arch, family, sizes in FAMILIES for size in sizes]
    out = []
    for i in range(runtimes):
        arch, family, size = bands[i % len(bands)]
        engine = ENGINES[(i // len(bands)) % 2]
        variant = i // (2 * len(bands))
        name = f"{engine[0]}-{family}-{_size(size).lower()}" + (f"-v{variant}" if variant else "")
        out.append(runtime(name, arch, size * 0.8, size * 1.2, engine, "v0.4.6.post1", priority=1 + variant % 3,
                           gpus=1 + int(size // 40), decoder=i % 10 == 9))
    ms = []
    for i in range(models):
        arch, family, size = bands[rng.randrange(len(bands))]
        ms.append(model(f"{family}-{_size(size).lower()}-{i:03d}", arch, size))
    return out, ms


def upgrade(runtimes: list[dict], rng: random.Random, created_count: int = 4) -> list[dict]:
    """A catalog upgrade like OME v0.1.4 → v0.1.5: every image and launch command bumped (changes
    selection does not read), a few runtimes created that serve a size band at a higher priority (groups
    of models move), one runtime's autoSelect turned off (its models lose it unless another serves them),
    a size band narrowed, a format weight set over its default. `created_count` runtimes are created."""
    after = copy.deepcopy(runtimes)
    for doc in after:
        for part in ("engineConfig", "decoderConfig"):
            runner = doc["spec"].get(part, {}).get("runner")
            if runner:
                runner["image"] = runner["image"].replace("v0.4.6.post1", "v0.4.8")
                runner["args"] = [runner["args"][0] + " --enable-torch-compile"]
    ranged = [i for i, d in enumerate(runtimes) if "modelSizeRange" in d["spec"]]  # the catalog's shape drops a few
    bands = {(runtimes[i]["spec"]["supportedModelFormats"][0].get("modelArchitecture", ""), runtimes[i]["spec"]["modelSizeRange"]["max"]):
             runtimes[i] for i in ranged}
    for _, doc in rng.sample(sorted(bands.items()), created_count):
        created = copy.deepcopy(doc)
        created["metadata"]["name"] = doc["metadata"]["name"] + "-h200"
        created["spec"]["supportedModelFormats"][0]["priority"] = 5
        created["spec"]["supportedModelFormats"][0]["autoSelect"] = True
        after.append(created)
    picks = rng.sample(ranged, 3)
    after[picks[0]]["spec"]["supportedModelFormats"][0]["autoSelect"] = False
    after[picks[1]]["spec"]["modelSizeRange"]["min"] = after[picks[1]]["spec"]["modelSizeRange"]["max"]
    after[picks[2]]["spec"]["supportedModelFormats"][0]["modelFormat"]["weight"] = 3
    return after


def snapshots(directory: Path, runtimes: int, models: int, shape: str = "synthetic") -> tuple[str, str]:
    """The two snapshots' files. `shape` synthetic: catalog() (a fifth of the rows qualify); catalog:
    benchmarks/clusters.py's No-heavy catalog_documents, OME's catalog's shape (about 0.3 % qualify,
    its likely-typo warnings), upgraded with 12 runtimes created (about 20 models change, as OME's
    v0.1.4 -> v0.1.5 upgrade changed 21)."""
    if shape == "catalog":
        documents = catalog_documents(runtimes, models, seed=40)
        ms, before = documents[:models], documents[models:]
        after = upgrade(before, random.Random(40), created_count=12)
    else:
        before, ms = catalog(runtimes, models, seed=25)
        after = upgrade(before, random.Random(25))
    paths = []
    for side, documents in (("before", before), ("after", after)):
        path = directory / f"{side}.yaml"
        path.write_text(yaml.safe_dump_all(ms + documents, sort_keys=False))
        paths.append(str(path))
    return paths[0], paths[1]


def measured(argv: list[str], repeat: int, cwd: Path = ROOT) -> tuple[float, float, float, str]:
    """(median seconds, median CPU seconds with its workers', largest peak RSS in MB, the first two
    lines of stdout) of `ome-asp ARGV` in its own process, the package of the checkout `cwd`
    (benchmarks/steer.py and trees.py measure theirs here too). Its output goes to a file, never into
    this process: a child's peak RSS counts the pages it was forked with (an output of tens of MB
    read here made the next command's peak read about twice its own)."""
    times, cpu, peaks, head = [], [], [], ""
    for _ in range(repeat):
        with tempfile.TemporaryFile() as out:
            start = time.perf_counter()
            process = subprocess.Popen([sys.executable, "-m", "ome_asp", *argv], stdout=out,
                                       stderr=subprocess.DEVNULL, cwd=cwd)
            _, status, usage = os.wait4(process.pid, 0)
            times.append(time.perf_counter() - start)
            out.seek(0)
            head = b"".join(out.readline() for _ in range(2)).decode()
        cpu.append(usage.ru_utime + usage.ru_stime)
        peaks.append(usage.ru_maxrss / 1024)
        if os.waitstatus_to_exitcode(status) not in (0, 1):
            raise SystemExit(f"{cwd}: ome-asp {' '.join(argv)} failed (exit {os.waitstatus_to_exitcode(status)})")
    return statistics.median(times), statistics.median(cpu), max(peaks), head


def profile(argv: list[str], top: int = 25) -> str:
    """cProfile of one in-process run: the functions by cumulative time, with their call counts."""
    from ome_asp.cli import main as cli

    profiler = cProfile.Profile()
    profiler.runcall(cli, argv, stdout=io.StringIO(), stderr=io.StringIO())
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(top)
    return text.getvalue()


def section(runtimes: int, models: int, rows: dict[str, tuple[float, float]], report: str) -> str:
    explain = rows["explain --all-models -j 1 -o json (before)"][0]
    table = "".join(f"| `{name}` | {seconds:,.2f} s | {seconds / explain:.2f}× | {peak:,.0f} MB |\n"
                    for name, (seconds, peak) in rows.items())
    worst = max(seconds for seconds, _ in rows.values()) / explain
    peak = max(p for _, p in rows.values())
    return (
        f"{HEADING}\n\n"
        f"Measured by `python benchmarks/compare.py` (issue 25's goals: compare within 1.5× one explain of one "
        f"snapshot, ≤ 300 MB). A catalog the size of OME's: {runtimes} ClusterServingRuntimes with full engine "
        f"configs (runner, command, args, resources, probes, volumes; a tenth with a decoder) × {models} "
        f"ClusterBaseModels, and its upgrade (every image and launch command bumped, 4 runtimes created at a higher "
        f"priority, one autoSelect turned off, a size band narrowed, a weight set). Each command in its own process, "
        f"YAML in; medians of the same run, peak RSS from wait4.\n\n"
        f"{report}\n\n"
        "| command | time | ratio to explain | peak RSS |\n|---|---:|---:|---:|\n" + table +
        f"\nGoals: ratio {worst:.2f}× ({'met' if worst <= 1.5 else '**not met**'}), "
        f"peak {peak:,.0f} MB ({'met' if peak <= 300 else '**not met**'}).\n"
    )


def catalog_table(compare: list[str], after: str, repeat: int) -> str:
    """Issue 40's goal on the catalog's shape: compare against one explain --all-models of its later
    snapshot (as a user runs it: -j 2 by default, and -j 1), by wall time and by CPU; load stated."""
    load = os.getloadavg()[0]
    rows = {}
    for name, command in (("explain --all-models (after)", ["explain", "--all-models", "-f", after]),
                          ("explain --all-models -j 1 (after)", ["explain", "--all-models", "-j", "1", "-f", after]),
                          ("compare --all-models", compare), ("compare --all-models -o json", compare + ["-o", "json"])):
        wall, cpu, peak, out = measured(command, repeat)
        rows[name] = (wall, cpu, peak, out)
    wall0, cpu0 = rows["explain --all-models (after)"][:2]
    lines = [f"load average {load:.1f} -> {os.getloadavg()[0]:.1f}; {rows['compare --all-models'][3].splitlines()[1]}",
             "| command | wall | CPU | wall / explain's | CPU / explain's | peak RSS |", "|---|---:|---:|---:|---:|---:|"]
    lines += [f"| `{name}` | {wall:.2f} s | {cpu:.2f} s | {wall / wall0:.2f}× | {cpu / cpu0:.2f}× | {peak:.0f} MB |"
              for name, (wall, cpu, peak, _) in rows.items()]
    return "\n".join(lines)


_SECTION = re.compile(rf"^{re.escape(HEADING)}\n.*?(?=^## |^<!-- |\Z)", re.S | re.M)


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
    parser.add_argument("--quick", action="store_true", help="20 runtimes × 20 models, once, print only")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions of one compare, no timing")
    parser.add_argument("--shape", choices=["synthetic", "catalog"], default="synthetic",
                        help="catalog: OME's catalog's No-heavy shape (205 x 204, issue 40), against explain of the "
                             "later snapshot, print only")
    args = parser.parse_args(argv)
    runtimes, models, repeat = (20, 20, 1) if args.quick else (200, 200, 3)
    if args.shape == "catalog":
        runtimes, models = (20, 20) if args.quick else (205, 204)
    with tempfile.TemporaryDirectory() as directory:
        before, after = snapshots(Path(directory), runtimes, models, args.shape)
        compare = ["compare", "--before", before, "--after", after, "--all-models"]
        if args.profile:
            print(profile(compare))
            return 0
        if args.shape == "catalog":
            print(catalog_table(compare, after, repeat))
            return 0
        rows, outputs = {}, {}
        for name, command in (("explain --all-models -j 1 -o json (before)", ["explain", "--all-models", "-j", "1", "-f", before, "-o", "json"]),
                              ("compare --all-models", compare), ("compare --all-models -o json", compare + ["-o", "json"])):
            seconds, _, peak, outputs[name] = measured(command, repeat)
            rows[name] = (seconds, peak)
    summary = outputs["compare --all-models"].splitlines()[1]  # the counts of what changed
    text = section(runtimes, models, rows, f"What the upgrade does (compare's summary line): {summary}")
    print(text)
    if not args.quick:
        write_section(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
