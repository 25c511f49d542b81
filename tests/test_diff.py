"""`ome-asp diff`: the protocol, the comparison, shrinking, and the planted bugs of
examples/toy_impl.py found and shrunk (O1 to two runtimes)."""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, run_cli

from ome_asp.conformance import cases, differential
from ome_asp.render.case_files import exercised_rules

PYTHON = shlex.quote(sys.executable)
TOY = f"{PYTHON} {shlex.quote(str(ROOT / 'examples' / 'toy_impl.py'))}"
ORDERING = str(ROOT / "fixtures" / "cases" / "ordering")
RUNTIME_KINDS = ("ServingRuntime", "ClusterServingRuntime")


def _runtimes(directory) -> list[dict]:
    documents = yaml.safe_load_all((directory / "manifests.yaml").read_text())
    return [d for d in documents if d["kind"] in RUNTIME_KINDS]


def test_planted_O1_bug_is_found_and_shrunk_to_two_runtimes(tmp_path):
    """O1: a toy that ranks without the namespaced-first rule disagrees on the ordering
    cases; each counterexample shrinks to one ServingRuntime and one ClusterServingRuntime,
    is a valid case (ome-asp check passes it) and shows both answers."""
    out = tmp_path / "out"
    result = run_cli("diff", "--impl", f"{TOY} --bug namespaced-first", "--corpus", ORDERING,
                         "--batch", "-o", str(out), "--max-counterexamples", "2")
    assert result.code == 1, result.stderr
    assert "o1-namespaced-first: selected: ome-asp ServingRuntime demo/team-low, implementation ClusterServingRuntime cluster-high" in result.stdout
    assert "disagree; counterexamples in" in result.stdout.splitlines()[-1]
    written = sorted(p.parent for p in out.glob("*/case.yaml"))
    assert written
    for directory in written:
        runtimes = _runtimes(directory)
        assert len(runtimes) <= 2
        assert sorted(r["kind"] for r in runtimes) == sorted(RUNTIME_KINDS)
        assert (directory / "implementation.yaml").is_file()
        assert "ome-asp" in (directory / "comparison.txt").read_text()
    assert run_cli("check", str(out)).code == 0


def test_planted_S3_bug_is_found_in_generated_cases(tmp_path):
    """S3: a toy reading a stored weight 0 as 0 (not 10/5) disagrees on scores; shrunk to one runtime."""
    result = run_cli("diff", "--impl", f"{TOY} --bug zero-weight", "--generate", "12", "--seed", "1",
                         "--batch", "-o", str(tmp_path), "--max-counterexamples", "1")
    assert result.code == 1
    directory = next(p.parent for p in tmp_path.glob("*/case.yaml"))
    assert len(_runtimes(directory)) == 1
    assert "score: ome-asp" in (directory / "comparison.txt").read_text()


def test_correct_toy_agrees_on_generated_cases(tmp_path):
    """Without bugs the toy (the reference model) agrees with ome-asp: zero disagreements, exit 0."""
    result = run_cli("diff", "--impl", TOY, "--generate", "30", "--seed", "2", "--batch", "-o", str(tmp_path))
    assert result.code == 0, result.stdout
    assert result.stdout == "30 cases: 30 agree, 0 disagree\n"
    assert not tmp_path.exists() or not any(tmp_path.iterdir())


def test_ome_asp_itself_agrees_through_serve(tmp_path):
    """`ome-asp serve --stdio` speaks the protocol (its `report` answers are read): zero disagreements."""
    serve = f"{PYTHON} -m ome_asp serve --stdio"
    result = run_cli("diff", "--impl", serve, "--corpus", ORDERING, "--batch", "-o", str(tmp_path))
    assert result.code == 0, result.stdout
    assert result.stdout.endswith("agree, 0 disagree\n")
    result = run_cli("diff", "--impl", serve, "--generate", "8", "--seed", "4", "--batch", "-o", str(tmp_path))
    assert result.stdout == "8 cases: 8 agree, 0 disagree\n"


def test_adapter_template_one_process_per_case(tmp_path):
    """Per-case mode (no --batch): the adapter template wrapping `ome-asp explain -o json` agrees."""
    adapter = f"{PYTHON} {shlex.quote(str(ROOT / 'examples' / 'adapter_template.py'))}"
    corpus = ROOT / "fixtures" / "cases" / "scoring"
    result = run_cli("diff", "--impl", adapter, "--corpus", str(corpus / "s7-best-entry-wins"), "-o", str(tmp_path))
    assert result.stdout == "1 cases: 1 agree, 0 disagree\n", result.stdout


