"""compatibility.lp on its own: entry compatibility (Q10-Q14, Q20-Q24, I7),
the E15 pieces per entry, and which entries count for Q5 (Q15) and E9 (Q16).

Upstream, given as facts: query_entry/4 (lookup.lp) and version_match/3
(versions.lp: whether the V-rules accept a pair; a pair without the fact does
not match). entry_next/3 comes from admission.lp, which is loaded alongside
(it derives entry_next from the entry/2 facts alone).
"""

import pytest

from ome_asp.facts import FactBuilder, const, runtime_id

from .lp import run, term, text

FILES = ("admission.lp", "compatibility.lp")
UPSTREAM = ("query_entry/4", "version_match/3")

RT = runtime_id("ClusterServingRuntime", None, "rt")
R = text(RT)
M = term('cbm("m")')


def add_pipeline(b, owner, key, pipeline):
    """pipeline: {"className": str, <named component>: {...}, "additional": {key: {...}}};
    a component is {"library": str, "type": str}, absent fields left out."""
    getattr(b.fact, f"{owner}_pipeline")(*key)
    if "className" in pipeline:
        getattr(b.fact, f"{owner}_pipeline_class")(*key, pipeline["className"])
    components = [(f'named("{k}")', v) for k, v in pipeline.items() if k not in ("className", "additional")]
    components += [(f'additional("{k}")', v) for k, v in pipeline.get("additional", {}).items()]
    for component, fields in components:
        getattr(b.fact, f"{owner}_component")(*key, term(component))
        for field, value in fields.items():
            getattr(b.fact, f"{owner}_component_field")(*key, term(component), const(field), value)


def model(b, names=None, versions=None, framework=True, arch=None, quant=None, pipeline=None):
    """The query's model: safetensors / transformers unless `names` says otherwise."""
    names = {"format": "safetensors", "framework": "transformers", **(names or {})}
    b.fact.model(M)
    if framework:
        b.fact.model_has_framework(M)
    for side, name in names.items():
        if side == "framework" and not framework:
            continue
        b.fact.model_declares(M, const(side), name)
    for side, version in (versions or {}).items():
        b.fact.model_version(M, const(side), version)
    if arch is not None:
        b.fact.model_architecture(M, arch)
    if quant is not None:
        b.fact.model_quantization(M, quant)
    if pipeline is not None:
        add_pipeline(b, "model", (M,), pipeline)


def entry(b, i, names=None, versions=None, operators=None, arch=None, quant=None, pipeline=None, r=RT):
    """Entry i of r, matched against the model in query 1 (query_entry)."""
    names = {"format": "safetensors", "framework": "transformers", **(names or {})}
    b.fact.entry(r, i)
    b.fact.query_entry(1, r, i, M)
    for side, name in names.items():
        b.fact.entry_declares(r, i, const(side), name)
        b.fact.entry_operator(r, i, const(side), (operators or {}).get(side, "Equal"))  # I3 default
    for side, version in (versions or {}).items():
        b.fact.entry_version(r, i, const(side), version)
    if arch is not None:
        b.fact.entry_architecture(r, i, arch)
    if quant is not None:
        b.fact.entry_quantization(r, i, quant)
    if pipeline is not None:
        add_pipeline(b, "entry", (r, i), pipeline)


def solve(b):
    return run(FILES, b, upstream=UPSTREAM)


def mismatches(answer):
    """The mismatch/5 atoms of query 1 and RT as (entry, part, piece)."""
    rows = answer.rows("mismatch")
    assert {row[:2] for row in rows} <= {("1", R)}
    return {row[2:] for row in rows}


# --- Q11, Q12 ----------------------------------------------------------------


@pytest.mark.parametrize("part", ["architecture", "quantization"])
@pytest.mark.parametrize(
    ("on_model", "on_entry", "piece"),
    [
        pytest.param(None, None, None, id="both-absent"),
        pytest.param("A", "A", None, id="both-set-equal"),
        pytest.param("A", "B", '{p}_mismatch("A","B")', id="both-set-different"),
        pytest.param("a", "A", '{p}_mismatch("a","A")', id="case-sensitive"),
        pytest.param("A", None, 'runtime_lacks_{p}("A")', id="model-only"),
        pytest.param(None, "B", 'model_lacks_{p}("B")', id="entry-only"),
        pytest.param("", None, 'runtime_lacks_{p}("")', id="empty-string-is-set"),
    ],
)
def test_q11_q12(part, on_model, on_entry, piece):
    """Q11 (architecture), Q12 (quantization): both absent or both set and
    equal passes; otherwise the E15 piece names the case."""
    key = "arch" if part == "architecture" else "quant"
    b = FactBuilder()
    model(b, **{key: on_model})
    entry(b, 0, **{key: on_entry})
    answer = solve(b)
    expected = set() if piece is None else {("0", part, piece.format(p=part))}
    assert mismatches(answer) == expected
    assert answer.rows("compatible_entry") == (set() if expected else {("1", R, "0")})


