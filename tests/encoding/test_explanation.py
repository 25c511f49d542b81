"""explanation.lp on its own: the E15 pieces of a format failure and which
excluded runtimes the no-runtime message lists (O8).

compatibility.lp is loaded alongside for part_order/2 (E15's part order, the
data under test for the ordering) and has_mismatch/3; its rules derive
nothing here because their own inputs (query_entry/4, entry_next/3,
version_match/3) are declared and left empty. mismatch/5 is given as facts,
as are fails/4 and first_failure/4 (qualification.lp).
"""

import pytest

from ome_asp.facts import FactBuilder, const, runtime_id

from .lp import run, term, text

FILES = ("compatibility.lp", "explanation.lp")
UPSTREAM = ("fails/4", "first_failure/4", "mismatch/5", "query_entry/4", "entry_next/3", "version_match/3")

RT = runtime_id("ClusterServingRuntime", None, "rt")
R = text(RT)
LABEL = 'label("safetensors","1.0.0","LlamaForCausalLM",none,"transformers","4.45.0.dev0")'
FORMAT_UNSUPPORTED = f"format_unsupported({LABEL})"


def builder(entries, reason=FORMAT_UNSUPPORTED, check="q5"):
    """RT with one entry per element of `entries` (a list of [(part, piece)])
    and the failed check `check` with `reason` (also its first failure)."""
    b = FactBuilder()
    f = b.fact
    for i, pieces in enumerate(entries):
        f.entry(RT, i)
        for part, piece in pieces:
            f.mismatch(1, RT, i, const(part), term(piece))
    if check is not None:
        f.fails(1, RT, const(check), term(reason))
        f.first_failure(1, RT, const(check), term(reason))
    return b


def solve(b):
    return run(FILES, b, upstream=UPSTREAM)


def details(answer):
    """format_mismatch_detail of RT as (entry, piece), in the consumer's order
    (entry index, then K)."""
    rows = answer.rows("format_mismatch_detail")
    assert {row[:2] for row in rows} <= {("1", R)}
    keys = [(int(i), int(k)) for _, _, i, k, _ in rows]
    assert len(set(keys)) == len(keys)  # K orders the pieces of an entry totally
    return [(int(i), piece) for _, _, i, k, piece in sorted(rows, key=lambda row: (int(row[2]), int(row[3])))]


def test_e15_pieces_in_part_order():
    """E15: per entry, in list order, the pieces in the order pipeline,
    architecture, quantization, format, framework (not the facts' or the
    pieces' alphabetical order)."""
    b = builder(
        [
            [
                ("framework", 'model_lacks_framework("transformers")'),
                ("format", 'name_mismatch(format,"safetensors","onnx")'),
                ("quantization", 'model_lacks_quantization("fp8")'),
                ("architecture", 'runtime_lacks_architecture("LlamaForCausalLM")'),
                ("pipeline", "pipeline_missing"),
            ],
            [("format", "runtime_lacks_version(format)")],
        ]
    )
    assert details(solve(b)) == [
        (0, "pipeline_missing"),
        (0, 'runtime_lacks_architecture("LlamaForCausalLM")'),
        (0, 'model_lacks_quantization("fp8")'),
        (0, 'name_mismatch(format,"safetensors","onnx")'),
        (0, 'model_lacks_framework("transformers")'),
        (1, "runtime_lacks_version(format)"),
    ]


def test_e15_example():
    """E15's example: entry 0 (gguf, Mistral, fp8), entry 1 (no format
    version, framework 4.46.0 GreaterThanOrEqual)."""
    b = builder(
        [
            [
                ("quantization", 'model_lacks_quantization("fp8")'),
                ("format", 'name_mismatch(format,"safetensors","gguf")'),
                ("architecture", 'architecture_mismatch("LlamaForCausalLM","MistralForCausalLM")'),
            ],
            [
                ("framework", 'version_mismatch(framework,"4.45.0.dev0","4.46.0")'),
                ("format", "runtime_lacks_version(format)"),
            ],
        ]
    )
    assert details(solve(b)) == [
        (0, 'architecture_mismatch("LlamaForCausalLM","MistralForCausalLM")'),
        (0, 'model_lacks_quantization("fp8")'),
        (0, 'name_mismatch(format,"safetensors","gguf")'),
        (1, "runtime_lacks_version(format)"),
        (1, 'version_mismatch(framework,"4.45.0.dev0","4.46.0")'),
    ]


def test_e15_unknown_mismatch():
    """E15: an entry without any piece is an unknown mismatch."""
    b = builder([[("architecture", 'architecture_mismatch("A","B")')], []])
    assert details(solve(b)) == [(0, 'architecture_mismatch("A","B")'), (1, "unknown_mismatch")]


@pytest.mark.parametrize(
    ("check", "reason"),
    [
        pytest.param("q5", f"no_supported_formats({LABEL})", id="q5-no-entries-reason"),
        pytest.param("q6", 'size_out_of_range("3.21B","500M","2B")', id="q6"),
        pytest.param(None, None, id="no-failure"),
    ],
)
def test_e15_details_only_for_a_format_failure(check, reason):
    """E15 pieces belong to E14 row 4 only: no details for other failures,
    even if entries have mismatches."""
    b = builder([[("architecture", 'architecture_mismatch("A","B")')], []], reason=reason, check=check)
    assert solve(b).rows("format_mismatch_detail") == set()


REASONS = {
    "q2": "runtime_disabled",
    "q3": "accelerator_class_unsupported",
    "q4": 'mode_mismatch(engine,"MultiNode","OMENative")',
    "q5": FORMAT_UNSUPPORTED,
    "q6": 'size_out_of_range("3.21B","500M","2B")',
    "q7": "no_auto_select_entry",
    "q8": "auto_select_score_zero",
}


@pytest.mark.parametrize(("check", "listed"), [(c, c in ("q2", "q3", "q4", "q5", "q6")) for c in REASONS])
def test_o8_excluded_in_message_only_for_first_failures_q2_q6(check, listed):
    """O8: a runtime whose first failed check is one of Q2-Q6 is listed;
    one that passed Q2-Q6 and failed Q7 or Q8 is only counted."""
    b = builder([[("architecture", 'architecture_mismatch("A","B")')]], reason=REASONS[check], check=check)
    assert solve(b).rows("excluded_in_message") == ({("1", R)} if listed else set())


def test_o8_the_first_failure_decides():
    """O8: a runtime that fails Q2 first is listed even though it fails Q7
    and Q8 too."""
    b = builder([[]], reason=REASONS["q2"], check="q2")
    b.fact.fails(1, RT, const("q7"), term(REASONS["q7"]))
    b.fact.fails(1, RT, const("q8"), term(REASONS["q8"]))
    assert solve(b).rows("excluded_in_message") == {("1", R)}


def test_o8_qualifying_runtime_not_listed():
    assert solve(builder([[]], check=None)).rows("excluded_in_message") == set()
