"""report.to_json writes exactly what json.dumps(indent=2, ensure_ascii=False)
writes (it replaces json's slow indenting encoder for every -o json)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from ome_asp.render.report import to_json

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
    document = {"name": 'a"). evil(1', "nel": "x\u0085y", "é": ["\n", "\t"], 3: None, 1: 0, True: 1, 1.0: [], "1": {}}
    assert to_json(document) == json.dumps(document, indent=2, ensure_ascii=False)
