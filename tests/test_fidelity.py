"""Issue 17: where profile code-v0.1.5 keeps its promise -- OME v0.1.5's Go
code's observable behaviour, quirks included (docs/profiles.md).

Each test names the Go function it follows (OME's pkg/runtimeselector at tag
v0.1.5, Go's strconv, sort and time, and apimachinery's metav1.Time); the
expectations are worked out from those sources by hand, as the comments say."""

from __future__ import annotations

import json
import math

import pytest
import yaml
from conftest import run_cli
from manifests import entry, model, runtime

CODE = "code-v0.1.5"
MODEL_LABEL = "mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.45.0.dev0"


def stream(*objects) -> bytes:
    return yaml.safe_dump_all(objects).encode()


def explain_json(profile: str, *objects, target=("--model", "m")) -> dict:
    result = run_cli("explain", *target, "-n", "ns", "-f", "-", "--profile", profile, "-o", "json", stdin=stream(*objects))
    assert result.code in (0, 3), result.stderr
    return json.loads(result.stdout)


def rows(profile: str, *objects) -> dict[str, dict]:
    return {row["runtime"]: row for row in explain_json(profile, *objects)["rows"]}


# --- class 5: reason texts, word for word ---------------------------------------------------


@pytest.mark.parametrize(("entry_fields", "model_fields", "piece"), [
    # getFormatMismatchReason, in its order: architecture, quantization, format, framework
    ({"modelArchitecture": "MistralForCausalLM"}, {},
     "architecture mismatch (model=LlamaForCausalLM, runtime=MistralForCausalLM)"),
    ({"modelArchitecture": None}, {}, "model has architecture LlamaForCausalLM but runtime has no architecture requirement"),
    ({"quantization": "fp8"}, {}, "model has no quantization but runtime requires fp8"),
    ({"quantization": "int4"}, {"quantization": "fp8"}, "quantization mismatch (model=fp8, runtime=int4)"),
    ({}, {"quantization": "fp8"}, "model has quantization fp8 but runtime has no quantization requirement"),
    ({"modelFormat": {"name": "pytorch", "version": "1.0.0"}}, {}, "format name mismatch (model=safetensors, runtime=pytorch)"),
    ({"modelFormat": {"name": "safetensors", "version": "2.0.0"}}, {},
     "format version mismatch (model=1.0.0, runtime=2.0.0)"),
    ({"modelFormat": {"name": "safetensors"}}, {}, "model has format version but runtime has no version requirement"),
    ({}, {"modelFormat": {"name": "safetensors"}}, "model has no format version but runtime requires 1.0.0"),
    ({"modelFramework": {"name": "vllm", "version": "4.45.0.dev0"}}, {},
     "framework name mismatch (model=transformers, runtime=vllm)"),
    ({"modelFramework": {"name": "transformers", "version": "4.46.0"}}, {},
     "framework version mismatch (model=4.45.0.dev0, runtime=4.46.0)"),
    ({"modelFramework": {"name": "transformers"}}, {},
     "model has framework version but runtime has no version requirement"),
    ({}, {"modelFramework": {"name": "transformers"}}, "model has no framework version but runtime requires 4.45.0.dev0"),
    # the D-33 text: "requirement" included, as getFormatMismatchReason writes it
    ({"modelFramework": None}, {}, "model has framework transformers but runtime has no framework requirement"),
    ({"modelFormat": None}, {}, "unknown mismatch"),
    # several pieces of one entry: joined by ", " in the function's order
    ({"modelArchitecture": "MistralForCausalLM", "modelFormat": {"name": "pytorch", "version": "1.0.0"}}, {},
     "architecture mismatch (model=LlamaForCausalLM, runtime=MistralForCausalLM), "
     "format name mismatch (model=safetensors, runtime=pytorch)"),
])
def test_I17_reason_pieces_are_getFormatMismatchReason_word_for_word(entry_fields, model_fields, piece):
    """GetCompatibilityDetails: `model format '<getModelFormatLabel>' not in supported formats: <pieces>`."""
    m = model(**model_fields)
    label = ("mt:safetensors" + (":1.0.0" if "version" in m["spec"]["modelFormat"] else "") + ":LlamaForCausalLM"
             + (f":{m['spec']['quantization']}" if "quantization" in m["spec"] else "")
             + ":transformers" + (":4.45.0.dev0" if "version" in m["spec"]["modelFramework"] else ""))
    row = rows(CODE, m, runtime("rt", supportedModelFormats=[entry(**entry_fields)]))["rt"]
    assert (row["failedCheck"], row["reason"]) == ("Q5", f"model format '{label}' not in supported formats: {piece}")