# --- Q13, Q14 (E15 format and framework pieces) -------------------------------


@pytest.mark.parametrize("side", ["format", "framework"])
@pytest.mark.parametrize(
    ("model_version", "entry_name", "entry_version", "matches", "piece", "compared"),
    [
        pytest.param("1.0.0", "other", "1.0.0", False, 'name_mismatch({s},"{n}","other")', False, id="name-mismatch-no-version-piece"),
        pytest.param("1.0.0", None, "2.0.0", False, 'version_mismatch({s},"1.0.0","2.0.0")', True, id="version-mismatch"),
        pytest.param("1.0.0", None, "1.0", True, None, True, id="versions-match"),
        pytest.param(None, None, "1.0.0", False, 'model_lacks_version({s},"1.0.0")', False, id="model-has-no-version"),
        pytest.param("1.0.0", None, None, False, "runtime_lacks_version({s})", False, id="runtime-has-no-version"),
        pytest.param(None, None, None, False, None, False, id="both-absent"),
    ],
)
def test_q13_q14_name_then_version(side, model_version, entry_name, entry_version, matches, piece, compared):
    """Q13 (format), Q14 (framework), E15 pieces: names first (a name mismatch
    has no version piece); then versions: both absent pass, both set ask the
    V-rules (version_compared, entry version on the left), one-sided fails."""
    name = {"format": "safetensors", "framework": "transformers"}[side]
    b = FactBuilder()
    model(b, versions={} if model_version is None else {side: model_version})
    entry(
        b,
        0,
        names={} if entry_name is None else {side: entry_name},
        versions={} if entry_version is None else {side: entry_version},
    )
    if matches:
        b.fact.version_match(entry_version, "Equal", model_version)
    answer = solve(b)
    assert mismatches(answer) == (set() if piece is None else {("0", side, piece.format(s=side, n=name))})
    assert answer.rows("version_compared") == ({(f'"{entry_version}"', '"Equal"', f'"{model_version}"')} if compared else set())


def test_q13_names_are_case_sensitive():
    """Q13: names compare exactly (I6)."""
    b = FactBuilder()
    model(b)
    entry(b, 0, names={"format": "SafeTensors"})
    assert mismatches(solve(b)) == {("0", "format", 'name_mismatch(format,"safetensors","SafeTensors")')}


def test_q13_the_entry_operator_is_asked():
    """Q13 + V4: the entry's operator goes to the V-rules (M5: a model has no
    operator input at all); a match under another operator does not count."""
    b = FactBuilder()
    model(b, versions={"format": "1.0.0", "framework": "4.0.0"})
    entry(b, 0, versions={"format": "2.0.0", "framework": "5.0.0"}, operators={"format": "GreaterThan", "framework": "GreaterThan"})
    b.fact.version_match("2.0.0", "GreaterThan", "1.0.0")
    b.fact.version_match("5.0.0", "Equal", "4.0.0")  # wrong operator
    answer = solve(b)
    assert answer.rows("version_compared") == {('"2.0.0"', '"GreaterThan"', '"1.0.0"'), ('"5.0.0"', '"GreaterThan"', '"4.0.0"')}
    assert mismatches(answer) == {("0", "framework", 'version_mismatch(framework,"4.0.0","5.0.0")')}


