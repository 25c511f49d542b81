"""`ome-asp find` (issue 14): profile differences found with verified
witnesses, the catalogue's properties holding up to the default bounds,
planted bugs found by --differ-encoding and --property, the output formats.

Every search is a solve of the generator and two copies of the encoding
(several seconds each), so each question is asked once per module and the
tests read its answer; those runs are marked slow (`-m "not slow"` leaves
them out while developing; CI runs them).
"""

from __future__ import annotations

import io
import json
import re
import shlex
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

import clingo
import pytest
import yaml

from ome_asp import cli
from ome_asp.analysis import find
from ome_asp.commands import find as find_command
from ome_asp.input import profiles
from ome_asp.input.loader import load
from ome_asp.render.case_files import dump_manifests
from ome_asp.solver import finder, pinned, programs
from ome_asp.solver.facts import Query, build_facts

slow = pytest.mark.slow


@lru_cache(maxsize=None)
def _run(*argv: str) -> tuple[int, str, str]:
    """One find run; on one thread unless argv says otherwise (pytest-xdist
    already gives every core a test: a second thread would only add the
    splitting search's overhead)."""
    out, err = io.StringIO(), io.StringIO()
    jobs = () if "-j" in argv else ("-j", "1")
    code = cli.main(["find", *argv, *jobs], stdin=io.BytesIO(b""), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def run_json(*argv: str) -> tuple[int, dict]:
    code, out, err = _run(*argv, "-o", "json")
    assert code in (0, 1), err
    return code, json.loads(out)


def where(tmp_dir: Path, name: str, text: str) -> str:
    path = tmp_dir / f"{name}.lp"
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def conditions(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("where")


def kinds(report: dict) -> list[str]:
    return [d["kind"] for d in report["manifests"]]


# --- the differences of docs/profiles.md ----------------------------------------


@slow
def test_code_v015_z3_one_bounded_range_panics():
    """docs/profiles.md, "Profile code-v0.1.5", Z3: a one-bounded (or empty)
    range and a sized model: v0.1.5's code panics where v1.3 answers."""
    code, report = run_json("--differ", "v1.3,code-v0.1.5")
    assert code == 0 and report["found"]
    assert report["answers"]["code-v0.1.5"]["outcome"] == "panic"
    assert "outcome" not in report["answers"]["v1.3"]
    assert "modelParameterSize" in report["manifests"][0]["spec"]


@slow
def test_v122_z3_one_bounded_range_is_unsupported_input():
    """docs/profiles.md, "Profile v1.2.2", Z3 (and Z4, Z5 that follow): a
    one-bounded range with a sized model is the outcome unsupported-input."""
    code, report = run_json("--differ", "v1.3,v1.2.2")
    assert code == 0
    assert report["answers"]["v1.2.2"]["outcome"] == "unsupported-input"
    ranges = [d["spec"].get("modelSizeRange") for d in report["manifests"][1:]]
    assert any(r is not None and len(r) < 2 for r in ranges)


@slow
def test_code_v015_i3_absent_weights_are_zero(conditions):
    """docs/profiles.md, "Profile code-v0.1.5", I3 (with S3's 0 counts as 10/5):
    without sizes, versions or a model lacking a framework, what is left to
    differ is the score of an absent weight: 1 in v1.3, 0 (so 10 or 5) in v0.1.5."""
    pinned = where(conditions, "i3", "\n".join([
        ":- model_size(_, _, _).", ":- model_version(_, _, _).", ":- sig_version(_, _, _).",
        "framework :- model_has_framework(_).", ":- not framework.",
    ]))
    code, report = run_json("--differ", "v1.3,code-v0.1.5", "--where", pinned)
    assert code == 0
    a, b = report["answers"]["v1.3"], report["answers"]["code-v0.1.5"]
    assert a["selected"] != b["selected"]
    entries = [e for d in report["manifests"][1:] for e in d["spec"]["supportedModelFormats"]]
    assert any("weight" not in e["modelFormat"] or "weight" not in e["modelFramework"] for e in entries)


@slow
def test_no_difference_for_a_model_without_framework(conditions):
    """docs/profiles.md, "Profile code-v0.1.5", S3 and Q14 differ only where a
    framework is on one side: entries always declare one (v1.3's schema), so
    only a model without one can. find proves that no such cluster (without
    sizes, whose Z3 panic would differ first) answers differently within the
    default bounds: exit 1, as docs/find.md's table says."""
    pinned = where(conditions, "s3", "\n".join([
        ":- model_size(_, _, _).", ":- model_has_framework(_).",
    ]))
    code, report = run_json("--differ", "v1.3,code-v0.1.5", "--where", pinned)
    assert code == 1 and report["found"] is False


# --- differences with an InferenceService, deployment modes, the webhooks ------------
# (docs/profiles.md sections 2 and 3). Each is the smallest difference on the
# clusters its --where narrows to (written for world 1, the first profile), so
# that the rule shows rather than a cheaper difference (O9's, nearly always).

ONLY_Q4 = """only_q4 :- fails(_, R, q4, _), not other(R).
other(R) :- fails(_, R, C, _), C != q4.
:- not only_q4.
"""


def _doc(report: dict, kind: str) -> dict:
    return next(d for d in report["manifests"] if d["kind"] == kind)


def _selection(report: dict, side: str) -> dict:
    return report["selections"][side]


def _rows(report: dict, side: str) -> dict:
    return {r["runtime"]: r for r in report["answers"][side]["rows"]}


def _used_kind(report: dict, side: str) -> str | None:
    used = _selection(report, side)["selected"]
    return used and used["kind"]


def _o9(report, old):
    new = _selection(report, "v1.3")
    return (new["condition"] is not None and _selection(report, old)["condition"] is None
            and any(e["reason"] == "RuntimeSelectionError" for e in _selection(report, old)["events"]))


def _d1(report, old):
    isvc = _doc(report, "InferenceService")
    return (isvc["spec"]["engine"]["annotations"]["ome.io/deploymentMode"] == "OMENative"
            and "deploymentMode" not in isvc["spec"] and _used_kind(report, "v1.3") is None and _used_kind(report, old))


def _d3(report, old):
    return ("deploymentMode" in _doc(report, "InferenceService")["spec"]
            and _used_kind(report, "v1.3") is None and _used_kind(report, old))


def _q4(report, old):
    failed = {r["failedCheck"] for r in report["answers"]["v1.3"]["rows"] if not r["compatible"]}
    return failed == {"Q4"} and report["answers"][old]["selected"] is not None


def _x2(report, old):
    names = [d["metadata"]["name"] for d in report["manifests"] if d["kind"].endswith("ServingRuntime")]
    return _used_kind(report, "v1.3") == "ClusterServingRuntime" and _used_kind(report, old) != "ClusterServingRuntime" \
        and len(set(names)) < len(names)


def _validation_event(report, side, text):
    return any(e["reason"] == "RuntimeValidationError" and text in e["message"] for e in _selection(report, side)["events"])


def _x3(report, old):
    return "not found" in (_selection(report, "v1.3")["admission"]["denial"] or "") and _validation_event(report, old, "not found")


def _x4(report, old):
    return "is disabled" in (_selection(report, "v1.3")["admission"]["denial"] or "") and _validation_event(report, old, "is disabled")


def _x6(report, old):
    return _used_kind(report, "v1.3") and _selection(report, "v1.3")["warnings"] and _used_kind(report, old) is None \
        and _validation_event(report, old, "does not support model")


def _m6(report, old):
    return "model" not in _doc(report, "InferenceService")["spec"] and _selection(report, old)["message"] == "model reference is required"


def _q1(report, old):
    annotations = _doc(report, "InferenceService")["metadata"].get("annotations", {})
    return annotations.get("ome.io/deploymentMode") == "VirtualDeployment" and "VirtualDeployment" in _selection(report, old)["message"]


def _denied(report, side, text):
    return any(text in d["message"] for d in report["answers"][side]["denied"])


def _w3(report, old):
    return _denied(report, old, "invalid configuration") and not _denied(report, "v1.3", "invalid configuration")


def _w4(report, old):
    return _denied(report, "v1.3", "different priorities") and report["answers"][old]["selected"] is not None


def _w5(report, old):
    return _denied(report, old, "same priority assigned") and not report["answers"]["v1.3"]["denied"]


def _s2(report, old):
    return report["answers"]["v1.3"]["selected"] is None and report["answers"][old]["selected"] is not None \
        and {r["failedCheck"] for r in report["answers"]["v1.3"]["rows"]} == {"Q8"}


ISVC_DIFFERENCES = [
    # (profile, rule(s) of its docs/profiles.md section, find's flags, --where for world 1, the difference seen)
    ("v1.2.2", "O9", ["--isvc"], None, _o9),
    ("code-v0.1.5", "O9", ["--isvc"], ":- not isvc_model(_, _).\n:- model_size(_, _, _).", _o9),
    ("v1.2.2", "D1", ["--isvc", "--modes"], ONLY_Q4 + ":- isvc_deployment_mode(_, _).", _d1),
    ("v1.2.2", "D3", ["--isvc", "--modes"], ONLY_Q4 + ":- not isvc_deployment_mode(_, _).\n:- isvc_mode_annotation(_, _, _).", _d3),
    ("code-v0.1.5", "Q4, D1-D9", ["--isvc", "--modes"], ONLY_Q4, _q4),
    ("v1.2.2", "X2", ["--isvc"], "x2 :- runtime_used(_, csr(N)), runtime(sr(_, N)).\n:- not x2.\n:- not explicit(_).\n"
     ":- advisory(_, _, _).", _x2),
    ("code-v0.1.5", "X2", ["--isvc"], "x2 :- runtime_used(_, csr(N)), runtime(sr(_, N)).\n:- not x2.\n:- not explicit(_).\n"
     ":- advisory(_, _, _).\n:- model_size(_, _, _).", _x2),
    ("v1.2.2", "X3", ["--isvc"], ":- not select_failure(_, runtime_not_found(_, _, _)).", _x3),
    ("code-v0.1.5", "X3", ["--isvc"], ":- not select_failure(_, runtime_not_found(_, _, _)).\n:- not isvc_model(_, _).", _x3),
    ("v1.2.2", "X4", ["--isvc"], ":- not select_failure(_, named_runtime_disabled(_)).", _x4),
    ("code-v0.1.5", "X4", ["--isvc"], ":- not select_failure(_, named_runtime_disabled(_)).\n:- not isvc_model(_, _).\n"
     ":- model_size(_, _, _).", _x4),
    ("v1.2.2", "X6", ["--isvc"], ":- not advisory(_, _, _).", _x6),
    ("code-v0.1.5", "X6", ["--isvc"], ":- not advisory(_, _, _).\n:- model_size(_, _, _).", _x6),
    ("code-v0.1.5", "M6", ["--isvc"], None, _m6),
    ("code-v0.1.5", "W4", ["--entries", "2"], ":- not denied(_, different_priorities(_)).", _w4),
    ("code-v0.1.5", "S2", ["--entries", "2", "--pool", "weights=1,2"],
     ":- model_size(_, _, _).\n:- weights_stored(_, _, val(0, _)).", _s2),
]
# Differences only the older profile's world can state (the condition reads its facts): asked as B,v1.3.
OLD_FIRST = [
    ("code-v0.1.5", "Q1", ["--isvc", "--modes"], ":- not query_error(_, virtual_deployment(_)).\n"
     "has_model :- isvc_model(_, _).\n:- not has_model.", _q1),
    ("code-v0.1.5", "W3 (configuration check, 3.5)", ["--pool", "workers=0"], ":- not denied(_, invalid_configuration(_)).", _w3),
    ("code-v0.1.5", "W5", ["--pool", "protocols=v1"], ":- not denied(_, same_priority(_, _)).", _w5),
]


DIFFERENCE_CASES = [(f"v1.3,{d[0]}", *d) for d in ISVC_DIFFERENCES] + [(f"{d[0]},v1.3", *d) for d in OLD_FIRST]


@slow
@pytest.mark.parametrize("pair, profile, rule, flags, condition, seen", DIFFERENCE_CASES,
                         ids=[f"{c[1]}-{c[2]}" for c in DIFFERENCE_CASES])
def test_profile_difference_is_found(conditions, pair, profile, rule, flags, condition, seen):
    """docs/profiles.md, the section of `profile`, `rule`: find --differ finds
    the difference (verified by explain and select) and it shows as the rule says."""
    narrowed = ["--where", where(conditions, f"{profile}-{rule}".replace(" ", "_"), condition)] if condition else []
    code, report = run_json("--differ", pair, *flags, *narrowed)
    assert code == 0, report
    assert seen(report, profile), json.dumps(report, indent=1)[:3000]


@slow
@pytest.mark.parametrize("rule, condition", [
    ("M2", ":- not select_failure(_, referenced_model_not_found(_, _)).\n:- model_size(_, _, _).\n:- entry(_, _, _, _)."),
    ("M3", ":- not select_failure(_, disabled_model(_)).\n:- model_size(_, _, _).\n:- entry(_, _, _, _)."),
])
def test_controller_messages_after_a_webhook_denial_differ_nowhere(conditions, rule, condition):
    """docs/profiles.md, "Profile code-v0.1.5", M2 and M3: the controller's
    messages differ, but the InferenceService webhook denies such an
    InferenceService first, in the same words under both profiles, so what
    select answers agrees: find proves no cluster answers differently (exit 1)."""
    code, report = run_json("--differ", "v1.3,code-v0.1.5", "--isvc", "--where", where(conditions, rule, condition))
    assert code == 1 and report["found"] is False


@slow
def test_differ_on_rows_and_reasons_are_at_least_as_small_as_selected():
    """--on compares more of the answer at each level, so a witness for
    `selected` is one for `rows`: the smallest for rows is no larger."""
    _, selected = run_json("--differ", "v1.3,code-v0.1.5")
    code, rows = run_json("--differ", "v1.3,code-v0.1.5", "--on", "rows")
    assert code == 0
    assert len(rows["manifests"]) <= len(selected["manifests"])
    assert find.view(rows["answers"]["v1.3"], "rows") != find.view(rows["answers"]["code-v0.1.5"], "rows")
    # --on reasons reads each No row's reasons (check and message): it ended in a KeyError before
    code, reasons = run_json("--differ", "v1.3,v1.2.2", "--on", "reasons")
    assert code == 0 and any(r["reasons"] for r in reasons["answers"]["v1.3"]["rows"])


# --- the catalogue ------------------------------------------------------------------


# Every catalogued property is proved at its default bounds in CI (issue 14):
# each in a few seconds since D-71 (docs/performance.md, find).
PROVED_IN_CI = tuple(find.PROPERTIES)


@slow
@pytest.mark.parametrize("name", PROVED_IN_CI)
def test_property_holds_up_to_the_default_bounds(name):
    """The catalogued properties (docs/find.md) have no violation within the
    default bounds: exit 1, found false, the rule ids in the report."""
    code, report = run_json("--property", name)
    assert code == 1
    assert report["found"] is False and report["manifests"] is None
    assert report["condition"]["rules"] == find.PROPERTIES[name].rules
    assert report["bounds"]["runtimesPerScope"] == find.PROPERTIES[name].runtimes


@slow
@pytest.mark.parametrize("name", ["namespaced-first", "disabled-never-selected", "order-is-total", "zero-score-never-qualifies",
                                  "raising-winner-priority-keeps-it-first", "adding-disabled-runtime-changes-nothing"])
def test_property_holds_with_an_inference_service_modes_and_accelerators(name):
    """With the InferenceService, its deployment modes and accelerator classes
    in play (D-70), the query is explain --isvc i, whose Q3 and Q4 can fail a
    runtime: the properties still hold up to the bounds."""
    code, report = run_json("--property", name, "--isvc", "--modes", "--accelerators")
    assert code == 1 and report["bounds"]["inferenceServices"] == 1 and report["query"]["isvc"] == "i"


def test_threads_decide_existence_as_one_thread_does():
    """-j 2 (D-69): clasp's splitting search on two threads decides whether a
    witness exists; the smallest one is still found sequentially, so the output
    is the same as on one thread, for a property that holds and for a witness."""
    for argv in (("--property", "namespaced-first", "--runtimes", "1"), ("--differ", "v1.3,code-v0.1.5", "--runtimes", "1")):
        assert run_json(*argv, "-j", "2") == run_json(*argv)  # run_json(*argv): the one search of -j 1
    assert run_json("--differ", "v1.3,code-v0.1.5", "--runtimes", "1")[0] == 0


@slow
def test_raising_priority_under_code_v015_meets_its_cross_runtime_check():
    """docs/profiles.md, "Profile code-v0.1.5", W5 with 3.5's configuration
    check: raising-winner-priority-keeps-it-first does not hold there. Runtime
    a (workers.size 0) is denied by the configuration check, so b wins;
    raised, b's priority equals a's for the same format, and v0.1.5's
    cross-runtime check (which loops over a although a was denied, D-32)
    denies b too: nothing is selected."""
    code, report = run_json("--property", "raising-winner-priority-keeps-it-first", "--profile", "code-v0.1.5",
                            "--pool", "protocols=v1", "--pool", "workers=0")
    assert code == 0 and report["answers"]["after"]["selected"] is None
    assert any("same priority assigned" in d["message"] for d in report["answers"]["after"]["denied"])


def test_a_shared_world_bridges_pooled_facts():
    """D-68's sharing copies into a raise_winner world every predicate its
    change does not reach. A pooled fact (`side(format; framework).`,
    input.lp) defines its predicates too: it was missed, so world 2's W5
    read no `side/1` and denied runtimes world 1's explain admits."""
    statements = []
    clingo.ast.parse_string("side(1, format; 1, framework). advisory_check(q3; q5; q6).", statements.append)
    assert [pinned._predicates(s)[0] for s in statements[1:]] == [{("side", 2)}, {("advisory_check", 1)}]


@slow
def test_raising_winner_priority_holds_under_w5():
    """With code-v0.1.5's cross-runtime check in play (--pool protocols=v1,
    W5) the property holds: before the fix above, world 2 denied the raised
    winner for a W5 clash its own explain does not have (an internal error, exit 3).

    Also the regression of issue 14 (these bounds hold every cluster of
    --runtimes 1, where it was found): under code-v0.1.5 Z3's outcome ends a
    query although a runtime has the first rank key; the statement took that
    runtime for world 1's winner, the ordinary explain selects nothing there,
    and find answered with an internal error (exit 3). World 1's winner is now
    the one it answers (answers.lp's result/2), as the Python check reads it."""
    code, report = run_json("--property", "raising-winner-priority-keeps-it-first", "--profile", "code-v0.1.5",
                            "--pool", "protocols=v1")
    assert code == 1 and report["found"] is False


def test_scores_keyed_by_the_model_unless_a_rule_reads_a_views_parts(conditions):
    """D-71: find keys the scores by the model instead of its score view
    (pinned.COLLAPSED): the same answers, from a grounding a third the size.
    A rule that builds or reads a view's parts (here a --where file) turns
    that off, so it still reads them: the witness it asks for exists."""
    encoding = [programs.encoding_dir() / name for name in programs.Variant.FIND_EXPLAIN.files]
    assert pinned.collapsible(encoding)
    reads = where(conditions, "view-parts", "read :- score_view(_, view(\"f\", _, _, _, _)).\n:- not read.\n")
    assert not pinned.collapsible([*encoding, Path(reads)])
    code, report = run_json("--where", reads, "--runtimes", "1")
    assert code == 0 and report["manifests"][0]["spec"]["modelFormat"]["name"] == "f"
    # Views kept (a rule mentions their parts) and replaced by the model: one witness.
    mentions = where(conditions, "view-mentioned", "read(F) :- score_view(_, view(F, _, _, _, _)).\n")
    argv = ("--differ", "v1.3,code-v0.1.5", "--runtimes", "1")
    assert run_json(*argv, "--where", mentions)[1]["manifests"] == run_json(*argv)[1]["manifests"]


# --- planted bugs ---------------------------------------------------------------------


def planted(tmp_path: Path, file: str, old: str, new: str, *more: tuple[str, str, str]) -> Path:
    """A copy of the encoding with `old` replaced by `new` in `file` (and each further edit)."""
    copy = tmp_path / "encoding"
    if not copy.exists():
        shutil.copytree(programs.encoding_dir(), copy)
    text = (copy / file).read_text(encoding="utf-8")
    assert old in text
    (copy / file).write_text(text.replace(old, new), encoding="utf-8")
    return planted(tmp_path, *more[0], *more[1:]) if more else copy


@slow
def test_planted_o1_bug_is_found_by_differ_encoding_and_property(tmp_path):
    """A copy of the encoding with O1 turned round (a ServingRuntime costs 2 at
    the namespaced-first level, more than a ClusterServingRuntime; dropping the
    level instead would let an SR and a CSR of one name tie, which the ordinary
    explain reports as a non-unique answer): --differ-encoding and --property
    namespaced-first each find it with at most 3 objects."""
    edited = planted(tmp_path, "ordering.lp", "scope_cost(R, 0) :- runtime(R), R = sr(_, _).",
                     "scope_cost(R, 2) :- runtime(R), R = sr(_, _).")
    code, report = run_json("--differ-encoding", str(edited))
    assert code == 0 and len(report["manifests"]) <= 3
    assert report["answers"]["encoding"]["selected"]["kind"] == "ServingRuntime"
    assert report["answers"][str(edited)]["selected"]["kind"] == "ClusterServingRuntime"
    code, report = run_json("--property", "namespaced-first", "--encoding", str(edited))
    assert code == 0 and len(report["manifests"]) <= 3
    assert sorted(kinds(report)[1:]) == ["ClusterServingRuntime", "ServingRuntime"]


@slow
def test_planted_q2_bug_is_found_by_differ_encoding_and_property(tmp_path):
    """A copy that drops Q2's check: a disabled runtime qualifies."""
    edited = planted(tmp_path, "qualification.lp",
                     "fails(Q, R, q2, runtime_disabled) :- examined(Q, R), runtime_disabled(R).", "")
    code, report = run_json("--differ-encoding", str(edited))
    assert code == 0 and len(report["manifests"]) <= 3
    code, report = run_json("--property", "disabled-never-selected", "--encoding", str(edited))
    assert code == 0 and len(report["manifests"]) <= 3
    assert any(d["spec"].get("disabled") is True for d in report["manifests"][1:])


@slow
def test_planted_o5_bug_is_found_by_selected_is_first_of_order(tmp_path):
    """O5 turned round (the batch winner is the keys' maximum, the single
    query's #minimize maximizes): the selected runtime is the last of the
    order. selected-is-first-of-order, stated per runtime pair, finds it with
    3 objects; the ordinary explain refuses that encoding itself (its optimum
    is not the first of the order), so the witness is an internal error (exit 3)."""
    edited = planted(tmp_path, "winner.lp", "K = #min{ Key", "K = #max{ Key", *[
        ("selection.lp", f"{x}@L, Q, R", f"-{x}@L, Q, R") for x in "CSDN"])
    v13 = profiles.resolve("v1.3", None)
    witness = finder.search(finder.Bounds(), [finder.World(v13, edited)],
                            [finder.find_dir() / "answers.lp", finder.find_dir() / "properties" / "selected-is-first-of-order.lp"])
    assert witness is not None and len(witness.documents) == 3
    code, _, err = _run("--property", "selected-is-first-of-order", "--encoding", str(edited))
    assert code == 3 and "not the first of the order" in err


@slow
def test_planted_priority_bug_is_found_by_raising_winner_priority(tmp_path):
    """A planted check that fails a runtime with a priority above 2: raising
    the winner's priority (S5) from 2 to 3 then loses it the selection."""
    rule = "fails(Q, R, q2, runtime_disabled) :- examined(Q, R), runtime_disabled(R)."
    edited = planted(tmp_path, "qualification.lp", rule,
                     rule + "\nfails(Q, R, q2, runtime_disabled) :- examined(Q, R), entry_priority(R, _, P), P > 2.")
    code, report = run_json("--property", "raising-winner-priority-keeps-it-first", "--encoding", str(edited))
    assert code == 0 and len(report["manifests"]) <= 3
    before, after = report["answers"]["before"], report["answers"]["after"]
    assert before["selected"] and before["selected"] != after["selected"]


@slow
def test_planted_q2_bug_is_found_by_adding_disabled_runtime(tmp_path):
    """Q2 dropped: the added disabled runtime qualifies, so the order changes."""
    edited = planted(tmp_path, "qualification.lp",
                     "fails(Q, R, q2, runtime_disabled) :- examined(Q, R), runtime_disabled(R).", "")
    code, report = run_json("--property", "adding-disabled-runtime-changes-nothing", "--encoding", str(edited))
    assert code == 0
    assert find.view(report["answers"]["before"], "order") != find.view(report["answers"]["after"], "order")


# --- output, verification, usage -----------------------------------------------------


@slow
def test_yaml_witness_is_what_explain_reads_and_out_writes_cases_check_passes(tmp_path):
    """-o yaml: comments with the query and each side's answer, then manifests
    that `explain -f -` reads as they are and answers as the comment says;
    --out: one conformance case per side, which `check` passes."""
    code, out, err = _run("--differ", "v1.3,code-v0.1.5", "--out", str(tmp_path / "cases"))
    assert code == 0, err
    comments = [line for line in out.splitlines() if line.startswith("#")]
    assert comments[0] == "# ome-asp find --differ v1.3,code-v0.1.5 --on selected"
    assert any(line.startswith("# code-v0.1.5: outcome panic") for line in comments)
    stdout, stderr = io.StringIO(), io.StringIO()
    code = cli.main(["explain", "-f", "-", "--model", "m", "-n", "default", "--profile", "code-v0.1.5", "-o", "json"],
                    stdin=io.BytesIO(out.encode()), stdout=stdout, stderr=stderr)
    assert code == 4 and json.loads(stdout.getvalue())["outcome"] == "panic"
    assert len(list(yaml.safe_load_all(out))) >= 2
    assert sorted(p.name for p in (tmp_path / "cases").iterdir()) == ["code-v0.1.5", "v1.3"]
    stdout, stderr = io.StringIO(), io.StringIO()
    assert cli.main(["check", str(tmp_path / "cases")], stdin=io.BytesIO(b""), stdout=stdout, stderr=stderr) == 0, \
        stdout.getvalue() + stderr.getvalue()


@slow
def test_isvc_witness_is_what_select_reads_and_out_writes_select_cases(tmp_path):
    """--isvc (D-70): the query is explain and select --isvc i; the yaml's
    comments give select's answer per side, `select -f -` reads the witness
    and answers as the FindReport says, and --out's cases check select too."""
    code, out, err = _run("--differ", "v1.3,v1.2.2", "--isvc", "--out", str(tmp_path / "cases"))
    assert code == 0, err
    assert "# v1.2.2: select uses no runtime" in out and "query: explain and select --isvc i -n default" in out
    _, report = run_json("--differ", "v1.3,v1.2.2", "--isvc")
    assert report["query"] == {"namespace": "default", "isvc": "i"} and report["bounds"]["inferenceServices"] == 1
    for profile in ("v1.3", "v1.2.2"):
        stdout, stderr = io.StringIO(), io.StringIO()
        cli.main(["select", "-f", "-", "--isvc", "i", "-n", "default", "--profile", profile, "-o", "json"],
                 stdin=io.BytesIO(out.encode()), stdout=stdout, stderr=stderr)
        assert json.loads(stdout.getvalue())["events"] == report["selections"][profile]["events"]
    case = yaml.safe_load((tmp_path / "cases" / "v1.2.2" / "case.yaml").read_text(encoding="utf-8"))
    assert case["check"] == ["explain", "select"] and case["query"] == {"namespace": "default", "isvc": "i"}
    stdout, stderr = io.StringIO(), io.StringIO()
    assert cli.main(["check", str(tmp_path / "cases")], stdin=io.BytesIO(b""), stdout=stdout, stderr=stderr) == 0, \
        stdout.getvalue() + stderr.getvalue()


@slow
def test_docs_find_md_sessions_are_real_output(tmp_path, monkeypatch):
    """docs/find.md's worked examples are what the commands print: each
    ```-block of `$ ` lines is replayed (`cat FILE` writes the lines it shows,
    `/tmp/` is a fresh directory) and every `ome-asp find` prints what follows it."""
    text = (Path(__file__).parent.parent / "docs" / "find.md").read_text(encoding="utf-8")
    sessions = [b for b in re.findall(r"^```\n(.*?)^```", text, re.S | re.M) if b.startswith("$ ")]
    assert len(sessions) >= 4
    root = Path(__file__).parent.parent
    monkeypatch.chdir(tmp_path)
    for session in sessions:
        for chunk in re.split(r"^\$ ", session, flags=re.M)[1:]:
            line, _, shown = chunk.partition("\n")
            line = line.replace("/tmp/", f"{tmp_path}/")
            if line.startswith("cat "):
                Path(line[4:]).write_text(shown, encoding="utf-8")
            elif line.startswith("ome-asp find "):
                code, out, err = _run(*shlex.split(line)[2:])
                assert code in (0, 1), err
                assert out == shown.replace("/tmp/", f"{tmp_path}/"), line
            else:
                subprocess.run(line.replace("cp -r encoding", f"cp -r {root / 'encoding'}"), shell=True, check=True)


@slow
def test_where_alone_finds_a_cluster_csr_selected_over_nothing(conditions):
    """--where: the user's constraints over a world's atoms; the witness is
    checked again by the ordinary program with the same constraints."""
    pinned = where(conditions, "csr", "chosen :- selected(_, csr(_)).\n:- not chosen.\n")
    code, report = run_json("--where", pinned)
    assert code == 0
    assert report["answers"]["v1.3"]["selected"]["kind"] == "ClusterServingRuntime"
    assert kinds(report) == [report["manifests"][0]["kind"], "ClusterServingRuntime"]


@slow
def test_raising_priority_with_an_absent_one_meets_w4():
    """D-72: at --entries 2, raising every priority of the winner (an absent
    one read as 1, so written as 2) breaks raising-winner-priority-keeps-it-first:
    entries [absent, 2] of one group pass W4, raised to [2, 3] they do not,
    the webhook denies the runtime and nothing is selected."""
    code, report = run_json("--property", "raising-winner-priority-keeps-it-first", "--entries", "2")
    assert code == 0
    entries = report["manifests"][1]["spec"]["supportedModelFormats"]
    assert [e.get("priority") for e in entries] == [None, 2]
    assert report["answers"]["after"]["selected"] is None
    assert "different priorities assigned" in report["answers"]["after"]["denied"][0]["message"]


@slow
def test_more_models_m1_the_namespaces_base_model_wins(conditions):
    """--models 2: a BaseModel m of the namespace and a ClusterBaseModel m can
    both exist, and the query evaluates the BaseModel (M1): no cluster
    evaluates the ClusterBaseModel beside it (exit 1); one with both exists."""
    both = ':- not model(cbm("m")).\n:- not model(bm("default", "m")).\n'
    code, report = run_json("--where", where(conditions, "m1", both), "--models", "2")
    assert code == 0 and kinds(report) == ["BaseModel", "ClusterBaseModel"] and report["bounds"]["models"] == 2
    wrong = both + ':- not evaluated(_, cbm("m")).\n'
    assert run_json("--where", where(conditions, "m1-wrong", wrong), "--models", "2")[0] == 1


@slow
def test_priority_0_is_searched_where_every_side_reads_it(conditions):
    """docs/profiles.md, "Profile code-v0.1.5", I4 and S5: without schema checks
    a priority may be 0, and its score is 0 (Q8). A witness is valid input for
    its sides (D-70), so --pool priorities=0 is searched under code-v0.1.5 and
    refused where v1.3's schema (priority >= 1) reads the witness."""
    pinned = where(conditions, "p0", "zero :- entry_priority(R, _, 0), first_failure(_, R, q8, _).\n:- not zero.")
    code, report = run_json("--where", pinned, "--profile", "code-v0.1.5", "--pool", "priorities=0,1")
    assert code == 0
    assert report["manifests"][1]["spec"]["supportedModelFormats"][0]["priority"] == 0
    assert _run("--where", pinned, "--pool", "priorities=0,1")[0] == 2


def test_a_witness_that_fails_its_check_is_an_internal_error():
    """Verification is not decoration: a condition the ordinary answers do not
    satisfy makes the run an internal error (exit 3), never a result."""
    question = find.Question({"test": True}, [find.Side("v1.3", profiles.resolve("v1.3", None), programs.encoding_dir())],
                             [], check=lambda found: False)
    found = find.Found(question, finder.Bounds(), finder.Witness(
        [{"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": {"name": "m"},
          "spec": {"modelFormat": {"name": "f"}}}], [], []))
    with pytest.raises(find.InternalError):
        find.verify(found)


@pytest.mark.parametrize("argv, message", [
    ([], "no condition"),
    (["--differ", "v1.3"], "two different profiles"),
    (["--differ", "v1.3,v1.3"], "two different profiles"),
    (["--property", "nope"], "is not one of"),
    (["--differ", "v1.3,v1.2.2", "--property", "order-is-total"], "give one of"),
    (["--property", "order-is-total", "--on", "rows"], "--on applies"),
    (["--differ-encoding", "/nonexistent"], "not an encoding directory"),
    (["--where", "/nonexistent.lp"], "no such file"),
    (["--property", "order-is-total", "--pool", "weights=x"], "integers"),
    (["--property", "order-is-total", "--pool", "colours=red"], "NAME=V1,V2"),
    (["--property", "order-is-total", "--runtimes", "0"], "at least 1"),
    (["--property", "order-is-total", "--models", "0"], "at least 1"),
    (["--property", "order-is-total", "-j", "0"], "must be a positive integer"),
    (["--property", "order-is-total", "--pool", "sizes=abc"], "is not a size v1.3 reads"),
    (["--property", "order-is-total", "--pool", "priorities=0,1"], "at least 1"),
    (["--property", "order-is-total", "--pool", "versions=x"], "not a version"),
    # issue 28: clingo's integers are 32-bit, arguments that are not UTF-8 (were an OverflowError and a traceback, exit 3)
    (["--property", "order-is-total", "--pool", "priorities=2147483648"], "must lie within -2147483648..2147483647"),
    (["--property", "order-is-total", "--pool", "priorities=-2147483649"], "must lie within -2147483648..2147483647"),
    (["--property", "order-is-total", "--pool", "workers=99999999999999999999"], "must lie within"),
    (["--property", "order-is-total", "--pool", "formats=a\udcffb"], 'error: --pool "formats=a\\udcffb": must be valid Unicode\n'),
    # D-70: Go's order (O3/O4) is not in the worlds; distances under one parameter apart would need it
    (["--differ", "v1.3,code-v0.1.5", "--pool", "sizes=10,9,11.5,12"], "differ by less than one parameter"),
])
def test_usage_errors_exit_2(argv, message):
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["find", *argv], stdin=io.BytesIO(b""), stdout=out, stderr=err) == 2
    assert err.getvalue().startswith("error: ") and message in err.getvalue()


# --- the generator derives what facts.py emits ----------------------------------------

# Terms that name a group of facts (a signature, a weights term) differ between
# the two; they are compared by the facts each entry's group holds.
GROUPED = {"sig_declares": "sig", "sig_version": "sig", "sig_operator": "sig",
           "sig_architecture": "sig", "sig_quantization": "sig", "weights": "w", "weights_stored": "w",
           "weights_priority": "w", "weights_score_option": "w", "weights_shown_option": "w", "weights_absent": "w"}


def _input_predicates() -> set[tuple[str, int]]:
    text = (programs.encoding_dir() / "input.lp").read_text(encoding="utf-8")
    return {(m[1], int(m[2])) for m in re.finditer(r"#defined (\w+)/(\d+)\.", text)} - {("switch", 2)}


def _normal(symbol: clingo.Symbol):
    """A fact's term with every exact number as its text (val(K, D): the ranks K differ)."""
    if symbol.type != clingo.SymbolType.Function:
        return str(symbol)
    if symbol.name == "val" and len(symbol.arguments) == 2:
        return symbol.arguments[1].string
    return symbol.name, tuple(_normal(a) for a in symbol.arguments)


def _comparable(facts: list[clingo.Symbol]) -> set:
    """The facts, each entry as its key with its signature's and weights' facts,
    runtime_name_rank as the order it gives."""
    groups: dict = {}
    for f in facts:
        if f.name in GROUPED:
            groups.setdefault(f.arguments[0], set()).add((f.name, *(_normal(a) for a in f.arguments[1:])))
    seen, ranks = set(), {}
    for f in facts:
        if f.name == "entry":
            r, i, sig, weights = f.arguments
            seen.add(("entry", _normal(r), i.number, frozenset(groups.get(sig, ())), frozenset(groups[weights])))
        elif f.name == "runtime_name_rank":
            ranks[_normal(f.arguments[0])] = f.arguments[1].number
        elif f.name not in GROUPED:
            seen.add(_normal(f))
    seen |= {("name_order", a, b, ranks[a] < ranks[b], ranks[a] == ranks[b]) for a in ranks for b in ranks}
    return seen


@pytest.mark.parametrize("profile", ["v1.3", "v1.2.2", "code-v0.1.5"])
def test_generator_derives_the_facts_facts_py_emits(profile):
    """encoding/find/generate.lp derives, for a chosen cluster, exactly the
    input facts facts.py emits for its manifests (issue 14: "the same input
    predicates input.lp declares"): random clusters (clasp's random decisions
    and signs, 20 seeds) with every object and field in play, each decoded,
    loaded under the profile and built by facts.py, and compared fact by fact."""
    bounds = finder.Bounds(isvc=True, modes=True, accelerators=True, models=2, pools={
        **finder.DEFAULT_POOLS, "protocols": ("v1",), "workers": (0, 2), "entry_names": ("x",)})
    chosen = profiles.resolve(profile, None)
    predicates, derived = _input_predicates(), set()
    for seed in range(20):
        ctl = clingo.Control(["--opt-mode=ignore", "--rand-freq=1", "--sign-def=rnd", f"--seed={seed}"])
        ctl.add("base", [], finder.program(bounds, [finder.World(chosen, programs.encoding_dir())], False))
        ctl.load(str(finder.find_dir() / "generate.lp"))
        ctl.ground([("base", [])])
        with ctl.solve(yield_=True) as handle:
            atoms = next(iter(handle)).symbols(atoms=True)
        generated = [clingo.Function(a.name, a.arguments[1:]) for a in atoms
                     if (a.name, len(a.arguments) - 1) in predicates and a.arguments[0] == clingo.Number(1)]
        witness = finder.decode([a for a in atoms if a.match("set", 3)], [0, 0, 0], bounds)
        cluster = load(["-"], stdin=io.BytesIO(dump_manifests(witness.documents).encode()), profile=chosen)
        emitted = [clingo.parse_term(line[:-1]) for line in build_facts(cluster, [Query("default", isvc="i")]).program.splitlines()]
        assert _comparable(generated) == _comparable([f for f in emitted if (f.name, len(f.arguments)) in predicates]), seed
        derived |= {f.name for f in generated}
    # every fact the InferenceService, modes, accelerators and pools add was derived (the test compares them)
    assert {"isvc_component", "isvc_mode_annotation", "isvc_accelerator_request", "accelerator_class", "isvc_runner_image",
            "isvc_runtime_auto_sync_off", "runtime_mode", "runtime_accelerator_class", "isvc_runtime_kind"} <= derived
    assert PROFILE_ONLY[profile] <= derived and not (set().union(*PROFILE_ONLY.values()) - PROFILE_ONLY[profile]) & derived


# The facts only some profiles' loaders read (D-70) or facts.py emits (W5).
PROFILE_ONLY = {
    "v1.3": {"isvc_deployment_mode"},
    "v1.2.2": set(),
    "code-v0.1.5": {"runtime_protocol", "runtime_workers_size", "runtime_config", "isvc_virtual_deployment",
                    "entry_name_folded", "entry_side_plain"},
}


def test_pool_facts_rank_every_number_of_the_pools_once():
    """The per-profile tables share one ranking (finder.program): equal numbers
    under two profiles are one val/2 term, so worlds compare them."""
    from ome_asp.input import profiles

    text = finder.program(finder.Bounds(), [
        finder.World(profiles.resolve("v1.3", None), programs.encoding_dir()),
        finder.World(profiles.resolve("code-v0.1.5", None), programs.encoding_dir())], False)
    sizes = {line.split(",", 2)[2] for line in text.splitlines() if line.startswith("pool_size(")}
    assert len(sizes) == len(finder.DEFAULT_POOLS["sizes"])  # 1B, 7B: the same val/2 in both profiles


@pytest.mark.parametrize("text, message", [
    ("#script (python)\nimport os\n#end.\n", ":1: #script is not allowed"),
    ("#const n = 2.\n", ":1: #const is not allowed"),
    ("#external a.\n", ":1: #external is not allowed"),
    ("a.\n#heuristic a. [1, sign]\n", ":2: #heuristic is not allowed"),
    ("#minimize { 1 : a }.\n", ":1: #minimize is not allowed"),
    ("#program foo.\n:- selected(_, csr(_)).\n", ":1: #program is not allowed"),
    ("#show a/0.\n", ":1: #show is not allowed"),
    ('#include "/dev/zero".\n', ": #include is not allowed"),
    ("a.\n:- a b.\n", ":2:6-7: error: syntax error, unexpected <IDENTIFIER>"),  # clingo's message, on one line
])
def test_issue28_where_holds_rules_and_constraints_only(tmp_path, text, message):
    """Each was an internal error (exit 3), a hang (#include of a FIFO), or
    applied by the search and not by the re-check (#program)."""
    (tmp_path / "w.lp").write_text(text)
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["find", "--where", str(tmp_path / "w.lp")], stdin=io.BytesIO(b""), stdout=out, stderr=err) == 2
    assert err.getvalue().startswith(f"error: --where: {tmp_path / 'w.lp'}{message}") and err.getvalue().count("\n") == 1


def test_issue28_where_warns_of_an_atom_nothing_defines(tmp_path):
    """`:- not nothere.` matched every cluster, silently."""
    (tmp_path / "w.lp").write_text("% a comment\n:- nothere(1).\nchosen :- selected(_, csr(_)).\n:- not chosen.\n")
    assert find_command.where_warnings(Path(tmp_path / "w.lp"), programs.encoding_dir()) == [
        f"--where: {tmp_path / 'w.lp'}: nothere/1 is defined nowhere (no atom of the encoding or the input): it never holds"]