PIPE = {"className": "FluxPipeline", "transformer": {"library": "diffusers", "type": "flux"}}


@pytest.mark.parametrize(("entry_pipeline", "model_pipeline", "piece"), [
    # compareDiffusionPipeline / compareDiffusionComponent: the first failure only
    (PIPE, None, "diffusion pipeline required by runtime but not specified in model"),
    (PIPE, {"transformer": {"library": "diffusers", "type": "flux"}}, "pipeline class mismatch (model=<nil>, runtime=FluxPipeline)"),
    (PIPE, {"className": "FluxPipeline"}, "component transformer required by runtime but not specified in model"),
    (PIPE, {"className": "FluxPipeline", "transformer": {"library": "other", "type": "flux"}},
     "transformer library mismatch (model=other, runtime=diffusers)"),
    (PIPE, {"className": "FluxPipeline", "transformer": {"library": "diffusers", "type": "sd"}},
     "transformer type mismatch (model=sd, runtime=flux)"),
    ({"additionalComponents": {"refiner": {"library": "x"}}}, {"className": "FluxPipeline"},
     "diffusion pipeline missing required additional components"),
    ({"additionalComponents": {"refiner": {"library": "x"}}}, {"additionalComponents": {"other": {"library": "x"}}},
     "diffusion component refiner missing in model"),
])
def test_I17_pipeline_pieces_are_compareDiffusionPipeline_word_for_word(entry_pipeline, model_pipeline, piece):
    m = model() if model_pipeline is None else model(diffusionPipeline=model_pipeline)
    row = rows(CODE, m, runtime("rt", supportedModelFormats=[entry(diffusionPipeline=entry_pipeline)]))["rt"]
    assert row["reason"] == f"model format '{MODEL_LABEL}' not in supported formats: {piece}"


def test_I17_reasons_of_several_entries_are_joined_by_semicolons():
    """GetCompatibilityDetails joins the entries' getFormatMismatchReason with "; "."""
    rt = runtime("rt", supportedModelFormats=[entry(modelArchitecture="X"), entry(quantization="fp8")])
    assert rows(CODE, model(), rt)["rt"]["reason"] == (
        f"model format '{MODEL_LABEL}' not in supported formats: architecture mismatch (model=LlamaForCausalLM, "
        "runtime=X); model has no quantization but runtime requires fp8")


def test_I17_excluded_list_items_are_GetCompatibilityDetails_first_reasons():
    """SelectRuntime's excluded map: `runtime is disabled`, the accelerator text,
    `no supported formats defined` -- each IncompatibilityReasons[0]."""
    disabled = runtime("off", disabled=True)
    empty = runtime("empty", supportedModelFormats=[])
    message = explain_json(CODE, model(), disabled, empty)["message"]
    assert "off (runtime is disabled)" in message
    assert f"empty (model format '{MODEL_LABEL}' not in supported formats: no supported formats defined)" in message


