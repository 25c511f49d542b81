"""compatibility.lp on its own: compatibility (Q10-Q14, Q20-Q24, I7) per
(model, signature), the E15 pieces, which runtimes support the model (Q5,
Q15: the pairs the checks examine, examined/2) and the first compatible
entry (Q16).

An entry refers to a signature sig(N) (what it declares to match a model);
matching is decided once per (model, signature) pair, whatever entries of
whatever runtimes share the signature. Here signature sig(i) is entry i's
unless a test shares one.

Upstream, given as facts: evaluated/2 (lookup.lp; query 1 evaluates M),
runtime_scope/2 and query_scope/2 (lookup.lp: the Q1 relation, here RT and
query 1 both in scope cluster), version_match/3 (versions.lp: whether the
V-rules accept a pair; a pair without the fact does not match) and
first_entry_wanted/2 (qualification.lp and explanation.lp: the pairs whose
first compatible entry is read).

The core derives no supports/2: a runtime supports the model exactly when
compatibility.lp examines the pair (examined/2), so the tests of Q5 read
examined/2 (explanation.lp adds every other candidate, test_explanation.py).
"""

import pytest

from ome_asp.solver.facts import FactBuilder, const, runtime_id

from .lp import run, term, text

FILES = ("compatibility.lp",)
UPSTREAM = ("evaluated/2", "runtime_scope/2", "query_scope/2", "version_match/3", "first_entry_wanted/2")

RT = runtime_id("ClusterServingRuntime", None, "rt")
R = text(RT)
M = term('cbm("m")')
W = term("w(1)")  # compatibility.lp never reads weights


def sig(n):
    return term(f"sig({n})")


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


def builder(*runtimes):
    """Query 1 evaluates M; every runtime (RT by default) is in its scope."""
    b = FactBuilder(schema=None)
    b.fact.evaluated(1, M)
    b.fact.query_scope(1, const("cluster"))
    for r in runtimes or (RT,):
        b.fact.runtime_scope(r, const("cluster"))
    return b


def model(b, names=None, versions=None, framework=True, arch=None, quant=None, pipeline=None, m=M):
    """A model: safetensors / transformers unless `names` says otherwise."""
    names = {"format": "safetensors", "framework": "transformers", **(names or {})}
    b.fact.model(m)
    if framework:
        b.fact.model_has_framework(m)
    for side, name in names.items():
        if side == "framework" and not framework:
            continue
        b.fact.model_declares(m, const(side), name)
    for side, version in (versions or {}).items():
        b.fact.model_version(m, const(side), version)
    if arch is not None:
        b.fact.model_architecture(m, arch)
    if quant is not None:
        b.fact.model_quantization(m, quant)
    if pipeline is not None:
        add_pipeline(b, "model", (m,), pipeline)


def signature(b, n, names=None, versions=None, operators=None, arch=None, quant=None, pipeline=None):
    """Signature sig(n): safetensors / transformers unless `names` says otherwise."""
    s = sig(n)
    names = {"format": "safetensors", "framework": "transformers", **(names or {})}
    for side, name in names.items():
        b.fact.sig_declares(s, const(side), name)
        b.fact.sig_operator(s, const(side), (operators or {}).get(side, "Equal"))  # I3 default
    for side, version in (versions or {}).items():
        b.fact.sig_version(s, const(side), version)
    if arch is not None:
        b.fact.sig_architecture(s, arch)
    if quant is not None:
        b.fact.sig_quantization(s, quant)
    if pipeline is not None:
        add_pipeline(b, "sig", (s,), pipeline)
    return s


def entry(b, i, r=RT, n=None, **declared):
    """Entry i of r with signature sig(n) (n defaults to i); keyword
    arguments declare that signature (see `signature`)."""
    n = i if n is None else n
    if declared or n == i:
        signature(b, n, **declared)
    b.fact.entry(r, i, sig(n), W)


def solve(b):
    return run(FILES, b, upstream=UPSTREAM)


def mismatches(answer, m=M):
    """The mismatch/4 atoms of model m as (signature, part, piece)."""
    return {row[1:] for row in answer.rows("mismatch") if row[0] == text(m)}


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
    b = builder()
    model(b, **{key: on_model})
    entry(b, 0, **{key: on_entry})
    answer = solve(b)
    expected = set() if piece is None else {("sig(0)", part, piece.format(p=part))}
    assert mismatches(answer) == expected
    assert answer.rows("compatible") == (set() if expected else {(text(M), "sig(0)")})


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
    b = builder()
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
    assert mismatches(answer) == (set() if piece is None else {("sig(0)", side, piece.format(s=side, n=name))})
    assert answer.rows("version_compared") == ({(f'"{entry_version}"', '"Equal"', f'"{model_version}"')} if compared else set())


def test_q13_names_are_case_sensitive():
    """Q13: names compare exactly (I6)."""
    b = builder()
    model(b)
    entry(b, 0, names={"format": "SafeTensors"})
    assert mismatches(solve(b)) == {("sig(0)", "format", 'name_mismatch(format,"safetensors","SafeTensors")')}


