"""report.to_json writes exactly what json.dumps(indent=2, ensure_ascii=False)
writes (it replaces json's slow indenting encoder for every -o json), and
explain's rows written from templates are the same text."""

from __future__ import annotations

import json

import clingo
from hypothesis import assume, given, reject, settings
from hypothesis import strategies as st

from ome_asp.errors import InputError
from ome_asp.input import profiles
from ome_asp.input.loader import load_documents
from ome_asp.render import report
from ome_asp.render.report import to_json
from ome_asp.solver import ask
from ome_asp.solver.facts import Query
from ome_asp.solver.programs import Variant
from ome_asp.testing import strategies

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
keys = st.text() | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=30,
)


@given(documents)
def test_to_json_is_json_dumps_with_indent_2(document):
    assert to_json(document) == json.dumps(document, indent=2, ensure_ascii=False)


def test_to_json_keeps_unicode_and_escapes_like_json():
    document = {"name": 'a"). evil(1', "nel": "x\u0085y", "é": ["\n", "\t"], 3: None, 1: 0, True: 1, 1.0: [], "1": {}}  # noqa: F601 (keys that collide, on purpose)
    assert to_json(document) == json.dumps(document, indent=2, ensure_ascii=False)


@settings(max_examples=40, deadline=None)
@given(strategies.clusters(), st.sampled_from(sorted(profiles.PROFILES)), st.sampled_from(["", "    "]))
def test_explain_rows_from_templates_are_the_rows_dumped(cluster, profile, pad):
    """issue 13: -o json writes an explain report's rows from templates
    (report.RowsJson); the text is to_json's of the plain report, at any depth."""
    documents, target = cluster
    try:
        loaded = load_documents(documents, profile=profiles.PROFILES[profile])
    except InputError:
        reject()
    query = Query(**target)
    answer = ask.ask(loaded, [query], Variant.EXPLAIN).answer.queries[1]
    assume(answer.error is None and answer.label is not None)
    assert (to_json(report.explain_json(query, answer, profile, for_json=True), pad)
            == to_json(report.explain_json(query, answer, profile), pad))


def test_rows_that_fail_alike_are_written_once_keyed_by_text(monkeypatch):
    """Issue 26 item 4 (D-154): -o json writes a No row's reasons once per
    set of failures, keyed by their text as the decoder read it, and E15's
    message once per model and signature tuple: forty runtimes that fail
    alike hash a few clingo symbols in all (a call through cffi each),
    where cell caches keyed by the symbols hashed each row's reasons."""
    entry = {"modelFormat": {"name": "onnx"}, "modelFramework": {"name": "onnxruntime"}, "autoSelect": False}
    documents = [{"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": {"name": "m"},
                  "spec": {"modelFormat": {"name": "safetensors"}, "modelFramework": {"name": "transformers"}}}]
    documents += [{"apiVersion": "ome.io/v1beta1", "kind": "ClusterServingRuntime", "metadata": {"name": f"rt-{i:02d}"},
                   "spec": {"supportedModelFormats": [entry]}} for i in range(40)]
    answer = ask.ask(load_documents(documents), [Query("default", model="m")], Variant.EXPLAIN).answer.queries[1]
    assert len(answer.verdicts) == 40 and all(list(v.failures) == ["q5", "q7", "q8"] for v in answer.verdicts.values())
    hashed = []
    symbol_hash = clingo.Symbol.__hash__
    monkeypatch.setattr(clingo.Symbol, "__hash__", lambda symbol: hashed.append(symbol) or symbol_hash(symbol))
    report.RowsJson(report.rows(answer)).json("")
    assert len(hashed) <= 5, hashed


def test_the_no_runtime_message_writes_each_reason_once(monkeypatch):
    """Issue 40: O8 names each runtime that failed one of Q2-Q6 first with
    its reason, half of a No-heavy cluster's rows; explain_json sorts the
    rows once and writes a reason once per its text (as the rows' JSON
    does), where O8 sorted them again and rendered each runtime's reason:
    40 runtimes failing alike called _message 40 times (fails so)."""
    entry = {"modelFormat": {"name": "onnx"}, "modelFramework": {"name": "onnxruntime"}, "autoSelect": False}
    documents = [{"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": {"name": "m"},
                  "spec": {"modelFormat": {"name": "safetensors"}, "modelFramework": {"name": "transformers"}}}]
    documents += [{"apiVersion": "ome.io/v1beta1", "kind": "ClusterServingRuntime", "metadata": {"name": f"rt-{i:02d}"},
                   "spec": {"supportedModelFormats": [entry]}} for i in range(40)]
    query = Query("default", model="m")
    answer = ask.ask(load_documents(documents), [query], Variant.EXPLAIN).answer.queries[1]
    expected = report.explain_json(query, answer)["message"]
    assert expected.count("rt-") == 40 and expected.count("(model format") == 40
    calls = {"_message": 0, "rows": 0}

    def counted(name: str):
        function = getattr(report, name)
        return lambda *a: calls.__setitem__(name, calls[name] + 1) or function(*a)

    for name in calls:
        monkeypatch.setattr(report, name, counted(name))
    assert report.explain_json(query, answer, for_json=True, cache=report.RowsCache())["message"] == expected
    assert calls == {"_message": 1, "rows": 1}
