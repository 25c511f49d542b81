"""steer's and compare's searches under code-v0.1.5, whose order is Go's sort
(issue 36; docs/design.md, "Searches under Go's order"; D-261): the goal keeps
scope and score only, every optimum is selected again under Go's order, and
one the order rejects is excluded and the search goes on."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES, run_cli
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from ome_asp.analysis import edits, steer
from ome_asp.input import profiles
from ome_asp.input.loader import load_documents
from ome_asp.input.objects import Query
from ome_asp.solver import ask, gosort
from ome_asp.solver.facts import runtime_id
from ome_asp.solver.programs import Variant
from ome_asp.testing import strategies

GO_ORDER = ["--model", "tiny", "-f", str(FIXTURES / "steer" / "go-order")]
CODE = ["--ome-version", "0.1.5"]
COMPARE = ["--before", str(FIXTURES / "compare" / "go-order" / "before"),
           "--after", str(FIXTURES / "compare" / "go-order" / "after"), "--all-models"]

# (name, score, distance) of one kind, Go's comparator's ties non-transitive:
# distances 0.3 apart tie, 0.9 apart do not (docs/profiles.md 3.3)
ITEMS = st.lists(st.tuples(st.sampled_from("abcdef"), st.integers(1, 4), st.sampled_from([0.0, 0.3, 0.6, 0.9, 1.2, 2.4])),
                 max_size=70)


@settings(max_examples=300, deadline=None)
@given(items=ITEMS)
@example(items=[(name, score, distance) for name in "abcdef" for score in (1, 2) for distance in (2.4, 1.2, 0.6, 0.3, 0.0)])
@example(items=[("a", 4 - k % 4, 0.3 * (k % 5)) for k in range(60)])
def test_go_sort_never_puts_a_lower_score_first(items):
    """The ground the searches stand on: whatever Go's sort.Slice does among
    runtimes of one score (its comparator is no weak order there), it never
    leaves a lower score before a higher one, beyond insertion sort too
    (13 and more: pdqsort's partitions, its ninther from 50; the examples
    reach them every run). So `order_by_score` (edits.lp) is necessary for
    a runtime to come first, and no set that works is left out."""
    ordered = gosort.sort_slice(items, lambda a, b: gosort._compare(a, b, sized=True) > 0)
    assert [score for _, score, _ in ordered] == sorted((score for _, score, _ in items), reverse=True)


def test_go_order_is_not_v13_s_and_neither_is_the_edit():
    """The go-order fixture: a-rt and b-rt score alike, 0.4 parameter apart.
    v1.3 ranks a-rt first on distance (O3): no edit for a-rt, b-rt's priority
    1 -> 2 for b-rt. Go ends the comparison below one parameter and the
    fetch order puts b-rt, newer, first: a-rt needs the priority, b-rt
    nothing. Each set verified under its profile (steer refused
    code-v0.1.5)."""
    v13 = {want: run_cli("steer", *GO_ORDER, "--want", want, "-o", "json") for want in ("a-rt", "b-rt")}
    go = {want: run_cli("steer", *GO_ORDER, "--want", want, "-o", "json", *CODE) for want in ("a-rt", "b-rt")}
    priority = [{"object": {"kind": "ClusterServingRuntime", "namespace": None, "name": name},
                 "path": "spec.supportedModelFormats[0].priority", "from": 1, "to": 2} for name in ("a-rt", "b-rt")]
    assert [json.loads(run.stdout)["editSets"][0]["edits"] for run in (*v13.values(), *go.values())] == [
        [], [priority[1]], [priority[0]], []]
    assert all(run.code == 0 for run in (*v13.values(), *go.values()))


def test_a_candidate_go_s_order_rejects_is_excluded_and_the_search_goes_on():
    """For a-rt under code-v0.1.5 the search's goal (scope and score) holds
    with no edit; selected again, Go's order puts b-rt first, so the empty
    set is rejected, excluded, and the search solved again finds the
    priority, which holds: the smallest, 1 candidate rejected (text and
    JSON). Fails when a rejected set ends the search or is reported, and
    when the exclusion is lost (the same optimum comes back until the search
    stops with nothing)."""
    run = run_cli("steer", *GO_ORDER, "--want", "a-rt", *CODE)
    assert run.code == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[2] == ("Smallest under Go's order (profiles.md 3.3): the search proposed 1 candidate set that Go's order "
                        "rejected when selected again; its goal keeps every set that can work under that order, so none "
                        "smaller works.")
    assert lines[4:6] == ["Edit set 1 of 1 (1 edit):", "  1. ClusterServingRuntime a-rt: spec.supportedModelFormats[0].priority: 1 → 2"]
    document = json.loads(run_cli("steer", *GO_ORDER, "--want", "a-rt", *CODE, "-o", "json").stdout)
    assert (document["rejected"], document["proven"], document["robust"]) == (1, True, True)
    assert json.loads(run_cli("steer", *GO_ORDER, "--want", "b-rt", "-o", "json").stdout)["rejected"] == 0  # v1.3: exact


def test_a_search_that_stops_says_it_proved_nothing(monkeypatch):
    """After MAX_REJECTED rejections without a set the search stops: steer
    says no set was found and that a larger one may exist (JSON proven
    false), exit 1, never "impossible because" a check. Fails when the stop
    is taken for a proof."""
    monkeypatch.setattr(edits, "MAX_REJECTED", 1)
    run = run_cli("steer", *GO_ORDER, "--want", "a-rt", *CODE)
    assert run.code == 1
    assert run.stdout.splitlines()[1:3] == [
        "Impossible: no edit set makes a-rt win, because",
        "  code-v0.1.5's order (Go's sort, profiles.md 3.3) rejected the 1 candidate set the search proposed, "
        "and it stopped there: a larger set may still make it win"]
    assert json.loads(run_cli("steer", *GO_ORDER, "--want", "a-rt", *CODE, "-o", "json").stdout)["proven"] is False


def test_what_the_search_vouches_for_refuted_is_an_internal_error(monkeypatch):
    """A planted fact only the search sees (b-rt disabled, its score 4
    against a-rt's 2): the search proposes no edit, and selected again b-rt
    has the higher score, which the search's own goal (scope and score)
    rules out: not a counterexample of Go's order but the search's error,
    refused loudly (exit 3) instead of rejected. Fails when the verifier
    checks only the exact order (the refutation taken for a rejection)."""
    written = (FIXTURES / "steer" / "go-order" / "manifests.yaml").read_text()
    b_rt = written.index("name: b-rt")
    documents = written[:b_rt] + written[b_rt:].replace("priority: 1", "priority: 2")
    add_facts = steer._Candidates.add_facts

    def planted(self, builder, entries):
        add_facts(self, builder, entries)
        builder.fact.runtime_disabled(runtime_id("ClusterServingRuntime", None, "b-rt"))

    monkeypatch.setattr(steer._Candidates, "add_facts", planted)
    run = run_cli("steer", "--model", "tiny", "-f", "-", "--want", "a-rt", *CODE, stdin=documents.encode())
    assert run.code == 3 and run.stderr.startswith(
        "internal error: steer: the edit set [] leaves ClusterServingRuntime b-rt before ClusterServingRuntime a-rt "
        "on scope or score when applied"), run.stderr


def test_w5_fixes_are_searched():
    """W5 (docs/profiles.md 3.4): b-rt repeats a-rt's entry and priority, so the
    webhook denies it; a-rt, denied itself (W3), gives no score to beat.
    steer offers b-rt's priority next to its own: 1 -> 2 admits it, with
    --own runtime too. Fails without that candidate (--own runtime: no set;
    the default: disabling a-rt), and with the refusal of code-v0.1.5."""
    for own in ("all", "runtime"):
        run = run_cli("steer", "--model", "llama", "-f", str(FIXTURES / "steer" / "w5"), "--want", "b-rt", "--own", own,
                      *CODE, "-o", "json")
        assert run.code == 0, run.stderr
        document = json.loads(run.stdout)
        assert document["deniedBefore"].startswith("same priority assigned for the model format llama")
        assert [(e["path"], e["to"]) for e in document["editSets"][0]["edits"]] == [
            ("spec.supportedModelFormats[0].priority", 2)]


def test_the_robust_header_says_when_every_robust_set_needs_a_quirk():
    """Issue 36 (D-99, D-260): with --robust, where every robust set needs a
    quirk edit (here a priority of an entry without a modelFramework, which
    code-v0.1.5 accepts), the header says so (it said "quirk edits come
    only where nothing else works" above sets that all relied on one), and
    JSON counts it (quirkEdits); without --robust the first line says no
    robust set leads. Fails with the old header."""
    target = ["--model", "llama", "-f", str(FIXTURES / "steer" / "no-side"), "--want", "a-rt", "--own", "runtime", *CODE]
    assert run_cli("steer", *target, "--robust").stdout.splitlines()[1].endswith(
        "every such set needs a quirk edit (a weight of 0, which reads as 10 or 5, S3; a priority or weight of an "
        "entry without a side): each below has 1.")
    assert json.loads(run_cli("steer", *target, "--robust", "-o", "json").stdout)["quirkEdits"] == 1
    assert run_cli("steer", *target).stdout.splitlines()[1].startswith(
        "No robust edit set: every robust set of the edits --own runtime allows relies on a quirk edit")


@pytest.mark.parametrize("ome_version, causes, rejected", [
    ("1.3.0", [["spec.supportedModelFormats[0].priority"], ["spec.modelSizeRange.max"]], 0),
    ("0.1.5", [["spec.supportedModelFormats[0].priority"]], 2),
])
def test_compare_names_causes_under_go_s_order(ome_version, causes, rejected):
    """compare's causes under code-v0.1.5 (it said "no cause searched"): the
    go-order catalog change moves tiny from b-rt to a-rt in both profiles.
    v1.3 names each change alone; under Go the range change alone leaves
    b-rt first (0.2 parameter apart, the fetch order decides), so the search
    proposes the empty set and the range change, Go's order rejects both,
    and the priority is the one cause, with the rejections said. Fails
    without the search under Go's order, and with a rejected set reported."""
    document = json.loads(run_cli("compare", *COMPARE, "--ome-version", ome_version, "-o", "json").stdout)
    (item,) = document["items"]
    assert [[edit["path"] for edit in cause] for cause in item["causes"]] == causes
    assert (item["rejected"], item["note"]) == (rejected, None)
    text = run_cli("compare", *COMPARE, "--ome-version", ome_version).stdout
    assert ("Go's order rejected when selected again" in text) == bool(rejected)


def test_the_search_checks_its_optima_only_where_the_order_is_go_s(monkeypatch):
    """v1.3 and v1.2.2 order by #minimize: their goal is exact, one solve
    answers and only the sets shown are selected again, once, after the
    searches (a set that fails then is the search's error). Under
    code-v0.1.5 each search selects its optima again before they count.
    Fails when every profile's search checks its optima (groundings more
    per search), and when Go's order's searches do not."""
    checks = []
    verify = steer.verify
    monkeypatch.setattr(steer, "verify", lambda search, claims, variant: checks.append(len(claims)) or verify(search, claims, variant))
    # v1.2.2: the sets shown and the disable alternative; code-v0.1.5: the
    # robust search's optimum, the overall search's (the empty set, b-rt is
    # first), then the sets shown (the robust one apart)
    for flags, expected in ((["--profile", "v1.2.2"], [2]), (CODE, [1, 1, 2])):
        checks.clear()
        run = run_cli("steer", *GO_ORDER, "--want", "b-rt", *flags)
        assert run.code == 0 and checks == expected, (flags, checks)


def test_compare_s_search_that_stops_names_no_cause(monkeypatch):
    """compare's search under Go's order stopped after MAX_REJECTED
    rejections: the query says no cause was found and that one may still
    exist (JSON proven false, the group "no cause found"), never an internal
    error nor a cause that did not hold. Fails when the stop is taken for
    "no subset of the changes gives the later selection"."""
    monkeypatch.setattr(edits, "MAX_REJECTED", 1)
    run = run_cli("compare", *COMPARE, *CODE, "-o", "json")
    assert run.code == 1, run.stderr
    document = json.loads(run.stdout)
    (item,) = document["items"]
    assert (item["causes"], item["proven"], item["rejected"]) == ([], False, 1)
    assert item["note"] == ("no cause found: Go's order (profiles.md 3.3) rejected the 1 candidate set the search "
                            "proposed, and it stopped there (a cause may still exist)")
    assert document["groups"][0]["title"] == "no cause found ⇒ 1 model moved"


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=strategies.clusters(max_runtimes=5), pick=st.integers(min_value=0, max_value=50))
def test_every_set_steer_finds_under_go_s_order_holds_there(case, pick):
    """On random clusters under code-v0.1.5, steer's search never refutes
    itself (an internal error: its scope-and-score goal broken when selected
    again) and every set it shows, applied and selected again under the
    profile, puts the runtime first in Go's order (the one OME uses, for an
    InferenceService). Fails with the optima not checked under Go's order
    (scope and score ties are common in these clusters: a set the order
    rejects is shown), and with a refutation check that reads more than the
    goal vouches for."""
    documents, query = case
    cluster = load_documents(documents, profile=profiles.CODE_V0_1_5)
    q = Query(query["namespace"], model=query.get("model"), isvc=query.get("isvc"))
    before = ask.ask(cluster, [q], Variant.EXPLAIN).answer.queries[1]
    assume(before.error is None and before.ended is None and before.verdicts)
    want = sorted(before.verdicts, key=lambda r: (r.kind, r.name))[pick % len(before.verdicts)]
    try:
        result = steer.steer(cluster, q, want)
    except steer.Ended:
        return
    for edit_set in result.edit_sets + result.other_sets:
        answer = ask.ask(steer.apply_edits(cluster, edit_set.edits), [q], Variant.SELECT).answer.queries[1]
        assert (answer.ranking[:1] == [want] or result.pinned) and answer.outcome.used in (None, want), (
            [e.describe() for e in edit_set.edits], answer.ranking)