def test_I17_size_and_selection_messages_are_the_go_texts():
    """GetCompatibilityDetails (`model size %s is outside supported range [%s, %s]`) and
    NoRuntimeFoundError.Error (the O8 message)."""
    rt = runtime("rt", modelSizeRange={"min": "70B", "max": "80B"})
    report = explain_json(CODE, model(modelParameterSize="8B"), rt)
    assert report["rows"][0]["reason"] == "model size 8B is outside supported range [70B, 80B]"
    assert report["message"] == (
        "no runtime found to support model safetensors with format safetensors in namespace ns. Checked 1 runtimes "
        "(0 namespace-scoped, 1 cluster-scoped). Excluded runtimes: rt (model size 8B is outside supported range "
        "[70B, 80B])")


# --- class 6: the v0.1.5 tag ---------------------------------------------------------------


def test_I17_tag_entry_without_modelFormat_scores_0():
    """CalculateFormatScore at tag v0.1.5: `modelFormatMatches || (ModelFormat == nil &&
    &model.ModelFormat == nil)` is false for an entry without modelFormat (the address
    is never nil), so that entry scores 0 even with a matching framework and priority 100
    (OME's later commit df0bfca3 would count 5 x 100 = 500). The runtime qualifies
    through its other entry: (10 + 5) x 1 = 15 (absent weights are 0, I3)."""
    counted = entry(priority=1)
    formatless = entry(modelFormat=None, priority=100)
    row = rows(CODE, model(), runtime("rt", supportedModelFormats=[counted, formatless]))["rt"]
    assert (row["compatible"], row["score"]) == (True, 15)


# --- class 1: int64 two's-complement scores ------------------------------------------------

MAX64, MIN64 = 2**63 - 1, -(2**63)


def weighted(format_weight: int, framework_weight: int, priority: int) -> dict:
    return entry(modelFormat={"name": "safetensors", "version": "1.0.0", "weight": format_weight},
                 modelFramework={"name": "transformers", "version": "4.45.0.dev0", "weight": framework_weight},
                 priority=priority)


@pytest.mark.parametrize(("format_weight", "framework_weight", "priority", "go_score"), [
    (MAX64 - 1, 1, 1, MAX64),  # the largest int64: no wrap
    (MAX64, 1, 1, MIN64),  # the sum passes 2**63 - 1 once: -2**63
    (MIN64, -1, -1, MIN64 + 1),  # (-2**63 - 1) x -1 = 2**63 + 1 wraps once to -2**63 + 1
    (MIN64 + 1, -1, -1, MIN64),  # (-2**63) x -1 = 2**63 wraps to -2**63 (Go's MinInt64 * -1)
    (2**62 - 1, 1, 4, 0),  # issue 17's example: 2**62 x 4 = 2**64 wraps to 0
    (2**62, 1, 4, 4),  # 2**64 + 4 wraps once to 4
    (2**62, 1, 8, 8),  # 2**65 + 8 wraps twice (2 x 2**64) to 8
    (MAX64, MAX64, 1, -2),  # two maximal terms: 2**64 - 2 wraps to -2
    (MAX64, MAX64, 2**31 - 1, -2 * (2**31 - 1)),  # products and sum wrap: (2**64 - 2) x P = -2P mod 2**64
])
def test_I17_go_int64_score_of_calculate_format_score(format_weight, framework_weight, priority, go_score):
    """CalculateFormatScore: `currentScore += weight * priority` per side, int64
    (ModelFormat.Weight int64, int64(*Priority) of an int32), wrapping modulo 2**64."""
    from ome_asp.solver.facts import go_int64

    assert go_int64((format_weight + framework_weight) * priority) == go_score
    row = rows(CODE, model(), runtime("rt", supportedModelFormats=[weighted(format_weight, framework_weight, priority)]))["rt"]
    if go_score > 0:
        assert (row["compatible"], row["score"]) == (True, go_score)
    else:  # evaluateRuntime: "Runtime has non-positive score" -- excluded
        assert (row["compatible"], row["failedCheck"]) == (False, "Q8")


