"""steer.lp on its own: the edited facts it derives from the base_* facts and
the applied edits (issue 16, D-66), and its named optimization levels.

Upstream, given as facts: apply/1 and wanted/1 (edits.lp chooses the edits
and names the runtime), and steer.lp's own inputs, which
ome_asp/analysis/steer.py builds (declared upstream here because input.lp
does not declare them).
"""

import pytest

from ome_asp.solver.facts import FactBuilder, const, runtime_id

from .lp import run, term, text

FILES = ("steer.lp",)
UPSTREAM = ("apply/1", "wanted/1", "base_entry/4", "edit_signature_field/2", "sig_option/3", "sig_option_edit/3",
            "edit_weights/3", "base_isvc_accelerator_request/3", "base_isvc_mode_annotation/3", "edit_isvc_field/3",
            "edit_accelerator/4", "edit_mode/4", "weight_reading/3", "rank_key/3")

T = runtime_id("ClusterServingRuntime", None, "t")
R = runtime_id("ClusterServingRuntime", None, "r")
I = term('isvc("ns","chat")')
VERSION, OPERATOR, WEIGHT = const("version_edit"), const("operator_edit"), const("weight_edit")


def entries(*applied, combined: bool = True) -> set:
    """Entry 0 of T (sig(1), w(1)) with a version and an operator edit, each
    alone giving sig(2) / sig(3) and, when `combined`, both sig(4); entry 0
    of another runtime R with sig(1) too."""
    b = FactBuilder(schema=None)
    f = b.fact
    f.wanted(T)
    f.base_entry(T, 0, term("sig(1)"), term("w(1)"))
    f.base_entry(R, 0, term("sig(1)"), term("w(1)"))
    options = [(1, [VERSION], "sig(2)"), (2, [OPERATOR], "sig(3)")] + ([(3, [VERSION, OPERATOR], "sig(4)")] if combined else [])
    for edit in (VERSION, OPERATOR):
        f.edit_signature_field(edit, 0)
    for number, edits, signature in options:
        f.sig_option(0, number, term(signature))
        for edit in edits:
            f.sig_option_edit(0, number, edit)
    f.edit_weights(WEIGHT, 0, term("w(2)"))
    for edit in applied:
        f.apply(edit)
    return run(FILES, b, upstream=UPSTREAM).rows("entry")


@pytest.mark.parametrize("applied, expected", [
    ((), ("sig(1)", "w(1)")),
    ((VERSION,), ("sig(2)", "w(1)")),
    ((OPERATOR,), ("sig(3)", "w(1)")),
    ((VERSION, OPERATOR), ("sig(4)", "w(1)")),
    ((VERSION, WEIGHT), ("sig(2)", "w(2)")),
])
def test_an_entry_takes_the_signature_of_exactly_its_applied_edits(applied, expected):
    """V3-V9 through the signature: the option whose edits are exactly those
    applied gives the signature; weights are edited independently (S3); other
    runtimes keep their base entries."""
    assert entries(*applied) == {(text(T), "0", *expected), (text(R), "0", "sig(1)", "w(1)")}


def test_an_applied_combination_no_option_covers_is_no_edit_set():
    """Each option alone exists, their union does not: applying both leaves the
    entry without a signature, which steer.lp forbids (never a lost entry)."""
    with pytest.raises(AssertionError, match="got 0"):
        entries(VERSION, OPERATOR, combined=False)


def isvc_fields(*applied) -> tuple[set, set]:
    """The InferenceService asks for class a by annotation and b by selector,
    and engine mode RawDeployment by annotation (A1, D3)."""
    b = FactBuilder(schema=None)
    f = b.fact
    f.wanted(T)
    f.base_isvc_accelerator_request(I, const("annotation"), "a")
    f.base_isvc_accelerator_request(I, const("selector"), "b")
    f.base_isvc_mode_annotation(I, const("engine"), "RawDeployment")
    edits = {
        "set_class": (term("accelerator(annotation)"), ("annotation", "c")),
        "remove_selector": (term("accelerator(selector)"), None),
        "set_mode": (term("mode(engine)"), ("engine", "MultiNode")),
        "remove_mode": (term("mode(engine)"), None),
    }
    for name, (field, value) in edits.items():
        edit = const(name)
        f.edit_isvc_field(edit, I, field)
        if value is not None:
            (f.edit_accelerator if name.endswith("class") else f.edit_mode)(edit, I, const(value[0]), value[1])
    for name in applied:
        f.apply(const(name))
    answer = run(FILES, b, upstream=UPSTREAM)
    return answer.rows("isvc_accelerator_request"), answer.rows("isvc_mode_annotation")


def test_the_inference_services_requests_are_set_or_removed():
    """A1, D3 (issue 16): a set field takes the edit's value, a removed one
    has no fact, the others keep their base facts."""
    i = text(I)
    assert isvc_fields() == ({(i, "annotation", '"a"'), (i, "selector", '"b"')}, {(i, "engine", '"RawDeployment"')})
    assert isvc_fields("set_class", "remove_selector", "set_mode") == (
        {(i, "annotation", '"c"')}, {(i, "engine", '"MultiNode"')})
    assert isvc_fields("remove_mode")[1] == set()


def test_every_optimization_level_is_named_once():
    """Every level is its own (code rules: every level named, unique optimum);
    re-enabling shared level 19 with fewest_edits_to_other_objects before D-66."""
    b = FactBuilder(schema=None)
    b.fact.wanted(T)
    answer = run(FILES, b, upstream=UPSTREAM)
    levels = answer.rows("criterion")
    numbers = [int(level) for level, _ in levels]
    assert len(numbers) == len(set(numbers)) == len(answer.rows("kind_rank")) + len(answer.rows("change_level")) + 4
    assert min(numbers) >= 10  # the edit programs' band, above the order's (edits.lp)