def test_failing_implementation_is_a_disagreement(tmp_path):
    result = run_cli("diff", "--impl", f"{PYTHON} -c 'import sys; sys.exit(3)'", "--corpus",
                         str(ROOT / "fixtures" / "cases" / "scoring" / "s7-best-entry-wins"), "-o", str(tmp_path),
                         "--max-counterexamples", "0")
    assert result.code == 1
    assert "the implementation failed: exit 3" in result.stdout


# --- the pieces ---------------------------------------------------------------------------

OURS = {
    "selected": {"kind": "ServingRuntime", "namespace": "n", "name": "a"},
    "ranking": [{"kind": "ServingRuntime", "namespace": "n", "name": "a", "score": 2, "distance": "1500000000",
                 "priority": 1, "weight": 2}],
    "rejected": [{"kind": "ClusterServingRuntime", "namespace": None, "name": "b", "failedCheck": "Q2",
                  "reason": "runtime is disabled", "checks": ["Q2"]}],
    "message": None,
}


def test_compare_only_what_the_implementation_answers():
    """Namespace defaults to the query's; numbers compare by value; absent optional fields are not compared."""
    theirs = differential.normalize({"id": 1, "selected": {"kind": "ServingRuntime", "name": "a"},
                             "ranking": [{"kind": "ServingRuntime", "name": "a", "score": "2", "distance": 1.5e9}]}, "n")
    assert differential.compare(OURS, theirs) == []
    theirs["ranking"][0]["score"] = 3
    assert differential.compare(OURS, theirs) == ["ServingRuntime n/a score: ome-asp 2, implementation 3"]
    rejected = differential.normalize({"selected": None, "ranking": [],
                               "rejected": [{"kind": "ClusterServingRuntime", "name": "b", "failedCheck": "Q5"}]}, "n")
    assert differential.compare(OURS, rejected)[1:] == ["ranking: ome-asp [ServingRuntime n/a], implementation []",
                                                "ClusterServingRuntime b failedCheck: ome-asp 'Q2', implementation 'Q5'"]
    assert differential.compare({"error": "x"}, {"error": "y"}) == []
    assert differential.compare({"error": "x"}, theirs) == ["only ome-asp reports an error: x"]


def test_shrink_deletes_what_the_failure_does_not_need():
    documents = [{"kind": "A", "spec": {"keep": 1, "drop": [1, 2]}}, {"kind": "B"}, {"kind": "C"}]
    shrunk = differential.shrink(documents, lambda docs: any(d.get("spec", {}).get("keep") for d in docs))
    assert shrunk == [{"kind": "A", "spec": {"keep": 1}}] or shrunk == [{"spec": {"keep": 1}}]


def test_side_by_side_marks_differences():
    text = differential.side_by_side("a: 1\nb: 2\n", "a: 1\nb: 3\n")
    assert text.splitlines()[2:] == ["a: 1      a: 1", "b: 2    | b: 3"]


@pytest.mark.parametrize("batch", [False, True])
def test_issue18_an_implementation_that_never_reads_or_writes_bytes_not_utf8(tmp_path, batch):
    """`yes` never reads its input and writes without end; another writes
    Latin-1: each a disagreement within --timeout, in bounded memory."""
    from ome_asp.conformance.differential import Implementation, ImplementationError

    big = {"id": 1, "pad": "x" * 2**20}  # more than a pipe holds: the write blocks unless read
    for command, message in (("yes", "not a JSON answer: 'y'"), (f"{PYTHON} -c \"import sys; sys.stdout.buffer.write(b'\\\\xff\\\\n')\"",
                                                                 "an answer that is not UTF-8 (byte 0xff)")):
        impl = Implementation(command, batch, timeout=5)
        with pytest.raises(ImplementationError) as raised:  # a bound not kept would hang here: no time is asserted (issue 39)
            impl.ask(big)
        impl.close()
        assert str(raised.value) in (message, "did not read its input within 5 s"), raised.value
    impl = Implementation(f"{PYTHON} -c \"import time; time.sleep(60)\"", batch, timeout=1)
    with pytest.raises(ImplementationError, match="did not read its input within 1 s"):
        impl.ask(big)
    impl.close()