def test_q13_the_entry_operator_is_asked():
    """Q13 + V4: the entry's operator goes to the V-rules (M5: a model has no
    operator input at all); a match under another operator does not count."""
    b = builder()
    model(b, versions={"format": "1.0.0", "framework": "4.0.0"})
    entry(b, 0, versions={"format": "2.0.0", "framework": "5.0.0"}, operators={"format": "GreaterThan", "framework": "GreaterThan"})
    b.fact.version_match("2.0.0", "GreaterThan", "1.0.0")
    b.fact.version_match("5.0.0", "Equal", "4.0.0")  # wrong operator
    answer = solve(b)
    assert answer.rows("version_compared") == {('"2.0.0"', '"GreaterThan"', '"1.0.0"'), ('"5.0.0"', '"GreaterThan"', '"4.0.0"')}
    assert mismatches(answer) == {("sig(0)", "framework", 'version_mismatch(framework,"4.0.0","5.0.0")')}


def test_i7_model_without_framework_matches_no_entry():
    """I7, Q14: a model without modelFramework fails every entry with
    model_lacks_framework (the entry's framework name) and nothing else on
    the framework side, however the entry's framework looks; the format side
    is still compared."""
    b = builder()
    model(b, framework=False, versions={"format": "1.0.0"})
    entry(b, 0, versions={"format": "1.0.0", "framework": "4.0.0"})
    entry(b, 1, names={"format": "onnx", "framework": "onnxruntime"})
    b.fact.version_match("1.0.0", "Equal", "1.0.0")
    answer = solve(b)
    assert mismatches(answer) == {
        ("sig(0)", "framework", 'model_lacks_framework("transformers")'),
        ("sig(1)", "format", 'name_mismatch(format,"safetensors","onnx")'),
        ("sig(1)", "framework", 'model_lacks_framework("onnxruntime")'),
    }
    assert answer.rows("compatible") == set()
    assert answer.rows("examined") == set()


