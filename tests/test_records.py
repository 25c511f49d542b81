"""records.py's value classes (D-135) cost what dataclasses cost in memory (D-159)."""

from __future__ import annotations

import tracemalloc

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