def test_I17_int64_wrap_reverses_two_runtimes_and_v1_3_stays_exact():
    """a: (2**62 + 1) x 4 = 2**64 + 4, Go's int64 4; b: (10 + 1) x 1 = 11. Go ranks
    b first (CompareRuntimes: int(r1.Score - r2.Score), exact for two positive
    int64s); v1.3 keeps unbounded integers (I8) and ranks a first."""
    a = runtime("a", supportedModelFormats=[weighted(2**62, 1, 4)])
    b = runtime("b", supportedModelFormats=[weighted(10, 1, 1)])
    code = rows(CODE, model(), a, b)
    assert [code["b"]["score"], code["a"]["score"]] == [11, 4]
    assert [row["runtime"] for row in explain_json(CODE, model(), a, b)["rows"]] == ["b", "a"]
    v13 = explain_json("v1.3", model(), a, b)["rows"]
    assert [(row["runtime"], row["score"]) for row in v13] == [("a", 2**64 + 4), ("b", 11)]


def test_I17_int64_best_entry_is_the_best_wrapped_score():
    """CalculateScore keeps the largest int64 entry score above 0: the entry of
    exact score 2**64 + 4 (int64 4) loses to one of 11."""
    rt = runtime("rt", supportedModelFormats=[weighted(2**62, 1, 4), dict(weighted(10, 1, 1), name="other")])
    assert rows(CODE, model(), rt)["rt"]["score"] == 11


# --- class 2: strconv.ParseFloat's grammar for sizes (docs/profiles.md 3.2) ------------------------

SYNTAX = None  # ParseFloat returns an error: parseModelSize reads 0
CAPPED = "0." + "0" * 100_000 + "1e100005"  # readFloat's exponent stops at 10000: 1e-100001 x 1e10000 = 0


@pytest.mark.parametrize(("text", "value"), [
    # readFloat: sign, digits, dot, exponent
    ("1", 1.0), ("+1", 1.0), ("-1", -1.0), (".5", 0.5), ("5.", 5.0), ("1.5e3", 1500.0), ("1E3", 1000.0),
    ("1e+3", 1000.0), ("1e-3", 0.001), ("-0", -0.0), ("007", 7.0),
    (".", SYNTAX), ("", SYNTAX), ("+", SYNTAX), ("--1", SYNTAX), ("e5", SYNTAX), ("1e", SYNTAX), ("1e+", SYNTAX),
    ("1.2.3", SYNTAX), (" 1", SYNTAX), ("1 ", SYNTAX), ("1,5", SYNTAX), ("1f", SYNTAX), ("\u0661", SYNTAX),
    # readFloat: hexadecimal needs the p exponent (decimal digits); a-f are digits
    ("0x1p4", 16.0), ("0X1P-2", 0.25), ("0x1.8p1", 3.0), ("0x.8p1", 1.0), ("0x1.p1", 2.0), ("-0x1p0", -1.0),
    ("0x1e3p0", 483.0), ("0x1", SYNTAX), ("0x1e3", SYNTAX), ("0x.p1", SYNTAX), ("0x", SYNTAX), ("0xp1", SYNTAX),
    ("0x1pa", SYNTAX), ("0b1", SYNTAX), ("0o1", SYNTAX),
    # underscoreOK: only between digits, or between the base prefix and a digit
    ("1_000", 1000.0), ("1.5_0", 1.5), ("1e1_0", 1e10), ("0_1", 1.0), ("0x_1p3", 8.0), ("+0x_1p0", 1.0),
    ("0x1p3_0", 2.0**30), ("0x1_0p0", 16.0),
    ("1__0", SYNTAX), ("_1", SYNTAX), ("1_", SYNTAX), ("-_1", SYNTAX), ("1_.5", SYNTAX), ("1._5", SYNTAX),
    ("1_e5", SYNTAX), ("1e_5", SYNTAX), ("1e+_5", SYNTAX), ("1e5_", SYNTAX), ("0x1_p3", SYNTAX), ("0x__1p3", SYNTAX),
    ("0x_.8p1", SYNTAX), ("0x1p_3", SYNTAX), ("0x1p3_", SYNTAX),
    # special: inf / infinity with an optional sign, nan without, any ASCII case
    ("inf", math.inf), ("+Inf", math.inf), ("-INFINITY", -math.inf), ("iNfInItY", math.inf),
    ("infin", SYNTAX), ("infx", SYNTAX), ("infinityx", SYNTAX), ("+nan", SYNTAX), ("-NaN", SYNTAX), ("nanx", SYNTAX),
    # range: beyond float64 is ErrRange (an error); an underflow is 0 or subnormal, no error
    ("1e400", SYNTAX), ("-1e400", SYNTAX), ("0x1p1024", SYNTAX), ("0x1.fffffffffffff8p1023", SYNTAX),
    ("0x1.fffffffffffff7p1023", 1.7976931348623157e308), ("1e-400", 0.0), ("0x1p-1075", 0.0),
    ("0x1p-1074", 5e-324), (CAPPED, 0.0),
])
def test_I17_Z1_strconv_ParseFloat_grammar(text, value):
    """strconv.ParseFloat(s, 64) as Go 1.25 implements it: special, then readFloat
    and underscoreOK, the whole string read (ParseFloat's n != len(s) check)."""
    from ome_asp.input.sizes import _go_parse_float

    got = _go_parse_float(text)
    assert got == value and (value is None or math.copysign(1, got) == math.copysign(1, value))


