"""`ome-asp diff --exhaustive` (issue 27): every cluster within find's bounds,
up to renaming (D-92), smallest first, asked of an implementation."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from ome_asp import cli
from ome_asp.conformance import exhaustive as conformance_exhaustive
from ome_asp.input import profiles
from ome_asp.solver import exhaustive, finder

ROOT = Path(__file__).resolve().parent.parent
TOY = f"{sys.executable} {ROOT / 'examples' / 'toy_impl.py'}"
SERVE = f"{sys.executable} -m ome_asp serve --stdio"
# 2,312 clusters: one runtime per scope named a, the format f (docs/oracle.md's example)
SMALL = ["--pool", "formats=f", "--pool", "runtime_names=a"]


def diff(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["diff", "--exhaustive", *argv], stdin=io.BytesIO(b""), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


# --- the renaming classes (encoding/find/canonical.lp) ------------------------------------


def renamed(documents: list[dict]) -> str:
    """The cluster with its used runtime names (in code-point order), formats and
    frameworks other than the model's, and entry names mapped onto the first
    of their pools: the renaming canonical.lp's kept cluster of its class is."""
    runtimes = [d for d in documents if d["kind"].endswith("ServingRuntime")]
    entries = [e for d in runtimes for e in d["spec"]["supportedModelFormats"]]

    def onto(used, pool, start=0):
        return dict(zip(sorted(set(used), key=pool.index), pool[start:]))

    names = onto([d["metadata"]["name"] for d in runtimes], ["a", "b", "c"])
    formats = onto([e["modelFormat"]["name"] for e in entries if e["modelFormat"]["name"] != "f"], ["f", "g", "h"], 1)
    frameworks = onto([e["modelFramework"]["name"] for e in entries if e["modelFramework"]["name"] != "t"], ["t", "u"], 1)
    entry_names = onto([e["name"] for e in entries if "name" in e], ["x", "y"])
    for d in runtimes:
        d["metadata"]["name"] = names[d["metadata"]["name"]]
    for e in entries:
        e["modelFormat"]["name"] = formats.get(e["modelFormat"]["name"], e["modelFormat"]["name"])
        e["modelFramework"]["name"] = frameworks.get(e["modelFramework"]["name"], e["modelFramework"]["name"])
        if "name" in e:
            e["name"] = entry_names[e["name"]]
    return json.dumps(documents, sort_keys=True)


@pytest.mark.slow
def test_every_cluster_is_a_renaming_of_a_kept_one():
    """canonical.lp is sound: renaming every cluster of the bounds onto the
    first names of its pools gives a kept cluster, and a kept cluster is its
    own renaming (13,456 clusters, three runtime names, three formats, two
    entry names)."""
    pools = {**finder.DEFAULT_POOLS, "versions": (), "operators": (), "weights": (), "priorities": (), "sizes": (),
             "auto_select": (True,), "flags": (), "ranges": (), "formats": ("f", "g", "h"), "entry_names": ("x", "y"),
             "runtime_names": ("a", "b", "c")}
    bounds, v13 = finder.Bounds(runtimes=1, pools=pools), profiles.resolve("v1.3", None)
    kept = {json.dumps(c.documents, sort_keys=True) for c in exhaustive.clusters(bounds, v13, canonical=True)}
    every = [c.documents for c in exhaustive.clusters(bounds, v13)]
    assert len(every) == 13456 and 0 < len(kept) < len(every) / 2
    assert {renamed(documents) for documents in every} == kept


@pytest.mark.slow
def test_the_order_is_smallest_first_and_resumes():
    bounds, v13 = finder.Bounds(runtimes=1, pools={**finder.DEFAULT_POOLS, "runtime_names": ("a",), "formats": ("f",),
                                                   "versions": (), "operators": (), "weights": (), "priorities": (), "sizes": ()}), \
        profiles.resolve("v1.3", None)
    every = list(exhaustive.clusters(bounds, v13, canonical=True))
    assert [c.number for c in every] == list(range(len(every))) == list(range(2312))
    assert [c.cost for c in every] == sorted(c.cost for c in every)
    assert [c.chosen for c in exhaustive.clusters(bounds, v13, canonical=True, start=2000)] == [c.chosen for c in every[2000:]]


# --- the command -------------------------------------------------------------------------


@pytest.mark.slow
def test_serve_agrees_on_a_slice_and_on_the_last_clusters():
    """ome-asp serve --stdio against ome-asp: a budgeted run reports where to
    resume; resumed near the end it completes the bounds (exit 0)."""
    code, out, err = diff("--impl", SERVE, "--batch", *SMALL, "--max-clusters", "100", "--report", "json")
    report = json.loads(out)
    assert code == 0 and report["checked"] == report["agreed"] == 100 and not report["complete"] and report["next"] == 100
    assert report["bounds"]["clusters"] == 2312 and "exhaustive: 100 clusters done" in err
    code, out, err = diff("--impl", SERVE, "--batch", *SMALL, "--start", "2250")
    assert code == 0, out + err
    assert "checked 62 up to renaming from cluster 2250: 62 agree, 0 disagree" in out
    assert "agrees on clusters 2250 to 2311, the last up to the bounds" in out


