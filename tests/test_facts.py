"""The fact builder's guarantees (ome_asp/solver/facts.py): terms are written
in one way, and every fact is one encoding/input.lp declares."""

from __future__ import annotations

from fractions import Fraction

import clingo
import pytest

from ome_asp.errors import InternalError
from ome_asp.input.objects import Component, Pipeline
from ome_asp.solver.facts import FactBuilder, _add_pipeline, const, term


def test_term_writes_nested_terms_as_clingo_prints_them():
    written = term("sr", 'a"). evil(1', "n")
    assert written.text == str(clingo.Function("sr", [clingo.String('a"). evil(1'), clingo.String("n")]))
    assert term("weight", 0, const("format"), "9223372036854775807").text == 'weight(0,format,"9223372036854775807")'
    assert term("disable", term("csr", "x")).text == 'disable(csr("x"))'
    with pytest.raises(OverflowError):
        term("priority", 0, 2**31)


def test_a_fact_the_encoding_does_not_declare_is_an_internal_error():
    """I2/input.lp: a misspelt fact would ground silently against a #defined
    predicate; the builder refuses it instead."""
    builder = FactBuilder()
    builder.fact.accelerator_class("a100")  # declared: accelerator_class/1
    with pytest.raises(InternalError, match="accelerator_clas"):
        builder.fact.accelerator_clas("a100")
    with pytest.raises(InternalError, match="accelerator_class/2"):
        builder.fact.accelerator_class("a100", 1)



def test_pipeline_facts_are_checked_against_the_schema():
    """A diffusion pipeline's facts go through the same #defined check as
    every other fact (they were added around it): under a schema that does
    not declare them they are refused."""
    pipeline = Pipeline(class_name="FluxPipeline", components={"vae": Component(library="diffusers")})
    _add_pipeline(FactBuilder(), "sig", (term("sig", 1),), pipeline)  # input.lp declares them
    with pytest.raises(InternalError, match="sig_pipeline_class"):
        _add_pipeline(FactBuilder(schema=("show.lp",)), "sig", (term("sig", 1),), pipeline)

def test_other_schemas_and_no_check():
    with pytest.raises(InternalError):
        FactBuilder().fact.edit(const("e"))  # edits.lp's (steer, compare), not input.lp's
    FactBuilder(schema=("input.lp", "edits.lp")).fact.edit(const("e"))
    FactBuilder(schema=None).fact.examined(1, term("csr", "rt"))  # the encoding unit tests' upstream facts


def test_whole_float64_sizes_are_kept_as_ints():
    """code-v0.1.5's sizes are float64 values, most of them whole counts: kept
    as ints, which equal and hash as their Fractions (the same ranks and
    texts), made and hashed in C (issue 26: a Fraction's hash and equality
    are Python code, ~50 calls a serve request)."""
    builder = FactBuilder()
    assert [type(builder.exact(v).value) for v in (7e9, 2.5, 0.0)] == [int, Fraction, int]
    assert builder.exact(7e9) == builder.exact(Fraction(7_000_000_000))


def test_built_facts_leave_no_reference_cycle():
    """A builder's fact calls held the builder, a cycle through every fact it
    made that only the garbage collector freed: about 330 objects a serve
    request, a tenth of a batch's time (issue 26). Now refcounting frees them."""
    import gc

    from ome_asp.input.loader import load_documents
    from ome_asp.input.objects import Query
    from ome_asp.solver.facts import build_world_facts

    sides = {"modelFormat": {"name": "f"}, "modelFramework": {"name": "t"}}
    cluster = load_documents([
        {"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": {"name": "m"}, "spec": sides},
        {"apiVersion": "ome.io/v1beta1", "kind": "ClusterServingRuntime", "metadata": {"name": "r"},
         "spec": {"supportedModelFormats": [sides]}}])
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        build_world_facts([(cluster, [Query("default", model="m")])] * 3)
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
