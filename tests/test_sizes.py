"""Sizes (spec Z1, Z2) and their exact decimal form (I8, OQ-16, OQ-28)."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ome_asp.input.sizes import format_exact, parse_size


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("3.21B", 3_210_000_000),
        ("0.5B", 500_000_000),
        ("500M", 500_000_000),
        (".5B", 500_000_000),
        ("1500M", 1_500_000_000),
        ("1.5T", 1_500_000_000_000),
        ("999", 999),
        ("5.B", 5_000_000_000),
        ("4b", 0),
    ],
)
def test_z1_table(text, count):
    """Z1 table: the count each size string stands for."""
    assert parse_size(text) == count


@pytest.mark.parametrize(
    "text",
    ["7b", "4b", "7k", "7GB", "7BB", " 7B", "7B ", "1,5B", "B", "", "-5B", "+5B",
     "1e3B", "NaN", "Inf", "1_000B", "0x10", "7B\n", ".", ".B", "1..5B", "٣B", "7m"],
)
def test_z2_unparseable_reads_as_zero(text):
    """Z2 (and OQ-28): anything the Z1 expression rejects counts as 0."""
    assert parse_size(text) == 0


def test_z1_exact_arithmetic():
    """Z1/I8: counts are exact, never floats."""
    assert parse_size("0.5B") == parse_size("500M") == parse_size(".5B")
    assert parse_size("2.01B") == 2_010_000_000  # 2.01 * 1e9 is 2009999999.9999998 in float64
    assert parse_size("0.1B") + parse_size("0.2B") == parse_size("0.3B")
    assert parse_size("9007199254740993") == 2**53 + 1
    assert parse_size("1.5") == Fraction(3, 2)
    assert parse_size("0.0000000001M") == Fraction(1, 10_000)
    assert isinstance(parse_size("3.21B"), Fraction)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (Fraction(3_210_000_000), "3210000000"),
        (Fraction(5, 2), "2.5"),
        (Fraction(-7), "-7"),
        (Fraction(0), "0"),
        (Fraction(-1, 8), "-0.125"),
        (Fraction(1, 10**12), "0.000000000001"),
        (Fraction(10**30), "1" + "0" * 30),
        (parse_size("4.79B") + parse_size("2.21B"), "7000000000"),
        (parse_size("3.21B") - parse_size("70B"), "-66790000000"),
        (parse_size("1.5"), "1.5"),
    ],
)
def test_z5_format_exact(value, text):
    """Z5/I8: exact values print as plain decimals: no exponent, no `.0`."""
    assert format_exact(value) == text


def test_format_exact_rejects_non_terminating():
    """A rational without a finite decimal form cannot be printed exactly."""
    with pytest.raises(ValueError):
        format_exact(Fraction(1, 3))


sizes = st.from_regex(r"\A([0-9]{1,15}(\.[0-9]{0,6})?|\.[0-9]{1,6})[MBT]?\Z")


@given(sizes)
def test_z1_property_matches_decimal_reading(text):
    """Z1: the count is the decimal number times the suffix, exactly."""
    number, unit = (text[:-1], text[-1]) if text[-1] in "MBT" else (text, "")
    scale = {"": 1, "M": 10**6, "B": 10**9, "T": 10**12}[unit]
    whole, _, frac = number.partition(".")
    expected = Fraction(int(whole or "0") * 10 ** len(frac) + int(frac or "0"), 10 ** len(frac)) * scale
    assert parse_size(text) == expected


@given(st.integers(min_value=-(10**20), max_value=10**20), st.integers(min_value=0, max_value=12))
def test_z5_property_format_round_trips(numerator, places):
    """format_exact gives a string that reads back as the same value."""
    value = Fraction(numerator, 10**places)
    text = format_exact(value)
    assert Fraction(text) == value
    assert "e" not in text and not text.endswith(".0") and not text.endswith(".")
