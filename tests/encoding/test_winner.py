"""winner.lp on its own: the batch programs' selected/2, each query's first
runtime as the #min of its rank_key/3 tuples (O5 over O1-O4), found by the
grounder; code-v0.1.5's go_first/2 pin. selection.lp's #minimize is the
definition: on the same keys both select the same runtime.

Upstream, given as facts: rank_key/3 (ordering.lp).
"""

import itertools

import clingo
import pytest

from .lp import optimum, run

FILES = ("winner.lp",)
UPSTREAM = ("rank_key/3",)
SELECTION_UPSTREAM = ("rank_key/3", "criterion/2")
CRITERIA = ("criterion(4,namespaced_first)", "criterion(3,higher_score)", "criterion(2,smaller_distance)",
            "criterion(1,name_order)")  # ordering.lp's


def facts(*atoms: str) -> list[clingo.Symbol]:
    return [clingo.parse_term(a) for a in atoms]


# Each rival of a is before it at one step (O1 scope, O2 score, O3 distance,
# O4 name) and after it at every later one.
KEYS = {
    'csr("a")': "(1,-5,3,4)",
    'sr("ns","b")': "(0,-1,9,9)",  # O1: before every ClusterServingRuntime
    'csr("c")': "(1,-6,9,9)",  # O2: a higher score
    'csr("d")': "(1,-5,2,9)",  # O3: a smaller distance
    'csr("e")': "(1,-5,3,3)",  # O4: an earlier name
}


@pytest.mark.parametrize("rival", list(KEYS)[1:])
def test_the_first_runtime_is_the_smallest_key_at_the_first_differing_step(rival):
    """O1-O4 (lexicographic), O5: of a and one rival, the rival is selected."""
    a = 'csr("a")'
    answer = run(FILES, facts(f"rank_key(1,{a},{KEYS[a]})", f"rank_key(1,{rival},{KEYS[rival]})"), upstream=UPSTREAM)
    assert answer.rows("selected") == {("1", rival)}


def test_each_query_has_its_own_first_runtime():
    """Many queries in one grounding (the batch programs): one selection
    per query that has a key, none for a query without a qualifying runtime."""
    keys = [f"rank_key(1,{r},{k})" for r, k in KEYS.items()]
    keys += ['rank_key(2,csr("a"),(1,-5,3,4))', 'rank_key(2,csr("c"),(1,-4,0,1))']
    answer = run(FILES, facts(*keys, "query(3)"), upstream=UPSTREAM)
    assert answer.rows("selected") == {("1", 'sr("ns","b")'), ("2", 'csr("a")')}


def test_go_first_pins_the_selection():
    """code-v0.1.5 (D-36): the Go order's first runtime, where it is not the
    keys' minimum, is the selection, the only one of its query; another
    query keeps its minimum."""
    keys = [f"rank_key(1,{r},{k})" for r, k in KEYS.items()] + ['rank_key(2,csr("c"),(1,-6,9,9))']
    answer = run(FILES, facts(*keys, 'go_first(1,csr("d"))'), upstream=UPSTREAM)
    assert answer.rows("selected") == {("1", 'csr("d")'), ("2", 'csr("c")')}


@pytest.mark.parametrize("runtimes", list(itertools.combinations(KEYS, 3)))
def test_the_same_runtime_as_selection_lps_optimum(runtimes):
    """O5: winner.lp's #min and selection.lp's #minimize optimum agree, on
    every three of the keys."""
    keys = facts(*(f"rank_key(1,{r},{KEYS[r]})" for r in runtimes))
    batch = run(FILES, keys, upstream=UPSTREAM).rows("selected")
    one_query = optimum(("selection.lp",), keys + facts(*CRITERIA), upstream=SELECTION_UPSTREAM)
    assert batch == one_query.answer.rows("selected") and len(batch) == 1