@pytest.mark.parametrize("batch", [False, True])
def test_issue28_an_answer_line_over_16_mib_is_a_disagreement_at_once(batch):
    """Issue 28 item 9: 17 MiB without a newline, then the process lingers. The
    answer is refused as soon as it passes 16 MiB -- not after the timeout
    (which would say "no answer within"), and no timeout is counted."""
    from ome_asp.conformance.differential import Implementation, ImplementationError

    command = f"{PYTHON} -c \"import sys, time; sys.stdout.write('x' * (17 * 2**20)); sys.stdout.flush(); time.sleep(60)\""
    impl = Implementation(command, batch, timeout=30)
    with pytest.raises(ImplementationError, match=r"an answer line longer than 16 MiB: b'xxx"):
        impl.ask({"id": 1})
    impl.close()
    assert impl.timeouts == 0


def test_issue28_a_case_that_timed_out_is_not_shrunk(tmp_path):
    """Issue 28 item 9: shrinking asks the implementation again for every
    deletion, and each try of one that never answers waits the whole timeout;
    such a case is written as it is, and said so."""
    result = run_cli("diff", "--impl", f"{PYTHON} -c \"import time; time.sleep(60)\"", "--generate", "1",
                     "--timeout", "1", "-o", str(tmp_path))
    assert result.code == 1, result.stderr
    assert "not shrunk (no answer within 1 s): " in result.stdout, result.stdout
    assert list(tmp_path.glob("*/case.yaml"))


# --- every profile (issue 16, bug 1) -------------------------------------------------------


@pytest.mark.parametrize("profile", cases.PROFILES)
def test_diff_self_check_agrees_under_every_profile(tmp_path, profile):
    """Issue 16 bug 1: serve's outcome reports (no rows, no table) are read as the
    error answer a case expects, so ome-asp agrees with itself under every profile
    (it crashed with KeyError 'selected' under v1.2.2 and code-v0.1.5)."""
    serve = f"{PYTHON} -m ome_asp serve --stdio"
    corpus = ROOT / "fixtures" / "cases" / ("ordering" if profile == cases.DEFAULT_PROFILE else f"profiles/{profile}")
    result = run_cli("diff", "--impl", serve, "--corpus", str(corpus), "--profile", profile, "--batch", "-o", str(tmp_path))
    assert result.code == 0, result.stdout + result.stderr
    assert result.stdout.endswith("agree, 0 disagree\n")


def test_a_counterexample_shrunk_to_an_entry_without_modelFormat_is_written(tmp_path):
    """Issue 16 bug 1: under code-v0.1.5 an entry may lose modelFormat while shrinking
    (the answer keeps its status); writing the case read entry["modelFormat"] (KeyError).
    The toy's zero-weight bug: its reference model reads code-v0.1.5 (D-109), so
    O1's namespaced-first, which Go's order has no step of, no longer disagrees there."""
    result = run_cli("diff", "--impl", f"{TOY} --bug zero-weight", "--generate", "12", "--seed", "1",
                     "--profile", "code-v0.1.5", "--batch", "-o", str(tmp_path), "--max-counterexamples", "1")
    assert result.code == 1, result.stderr
    assert "internal error" not in result.stderr
    assert list(tmp_path.glob("*/case.yaml"))
    documents = [{"kind": "ClusterServingRuntime", "spec": {"supportedModelFormats": [{"modelFramework": {"weight": 0}}, "x"]}}]
    assert "S3" in exercised_rules(documents, {"namespace": "ns", "model": "m"}, {"explain": {"error": "x"}})


def test_outcome_report_reads_as_the_error_answer():
    report = {"kind": "RuntimeExplainReport", "outcome": "panic", "detail": "d", "selected": None, "rows": []}
    assert cases.explain_answer(report) == {"error": "outcome panic: d"}


# --- issue 28: wrong answers are disagreements; a timeout ends the whole session ----------

S7 = str(ROOT / "fixtures" / "cases" / "scoring" / "s7-best-entry-wins")


