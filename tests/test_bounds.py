"""`ome-asp find`'s bounds are what it searches (issue 27, D-91): every bound
the header states is reached by some cluster of the generator, every pool
value it lists is chosen by some cluster, and the pools that bound a count
grow to the bounds (or, given by the user, are a usage error)."""

from __future__ import annotations

import io
import json

import clingo
import pytest

from ome_asp import cli
from ome_asp.input import profiles
from ome_asp.solver import finder, programs, space

V13 = profiles.resolve("v1.3", None)
# Above every default pool's size: 3 runtimes per scope (names a, b), 5 models (m, other in two kinds).
WIDE = finder.Bounds(runtimes=3, entries=2, models=5, isvc=True, modes=True, accelerators=True, pools={
    **finder.DEFAULT_POOLS, "protocols": ("v1",), "workers": (0,), "entry_names": ("x",), "architectures": ("arch",), "quantizations": ("q",)})


def satisfiable(bounds: finder.Bounds, constraint: str) -> bool:
    """Has the generator (encoding/find/generate.lp alone, one world) a cluster with `constraint`?"""
    ctl = clingo.Control(["--opt-mode=ignore"], logger=lambda code, message: None)
    ctl.add("base", [], finder.program(bounds, [finder.World(V13, programs.encoding_dir())], False) + constraint)
    ctl.load(str(finder.find_dir() / "generate.lp"))
    ctl.ground([("base", [])])
    return ctl.solve().satisfiable


