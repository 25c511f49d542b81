"""Determinism (spec I10): the output depends on what the manifests say, never on
how they are laid out, and never on the run.

For random clusters (ome_asp.testing.strategies), the same manifests are
shuffled, split over several `-f` files and a directory, partly wrapped in
`kind: List` documents, and every mapping's keys are reordered. stdout and the
exit code must be byte-identical (a JSON report's `warnings` compared as stderr
is); stderr must hold the same messages once
their locations (file, line, document) are taken out, since those point into
the layout. The same input run twice gives the same bytes on both streams,
and so do processes of other hash seeds and -j (issue 39).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import yaml
from conftest import FIXTURES, ROOT, messages, run_cli, without_places
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ome_asp.testing.strategies import clusters


def reorder_keys(value, rng: random.Random):
    """`value` with the keys of every mapping in a random order (lists keep theirs)."""
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {key: reorder_keys(value[key], rng) for key in keys}
    if isinstance(value, list):
        return [reorder_keys(item, rng) for item in value]
    return value


def lay_out(documents: list[dict], directory: Path, rng: random.Random) -> list[str]:
    """The documents shuffled into 1-4 files, one of them a List, some under a
    subdirectory; returns the -f arguments."""
    documents = [reorder_keys(d, rng) for d in documents]
    rng.shuffle(documents)
    count = rng.randint(1, 4)
    groups = [documents[i::count] for i in range(count)]
    arguments = []
    (directory / "dir" / "sub").mkdir(parents=True)
    for i, group in enumerate(groups):
        if i == 0 and group and rng.random() < 0.5:
            group = [{"apiVersion": "v1", "kind": "List", "items": group}]
        name = rng.choice([f"f{i}.yaml", f"dir/g{i}.yml", f"dir/sub/h{i}.yaml"])
        (directory / name).write_text(yaml.safe_dump_all(group, sort_keys=False))
        if not name.startswith("dir/"):
            arguments.append(str(directory / name))
    rng.shuffle(arguments)
    if any((directory / "dir").rglob("*.y*ml")):
        arguments.insert(rng.randint(0, len(arguments)), str(directory / "dir"))
    return arguments


def explain(query: dict, files: list[str], output: str):
    target = ["--isvc", query["isvc"]] if "isvc" in query else ["--model", query["model"]]
    return run_cli("explain", *target, "-n", query["namespace"], *(a for f in files for a in ("-f", f)), "-o", output)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(clusters(), st.randoms(use_true_random=False), st.sampled_from(["table", "json"]))
def test_I10_output_does_not_depend_on_layout_or_key_order(tmp_path_factory, cluster, rng, output):
    documents, query = cluster
    plain = tmp_path_factory.mktemp("plain") / "cluster.yaml"
    plain.write_text(yaml.safe_dump_all(documents, sort_keys=False))
    expected = explain(query, [str(plain)], output)
    shuffled = explain(query, lay_out(documents, tmp_path_factory.mktemp("layout"), rng), output)
    assert (shuffled.code, without_places(shuffled.stdout, output)) == (expected.code, without_places(expected.stdout, output))
    assert messages(shuffled.stderr) == messages(expected.stderr)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(clusters())
def test_same_input_same_bytes(tmp_path_factory, cluster):
    """No run-to-run variation: no hash order, no clock, no solver nondeterminism."""
    documents, query = cluster
    path = tmp_path_factory.mktemp("twice") / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(documents, sort_keys=False))
    for output in ("wide", "yaml"):
        first, second = explain(query, [str(path)], output), explain(query, [str(path)], output)
        assert (first.code, first.stdout, first.stderr) == (second.code, second.stdout, second.stderr)


# --- across processes (issue 39) ---------------------------------------------------------

# One process per hash seed runs every command below in-process and prints
# what each wrote: the exit code, stdout and stderr, as JSON. A set iterated
# in hash order (str's hash is salted per process) shows as a difference
# between seeds, which two runs in one process never see.
RUN_ALL = """
import io, json, sys
from ome_asp.cli import main
out = []
for argv, stdin in json.loads(sys.argv[1]):
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(argv, stdin=io.BytesIO(stdin.encode()), stdout=stdout, stderr=stderr)
    out.append([code, stdout.getvalue(), stderr.getvalue()])
print(json.dumps(out))
"""


def commands() -> list[tuple[list[str], str]]:
    worked, pr = str(FIXTURES / "worked-example"), FIXTURES / "compare" / "catalog-pr"
    denials = str(FIXTURES / "steer" / "admission")  # three runtimes the webhook denies (I9)
    query = ["--model", "llama-3-2-3b-instruct", "-n", "llama-demo", "-f", worked]
    requests = "".join(json.dumps(r) + "\n" for r in (
        {"id": 1, "namespace": "llama-demo", "model": "llama-3-2-3b-instruct"},
        {"id": 2, "command": "select", "namespace": "llama-demo", "isvc": "llama-chat"},
        {"id": 3, "command": "admit"},
        {"id": 4, "namespace": "llama-demo", "model": "llama-3-2-3b-instrct"},
    ))
    return [
        (["explain", *query, "-o", "wide"], ""),
        (["explain", *query, "-o", "json", "-v"], ""),
        (["explain", "--all-models", "-f", worked, "-o", "yaml", "-j", "1"], ""),
        (["explain", "--all-models", "-f", worked, "-o", "yaml", "-j", "2"], ""),
        (["select", "--all", "-f", worked, "-o", "json", "-j", "2"], ""),
        (["explain", "--all-models", "-f", denials, "-o", "json", "-j", "1"], ""),
        (["admit", "-f", denials], ""),
        (["select", "--all", "-f", denials, "-o", "yaml"], ""),
        (["compare", "--before", str(pr / "before"), "--after", str(pr / "after"), "--all-models", "-o", "json"], ""),
        (["steer", *query, "--want", "srt-llama-small", "-o", "json"], ""),
        (["serve", "--stdio", "-f", worked, "-j", "1"], requests),
        (["serve", "--stdio", "-f", worked, "-j", "2"], requests),
    ]


def test_issue39_the_same_bytes_under_every_hash_seed_and_j():
    """explain, select, admit, compare, steer and serve give the same exit
    code, stdout and stderr in processes of three hash seeds, and -j 1 the
    same as -j 2. test_same_input_same_bytes runs twice in one process, so a
    denial listed in set order passed it: fails with batch.denials returning
    list(set(found)) (explain --all-models' denials of fixtures/steer/admission)."""
    runs = {}
    for seed in ("0", "1", "4242"):
        done = subprocess.run([sys.executable, "-c", RUN_ALL, json.dumps(commands())], capture_output=True, text=True,
                              cwd=ROOT, env={**os.environ, "PYTHONHASHSEED": seed}, timeout=600)
        assert done.returncode == 0, done.stderr
        runs[seed] = json.loads(done.stdout)
    first = runs["0"]
    for seed, run in runs.items():
        for (argv, _), mine, other in zip(commands(), first, run):
            assert mine == other, (seed, argv)
    assert all(code in (0, 1) and stdout for code, stdout, _ in first), first
    by_jobs: dict[str, list] = {}  # the runs that differ only in -j
    for (argv, _), result in zip(commands(), first):
        by_jobs.setdefault(" ".join(argv[:argv.index("-j")] if "-j" in argv else argv), []).append(result)
    assert sorted(len(results) for results in by_jobs.values())[-3:] == [1, 2, 2]
    for command, results in by_jobs.items():
        assert all(result == results[0] for result in results), command