@pytest.mark.slow
def test_the_toy_implementation_agrees_on_every_cluster():
    """The reference model (examples/toy_impl.py without a bug) answers every
    one of the 2,312 clusters as ome-asp does."""
    code, out, err = diff("--impl", TOY, "--batch", *SMALL)
    assert code == 0, out
    assert out.endswith("agrees on all 2312 clusters up to the bounds (up to renaming, D-92)\n")


@pytest.mark.slow
def test_a_planted_bug_is_found_at_its_smallest_cluster(tmp_path):
    """O1 dropped in the toy: the first disagreement is a ServingRuntime and a
    ClusterServingRuntime of one name that both qualify (cluster 1065 of
    2,312; every smaller one agrees), written as a case ome-asp check runs."""
    code, out, err = diff("--impl", f"{TOY} --bug namespaced-first", "--batch", *SMALL, "--max-clusters", "1100",
                          "--max-counterexamples", "1", "-o", str(tmp_path), "--report", "json")
    report = json.loads(out)
    assert code == 1 and report["checked"] == 1100 and report["agreed"] + report["disagreed"] == 1100
    first = report["disagreements"][0]
    assert first["cluster"] == 1065 and first["differences"][0].startswith("selected: ome-asp ServingRuntime default/a")
    assert [d["kind"] for d in first["manifests"]] == ["BaseModel", "ServingRuntime", "ClusterServingRuntime"]
    assert "DISAGREE cluster-1065" in err
    check = io.StringIO()
    assert cli.main(["check", first["directory"]], stdin=io.BytesIO(b""), stdout=check, stderr=io.StringIO()) == 0


class Clock:
    """time.monotonic for the two exhaustive modules: a second passes at every reading."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 1
        return self.now


def test_issue38_the_time_limit_stops_a_resume_while_it_enumerates(monkeypatch):
    """--time-limit was read only between chunks of 64 clusters, after the
    enumeration had walked every cluster before --start (> 240 s, 470 MB past
    a limit of 5 s at larger bounds). It is read at every cluster enumerated,
    the skipped ones included: with a clock that ticks a second a reading,
    a limit of 5 s stops before the first cluster is asked (it checked 64)."""
    clock = Clock()
    monkeypatch.setattr(conformance_exhaustive, "time", clock)
    monkeypatch.setattr(exhaustive, "time", clock, raising=False)
    code, out, err = diff("--impl", TOY, "--batch", *SMALL, "--time-limit", "5", "--start", "2000")
    assert code == 0 and "checked 0 up to renaming from cluster 2000" in out, out
    assert out.endswith("stopped by the budget: resume with --start 2000\n") and clock.now < 20


def test_issue38_a_start_past_the_last_cluster_is_an_error():
    """It checked nothing and exited 0."""
    code, out, err = diff("--impl", TOY, "--batch", *SMALL, "--start", "2312")
    assert (code, out) == (2, "")
    assert err == "error: --start 2312 is past the last cluster: the bounds hold 2312 up to renaming (0 to 2311)\n"


@pytest.mark.parametrize("argv, message", [
    (["--start", "-1"], "--start"),
    (["--max-clusters", "0"], "--max-clusters"),
    (["--runtimes", "2", "--pool", "runtime_names=a"], "runtime_names gives 1"),
    (["--profile", "v1.3", "--pool", "priorities=0"], "at least 1"),
])
def test_usage_errors_exit_2(argv, message):
    code, out, err = diff("--impl", TOY, *argv)
    assert code == 2 and err.startswith("error: ") and message in err


def test_issue40_three_shards_merged_are_one_run(tmp_path):
    """--shard I/N takes the clusters numbered I modulo N; the three shards'
    reports merged (diff --merge) are the one run's report, counts,
    counterexamples (shrunk and written alike) and all, with which shard holds
    the first disagreement (cluster 2082 of the O1 bug: shard 0)."""
    argv = ["--impl", f"{TOY} --bug namespaced-first", "--batch", *SMALL, "--start", "2080", "--report", "json",
            "-o", str(tmp_path / "out")]
    code, out, err = diff(*argv)
    one = json.loads(out)
    assert code == 1 and one["checked"] == 232 and [d["cluster"] for d in one["disagreements"]] == [2082, 2110]
    paths = []
    for index in (2, 0, 1):
        code, out, err = diff(*argv, "--shard", f"{index}/3")
        shard = json.loads(out)
        assert shard["shard"] == {"index": index, "count": 3} and shard["checked"] == len(range(2080 + (index - 2080) % 3, 2312, 3))
        paths.append(tmp_path / f"shard-{index}.json")
        paths[-1].write_text(out)
    merge = io.StringIO()
    assert cli.main(["diff", "--merge", *map(str, paths), "--report", "json"], stdin=io.BytesIO(b""), stdout=merge,
                    stderr=io.StringIO()) == 1
    merged = json.loads(merge.getvalue())
    assert merged.pop("merged") == {"firstFailingShard": 0, "shards": [  # 2082 % 3 = 0, 2110 % 3 = 1
        {"index": i, "checked": n, "agreed": n - d, "disagreed": d, "complete": True, "next": None}
        for i, n, d in ((0, 77, 1), (1, 78, 1), (2, 77, 0))]}
    assert merged == one