def test_I17_Z1_ParseFloat_nan_any_case():
    from ome_asp.input.sizes import _go_parse_float

    assert all(math.isnan(_go_parse_float(text)) for text in ("nan", "NaN", "NAN", "nAn"))


@pytest.mark.parametrize(("text", "count"), [
    ("0x_1p3B", 8e9), ("1_000M", 1e9), ("0x1p4T", 16e12), ("1e300T", math.inf), ("0x1p3BB", 0.0), ("7b", 0.0),
])
def test_I17_Z1_parseModelSize_one_suffix_then_ParseFloat(text, count):
    """parseModelSize: one trailing T, else B, else M, then ParseFloat times the
    multiplier in float64 (which may overflow to +Inf without an error)."""
    from ome_asp.input.sizes import parse_go_size

    assert parse_go_size(text) == count


# --- class 3: Go's sort.Slice, exactly (docs/profiles.md 3.3) ------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from ome_asp.solver import gosort  # noqa: E402


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-20, 20), max_size=300))
def test_I17_sort_slice_equals_a_plain_sort_for_a_strict_weak_order(keys):
    """pdqsort_func (insertion sort up to 12, then choosePivot_func, partition_func,
    partitionEqual_func, partialInsertionSort_func, breakPatterns_func, heapSort_func):
    whenever `less` is a strict weak order, sort.Slice sorts -- its result is a
    permutation whose keys are a plain sort's; with a strict total order it is
    the plain sort itself, whatever the input order."""
    items = list(enumerate(keys))
    result = gosort.sort_slice(items, lambda a, b: a[1] < b[1])
    assert sorted(result) == items and [k for _, k in result] == sorted(keys)
    assert gosort.sort_slice(items, lambda a, b: (a[1], a[0]) < (b[1], b[0])) == sorted(items, key=lambda x: (x[1], x[0]))