def test_every_failing_part_is_reported():
    """3.2 / E15: all differences of an entry are pieces (Q19 row 8, entry 0:
    one-sided architecture, format and framework names)."""
    b = builder()
    model(b, arch="LlamaForCausalLM")
    entry(b, 0, names={"format": "onnx", "framework": "onnxruntime"})
    entry(b, 1, arch="MistralForCausalLM")
    assert mismatches(solve(b)) == {
        ("sig(0)", "architecture", 'runtime_lacks_architecture("LlamaForCausalLM")'),
        ("sig(0)", "format", 'name_mismatch(format,"safetensors","onnx")'),
        ("sig(0)", "framework", 'name_mismatch(framework,"transformers","onnxruntime")'),
        ("sig(1)", "architecture", 'architecture_mismatch("LlamaForCausalLM","MistralForCausalLM")'),
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
    b = builder()
    model(b, pipeline=on_model)
    entry(b, 0, pipeline=on_entry)
    assert mismatches(solve(b)) == (set() if piece is None else {("sig(0)", "pipeline", piece)})


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
    b = builder()
    model(b, pipeline={"additional": on_model})
    entry(b, 0, pipeline={"additional": on_entry})
    assert mismatches(solve(b)) == {("sig(0)", "pipeline", piece)}


def test_q24_only_the_first_pipeline_failure():
    """Q24: with every pipeline check failing, exactly one piece: the class
    (Q21), and the entry is still incompatible."""
    b = builder()
    model(b, pipeline={"className": "B", "vae": {"library": "x", "type": "y"}})
    entry(b, 0, pipeline={"className": "A", "scheduler": {}, "vae": {"library": "d", "type": "t"}, "additional": {"k": {}}})
    answer = solve(b)
    assert mismatches(answer) == {("sig(0)", "pipeline", 'pipeline_class_mismatch("B","A")')}
    assert answer.rows("compatible") == set()
    assert answer.rows("examined") == set()


# --- Q15, Q16 ----------------------------------------------------------------


def test_q15_q16_first_compatible_entry():
    """Q15: any compatible entry (autoSelect is not read) makes the runtime
    support the model (the pair is examined); Q16: the first compatible entry in list order is the
    one explain reads (entries 1 and 2 share a compatible signature)."""
    other = runtime_id("ClusterServingRuntime", None, "other")
    b = builder(RT, other)
    model(b, arch="LlamaForCausalLM")
    entry(b, 0, arch="MistralForCausalLM")
    entry(b, 1, arch="LlamaForCausalLM")
    b.fact.entry_auto_select(RT, 1, const("false"))
    entry(b, 2, n=1)
    entry(b, 0, r=other, n=0)
    b.fact.first_entry_wanted(1, RT)
    answer = solve(b)
    assert answer.rows("compatible") == {(text(M), "sig(1)")}
    assert answer.rows("examined") == {("1", R)}
    assert answer.rows("compatible_entry") == {("1", R, "1"), ("1", R, "2")}
    assert answer.rows("first_compatible_entry") == {("1", R, "1")}


def test_q16_first_compatible_entry_is_entry_0_when_it_is_compatible():
    b = builder()
    model(b)
    for i in range(3):
        entry(b, i)
    b.fact.first_entry_wanted(1, RT)
    assert solve(b).rows("first_compatible_entry") == {("1", R, "0")}


def test_q16_compatible_entries_only_where_the_first_one_is_wanted():
    """Q16: the compatible entries are listed only for the pairs whose first
    compatible entry is read (first_entry_wanted); support (Q5, the examined
    pairs) is not affected."""
    other = runtime_id("ClusterServingRuntime", None, "other")
    b = builder(RT, other)
    model(b)
    entry(b, 0)
    entry(b, 0, r=other, n=0)
    b.fact.first_entry_wanted(1, other)
    answer = solve(b)
    assert answer.rows("examined") == {("1", R), ("1", text(other))}
    assert answer.rows("compatible_entry") == {("1", text(other), "0")}
    assert answer.rows("first_compatible_entry") == {("1", text(other), "0")}


# --- per (model, signature) ------------------------------------------------------


def test_pairs_are_the_evaluated_models_with_every_signature():
    """Matching is decided for each model some query evaluates, with every
    entry's signature, once, however many queries evaluate the model; a model
    no query evaluates is not matched."""
    unused = term('cbm("unused")')
    b = builder()
    b.fact.evaluated(2, M)
    model(b)
    model(b, m=unused, arch="A")
    entry(b, 0)
    entry(b, 1, arch="A")
    answer = solve(b)
    assert answer.rows("matched") == {(text(M),)}
    assert answer.rows("pair") == {(text(M), "sig(0)"), (text(M), "sig(1)")}
    assert answer.rows("compatible") == {(text(M), "sig(0)")}
    assert mismatches(answer, unused) == set()


def test_a_signature_no_entry_has_is_not_matched():
    """The signatures matched are the entries' (D-160): a signature's facts
    without an entry that has it (in a batch of worlds, another world's
    signature, whose facts are the batch's) ground no pair and no piece."""
    b = builder()
    model(b)
    entry(b, 0)
    signature(b, 1, arch="A")  # no entry has sig(1)
    answer = solve(b)
    assert answer.rows("pair") == {(text(M), "sig(0)")}
    assert mismatches(answer) == set()


def test_a_shared_signature_is_matched_once_for_all_its_entries():
    """Q10-Q14 depend only on what an entry declares: entries of two runtimes
    that share a signature get one verdict, and both runtimes support the
    model (Q5: both pairs are examined) or neither does."""
    other = runtime_id("ClusterServingRuntime", None, "other")
    b = builder(RT, other)
    model(b, arch="LlamaForCausalLM")
    entry(b, 0, arch="MistralForCausalLM")
    entry(b, 1, arch="LlamaForCausalLM")
    entry(b, 0, r=other, n=1)
    entry(b, 1, r=other, n=0)
    answer = solve(b)
    assert mismatches(answer) == {("sig(0)", "architecture", 'architecture_mismatch("LlamaForCausalLM","MistralForCausalLM")')}
    assert answer.rows("examined") == {("1", R), ("1", text(other))}


def test_matching_is_per_model():
    """Two queries with different models: each signature is matched with each
    model on its own, and each query's runtimes support its own model (only
    query 1's pair is examined)."""
    llama, mistral = term('cbm("llama")'), term('cbm("mistral")')
    b = FactBuilder(schema=None)
    for q, m in ((1, llama), (2, mistral)):
        b.fact.evaluated(q, m)
        b.fact.query_scope(q, const("cluster"))
    b.fact.runtime_scope(RT, const("cluster"))
    model(b, m=llama, arch="LlamaForCausalLM")
    model(b, m=mistral, arch="MistralForCausalLM")
    entry(b, 0, arch="LlamaForCausalLM")
    answer = solve(b)
    assert answer.rows("compatible") == {(text(llama), "sig(0)")}
    assert mismatches(answer, mistral) == {("sig(0)", "architecture", 'architecture_mismatch("MistralForCausalLM","LlamaForCausalLM")')}
    assert answer.rows("examined") == {("1", R)}


def test_q1_q5_only_runtimes_in_the_query_scope_support_the_model():
    """Q5 over the Q1 candidates: a compatible signature makes a runtime
    support the model (the pair is examined) only when the runtime is in the
    query's scope (its namespace's ServingRuntimes, every
    ClusterServingRuntime); a runtime with no scope (not admitted, I9)
    supports nothing."""
    here = runtime_id("ServingRuntime", "ns1", "here")
    there = runtime_id("ServingRuntime", "ns2", "there")
    cluster = runtime_id("ClusterServingRuntime", None, "cluster")
    denied = runtime_id("ClusterServingRuntime", None, "denied")
    b = FactBuilder(schema=None)
    b.fact.evaluated(1, M)
    b.fact.query_scope(1, "ns1")
    b.fact.query_scope(1, const("cluster"))
    b.fact.runtime_scope(here, "ns1")
    b.fact.runtime_scope(there, "ns2")
    b.fact.runtime_scope(cluster, const("cluster"))
    model(b)
    entry(b, 0, r=here)
    for r in (there, cluster, denied):
        entry(b, 0, r=r, n=0)
    assert solve(b).rows("examined") == {("1", text(here)), ("1", text(cluster))}
