"""accelerators.lp on its own: the accelerator-class check (A1-A7), every
row of the A table.

Upstream, given as facts: evaluated/2 and query_isvc/2 (lookup.lp),
examined/2 (qualification.lp: the runtimes that support the model;
explanation.lp: every candidate).
"""

import pytest

from ome_asp.solver.facts import FactBuilder, const, runtime_id

from .lp import run, term, text

FILES = ("accelerators.lp",)
UPSTREAM = ("evaluated/2", "query_isvc/2", "examined/2")

RT = runtime_id("ClusterServingRuntime", None, "rt")
R = text(RT)
I = term('isvc("ns","chat")')
H100, H200, A100 = "nvidia-h100", "nvidia-h200", "nvidia-a100"


def check(requests, lists, with_isvc=True, examined=True):
    """requests: [(source, class)] on the ISVC; lists: the runtime's
    acceleratorClasses (None: no list, the same facts as [])."""
    b = FactBuilder(schema=None)
    f = b.fact
    f.evaluated(1, term('cbm("m")'))
    if examined:
        f.examined(1, RT)
    f.isvc(I)
    if with_isvc:
        f.query_isvc(1, I)
    for source, name in requests:
        f.isvc_accelerator_request(I, const(source), name)
    for position, name in enumerate(lists or ()):
        f.runtime_accelerator_class(RT, position, name)
    return run(FILES, b, upstream=UPSTREAM)


@pytest.mark.parametrize(
    ("requests", "lists", "passes"),
    [
        pytest.param([], [H100], True, id="A2-nothing-requested-list"),
        pytest.param([], None, True, id="A2-nothing-requested-no-list"),
        pytest.param([("selector", H100)], [H100, H200], True, id="A3-listed"),
        pytest.param([("selector", H100)], None, False, id="A3-no-list"),
        pytest.param([("selector", H100)], [], False, id="A3-empty-list"),
        pytest.param([("selector", A100)], [H100, H200], False, id="A3-not-listed"),
        pytest.param([("engine", H100), ("decoder", H200)], [H100, H200], True, id="A1-engine-decoder-pooled"),
        pytest.param([("engine", H100), ("decoder", A100)], [H100, H200], False, id="A3-decoder-not-listed"),
        pytest.param([("annotation", "")], [H100], False, id="A4-empty-annotation"),
    ],
)
def test_a_table(requests, lists, passes):
    """The A table, every row (A1-A4)."""
    answer = check(requests, lists)
    assert answer.rows("lacks_requested_class") == (set() if passes else {("1", R)})


def test_a1_requested_classes_are_the_union_of_the_four_sources():
    """A1: annotation, selector, engine and decoder classes pooled; duplicates
    collapse."""
    answer = check([("annotation", H100), ("selector", H100), ("engine", H200), ("decoder", A100)], [H100, H200, A100])
    assert answer.rows("requested_class") == {("1", f'"{H100}"'), ("1", f'"{H200}"'), ("1", f'"{A100}"')}
    assert answer.rows("lacks_requested_class") == set()


def test_a3_exact_case_sensitive_names():
    """A3 (I6): names compare exactly."""
    assert check([("selector", "NVIDIA-H100")], [H100]).rows("lacks_requested_class") == {("1", R)}


def test_a6_explain_model_requests_nothing():
    """A6: explain --model has no ISVC (no query_isvc): nothing is requested
    and the check passes, whatever ISVCs exist."""
    answer = check([("selector", A100)], None, with_isvc=False)
    assert answer.rows("requested_class") == set()
    assert answer.rows("lacks_requested_class") == set()


def test_a3_only_examined_runtimes_are_checked():
    """A3 (Q3) runs on the examined runtimes only: one that is not examined
    is not checked, however its list looks."""
    answer = check([("selector", A100)], [H100], examined=False)
    assert answer.rows("requested_class") == {("1", f'"{A100}"')}
    assert answer.rows("lacks_requested_class") == set()
