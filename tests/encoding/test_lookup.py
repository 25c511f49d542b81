"""lookup.lp on its own: the query's ISVC and model (M1, M4, E4), the note of
E5 and the candidate scope (Q1).

Q1 is a relation, not a set of pairs: runtime R is a candidate of query Q when
runtime_scope(R, X) and query_scope(Q, X) (compatibility.lp and
explanation.lp join on it); `candidates` below makes the join.

Upstream: runtime/1 (admission.lp, I9) is given as facts, so a runtime that is
declared but not admitted is simply one without a runtime/1 fact.
"""

import pytest

from ome_asp.solver.facts import FactBuilder, const, runtime_id

from .lp import run, term, text

FILES = ("lookup.lp",)
UPSTREAM = ("runtime/1",)

CBM = "cbm(\"m\")"
BM1 = 'bm("ns1","m")'


def model(b, ident, fmt="safetensors"):
    """A model term (bm/cbm, as text) with a format name unless fmt is None."""
    m = term(ident)
    b.fact.model(m)
    if fmt is not None:
        b.fact.model_declares(m, const("format"), fmt)
    return m


def isvc(b, ns, name, model_name=None, runtime_name=None):
    i = term(f'isvc("{ns}","{name}")')
    b.fact.isvc(i)
    if model_name is not None:
        b.fact.isvc_model(i, model_name)
    if runtime_name is not None:
        b.fact.isvc_runtime(i, runtime_name)


def query(b, q, ns, model_name=None, isvc_name=None):
    b.fact.query(q)
    b.fact.query_namespace(q, ns)
    if model_name is not None:
        b.fact.query_model_name(q, model_name)
    if isvc_name is not None:
        b.fact.query_isvc_name(q, isvc_name)


def admitted_runtime(b, r, entries=1):
    b.fact.runtime_declared(r)
    b.fact.runtime(r)
    for i in range(entries):
        b.fact.entry(r, i, term("sig(1)"), term("w(1)"))


def lookup(b):
    return run(FILES, b, upstream=UPSTREAM)


def candidates(answer):
    """Q1: the (query, runtime) pairs of the scope relation."""
    return {
        (q, r) for r, x in answer.rows("runtime_scope") for q, y in answer.rows("query_scope") if x == y
    }


# --- M1 ----------------------------------------------------------------------


def test_m1_example():
    """M1 example: BaseModel m in ns1 and ClusterBaseModel m; an ISVC in ns1
    gets the BaseModel, one in ns2 the ClusterBaseModel (spec.model.kind has
    no fact at all: it plays no part). --model resolves the same way (E7)."""
    b = FactBuilder(schema=None)
    model(b, BM1)
    model(b, CBM)
    isvc(b, "ns1", "chat", model_name="m")
    isvc(b, "ns2", "chat", model_name="m")
    query(b, 1, "ns1", isvc_name="chat")
    query(b, 2, "ns2", isvc_name="chat")
    query(b, 3, "ns1", model_name="m")
    query(b, 4, "ns2", model_name="m")
    answer = lookup(b)
    assert answer.rows("query_model") == {("1", BM1), ("2", CBM), ("3", BM1), ("4", CBM)}
    assert answer.rows("evaluated") == answer.rows("query_model")
    assert answer.rows("query_error") == set()


def test_m1_base_model_of_another_namespace_is_not_found():
    """M1: only the query namespace's BaseModel counts (E4 row 1)."""
    b = FactBuilder(schema=None)
    model(b, BM1)
    query(b, 1, "ns2", model_name="m")
    answer = lookup(b)
    assert answer.rows("query_error") == {("1", 'model_not_found("m")')}
    assert answer.rows("query_model") == set()


# --- E4, M4 ------------------------------------------------------------------


def _no_isvc(b):
    isvc(b, "other", "chat", model_name="m")  # same name, another namespace
    query(b, 1, "ns1", isvc_name="chat")


def _isvc_without_model(b):
    isvc(b, "ns1", "chat", runtime_name="rt")
    query(b, 1, "ns1", isvc_name="chat")


def _isvc_model_missing(b):
    isvc(b, "ns1", "chat", model_name="missing")
    query(b, 1, "ns1", isvc_name="chat")


def _model_missing(b):
    query(b, 1, "ns1", model_name="missing")


def _format_name_absent(b):
    model(b, 'cbm("nofmt")', fmt=None)
    query(b, 1, "ns1", model_name="nofmt")


def _format_name_empty(b):
    model(b, 'cbm("nofmt")', fmt="")
    query(b, 1, "ns1", model_name="nofmt")


def _format_name_absent_via_isvc(b):
    model(b, 'cbm("nofmt")', fmt=None)
    isvc(b, "ns1", "chat", model_name="nofmt")
    query(b, 1, "ns1", isvc_name="chat")


@pytest.mark.parametrize(
    ("build", "error"),
    [
        pytest.param(_model_missing, 'model_not_found("missing")', id="E4-model-not-found"),
        pytest.param(_no_isvc, 'isvc_not_found("chat")', id="E4-isvc-not-in-namespace"),
        pytest.param(_isvc_without_model, 'isvc_without_model("chat")', id="E4-isvc-without-model"),
        pytest.param(_isvc_model_missing, 'model_not_found("missing")', id="E4-isvc-model-not-found"),
        pytest.param(_format_name_absent, "model_format_name_missing", id="M4-format-name-absent"),
        pytest.param(_format_name_empty, "model_format_name_missing", id="M4-format-name-empty"),
        pytest.param(_format_name_absent_via_isvc, "model_format_name_missing", id="M4-via-isvc"),
    ],
)
def test_e4_target_errors_stop_the_query(build, error):
    """E4 conditions and M4: exactly one error, nothing evaluated, no
    candidate (the query has no scope, not even the cluster one)."""
    b = FactBuilder(schema=None)
    model(b, CBM)
    admitted_runtime(b, runtime_id("ClusterServingRuntime", None, "rt"))
    build(b)
    answer = lookup(b)
    assert answer.rows("query_error") == {("1", error)}
    assert answer.rows("evaluated") == set()
    assert answer.rows("query_scope") == set()
    assert candidates(answer) == set()