def test_i7_model_without_framework_matches_no_entry():
    """I7, Q14: a model without modelFramework fails every entry with
    model_lacks_framework (the entry's framework name) and nothing else on
    the framework side, however the entry's framework looks; the format side
    is still compared."""
    b = FactBuilder()
    model(b, framework=False, versions={"format": "1.0.0"})
    entry(b, 0, versions={"format": "1.0.0", "framework": "4.0.0"})
    entry(b, 1, names={"format": "onnx", "framework": "onnxruntime"})
    b.fact.version_match("1.0.0", "Equal", "1.0.0")
    answer = solve(b)
    assert mismatches(answer) == {
        ("0", "framework", 'model_lacks_framework("transformers")'),
        ("1", "format", 'name_mismatch(format,"safetensors","onnx")'),
        ("1", "framework", 'model_lacks_framework("onnxruntime")'),
    }
    assert answer.rows("compatible_entry") == set()


def test_every_failing_part_is_reported():
    """3.2 / E15: all differences of an entry are pieces (Q19 row 8, entry 0:
    one-sided architecture, format and framework names)."""
    b = FactBuilder()
    model(b, arch="LlamaForCausalLM")
    entry(b, 0, names={"format": "onnx", "framework": "onnxruntime"})
    entry(b, 1, arch="MistralForCausalLM")
    assert mismatches(solve(b)) == {
        ("0", "architecture", 'runtime_lacks_architecture("LlamaForCausalLM")'),
        ("0", "format", 'name_mismatch(format,"safetensors","onnx")'),
        ("0", "framework", 'name_mismatch(framework,"transformers","onnxruntime")'),
        ("1", "architecture", 'architecture_mismatch("LlamaForCausalLM","MistralForCausalLM")'),
    }


# --- Q10, Q20-Q24: the diffusion pipeline -------------------------------------

S, V = 'named("scheduler")', 'named("vae")'


@pytest.mark.parametrize(
    ("on_model", "on_entry", "piece"),
    [
        pytest.param({"className": "X"}, None, None, id="Q10-model-pipeline-alone-imposes-nothing"),
        pytest.param(None, {}, "pipeline_missing", id="Q20-empty-pipeline-on-entry"),
        pytest.param(None, {"className": "A", "vae": {"library": "d"}, "additional": {"k": {}}}, "pipeline_missing", id="Q20-only-first"),
        pytest.param({}, {}, None, id="Q20-both-empty"),
        pytest.param({}, {"className": "A"}, 'pipeline_class_mismatch(none,"A")', id="Q21-model-class-absent"),
        pytest.param({"className": "B"}, {"className": "A"}, 'pipeline_class_mismatch("B","A")', id="Q21-different"),
        pytest.param({"className": "A"}, {"className": "A"}, None, id="Q21-equal"),
        pytest.param({"className": "B"}, {}, None, id="Q21-entry-class-absent"),
        pytest.param({}, {"className": ""}, 'pipeline_class_mismatch(none,"")', id="Q21-empty-entry-class-is-set"),
        pytest.param({"className": "B"}, {"className": "A", "scheduler": {}}, 'pipeline_class_mismatch("B","A")', id="Q21-before-Q22"),
        pytest.param({}, {"scheduler": {}}, f"component_missing({S})", id="Q22-empty-component-required"),
        pytest.param({"vae": {"library": "x", "type": "y"}}, {"vae": {}}, None, id="Q22-present"),
        pytest.param({"vae": {"library": "other"}}, {"vae": {"library": "diffusers"}}, f'component_field_mismatch({V},library,"other","diffusers")', id="Q22-library"),
        pytest.param({"vae": {"type": "other"}}, {"vae": {"type": "AutoencoderKL"}}, f'component_field_mismatch({V},type,"other","AutoencoderKL")', id="Q22-type"),
        pytest.param({"vae": {"library": "other"}}, {"vae": {"library": ""}}, None, id="Q22-empty-entry-value-is-wildcard"),
        pytest.param({"vae": {}}, {"vae": {"library": "d"}}, f'component_field_mismatch({V},library,"","d")', id="Q22-absent-model-value-is-empty"),
        pytest.param({"vae": {"library": "a", "type": "u"}}, {"vae": {"library": "b", "type": "t"}}, f'component_field_mismatch({V},library,"a","b")', id="Q22-library-before-type"),
        pytest.param({"vae": {"library": "x"}}, {"scheduler": {}, "vae": {"library": "d"}}, f"component_missing({S})", id="Q22-scheduler-before-vae"),
        pytest.param(
            {"textEncoder": {"type": "u"}}, {"textEncoder": {"type": "t"}, "tokenizer": {}},
            'component_field_mismatch(named("textEncoder"),type,"u","t")', id="Q22-textEncoder-before-tokenizer",
        ),
        pytest.param(
            {"tokenizer": {"library": "b"}}, {"vae": {}, "tokenizer": {"library": "a"}},
            'component_field_mismatch(named("tokenizer"),library,"b","a")', id="Q22-tokenizer-before-vae",
        ),
        pytest.param({"transformer": {}}, {"transformer": {}, "vae": {}}, f"component_missing({V})", id="Q22-transformer-ok-vae-missing"),
        pytest.param({}, {"additional": {"k": {}}}, "additional_components_missing", id="Q23-model-has-none"),
        pytest.param({"additional": {"j": {}}}, {"additional": {"k": {}}}, 'component_missing(additional("k"))', id="Q23-key-missing"),
        pytest.param({"additional": {"k": {"type": "u"}}}, {"additional": {"k": {"type": "t"}}}, 'component_field_mismatch(additional("k"),type,"u","t")', id="Q23-field"),
        pytest.param({"additional": {"k": {}}}, {"additional": {"k": {}}}, None, id="Q23-present"),
        pytest.param({}, {"vae": {}, "additional": {"k": {}}}, f"component_missing({V})", id="Q22-before-Q23"),
    ],
)
def test_q10_q20_q24_pipeline(on_model, on_entry, piece):
    """Q10, Q20-Q23 in check order; Q24: only the first failure is a piece."""
    b = FactBuilder()
    model(b, pipeline=on_model)
    entry(b, 0, pipeline=on_entry)
    assert mismatches(solve(b)) == (set() if piece is None else {("0", "pipeline", piece)})