def _answering(tmp_path, answer: str) -> str:
    """An implementation that answers each request line with `answer` (JSON text, %s for the id)."""
    script = tmp_path / "impl.py"
    script.write_text("import json, sys\nfor line in sys.stdin:\n"
                      f"    print({answer!r} % json.dumps(json.loads(line)['id']), flush=True)\n")
    return f"{PYTHON} {script}"


@pytest.mark.parametrize("answer, message", [
    ('{"id": %s, "selected": {"kind": "ClusterServingRuntime", "namespace": null, "name": "\\ud800"}, "ranking": []}',
     "an answer holding a lone surrogate"),
    ('{"id": %s, "report": {"rows": "x"}}', "a report explain -o json never gives"),
])
def test_issue28_an_answer_that_is_no_answer_is_a_disagreement(tmp_path, answer, message):
    """Were internal errors (exit 3)."""
    result = run_cli("diff", "--impl", _answering(tmp_path, answer), "--corpus", S7, "-o", str(tmp_path / "out"),
                     "--max-counterexamples", "0")
    assert result.code == 1, result.stderr
    assert f"the implementation failed: {message}" in result.stdout


def test_issue28_what_the_implementation_left_running_is_ended(tmp_path):
    """A child left in the background is ended with the implementation (was: left running, each case waiting)."""
    pids = tmp_path / "pids"
    answers = _answering(tmp_path, '{"id": %s, "error": "x"}')
    impl = f"sleep 300 & echo $! >> {pids}; {answers}"
    result = run_cli("diff", "--impl", impl, "--corpus", S7, "-o", str(tmp_path / "out"), "--timeout", "5",
                     "--max-counterexamples", "0")
    assert result.code == 1, result.stderr
    for pid in map(int, pids.read_text().split()):
        for _ in range(50):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            pytest.fail(f"the implementation's child {pid} still runs")


# --- issue 38 item 6: the oracle's own bounds ---------------------------------------------


def test_issue38_the_implementations_stderr_takes_no_disk(tmp_path):
    """Its whole stderr went to one temporary file (7.4 GB in a 2-case run).
    Under a file-size limit of about 1 MB (`ulimit -f`, which a pipe is not
    subject to), an implementation writing 3 MB there still answers; with the
    temporary file its write failed (EFBIG) and it never answered."""
    answers = _answering(tmp_path, '{"id": %s, "error": "x"}')
    # os.write, not sys.stderr: Python ignores SIGXFSZ and drops a failed flush of stderr at exit
    noisy = f"ulimit -f 1000; {PYTHON} -c \"import os; [os.write(2, b'x' * 1000) for _ in range(3000)]\" && {answers}"
    result = run_cli("diff", "--impl", noisy, "--corpus", S7, "-o", str(tmp_path / "out"), "--max-counterexamples", "0")
    assert "s7-best-entry-wins: only the implementation reports an error: x" in result.stdout, result.stdout


def test_issue38_the_end_of_its_stderr_is_kept_and_no_more():
    """The message quotes the end of what it wrote; the rest is read and dropped
    (a temporary file kept it all)."""
    command = f"{PYTHON} -c \"import sys; sys.stderr.write('x' * 3_000_000 + 'the end'); sys.exit(3)\""
    impl = differential.Implementation(command, False, timeout=30)
    with pytest.raises(differential.ImplementationError, match=r"^exit 3: x+the end$"):
        impl.ask({"id": 1})
    assert len(impl.stderr) == differential.STDERR_TAIL_BYTES and impl.stderr.endswith(b"the end")


@pytest.mark.parametrize("value, why", [
    *((v, "not a duration: ") for v in ("nan", "inf", "1e308", "0", "-1", "0.0", "")),
    ("99999999999999999999h", "too long: "), ("169h", "too long: "),
])
@pytest.mark.parametrize("flag", ["--timeout", "--time-limit"])
def test_issue38_durations_are_finite_positive_and_bounded(flag, value, why):
    """nan, inf and 1e308 were internal errors (time_t overflow), 0 and -1
    accepted: every answer timed out, or --time-limit checked nothing (D-340)."""
    result = run_cli("diff", "--impl", "true", "--generate", "1", flag, value)
    assert result.code == 2 and result.stdout == ""
    assert result.stderr.startswith(f"error: argument {flag}: {why}{value!r}") and result.stderr.count("\n") == 1, result.stderr


