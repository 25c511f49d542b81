"""admission.lp on its own: the runtime admission webhook (W2-W5) and I9.

admission.lp is the first stage: it reads input facts only (no upstream).
It reads an entry's name, autoSelect and priority as written, never its
signature or weights (every entry here has the same ones).
"""

import pytest

from ome_asp.solver.facts import FactBuilder, const, runtime_id

from .lp import run, term, text

FILES = ("admission.lp",)
RT = runtime_id("ServingRuntime", "ns", "rt")
R = text(RT)
SIG, W = term("sig(1)"), term("w(1)")


def declare(b, r=RT, entries=(), disabled=False, classes=()):
    """A declared runtime; `entries` are (name, autoSelect, priority), None = absent."""
    f = b.fact
    f.runtime_declared(r)
    if disabled:
        f.runtime_disabled(r)
    for position, name in enumerate(classes):
        f.runtime_accelerator_class(r, position, name)
    for i, (name, auto_select, priority) in enumerate(entries):
        f.entry(r, i, SIG, W)
        if name is not None:
            f.entry_name(r, i, name)
        if auto_select is not None:
            f.entry_auto_select(r, i, const(auto_select))
        if priority is not None:
            f.entry_priority(r, i, priority)


def admit(build):
    b = FactBuilder(schema=None)
    build(b)
    return run(FILES, b)


# --- W4 ----------------------------------------------------------------------

T, F = "true", "false"


@pytest.mark.parametrize(
    ("entries", "denied"),
    [
        pytest.param([("vllm", T, 1), ("vllm", T, 2)], '"vllm"', id="same-name-different-priorities"),
        pytest.param([("vllm", T, 1), ("vllm", T, 1)], None, id="same-priority"),
        pytest.param([("vllm", T, 1), ("VLLM", T, 2)], None, id="names-differ-by-case"),
        pytest.param([(None, T, 1), (None, T, 2)], '""', id="absent-names-form-group-empty"),
        pytest.param([("vllm", T, None), ("vllm", T, 2)], None, id="absent-priority-not-compared"),
        pytest.param([("vllm", T, 1), ("vllm", T, None), ("vllm", T, 2)], '"vllm"', id="absent-priority-between"),
        pytest.param([("vllm", T, 1), ("vllm", F, 2)], None, id="auto-select-false-not-compared"),
    ],
)
def test_w4_table(entries, denied):
    """W4 table, every row; I9: a denied runtime is no runtime/1."""
    answer = admit(lambda b: declare(b, entries=entries))
    if denied is None:
        assert answer.rows("denied") == set()
        assert answer.rows("runtime") == {(R,)}
    else:
        assert answer.rows("denied") == {(R, f"different_priorities({denied})")}
        assert answer.rows("runtime") == set()


def test_w4_absent_auto_select_is_not_compared():
    """W4 considers only autoSelect: true entries; absent is not true (I5)."""
    answer = admit(lambda b: declare(b, entries=[("vllm", T, 1), ("vllm", None, 2)]))
    assert answer.rows("denied") == set()


def test_w4_an_explicit_empty_name_is_the_group_of_absent_names():
    """W4: entries without a name form the group named "" (exact string)."""
    answer = admit(lambda b: declare(b, entries=[("", T, 1), (None, T, 2)]))
    assert answer.rows("denied") == {(R, 'different_priorities("")')}


@pytest.mark.parametrize(
    ("entries", "group"),
    [
        # the first entry that differs from an earlier priority of its group is
        # entry 2 (group b), although group a's conflict involves entry 0
        pytest.param([("a", T, 1), ("b", T, 1), ("b", T, 2), ("a", T, 2)], '"b"', id="b-conflicts-first"),
        pytest.param([("a", T, 1), ("b", T, 1), ("a", T, 2), ("b", T, 2)], '"a"', id="a-conflicts-first"),
        # 1, 1, 3: the third entry differs; 1, 2, 2: the second one does
        pytest.param([("b", T, 5), ("a", T, 1), ("a", T, 1), ("b", T, 3), ("a", T, 2)], '"b"', id="later-in-list"),
    ],
)
def test_w4_several_conflicting_groups_name_the_first_conflict_in_list_order(entries, group):
    """W4: with several conflicting groups, one denial naming the group of the
    first entry, in list order, whose priority differs from an earlier one."""
    answer = admit(lambda b: declare(b, entries=entries))
    assert answer.rows("denied") == {(R, f"different_priorities({group})")}