@pytest.mark.parametrize("n", [13, 49, 50, 51, 64, 200, 1000])
@pytest.mark.parametrize("pattern", ["sorted", "reversed", "organ pipe", "sawtooth", "two values", "one swap", "all equal"])
def test_I17_sort_slice_patterns_reach_every_step_and_still_sort(n, pattern):
    """Inputs that drive pdqsort_func into its other steps (the decreasing hint and
    reverseRange_func, partialInsertionSort_func from 50 on, partitionEqual_func for
    repeated keys, breakPatterns_func after unbalanced partitions): still sorted."""
    keys = {
        "sorted": list(range(n)), "reversed": list(range(n, 0, -1)),
        "organ pipe": list(range(n // 2)) + list(range(n - n // 2, 0, -1)), "sawtooth": [i % 7 for i in range(n)],
        "two values": [i % 2 for i in range(n)], "one swap": [1, 0] + list(range(2, n)), "all equal": [3] * n,
    }[pattern]
    calls = []

    def less(a, b):
        calls.append(1)
        return a[1] < b[1]

    result = gosort.sort_slice(list(enumerate(keys)), less)
    assert [k for _, k in result] == sorted(keys)
    assert len(calls) < 4 * n * max(1, n.bit_length())  # O(n log n): pdqsort, not a quadratic fallback


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-5, 5), max_size=100))
def test_I17_heap_sort_fallback_sorts(keys):
    """heapSort_func, which pdqsort_func falls back to once its limit of unbalanced
    partitions is spent (random inputs rarely get there): it sorts on its own."""
    data = gosort._Slice(list(keys), lambda a, b: a < b)
    data.heap_sort(0, len(keys))
    assert data.data == sorted(keys)


