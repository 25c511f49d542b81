"""The version grammar (spec V1): every row of the V1 table, and more."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ome_asp.input.versions import Version, parse_version


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1", Version(False, 1, 1, 0, 0)),
        ("v1.12", Version(True, 2, 1, 12, 0)),
        ("0.6.0", Version(False, 3, 0, 6, 0)),
        ("v0.8.0", Version(True, 3, 0, 8, 0)),
        ("4.45.0.dev0", Version(False, 3, 4, 45, 0, dev=("dev0",))),
        ("4.51.3-SAM-HQ-preview", Version(False, 3, 4, 51, 3, pre=("SAM-HQ-preview",))),
        ("4.43.0+build", Version(False, 3, 4, 43, 0, build=("build",))),
        ("1.2.3.4", Version(False, 3, 1, 2, 3, dev=("4",))),
        ("1.2.3-rc.1", Version(False, 3, 1, 2, 3, pre=("rc", "1"))),
        ("1.2.3.dev0-rc1+b7", Version(False, 3, 1, 2, 3, pre=("rc1",), build=("b7",), dev=("dev0",))),
    ],
)
def test_v1_table_parses(text, expected):
    """V1 table, rows that parse: prefix, precision, numbers and suffix lists."""
    assert parse_version(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",  # empty, but set
        "V1.0.0", "vv1", " 1.0.0", "-1",  # capital V, double v, space, sign
        "1.08.0", "01", "1.2.03",  # leading zero
        "1.2-beta", "1-rc",  # suffix before the third number
        "1.0.0-", "1.0.0+", "1.2.3-a..b", "1.2.3.", "1.", "1..2",  # empty part
    ],
)
def test_v1_table_does_not_parse(text):
    """V1 table, rows that do not parse (V2 then says: no match)."""
    assert parse_version(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # V1 step 1 takes BUILD from the *first* "+", so "-" after it is BUILD.
        ("1.2.3+b-1", Version(False, 3, 1, 2, 3, build=("b-1",))),
        # step 2 takes PRE from the first "-" of what is left.
        ("1.2.3-rc-1.x+b.c", Version(False, 3, 1, 2, 3, pre=("rc-1", "x"), build=("b", "c"))),
        # step 3 takes DEV from the first "." of what is left.
        ("1.2.3.4.5", Version(False, 3, 1, 2, 3, dev=("4", "5"))),
        # component characters are not checked
        ("1.2.3-a b", Version(False, 3, 1, 2, 3, pre=("a b",))),
        ("1.0.0-ü", Version(False, 3, 1, 0, 0, pre=("ü",))),
        # 0 is a num; the largest 64-bit unsigned value fits
        ("0", Version(False, 1, 0, 0, 0)),
        ("18446744073709551615", Version(False, 1, 2**64 - 1, 0, 0)),
    ],
)
def test_v1_patchpart_order(text, expected):
    """V1 patchpart: BUILD, then PRE, then DEV, then the patch num."""
    assert parse_version(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "18446744073709551616",  # 2**64 does not fit in 64-bit unsigned
        "1.18446744073709551616",
        "v",  # a prefix alone
        "1.2.3-rc+",  # empty BUILD component
        "1.2.3.dev-",  # empty PRE component
        "1.2.3.+b",  # empty DEV component
        "1.2.x",  # the patch must be a num
        "1.2.3-rc.1+",
        "١.٢.٣",  # non-ASCII digits are not digits here
        "1.2.3\n",
        "+1.0.0",
        "1.0.0 ",
    ],
)
def test_v1_more_rejections(text):
    """V1: 64-bit limit, empty components, non-num patch, non-ASCII digits."""
    assert parse_version(text) is None


@pytest.mark.parametrize(
    ("text", "suffixed"),
    [("1.0.0", False), ("v1", False), ("1.0.0-rc", True), ("1.0.0+b", True), ("4.45.0.dev0", True)],
)
def test_v1_suffixed(text, suffixed):
    """V1: a version with any PRE, BUILD or DEV component is suffixed (V6 uses it)."""
    assert parse_version(text).suffixed is suffixed


nums = st.integers(min_value=0, max_value=2**64 - 1)
components = st.lists(st.text(alphabet="abc012", min_size=1, max_size=4), max_size=3)


@given(st.booleans(), nums, nums, nums, components, components, components)
def test_v1_property_round_trip(prefix, major, minor, patch, pre, build, dev):
    """V1: a version written in the grammar's canonical form parses back to its parts."""
    text = ("v" if prefix else "") + f"{major}.{minor}.{patch}"
    text += "".join("." + d for d in dev[:1]) + "".join("." + d for d in dev[1:])
    text += ("-" + ".".join(pre)) if pre else ""
    text += ("+" + ".".join(build)) if build else ""
    assert parse_version(text) == Version(prefix, 3, major, minor, patch, tuple(pre), tuple(build), tuple(dev))