def test_m4_a_format_name_is_enough():
    """M4 control case: a non-empty format name (and nothing else) evaluates."""
    b = FactBuilder(schema=None)
    model(b, CBM)
    query(b, 1, "ns1", model_name="m")
    answer = lookup(b)
    assert answer.rows("query_error") == set()
    assert answer.rows("evaluated") == {("1", CBM)}


# --- E5 ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("runtime_name", "notes"),
    [
        pytest.param("rt", {("1", 'explicit_runtime("rt")')}, id="named"),
        pytest.param("", set(), id="empty-name"),
        pytest.param(None, set(), id="no-runtime"),
    ],
)
def test_e5_note_for_a_named_runtime(runtime_name, notes):
    """E5: an ISVC with a non-empty spec.runtime.name gets the note; the query
    is still evaluated (the table is printed)."""
    b = FactBuilder(schema=None)
    model(b, CBM)
    isvc(b, "ns1", "chat", model_name="m", runtime_name=runtime_name)
    query(b, 1, "ns1", isvc_name="chat")
    answer = lookup(b)
    assert answer.rows("query_note") == notes
    assert answer.rows("evaluated") == {("1", CBM)}


def test_e5_no_note_for_explain_model():
    """E5 is about --isvc: a --model query never gets the note."""
    b = FactBuilder(schema=None)
    model(b, CBM)
    isvc(b, "ns1", "chat", model_name="m", runtime_name="rt")
    query(b, 1, "ns1", model_name="m")
    assert lookup(b).rows("query_note") == set()


# --- Q1 ----------------------------------------------------------------------


def test_q1_candidates():
    """Q1: the namespace's ServingRuntimes and every ClusterServingRuntime;
    ServingRuntimes of other namespaces are never candidates; a declared but
    not admitted runtime (no runtime/1, I9) is none either: it has no scope."""
    here = runtime_id("ServingRuntime", "ns1", "here")
    there = runtime_id("ServingRuntime", "ns2", "there")
    cluster = runtime_id("ClusterServingRuntime", None, "cluster")
    denied = runtime_id("ClusterServingRuntime", None, "denied")
    b = FactBuilder(schema=None)
    model(b, CBM)
    admitted_runtime(b, here, entries=2)
    admitted_runtime(b, there)
    admitted_runtime(b, cluster)
    b.fact.runtime_declared(denied)
    b.fact.entry(denied, 0, term("sig(1)"), term("w(1)"))
    query(b, 1, "ns1", model_name="m")
    answer = lookup(b)
    assert candidates(answer) == {("1", text(here)), ("1", text(cluster))}
    assert answer.rows("runtime_scope") == {(text(here), '"ns1"'), (text(there), '"ns2"'), (text(cluster), "cluster")}
    assert answer.rows("query_scope") == {("1", '"ns1"'), ("1", "cluster")}


def test_q1_candidates_per_query_namespace():
    """Q1: each query has its own namespace's ServingRuntimes."""
    one = runtime_id("ServingRuntime", "ns1", "rt")
    two = runtime_id("ServingRuntime", "ns2", "rt")
    b = FactBuilder(schema=None)
    model(b, CBM)
    admitted_runtime(b, one)
    admitted_runtime(b, two)
    query(b, 1, "ns1", model_name="m")
    query(b, 2, "ns2", model_name="m")
    assert candidates(lookup(b)) == {("1", text(one)), ("2", text(two))}


def test_e17_a_name_shared_by_both_kinds_gives_two_candidates():
    """E17 (O6): a ServingRuntime and a ClusterServingRuntime of one name are
    two candidates."""
    namespaced = runtime_id("ServingRuntime", "ns1", "shared")
    cluster = runtime_id("ClusterServingRuntime", None, "shared")
    b = FactBuilder(schema=None)
    model(b, CBM)
    admitted_runtime(b, namespaced)
    admitted_runtime(b, cluster)
    query(b, 1, "ns1", model_name="m")
    assert candidates(lookup(b)) == {("1", text(namespaced)), ("1", text(cluster))}


def test_q1_a_namespace_named_cluster_is_not_the_cluster_scope():
    """Q1: the scope of ClusterServingRuntimes is the constant cluster, never
    a namespace string, so a namespace called "cluster" gets only its own
    ServingRuntimes besides the ClusterServingRuntimes."""
    namespaced = runtime_id("ServingRuntime", "cluster", "a")
    other = runtime_id("ServingRuntime", "ns1", "b")
    cluster = runtime_id("ClusterServingRuntime", None, "c")
    b = FactBuilder(schema=None)
    model(b, CBM)
    for r in (namespaced, other, cluster):
        admitted_runtime(b, r)
    query(b, 1, "cluster", model_name="m")
    query(b, 2, "ns1", model_name="m")
    assert candidates(lookup(b)) == {
        ("1", text(namespaced)), ("1", text(cluster)), ("2", text(other)), ("2", text(cluster)),
    }
