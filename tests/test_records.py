"""records.py's value classes (D-135): they cost what dataclasses cost in
memory (D-159), and a record's __init__ gives what dataclasses' gives, the
generic one and the one a class compiles once it makes many instances (D-148)."""

from __future__ import annotations

import tracemalloc

import pytest

from ome_asp import records
from ome_asp.records import record


@record(frozen=True)
class Frozen:
    a: str
    b: str
    c: int = 0
    d: tuple = ()
    e: str = ""
    f: bool = False


@record
class Plain:
    name: str
    kind: str
    weight: int = 0
    note: str = ""


def _bytes_per_instance(cls: type) -> float:
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = [cls("x", "y", **{cls.__record_fields__[-1].name: "z"}) for _ in range(2000)]  # type: ignore[attr-defined]
        return (tracemalloc.get_traced_memory()[0] - before - len(kept) * 8) / len(kept)
    finally:
        tracemalloc.stop()


def test_instances_share_one_key_table():
    """Six (four) fields: an instance whose values sit inline with one shared key
    table takes about 100 bytes; one holding a dict of its own (as
    `self.__dict__.update(values)` made every record) about 300, which raised
    the G5 peak from 288 to 325 MB at 100 models x 5,000 runtimes."""
    for cls in (Frozen, Plain):
        assert _bytes_per_instance(cls) < 200, cls


def test_values_defaults_and_equality_are_unchanged():
    one, two = Frozen("x", "y", e="z"), Frozen("x", "y", c=0, e="z")
    assert (one.a, one.b, one.c, one.d, one.e, one.f) == ("x", "y", 0, (), "z", False)
    assert one == two and hash(one) == hash(two)
    assert Plain("x", "y") != Plain("x", "y", weight=1)


def _make_class():
    seen = []

    @records.record(frozen=True)
    class Point:
        x: int
        y: int = 2
        tags: list = records.field(default_factory=list)
        note: str = records.field(default="", compare=False)

        def __post_init__(self) -> None:
            seen.append(self.x)

    return Point, seen


def _calls(point):
    """Every form of call: positional, keywords, defaults, factories; and the bad ones."""
    made = [point(1), point(1, 3), point(x=1, y=3, tags=[4], note="n"), point(1, note="n"), point(5, 6, [7], "z")]
    errors = []
    for args, kwargs in (((), {}), ((1,), {"x": 1}), ((1, 2, [], "", 9), {}), ((), {"x": 1, "z": 2})):
        with pytest.raises(TypeError):
            point(*args, **kwargs)
        errors.append((args, kwargs))
    return made, errors


def test_a_compiled_init_makes_the_same_records_as_the_generic_one():
    generic_class, generic_seen = _make_class()
    compiled_class, compiled_seen = _make_class()
    generic_init = compiled_class.__init__
    for _ in range(records.COMPILE_AFTER):
        compiled_class(0)
    assert compiled_class.__init__ is not generic_init  # compiled, from the next instance on
    assert "<record" in compiled_class.__init__.__code__.co_filename
    generic, _ = _calls(generic_class)
    compiled, _ = _calls(compiled_class)
    assert [vars(p) for p in generic] == [vars(p) for p in compiled]
    assert [list(vars(p)) for p in compiled] == [["x", "y", "tags", "note"]] * len(compiled)  # fields in order
    assert [repr(p) for p in generic] == [repr(p) for p in compiled]
    assert generic_seen == compiled_seen[records.COMPILE_AFTER:]  # __post_init__ ran for each
    assert compiled[0].tags is not compiled_class(1).tags  # a fresh default per instance
    with pytest.raises(records.FrozenInstanceError):
        compiled[0].x = 2
    assert compiled_class(1, note="a") == compiled_class(1, note="b")  # `note` is not compared


def test_a_compiled_init_assigns_the_fields_of_a_record_not_frozen():
    """D-165: a record that is not frozen is made by plain assignments (no call
    per field), the same values, one key table shared as before (D-159)."""
    @records.record
    class Row:
        name: str
        kind: str
        weight: int = 0
        tags: list = records.field(default_factory=list)

    generic = [vars(Row("x", "y", tags=[1])), vars(Row("x", "y"))]
    for _ in range(records.COMPILE_AFTER):
        Row("x", "y")
    assert "<record" in Row.__init__.__code__.co_filename
    assert "_set" not in Row.__init__.__code__.co_names
    assert [vars(Row("x", "y", tags=[1])), vars(Row("x", "y"))] == generic
    assert list(vars(Row("x", "y"))) == ["name", "kind", "weight", "tags"]
    assert _bytes_per_instance(Row) < 200


def test_a_class_with_a_required_field_after_a_default_keeps_the_generic_init():
    @records.record
    class Odd:
        a: int = 1
        b: int = records.field(default_factory=int)

    @records.record
    class Required:
        a: int = 1
        b: str  # type: ignore[misc]  # no Python signature has this order: the generic init checks it

    for _ in range(records.COMPILE_AFTER + 1):
        Odd()
        Required(b="x")
    assert "<record" in Odd.__init__.__code__.co_filename
    assert "<record" not in Required.__init__.__code__.co_filename
    with pytest.raises(TypeError):
        Required()