def test_w4_each_entry_is_compared_with_every_earlier_one_of_its_group():
    """W4: an entry conflicts when its priority differs from any priority set
    earlier in its group (1, 2, 1: entries 1 and 2 both conflict); the
    message names the group of the first conflicting entry."""
    answer = admit(lambda b: declare(b, entries=[("a", T, 1), ("a", T, 2), ("a", T, 1), ("b", T, 3), ("b", T, 4)]))
    assert answer.rows("priority_conflict") == {(R, "1", '"a"'), (R, "2", '"a"'), (R, "4", '"b"')}
    assert answer.rows("conflict_before") == {(R, "2"), (R, "4")}
    assert answer.rows("denied") == {(R, 'different_priorities("a")')}


def test_w5_no_cross_runtime_priority_check():
    """W5: two runtimes may give different priorities to the same name."""
    other = runtime_id("ClusterServingRuntime", None, "other")

    def build(b):
        declare(b, entries=[("vllm", T, 1)])
        declare(b, other, entries=[("vllm", T, 2)])

    answer = admit(build)
    assert answer.rows("denied") == set()
    assert answer.rows("runtime") == {(R,), (text(other),)}


# --- W3 ----------------------------------------------------------------------


def test_w3_unknown_classes_in_list_order():
    """W3: every listed class must exist; the denial names the missing ones
    with their list positions (not in string order: zz before aa)."""

    def build(b):
        b.fact.accelerator_class("nvidia-a100")
        declare(b, classes=["zz", "nvidia-a100", "aa"])

    answer = admit(build)
    assert answer.rows("unknown_accelerator_class") == {(R, "0", '"zz"'), (R, "2", '"aa"')}
    assert answer.rows("denied") == {(R, "unknown_accelerator_classes")}
    assert answer.rows("runtime") == set()


def test_w3_all_classes_exist():
    def build(b):
        b.fact.accelerator_class("nvidia-h100")
        b.fact.accelerator_class("nvidia-h200")
        declare(b, classes=["nvidia-h100", "nvidia-h200"])

    answer = admit(build)
    assert answer.rows("unknown_accelerator_class") == set()
    assert answer.rows("denied") == set()
    assert answer.rows("runtime") == {(R,)}


def test_w3_is_checked_before_w4():
    """W3 before W4: one denial per runtime, the W3 one."""
    answer = admit(lambda b: declare(b, entries=[("vllm", T, 1), ("vllm", T, 2)], classes=["missing"]))
    assert answer.rows("denied") == {(R, "unknown_accelerator_classes")}


# --- W2, I9 ------------------------------------------------------------------


def test_w2_disabled_runtime_skips_w3_and_w4():
    """W2: a disabled runtime is admitted whatever W3 and W4 would say (I9:
    it exists; Q2 then disables it)."""
    answer = admit(lambda b: declare(b, entries=[("vllm", T, 1), ("vllm", T, 2)], classes=["missing"], disabled=True))
    assert answer.rows("denied") == set()
    assert answer.rows("unknown_accelerator_class") == set()
    assert answer.rows("runtime") == {(R,)}


def test_i9_runtime_only_for_admitted_ones():
    """I9: runtime/1 holds exactly for the declared runtimes no W-rule denies."""
    w3 = runtime_id("ClusterServingRuntime", None, "w3")
    w4 = runtime_id("ClusterServingRuntime", None, "w4")
    ok = runtime_id("ClusterServingRuntime", None, "ok")

    def build(b):
        declare(b, w3, classes=["missing"])
        declare(b, w4, entries=[(None, T, 1), (None, T, 2)])
        declare(b, ok, entries=[(None, T, 1)])

    answer = admit(build)
    assert answer.rows("runtime") == {(text(ok),)}
    assert answer.rows("denied") == {(text(w3), "unknown_accelerator_classes"), (text(w4), 'different_priorities("")')}