def test_I17_sort_slice_of_a_sorted_slice_makes_no_swap():
    """choosePivot_func swaps nothing on a sorted slice (the increasing hint), and
    partialInsertionSort_func then finds it sorted: the input order is kept even
    for elements `less` cannot tell apart -- Go's result, not any sort's."""
    items = [(i, i // 5) for i in range(60)]
    assert gosort.sort_slice(items, lambda a, b: a[1] < b[1]) == items


@pytest.mark.parametrize(("difference", "defined"), [
    (0.5, True), (-0.999, True), (2.0**62, True), (-(2.0**63), True),  # -2**63 is an int64
    (2.0**63, False), (-(2.0**63) - 2048, False), (math.inf, False), (-math.inf, False), (math.nan, False),
])
def test_I17_distance_difference_conversion_is_defined_only_within_int64(difference, defined):
    """CompareRuntimes' int(r2SizeScore - r1SizeScore): Go's spec leaves a value int64
    cannot hold (NaN, the infinities, 2**63 and beyond) to the implementation."""
    a, b = ("a", 10, 0.0), ("b", 10, difference)
    if defined:
        assert gosort._compare(a, b, sized=True) == math.trunc(difference)
    else:
        with pytest.raises(gosort._Unspecified):
            gosort._compare(a, b, sized=True)


def sized_runtime(name, low, high, **fields):
    return runtime(name, modelSizeRange={"min": low, "max": high}, **fields)


def test_I17_thirteen_runtimes_with_truncated_distances_have_one_order_whatever_the_input_order():
    """Thirteen runtimes whose distances differ by 0.6 (CompareRuntimes ties below 1,
    not a weak order): Go's result is a function of the fetch order, which is the
    timestamps' and names' (FetchRuntimes), not the order the documents come in."""
    runtimes = [sized_runtime(f"rt{i:02d}", "10", str(10 + 0.3 * (12 - i))) for i in range(13)]
    first = [row["runtime"] for row in explain_json(CODE, model(modelParameterSize="10"), *runtimes)["rows"]]
    again = [row["runtime"] for row in explain_json(CODE, model(modelParameterSize="10"), *reversed(runtimes))["rows"]]
    assert first == again and sorted(first) == [f"rt{i:02d}" for i in range(13)]
    def less(a, b):  # sortMatches: CompareRuntimes(a, b) > 0, scores (10 + 5) x 1 alike
        return gosort._compare((a, 15, sized_distance(a)), (b, 15, sized_distance(b)), sized=True) > 0

    assert first == gosort.sort_slice([f"rt{i:02d}" for i in range(13)], less)  # fetch order: by name
    assert first != sorted(first, key=sized_distance)  # not the distance order a weak order would give


def sized_distance(name: str) -> float:
    """calculateSizeScore for model 10 and range 10 .. 10 + 0.3 (12 - i), in float64."""
    return abs(10.0 - 10.0) + abs(float(str(10 + 0.3 * (12 - int(name[2:])))) - 10.0)


def test_I17_nan_distance_never_compared_is_go_s_order():
    """A NaN model size makes every ranged runtime's distance NaN, but scores that
    differ end CompareRuntimes first: Go's order, not order-unspecified (issue 17)."""
    high = sized_runtime("high", "1", "2", supportedModelFormats=[entry(priority=2)])
    low = sized_runtime("low", "1", "2")
    report = explain_json(CODE, model(modelParameterSize="NaN"), low, high)
    assert report.get("outcome") is None and [row["runtime"] for row in report["rows"]] == ["high", "low"]
    alone = explain_json(CODE, model(modelParameterSize="NaN"), low)
    assert alone.get("outcome") is None and alone["rows"][0]["compatible"]


# --- class 4: creationTimestamp as metav1.Time decodes it --------------------------------------

from datetime import datetime, timezone  # noqa: E402

from ome_asp.input.timestamps import ZERO_TIME, parse_rfc3339  # noqa: E402

GO_ZERO = datetime(1, 1, 1, tzinfo=timezone.utc)


def after_zero(text: str, nanos: int = 0) -> int:
    """The instant of an ISO time Python reads, in nanoseconds after Go's zero time."""
    delta = datetime.fromisoformat(text) - GO_ZERO
    return (delta.days * 86_400 + delta.seconds) * 10**9 + delta.microseconds * 1000 + nanos


@pytest.mark.parametrize(("text", "instant"), [
    ("2025-03-01T00:00:00Z", after_zero("2025-03-01T00:00:00+00:00")),
    ("0001-01-01T00:00:00Z", ZERO_TIME),  # Go's zero time
    ("2025-03-01T00:00:00+01:00", after_zero("2025-02-28T23:00:00+00:00")),
    ("2025-03-01T00:00:00-00:00", after_zero("2025-03-01T00:00:00+00:00")),
    ("2025-03-01T00:00:00.5Z", after_zero("2025-03-01T00:00:00+00:00", 500_000_000)),
    ("2025-03-01T00:00:00,5Z", after_zero("2025-03-01T00:00:00+00:00", 500_000_000)),  # parse: commaOrPeriod
    ("2025-03-01T00:00:00.000000001Z", after_zero("2025-03-01T00:00:00+00:00", 1)),  # nanoseconds kept
    ("2025-03-01T00:00:00.1234567899Z", after_zero("2025-03-01T00:00:00+00:00", 123_456_789)),  # 10th digit dropped
    ("2025-03-01T7:00:00Z", after_zero("2025-03-01T07:00:00+00:00")),  # stdHour: getnum(value, false)
    ("2024-02-29T23:59:59Z", after_zero("2024-02-29T23:59:59+00:00")),
    ("2025-03-01T00:00:00+24:00", after_zero("2025-02-28T00:00:00+00:00")),  # offsets up to 24h / 60 min
    ("2025-03-01T00:00:00-00:60", after_zero("2025-03-01T01:00:00+00:00")),
    ("0000-12-31T00:00:00Z", -86_400 * 10**9),  # year 0: before the zero time
    ("9999-12-31T23:59:59Z", after_zero("9999-12-31T23:59:59+00:00")),
])
def test_I17_I4_rfc3339_as_time_Parse_reads_it(text, instant):
    """metav1.Time.UnmarshalJSON: time.Parse(time.RFC3339, s); the instant exact."""
    assert parse_rfc3339(text) == instant


@pytest.mark.parametrize("text", [
    "2025-03-01", "2025-03-01T00:00", "2025-03-01T00:00:00", "2025-03-01T00:00:00+0100", "2025-03-01T00:00:00+01",
    "2025-03-01t00:00:00Z", "2025-03-01T00:00:00z", "2025-03-01 00:00:00Z", "2025-3-01T00:00:00Z", "2025-03-1T00:00:00Z",
    "2025-13-01T00:00:00Z", "2025-00-01T00:00:00Z", "2025-02-29T00:00:00Z", "2025-04-31T00:00:00Z",
    "2025-03-01T24:00:00Z", "2025-03-01T00:60:00Z", "2025-03-01T00:00:60Z", "2025-03-01T100:00:00Z",
    "2025-03-01T00:00:00+25:00", "2025-03-01T00:00:00+00:61", "2025-03-01T00:00:00.Z", "2025-03-01T00:00:00Z ",
    " 2025-03-01T00:00:00Z", "+2025-03-01T00:00:00Z", "20250-03-01T00:00:00Z", "\uff12025-03-01T00:00:00Z",
    "2025-03-01T00:00:00UTC", "2025-03-01T00:00:00+01:00:00", "", "0001-01-01",
])
def test_I17_I4_other_forms_are_decode_errors(text):
    """time.Parse(time.RFC3339, s) returns an error: no date-only, no missing zone,
    no +hhmm, no lowercase t/z, fixed-width fields, days valid for the month."""
    assert parse_rfc3339(text) is None


@pytest.mark.parametrize("profile", ["v1.3", "v1.2.2", CODE])
@pytest.mark.parametrize("kind", ["runtime", "model"])
def test_I17_I4_a_timestamp_go_cannot_decode_is_an_input_error_under_every_profile(profile, kind):
    bad = {"creationTimestamp": "2025-03-01T00:00"}
    rt, m = runtime("rt"), model()
    (rt if kind == "runtime" else m)["metadata"].update(bad)
    result = run_cli("explain", "--model", "m", "-n", "ns", "-f", "-", "--profile", profile, stdin=stream(m, rt))
    assert result.code == 1 and 'metadata.creationTimestamp: Invalid value: "2025-03-01T00:00": not an RFC 3339 time' in result.stderr


def fetch_order(*created: tuple[str, str | None]) -> list[str]:
    """Runtimes whose distances differ by 0.5 (CompareRuntimes ties below 1): the
    ranking is FetchRuntimes' order, newest creationTimestamp first, then name."""
    runtimes = []
    for index, (name, timestamp) in enumerate(created):
        rt = sized_runtime(name, "9", str(11 + 0.5 * index))
        if timestamp is not None:
            rt["metadata"]["creationTimestamp"] = timestamp
        runtimes.append(rt)
    return [row["runtime"] for row in explain_json(CODE, model(modelParameterSize="10"), *runtimes)["rows"]]


def test_I17_O4_zero_time_equals_an_absent_timestamp():
    """metav1.Time.Equal: an absent creationTimestamp is Go's zero time, equal to a
    written 0001-01-01T00:00:00Z, so the name decides (a, b)."""
    assert fetch_order(("b", "0001-01-01T00:00:00Z"), ("a", None)) == ["a", "b"]
    assert fetch_order(("b", "0001-01-01T00:00:01Z"), ("a", None)) == ["b", "a"]


def test_I17_O4_nanoseconds_order_runtimes():
    """Time.After to the nanosecond: b is 1 ns newer than a (a microsecond clock would tie them)."""
    assert fetch_order(("a", "2025-03-01T00:00:00Z"), ("b", "2025-03-01T00:00:00.000000001Z")) == ["b", "a"]


def test_I17_O4_an_offset_is_an_instant_never_local_time(monkeypatch):
    """01:00+01:00 is 00:00Z, older than 00:30Z, under any TZ."""
    import time

    created = (("a", "2025-03-01T01:00:00+01:00"), ("b", "2025-03-01T00:30:00Z"))
    for zone in ("UTC", "America/New_York", "Asia/Kolkata"):
        monkeypatch.setenv("TZ", zone)
        time.tzset()
        assert fetch_order(*created) == ["b", "a"]
    monkeypatch.undo()
    time.tzset()