@pytest.mark.parametrize(
    ("on_model", "on_entry", "piece"),
    [
        pytest.param({"c": {}}, {"b": {}, "a": {}}, 'component_missing(additional("a"))', id="ascending"),
        pytest.param({"c": {}}, {"a": {}, "B": {}}, 'component_missing(additional("B"))', id="code-point-order"),
        pytest.param(
            {"a": {"library": "y"}}, {"b": {}, "a": {"library": "x"}},
            'component_field_mismatch(additional("a"),library,"y","x")', id="key-before-step",
        ),
    ],
)
def test_q23_additional_components_in_ascending_key_order(on_model, on_entry, piece):
    """Q23 (OQ-15): additional keys are checked in ascending key order (code
    points), each key's presence, library and type before the next key."""
    b = FactBuilder()
    model(b, pipeline={"additional": on_model})
    entry(b, 0, pipeline={"additional": on_entry})
    assert mismatches(solve(b)) == {("0", "pipeline", piece)}


def test_q24_only_the_first_pipeline_failure():
    """Q24: with every pipeline check failing, exactly one piece: the class
    (Q21), and the entry is still incompatible."""
    b = FactBuilder()
    model(b, pipeline={"className": "B", "vae": {"library": "x", "type": "y"}})
    entry(b, 0, pipeline={"className": "A", "scheduler": {}, "vae": {"library": "d", "type": "t"}, "additional": {"k": {}}})
    answer = solve(b)
    assert mismatches(answer) == {("0", "pipeline", 'pipeline_class_mismatch("B","A")')}
    assert answer.rows("compatible_entry") == set()


# --- Q15, Q16 ----------------------------------------------------------------


def test_q15_q16_first_compatible_entry():
    """Q15: any compatible entry (autoSelect is not read) makes the runtime
    support the model; Q16: the first compatible entry in list order is the
    one explain reads."""
    other = runtime_id("ClusterServingRuntime", None, "other")
    b = FactBuilder()
    model(b, arch="LlamaForCausalLM")
    entry(b, 0, arch="MistralForCausalLM")
    entry(b, 1, arch="LlamaForCausalLM")
    b.fact.entry_auto_select(RT, 1, const("false"))
    entry(b, 2, arch="LlamaForCausalLM")
    entry(b, 0, arch="MistralForCausalLM", r=other)
    answer = solve(b)
    assert answer.rows("compatible_entry") == {("1", R, "1"), ("1", R, "2")}
    assert answer.rows("supports_model") == {("1", R)}
    assert answer.rows("first_compatible_entry") == {("1", R, "1")}


def test_q16_first_compatible_entry_is_entry_0_when_it_is_compatible():
    b = FactBuilder()
    model(b)
    for i in range(3):
        entry(b, i)
    assert solve(b).rows("first_compatible_entry") == {("1", R, "0")}
