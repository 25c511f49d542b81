"""versions.lp on its own: version matching (V2-V9), every row of V10.

Version facts come from `ome_asp.solver.facts.add_version` (the V1 parser's output
as version/7). Upstream: version_compared/3, which compatibility.lp asks for
when both sides set a version, is given as facts; version_match/3 is read.
"""

import pytest

from ome_asp.solver.facts import FactBuilder, add_version

from .lp import run

FILES = ("versions.lp",)
UPSTREAM = ("version_compared/3",)

# (entry version, operator, model version, match); "absent" operators are
# already defaulted to Equal (I3) when facts are built.
V10 = [
    pytest.param("1.0.0", "Equal", "1.0.0", True, id="equal"),
    pytest.param("1.0.0", "Equal", "1.0", True, id="absent-op-missing-part-is-0"),
    pytest.param("1", "Equal", "1.0.0", True, id="equal-ignores-precision"),
    pytest.param("v1.0.0", "Equal", "1.0.0", True, id="equal-ignores-prefix"),
    pytest.param("1.8.0", "GreaterThan", "1.7.0", True, id="gt-model-older"),
    pytest.param("1.8.0", "GreaterThan", "1.8.0", False, id="gt-not-greater"),
    pytest.param("1.8.0", "GreaterThan", "1.9.0", False, id="gt-model-newer"),
    pytest.param("1.8.0", "GreaterThanOrEqual", "1.8.0", True, id="gte-equal"),
    pytest.param("4.46.0", "GreaterThanOrEqual", "4.44.2", True, id="gte-upper-limit"),
    pytest.param("4.50.0", "GreaterThanOrEqual", "4.51.0", False, id="gte-model-newer"),
    pytest.param("4.46.0", "GreaterThanOrEqual", "4.46", False, id="gte-precision-differs"),
    pytest.param("1.8", "GreaterThan", "1.7.0", False, id="gt-precision-differs"),
    pytest.param("v1.0.0", "GreaterThan", "0.9.0", False, id="gt-prefix-one-side"),
    pytest.param("v1.0.0", "GreaterThan", "v0.9.0", True, id="gt-same-prefix-and-precision"),
    pytest.param("1.8.0-dev", "GreaterThan", "1.8.0-dev", True, id="suffixed-equal"),
    pytest.param("1.8.0-beta", "GreaterThan", "1.8.0-alpha", False, id="suffixed-not-equal"),
    pytest.param("4.45.0.dev0", "GreaterThanOrEqual", "4.44.0", False, id="entry-suffixed"),
    pytest.param("4.50.0", "GreaterThanOrEqual", "4.45.0.dev0", False, id="model-suffixed"),
    pytest.param("4.45.0.dev0", "Equal", "4.45.0.dev0", True, id="identical-suffix"),
    pytest.param("1.0.0+b1", "Equal", "1.0.0+b2", False, id="build-differs"),
    pytest.param("1.0.0", "LessThan", "1.0.0", True, id="other-op-equal"),
    pytest.param("2.0.0", "LessThan", "1.0.0", False, id="other-op-not-equal"),
    pytest.param("1.0.0", "equal", "1.0", False, id="lowercase-is-other-precision"),
    pytest.param("1.08.0", "Equal", "1.08.0", False, id="does-not-parse"),
]


def compare(*pairs):
    """version_match rows for version_compared facts of (entry, op, model)."""
    b = FactBuilder(schema=None)
    for text in sorted({v for entry, _, model in pairs for v in (entry, model)}):
        add_version(b, text)
    for entry, op, model in pairs:
        b.fact.version_compared(entry, op, model)
    return run(FILES, b, upstream=UPSTREAM).rows("version_match")


def quoted(entry, op, model):
    return tuple(f'"{s}"' for s in (entry, op, model))


@pytest.mark.parametrize(("entry", "op", "model", "match"), V10)
def test_v10_table(entry, op, model, match):
    """V10, one row per program (V3: the entry version is on the left)."""
    assert compare((entry, op, model)) == ({quoted(entry, op, model)} if match else set())


def test_v10_table_in_one_program():
    """V10, all rows in one program: the rows do not influence each other."""
    rows = [p.values for p in V10]
    assert compare(*(r[:3] for r in rows)) == {quoted(*r[:3]) for r in rows if r[3]}


def test_v3_direction():
    """V3: GreaterThan puts an upper limit on the model version; swapping the
    sides swaps the verdict."""
    assert compare(("2.0.0", "GreaterThan", "1.0.0"), ("1.0.0", "GreaterThan", "2.0.0")) == {
        quoted("2.0.0", "GreaterThan", "1.0.0")
    }


def test_v6_suffixed_means_equality_whatever_the_operator():
    """V6: with a suffix, even an "other" operator ignores precision and
    prefix (V5 equality, not V9's shape check)."""
    pairs = [("v1.0.0-rc", "LessThan", "1.0.0-rc"), ("1.0.0-rc", "GreaterThan", "1.0.0-rc")]
    assert compare(*pairs) == {quoted(*p) for p in pairs}


@pytest.mark.parametrize(
    ("entry", "op", "model", "match"),
    [
        pytest.param("1.0.0.dev0", "Equal", "1.0.0.dev1", False, id="dev-differs"),
        pytest.param("1.0.0-rc.1", "Equal", "1.0.0-rc.2", False, id="pre-differs"),
        pytest.param("1.0.0-rc", "Equal", "1.0.0-rc+b", False, id="build-one-sided"),
        pytest.param("1.0.0.dev0", "Equal", "1.0.0", False, id="suffix-one-sided"),
        pytest.param("v1.0.0.dev0", "Equal", "1.0.0.dev0", True, id="prefix-ignored-with-suffix"),
        pytest.param("1.0.0-a.b", "Equal", "1.0.0-a.b", True, id="identical-lists"),
        pytest.param("v1.12", "GreaterThan", "v1.11", True, id="V8-precision-2-prefixed"),
        pytest.param("2", "GreaterThanOrEqual", "10", False, id="V8-numeric-not-textual"),
    ],
)
def test_v5_v8_more_rows(entry, op, model, match):
    """V5: numbers, PRE, BUILD and DEV lists all equal; V8 compares numbers."""
    assert compare((entry, op, model)) == ({quoted(entry, op, model)} if match else set())


UNPARSEABLE = ["1.08.0", "", "V1.0.0", "1.2-beta", "1.0.0-"]
OPERATORS = ["Equal", "GreaterThan", "GreaterThanOrEqual", "LessThan"]


@pytest.mark.parametrize("op", OPERATORS)
@pytest.mark.parametrize("bad", UNPARSEABLE)
def test_v2_unparseable_never_matches(bad, op):
    """V2: a version that fails V1 (no version/7 fact) matches nothing, on
    either side, whatever the operator, even itself."""
    b = FactBuilder(schema=None)
    add_version(b, bad)
    assert b.symbols() == []  # the V1 parser gives no fact for it
    assert compare((bad, op, "1.8.0"), ("1.8.0", op, bad), (bad, op, bad)) == set()
