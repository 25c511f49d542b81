"""The explain table renderer against spec E11–E13 (and OQ-2, OQ-3, OQ-4, OQ-19)."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ome_asp.render.table import escape, render_table, wrap_cell

GOLDEN = Path(__file__).parent / "golden"
HEADERS = ["RUNTIME", "SCOPE", "COMPATIBLE", "PRIORITY", "WEIGHT", "REASON"]
WIDE = HEADERS[:5] + ["SCORE", "DISTANCE", "CHECK", "REASON"]

Q7 = (
    "supports the model but has no supportedModelFormats[].autoSelect=true entry, "
    "so automatic selection skips it (pin it explicitly via spec.runtime.name instead)"
)

WORKED_EXAMPLE = [
    ["team-llama", "Namespaced", "Yes", "1", "2", "-"],
    ["vllm-llama", "Cluster", "Yes", "2", "6", "-"],
    ["srt-llama-small", "Cluster", "Yes", "3", "6", "-"],
    ["srt-llama-large", "Cluster", "Yes", "3", "6", "-"],
]
NO_ROWS = [
    ["team-llama", "Namespaced", "Yes", "1", "2", "-"],
    ["vllm-llama", "Cluster", "Yes", "2", "6", "-"],
    ["srt-llama-1b", "Cluster", "No", "-", "-", "model size 3.21B is outside supported range [500M, 2B]"],
    ["vllm-base", "Cluster", "No", "-", "-", Q7],
    ["vllm-legacy", "Cluster", "No", "-", "-", "runtime is disabled"],
]
WRAPPED_RUNTIME = [
    [
        "srt-mistral-7b-instruct", "Cluster", "No", "-", "-",
        "model format 'mt:safetensors:1.0.0:Qwen2ForCausalLM:transformers:4.40.1' not in supported "
        "formats: architecture mismatch (model=Qwen2ForCausalLM, runtime=MistralForCausalLM), "
        "framework version mismatch (model=4.40.1, runtime=4.36.0)",
    ],
    ["srt-qwen2-5-7b", "Cluster", "No", "-", "-", Q7],
]
MULTINODE = "srt-llama-3-3-70b-instruct-multinode"
MODE_REASON = (
    "runtime engine deployment mode MultiNode does not match requested engine deployment mode OMENative"
)
# Tables the spec describes but does not print (see golden/README.md).
DERIVED = {
    "13.5-raise-small-priority/explain-model.txt": [
        ["team-llama", "Namespaced", "Yes", "1", "2", "-"],
        ["srt-llama-small", "Cluster", "Yes", "4", "8", "-"],
        ["vllm-llama", "Cluster", "Yes", "2", "6", "-"],
        ["srt-llama-large", "Cluster", "Yes", "3", "6", "-"],
    ],
    "13.6-delete-team-llama/explain-model.txt": WORKED_EXAMPLE[1:],
    "13.6-no-size/explain-model.txt": [
        ["srt-llama-large", "Cluster", "Yes", "3", "6", "-"],
        ["srt-llama-small", "Cluster", "Yes", "3", "6", "-"],
        ["vllm-llama", "Cluster", "Yes", "2", "6", "-"],
    ],
    "14.3-deployment-mode/explain-model.txt": [
        [MULTINODE, "Cluster", "Yes", "2", "4", "-"],
        ["vllm-llama-3-3-70b-instruct", "Cluster", "No", "-", "-", Q7],
    ],
    "14.3-deployment-mode/explain-isvc.txt": [
        [MULTINODE, "Cluster", "No", "-", "-", MODE_REASON],
        ["vllm-llama-3-3-70b-instruct", "Cluster", "No", "-", "-", Q7],
    ],
}


def golden(name: str) -> str:
    return (GOLDEN / name).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "rows"),
    [
        ("worked-example/explain-model.txt", WORKED_EXAMPLE),
        ("14.1-no-rows/explain-model.txt", NO_ROWS),
        ("14.2-wrapped-runtime/explain-model.txt", WRAPPED_RUNTIME),
    ],
)
def test_spec_tables_byte_for_byte(name, rows):
    """E11 (13.4, natural width 70), E12+E13 (14.1: RUNTIME 12 / REASON 19;
    14.2: RUNTIME 18 / REASON 16, RUNTIME wraps too): the documented tables."""
    assert render_table(HEADERS, rows) == golden(name)


@pytest.mark.parametrize("name", sorted(DERIVED))
def test_derived_tables(name):
    """E9/E10/E11–E13: the derived goldens (13.5, 13.6, 14.3; see
    golden/README.md) are what the renderer prints for their rows."""
    assert render_table(HEADERS, DERIVED[name]) == golden(name)


def test_e11_layout_rules():
    """E11: three spaces, left aligned, last column unpadded, no trailing
    spaces, a newline after every line including the last."""
    out = render_table(["A", "BB", "C"], [["xyz", "", "1"], ["", "q", ""]], shrink=("A", "C"))
    assert out == "A     BB   C\nxyz        1\n      q\n"


def test_e11_header_only():
    """E11: the header row is always the first line, even with no rows."""
    assert render_table(HEADERS, []) == "RUNTIME   SCOPE   COMPATIBLE   PRIORITY   WEIGHT   REASON\n"


def row_of_total(total: int) -> list[str]:
    """A row whose natural table width (E12: sum(nat) + 15) is `total`."""
    fixed = len("SCOPE") + len("COMPATIBLE") + len("PRIORITY") + len("WEIGHT") + 15
    return ["r" * 10, "", "", "", "", "x" * (total - fixed - 10)]


def test_e12_no_wrap_at_exactly_80():
    """E12: sum(nat) + 15 == 80 prints as E11, one line per row."""
    out = render_table(HEADERS, [row_of_total(80)])
    assert [len(line) for line in out.splitlines()] == [60, 80]


def test_e12_wraps_at_81():
    """E12: one column more and REASON shrinks: avail = 80-15-29 = 36,
    w(RUNTIME) = min(10, max(7, 36-16)) = 10, w(REASON) = 26."""
    out = render_table(HEADERS, [row_of_total(81)]).splitlines()
    assert out[1] == "r" * 10 + " " * 44 + "x" * 26
    assert out[2] == " " * 54 + "x"


def test_e12_runtime_keeps_at_least_7():
    """E12: w(RUNTIME) = min(nat, max(7, avail - min(16, nat(REASON)))): with
    PRIORITY 30 wide, avail = 80 - 15 - 5 - 10 - 30 - 6 = 14, so RUNTIME gets 7
    and REASON the other 7."""
    rows = [["abcdefghijkl", "", "", "9" * 30, "", "one two three four five six seven"]]
    out = render_table(HEADERS, rows).splitlines()
    assert [line[:10] for line in out[1:3]] == ["abcdefg   ", "hijkl     "]
    assert [line[73:] for line in out[1:]] == ["one two", "three", "four", "five", "six", "seven"]
    assert max(len(line) for line in out) <= 80


def test_e12_avail_below_13_nothing_wraps():
    """E12: with avail < 13 (PRIORITY 36 wide: avail = 8) the table prints as
    in E11, wider than 80."""
    rows = [["abcdefghijkl", "", "", "9" * 36, "", "one two three four five six seven"]]
    out = render_table(HEADERS, rows).splitlines()
    assert len(out) == 2 and len(out[1]) > 80
    assert out[1].endswith("one two three four five six seven")


def test_e12_wide_table_never_wraps_at_80():
    """E12 generalised to the 9-column `-o wide` table: its seven fixed headers
    alone are 47 wide, so avail <= 80 - 24 - 47 = 9 < 13 and it never wraps."""
    row = ["srt-llama-small", "Cluster", "No", "-", "-", "0", "-", "Q7", Q7]
    out = render_table(WIDE, [row]).splitlines()
    assert len(out) == 2 and out[1].endswith(Q7)


def test_e12_wide_table_formula():
    """E12 generalised: avail = width - 3*(ncols-1) - the other columns' widths.
    At width 120: avail = 120 - 24 - (7+10+8+6+5+10+5) = 45,
    w(RUNTIME) = min(15, max(7, 45 - 16)) = 15, w(REASON) = 30."""
    row = ["srt-llama-small", "Cluster", "No", "-", "-", "0", "7000000000", "Q7", Q7]
    out = render_table(WIDE, [row], width=120).splitlines()
    assert out[0] == (
        "RUNTIME           SCOPE     COMPATIBLE   PRIORITY   WEIGHT   SCORE   DISTANCE     CHECK   REASON"
    )
    start = 120 - 30
    assert out[1][:start] == (
        "srt-llama-small   Cluster   No           -          -        0       7000000000   Q7      "
    )
    assert [line[start:] for line in out[1:]] == wrap_cell(Q7, 30)
    assert max(len(line) for line in out) <= 120


def test_e12_shrink_columns_are_configurable():
    """E12: `shrink` names the two narrowing columns."""
    out = render_table(["NAME", "WHY"], [["n" * 50, "w " * 30]], shrink=("NAME", "WHY"), width=40)
    lines = out.splitlines()
    # avail = 40 - 3 = 37; w(NAME) = min(50, max(7, 37 - 16)) = 21; w(WHY) = 16.
    assert lines[1] == "n" * 21 + "   " + "w w w w w w w w"
    assert all(len(line) <= 40 for line in lines)


def test_e12_runtime_padded_to_its_width():
    """E12: a wrapped RUNTIME column is laid out at w(RUNTIME), even when all
    its lines are shorter (14.2: `instruct` is padded to 18)."""
    lines = render_table(HEADERS, WRAPPED_RUNTIME).splitlines()
    assert lines[2] == "instruct".ljust(18 + 3 + 7 + 3 + 10 + 3 + 8 + 3 + 6 + 3) + "'mt:safetensors:"


@pytest.mark.parametrize(
    ("text", "width", "lines"),
    [
        # E13.2 greedy fill
        ("aaa bbb ccc", 7, ["aaa bbb", "ccc"]),
        ("aaa bbb ccc", 11, ["aaa bbb ccc"]),
        # E13.1 two spaces give an empty word that keeps the spacing
        ("ab  cd", 6, ["ab  cd"]),
        ("ab  cd", 5, ["ab ", "cd"]),
        ("  ab", 4, ["  ab"]),
        ("aaaa  bbb", 4, ["aaaa", " bbb"]),
        # E13.3 an empty current line is not closed (no blank line appears)
        ("aaa  bbb", 3, ["aaa", "bbb"]),
        # E13.3 break just after "-", "." or ":" (the longest such prefix)
        ("srt-mistral-7b-instruct", 18, ["srt-mistral-7b-", "instruct"]),
        ("a.b-c:defgh", 6, ["a.b-c:", "defgh"]),
        ("x:y.zzzzzz", 6, ["x:y.", "zzzzzz"]),
        # E13.3 no break character: exactly w characters
        ("(model=Qwen2ForCausalLM,", 16, ["(model=Qwen2ForC", "ausalLM,"]),
        ("abcdefghij", 3, ["abc", "def", "ghi", "j"]),
        # OQ-3: "=", "(", "/", "," and "_" are not break characters
        ("a=b(c/d,e_fgh", 5, ["a=b(c", "/d,e_", "fgh"]),
        # E13.3 a break character right at the limit counts
        ("abcd-efgh", 5, ["abcd-", "efgh"]),
        # E13.3 the remainder stays open for the following words
        ("supportedModelFormats[].autoSelect=true entry", 19,
         ["supportedModelForma", "ts[].", "autoSelect=true", "entry"]),
        ("xxxxxxxx-ab cd", 9, ["xxxxxxxx-", "ab cd"]),
        # a long word after a partly filled line starts a new line; a break
        # character just past the limit does not count
        ("ab cdefgh-ij", 6, ["ab", "cdefgh", "-ij"]),
        # empty cell
        ("", 5, [""]),
    ],
)
def test_e13_wrap_cell(text, width, lines):
    """E13 steps 1–3 (and OQ-3 for the break characters)."""
    assert wrap_cell(text, width) == lines


def test_e13_escapes_newline_and_tab():
    """E13.1: a newline or tab prints as the two characters `\\n` / `\\t`, and
    counts as two columns."""
    out = render_table(["RUNTIME", "REASON"], [["a\tb", "line1\nline2"]])
    assert out == "RUNTIME   REASON\na\\tb      line1\\nline2\n"


def test_d115_invisible_characters_print_escaped():
    """D-115 (E13.1 extended): a bidi override, a zero-width space or a
    no-break space prints as `\\uXXXX`, so a cell shows what it holds; a
    visible letter of another script stays as written."""
    out = render_table(["RUNTIME", "REASON"], [["a", "safe\u202etensors\u200b x\u00a0y sаfe"]])
    assert out == "RUNTIME   REASON\na         safe\\u202etensors\\u200b x\\u00a0y sаfe\n"


def test_e13_escaped_text_wraps_like_other_text():
    """E13.1 + E12: escaping happens before widths are measured."""
    reason = "x\n" * 40
    out = render_table(HEADERS, [["r", "", "", "", "", reason]]).splitlines()
    assert "".join(line[51:] for line in out[1:]) == reason.replace("\n", "\\n")
    assert max(len(line) for line in out) == 80


def test_e12_widths_count_code_points():
    """E12: widths count Unicode code points (a CJK character or an accented
    letter is one, a combining mark is one more)."""
    out = render_table(["RUNTIME", "REASON"], [["模型", "é"], ["e\u0301", "-"]])
    assert out == "RUNTIME   REASON\n模型        é\ne\u0301        -\n"


def test_e11_trailing_spaces_in_last_cell_are_dropped():
    """E11/OQ-4: no line has trailing spaces, even when a value ends in one."""
    assert render_table(["RUNTIME", "REASON"], [["a", "b  "]]) == "RUNTIME   REASON\na         b\n"


def test_rows_must_match_headers():
    """A row with the wrong number of cells is a caller bug, not output."""
    with pytest.raises(ValueError):
        render_table(HEADERS, [["only", "two"]])


words = st.text(alphabet="ab-.:=( ", max_size=60)


@given(words, st.integers(min_value=1, max_value=20))
def test_e13_property_lines_fit(text, width):
    """E13: every wrapped line is at most w long."""
    assert all(len(line) <= width for line in wrap_cell(text, width))


@given(words, st.integers(min_value=1, max_value=20))
def test_e13_property_no_character_lost(text, width):
    """E13: wrapping only moves line ends; every non-space character stays, in order."""
    assert "".join(wrap_cell(text, width)).replace(" ", "") == text.replace(" ", "")


@given(st.lists(st.text(alphabet="abc", min_size=1, max_size=8), min_size=1, max_size=10),
       st.integers(min_value=8, max_value=20))
def test_e13_property_words_come_back(parts, width):
    """E13.2: words no longer than w are never broken; re-joining gives the text."""
    text = " ".join(parts)
    assert " ".join(wrap_cell(text, width)) == text


cell = st.text(alphabet=st.characters(codec="utf-8"), max_size=120)


@given(st.lists(st.lists(cell, min_size=6, max_size=6), max_size=4))
def test_e12_property_within_80_unless_avail_below_13(rows):
    """E11–E12: lines end with a newline, never with a space, and fit in 80
    columns whenever the fixed columns leave avail >= 13."""
    out = render_table(HEADERS, rows)
    assert out.endswith("\n")
    lines = out[:-1].split("\n")
    assert not any(line.endswith(" ") for line in lines)
    escaped = [[escape(c) for c in row] for row in rows]
    fixed = [max([len(h)] + [len(r[i]) for r in escaped]) for i, h in enumerate(HEADERS)][1:5]
    if 80 - 15 - sum(fixed) >= 13:
        assert max(len(line) for line in lines) <= 80
