"""Linear in the input (issue 18): memory of a whole run grows in proportion
to the input, on the inputs that broke it -- one long value (table wrapping
re-sliced the rest of a name per line: a 60 MB name did not finish in 10
minutes; names are at most 253 characters since D-86) and many objects --
and a long value takes at most 50 bytes of memory per input byte (issue 28).
Ratios between two sizes of the same shape, each in a fresh process (peak
RSS above an empty run, bytes). The CPU time's growth is benchmarks/linear.py's
figure, not asserted here (issue 39: no timed tests); docs/reliability.md
states both."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import ROOT

from ome_asp.render.table import wrap_cell

sys.path.insert(0, str(ROOT / "benchmarks"))
import linear  # noqa: E402


@pytest.mark.parametrize("shape", sorted(linear.SHAPES))
def test_issue18_memory_grows_linearly(tmp_path: Path, shape: str):
    function, small, argv = linear.SHAPES[shape]
    g = linear.growth(tmp_path, function, small, argv)
    assert g["memory_ratio"] <= linear.MEMORY_RATIO, g
    if function is linear.long_value:  # issue 28: at most 50 bytes of memory per input byte on long values
        assert g["memory"][1] / g["input_bytes"] <= linear.BYTES_PER_BYTE, g


def test_issue18_E13_wrapping_a_long_word_is_linear():
    """E13's word breaking looked at the rest of the word for every line."""
    lines = wrap_cell("a-" * 500_000, 30)
    assert "".join(lines) == "a-" * 500_000 and max(map(len, lines)) <= 30
    assert len(wrap_cell("x" * 4_000_000, 30)) == -(-4_000_000 // 30)