def test_issue38_a_duration_takes_seconds_or_a_unit():
    from ome_asp.commands.options import duration_argument

    assert [duration_argument(t) for t in ("30", "0.5", "90s", "2m", "168h")] == [30, 0.5, 90, 120, 7 * 24 * 3600]


# --- issue 40: shards and their merge -------------------------------------------------------


def _merge(*argv: str):
    return run_cli("diff", "--merge", *argv)


def test_issue40_generated_cases_in_shards_merge_into_one_run(tmp_path):
    """--shard I/N takes cases I, I+N, ...; the merged reports are the one run's
    DiffReport (the O1 bug: gen-1-0014, of shard 14 % 4 = 2), as text too."""
    argv = ["--impl", f"{TOY} --bug namespaced-first", "--generate", "16", "--seed", "1", "--batch", "--report", "json",
            "-o", str(tmp_path / "out")]
    one = run_cli("diff", *argv)
    assert one.code == 1 and "DISAGREE gen-1-0014" in one.stderr
    paths = []
    for index in range(4):
        shard = run_cli("diff", *argv, "--shard", f"{index}/4")
        assert yaml.safe_load(shard.stdout)["cases"] == 4
        paths.append(str(tmp_path / f"{index}.json"))
        Path(paths[-1]).write_text(shard.stdout)
    merged = _merge(*paths, "--report", "json")
    document = json.loads(merged.stdout)
    assert merged.code == 1 and document.pop("merged")["firstFailingShard"] == 2
    assert document == json.loads(one.stdout)
    assert _merge(*reversed(paths)).stdout == (
        "16 cases in 4 shards: 15 agree, 1 disagree\nfirst failing shard: 2: gen-1-0014, selected: ome-asp "
        "ServingRuntime team-b/zeta, implementation ClusterServingRuntime zeta\n")


def test_issue40_merge_refuses_what_is_not_one_runs_shards(tmp_path):
    def report(index, count, **change):
        path = tmp_path / f"{index}-{count}-{'-'.join(change)}.json"
        path.write_text(json.dumps({"apiVersion": "ome-asp/v1alpha1", "kind": "DiffReport", "profile": None,
                                    "source": {"generate": 8, "seed": 1}, "shard": {"index": index, "count": count},
                                    "cases": 4, "agreed": 4, "disagreed": 0, "skipped": [], "disagreements": [], **change}))
        return str(path)

    not_json = tmp_path / "x.json"
    not_json.write_text("{")
    first, other_source, unsharded = report(0, 2), report(1, 2, source={"generate": 9, "seed": 1}), report(0, 1, shard=None)
    for argv, message in [
        ([first], "shard 1 of 2 missing: merge needs every shard's report"),
        ([first, first, report(1, 2)], "shard 0 given twice"),
        ([first, report(1, 3)], f"{report(1, 3)}: one of 3 shards, {first} one of 2"),
        ([first, other_source], f"{other_source}: not a shard of the run {first} is: another source"),
        ([unsharded], f"{unsharded}: not a shard's report: run diff with --shard I/N"),
        ([str(not_json)], f"{not_json}: not a JSON report: "),
        ([str(tmp_path / "none.json")], f"{tmp_path / 'none.json'}: cannot read the report: No such file or directory"),
    ]:
        result = _merge(*argv)
        assert result.code == 2 and result.stderr.startswith(f"error: {message}") and result.stderr.count("\n") == 1, result.stderr
    assert _merge(report(0, 1)).stdout == "4 cases in 1 shards: 4 agree, 0 disagree\n"


@pytest.mark.parametrize("argv, message", [
    (["--impl", "true", "--generate", "1", "--shard", "2/2"],
     "argument --shard: not a shard: '2/2' (use I/N with 0 <= I < N <= 10,000, such as 0/4)"),
    (["--impl", "true", "--generate", "1", "--shard", "0/0"], "argument --shard: not a shard: '0/0'"),
    (["--impl", "true", "--generate", "1", "--shard=-1/2"], "argument --shard: not a shard: '-1/2'"),
    (["--merge", "r.json", "--impl", "true"], "--merge reads reports: it takes no --impl"),
    (["--generate", "1"], "the following arguments are required: --impl"),
])
def test_issue40_shard_and_merge_usage_errors(argv, message):
    result = run_cli("diff", *argv)
    assert result.code == 2 and result.stderr.startswith(f"error: {message}") and result.stderr.count("\n") == 1, result.stderr
