"""patterns.Pattern (D-140): a regular expression compiled on first use."""

from __future__ import annotations

import re

from ome_asp.patterns import Pattern


def test_a_pattern_compiles_on_first_use_then_calls_the_compiled_one():
    pattern = Pattern(r"a(b+)", re.IGNORECASE)
    assert "fullmatch" not in vars(pattern)  # nothing compiled yet
    assert pattern.fullmatch("ABB")[1] == "BB"
    assert vars(pattern)["fullmatch"].__self__ is re.compile(r"a(b+)", re.IGNORECASE)  # re's cache: the same object
    assert pattern.split("xaby") == ["x", "b", "y"] and pattern.match("xab") is None
    assert pattern.pattern == "a(b+)" and pattern.flags & re.IGNORECASE