def find(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["find", *argv, "-j", "1"], stdin=io.BytesIO(b""), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("runtimes, models", [(1, 1), (3, 1), (4, 5)])
def test_every_bound_is_reached(runtimes, models):
    """A cluster fills every slot: N runtimes in each scope, each with all its
    entries, N models (with --runtimes 3 and the pool a,b it had two runtimes
    per scope, issue 27)."""
    bounds = finder.Bounds(runtimes=runtimes, entries=2, models=models)
    assert len(bounds.pools["runtime_names"]) >= runtimes and len(set(bounds.pools["runtime_names"])) == len(bounds.pools["runtime_names"])
    assert satisfiable(bounds, ":- slot(O, _), not used(O).\n")


@pytest.mark.parametrize("pool", sorted(WIDE.to_json()["pools"]))
def test_every_pool_value_the_header_lists_is_searched(pool):
    """Each value of each pool the report lists is chosen by some cluster, for
    every field of that pool (its first model, m, has its name fixed: another
    model takes the others)."""
    listed = WIDE.to_json()["pools"][pool]
    assert listed, pool
    fields = [f for f in WIDE.fields() if f.pool == pool]
    assert fields, pool
    for f in fields:
        for position, value in enumerate(listed, 1):
            assert WIDE.all_pools()[pool][position - 1] == value
            assert satisfiable(WIDE, f":- not set(_, {f.name}, {position}).\n"), (f.name, value)


def test_runtime_names_grow_past_z():
    assert [space.runtime_name(n) for n in (1, 2, 26, 27, 28, 52, 53)] == ["a", "b", "z", "aa", "ab", "az", "ba"]
    assert finder.Bounds(runtimes=3, pools={**finder.DEFAULT_POOLS, "runtime_names": ("b", "x")}).pools["runtime_names"] == ("b", "x", "a")
    assert finder.Bounds(models=7).pools["model_names"] == ("m", "other", "other-2", "other-3")


def test_a_runtime_names_pool_you_give_must_hold_the_bound():
    code, out, err = find("--property", "order-is-total", "--runtimes", "3", "--pool", "runtime_names=a,b")
    assert code == 2 and err.startswith("error: --runtimes 3:") and "runtime_names gives 2" in err


def test_the_header_states_the_pools_and_the_clusters_searched():
    code, out, err = find("--property", "namespaced-first", "--runtimes", "3")
    assert code == 1, err
    header = out.splitlines()
    assert header[1].startswith("# bounds: 3 runtimes per scope,") and " runtime_names=a,b,c " in header[1]
    bounds = finder.Bounds(runtimes=3)
    assert header[2] == f"# clusters within the bounds: {space.describe(space.clusters(bounds, {'model-or-runtime'}))}"
    code, out, err = find("--property", "namespaced-first", "--runtimes", "3", "-o", "json")
    report = json.loads(out)["bounds"]
    assert report["pools"]["runtime_names"] == ["a", "b", "c"] and report["clustersLog10"] > 30


@pytest.mark.slow
def test_three_runtimes_per_scope_are_searched(tmp_path):
    """The issue's example: --runtimes 3 with the default names pool finds
    three ServingRuntimes (it answered 'no cluster satisfies the condition')."""
    three = tmp_path / "three.lp"
    three.write_text("three :- runtime_declared(sr(_, N1)), runtime_declared(sr(_, N2)), runtime_declared(sr(_, N3)), "
                     "N1 < N2, N2 < N3.\n:- not three.\n")
    code, out, err = find("--where", str(three), "--runtimes", "3", "-o", "json")
    assert code == 0, err
    assert [d["metadata"]["name"] for d in json.loads(out)["manifests"] if d["kind"] == "ServingRuntime"] == ["a", "b", "c"]
    five = tmp_path / "five.lp"
    five.write_text(":- #count{ M : model(M) } < 5.\n")
    code, out, err = find("--where", str(five), "--models", "5", "-o", "json")
    assert code == 0, err
    assert len([d for d in json.loads(out)["manifests"] if d["kind"].endswith("BaseModel")]) == 5


# Pools small enough to enumerate (every field absent or one value, mostly).
SMALL = {**finder.DEFAULT_POOLS, "formats": ("f",), "versions": (), "operators": (), "weights": (), "priorities": (),
         "sizes": (), "auto_select": (True,), "flags": (), "modes": ("OMENative",)}


ISVC = {**SMALL, "runtime_names": ("a",), "auto_sync": (), "model_names": ("m",), "ranges": (), "images": ()}


def enumerated(bounds: finder.Bounds, world_list: list, extra: bool) -> int:
    ctl = clingo.Control(["--opt-mode=ignore", "--models=0", "--project"], logger=lambda code, message: None)
    ctl.add("base", [], finder.program(bounds, world_list, extra) + "#show set/3. #show used/1.\n")
    ctl.load(str(finder.find_dir() / "generate.lp"))
    ctl.ground([("base", [])])
    found = 0
    with ctl.solve(yield_=True) as handle:
        for _ in handle:
            found += 1
    return found


@pytest.mark.parametrize("bounds, profile, extra", [
    (finder.Bounds(runtimes=2, pools=SMALL), "v1.3", False),
    (finder.Bounds(runtimes=1, entries=2, models=3, pools={**SMALL, "runtime_names": ("a",)}), "v1.3", False),
    (finder.Bounds(runtimes=1, pools={**SMALL, "flags": (True,), "runtime_names": ("a",)}), "v1.3", True),
    (finder.Bounds(runtimes=1, isvc=True, modes=True, pools={**ISVC, "auto_select": (), "runtime_kinds": ("ServingRuntime",)}),
     "v1.3", False),
    (finder.Bounds(runtimes=1, isvc=True, accelerators=True, pools=ISVC), "v1.2.2", False),
    (finder.Bounds(runtimes=1, isvc=True, pools={**ISVC, "model_names": ("m", "other")}), "code-v0.1.5", False),
], ids=["two-runtimes", "entries-models", "add-disabled", "isvc-modes", "isvc-accelerators-v1.2.2", "isvc-v0.1.5"])
def test_the_header_counts_the_clusters_the_generator_enumerates(bounds, profile, extra):
    """space.clusters, the header's count, is the number of answer sets of
    generate.lp's choice (clingo's enumeration, projected on the choice)."""
    chosen = profiles.resolve(profile, None)
    world_list = [finder.World(chosen, programs.encoding_dir(), "add_disabled" if extra else None)]
    expected = space.clusters(bounds, {chosen.model_rule}, extra)
    assert 10 < expected < 50000
    assert enumerated(bounds, world_list, extra) == expected
