"""Bad input, limits and internal errors through the whole command line (spec
E2, E4, I1, I4, I11; docs/reliability.md).

Every class of bad input gives exactly one stderr line naming the file, line,
document, object and field, and exit code 1; never a traceback. Messages are
asserted in full with the user's own tokens.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import clingo
import pytest
import yaml
from conftest import FIXTURES, run_cli
from manifests import model
from manifests import runtime as runtime_doc
from manifests import write as write_documents

from ome_asp.commands import options
from ome_asp.errors import InputError
from ome_asp.input import documents, limits
from ome_asp.input.limits import SolveTimeout, check_alias_expansion, solve_bounded
from ome_asp.input.loader import KUSTOMIZE_HINT
from ome_asp.render import reasons
from ome_asp.solver import ask, engine, programs

WORKED = str(FIXTURES / "worked-example")
MODEL = "llama-3-2-3b-instruct"

MODEL_DOC = """\
apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: m
spec:
  modelFormat: {name: safetensors}
  modelFramework: {name: transformers}
"""


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Relative paths, so messages read as the user sees them; dumps stay in tmp_path."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def write(name: str, text: str | bytes) -> str:
    path = Path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(textwrap.dedent(text))
    return name


def runtime(entry: str = "", spec: str = "", name: str = "rt") -> str:
    """A ClusterServingRuntime document; `entry` lines extend its one entry (line 10 on)."""
    return (
        "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n"
        f"  name: {name}\nspec:\n  supportedModelFormats:\n"
        "  - modelFormat: {name: safetensors}\n    modelFramework: {name: transformers}\n"
        "    autoSelect: true\n" + entry + spec
    )


def explain(*files: str, strict: bool = False, model: str = "m"):
    argv = ["explain", "--model", model] + [arg for f in files for arg in ("-f", f)]
    return run_cli(*argv, *(["--strict"] if strict else []))


def assert_error(result, message: str) -> None:
    """E2: exactly one `error:` line, nothing on stdout, exit 1."""
    assert (result.code, result.stdout, result.stderr) == (1, "", f"error: {message}\n")


# --- I4: text that is not YAML ---------------------------------------------------


def test_I4_not_yaml_names_file_line_column_and_document():
    """The problem is libyaml's or PyYAML's wording; the place is ours."""
    result = explain(write("f.yaml", "kind: Pod\n---\nkind: Pod\nspec: [a\n"))
    assert (result.code, result.stdout, result.stderr.count("\n")) == (1, "", 1)
    assert result.stderr.startswith("error: f.yaml:5:1: document 2: not valid YAML: ")
    assert "expected ',' or ']'" in result.stderr


def test_I4_not_utf8_names_file_line_and_column():
    path = write("f.yaml", MODEL_DOC.encode() + b"  quantization: fp\xff8\n")
    assert_error(explain(path), "f.yaml:8:19: not valid UTF-8: byte 0xff")


def test_I4_yaml_tag_that_does_not_fit_its_value():
    """`!!int abc` makes PyYAML raise a bare ValueError; it is a YAML error like any other."""
    path = write("f.yaml", runtime("    priority: !!int high\n"))
    assert_error(explain(path), 'f.yaml:10:15: document 1: not valid YAML: cannot read "high" as !!int')


def test_I4_yaml_tag_on_an_empty_value():
    """`!!int ''` makes PyYAML raise an IndexError (found by scripts/fuzz.py)."""
    path = write("f.yaml", runtime("    priority: !!int ''\n"))
    assert_error(explain(path), 'f.yaml:10:15: document 1: not valid YAML: cannot read "" as !!int')


def test_I4_key_written_twice_in_one_mapping():
    """YAML would keep the last value silently; kubectl's strict decoding refuses it, so do we."""
    path = write("f.yaml", runtime("    priority: 1\n    priority: 5\n"))
    assert_error(explain(path), 'f.yaml:11:5: document 1: not valid YAML: mapping key "priority" already defined at line 10')


def test_I4_merge_keys_may_override_but_written_keys_may_not_repeat():
    """`<<` merges are YAML's own overriding; only a key written twice is an error."""
    merged = "apiVersion: ome.io/v1beta1\nkind: AcceleratorClass\nbase: &b {metadata: {name: x}}\n<<: *b\nmetadata: {name: h100}\n"
    assert explain(write("ok.yaml", merged)).stderr == 'error: clusterbasemodels.ome.io "m" not found\n'
    twice = "apiVersion: ome.io/v1beta1\nkind: AcceleratorClass\n<<: {kind: x}\nmetadata: {name: a}\nmetadata: {name: b}\n"
    assert_error(explain(write("f.yaml", twice)), 'f.yaml:5:1: document 1: not valid YAML: mapping key "metadata" already defined at line 4')


def test_I4_nesting_deeper_than_the_parser_allows():
    path = write("f.yaml", "kind: Pod\nspec: " + "[" * 2000 + "]" * 2000 + "\n")
    assert_error(explain(path), "f.yaml:2:1006: document 1: not valid YAML: exceeded maximum nesting depth")


def test_I4_nesting_with_the_pure_python_parser(monkeypatch: pytest.MonkeyPatch):
    """Without libyaml, PyYAML recurses per level: a RecursionError becomes the same kind of error."""
    monkeypatch.setattr(documents, "_Loader", yaml.SafeLoader)
    path = write("f.yaml", "kind: Pod\nspec: " + "[" * 2000 + "]" * 2000 + "\n")
    assert_error(explain(path), "f.yaml: document 1: not valid YAML: nested too deeply")


# --- I4: documents and objects -------------------------------------------------------


def test_I4_document_that_is_not_a_mapping():
    path = write("f.yaml", MODEL_DOC + "---\n- a list\n- of strings\n")
    assert_error(explain(path), "f.yaml:9: document 2: expected an object (a YAML mapping), found array")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("apiVersion: v1\nmetadata: {name: x}\n", "f.yaml:1: document 1: kind: Required value", id="kind"),
        pytest.param(
            "kind: ServingRuntime\nmetadata:\n  name: rt\n  namespace: ns\n",
            "f.yaml:1: document 1: ServingRuntime ns/rt: apiVersion: Required value",
            id="apiVersion",
        ),
        pytest.param(
            "apiVersion: ome.io/v1beta1\nkind: ServingRuntime\nmetadata:\n  namespace: ns\n",
            "f.yaml:3: document 1: ServingRuntime: metadata.name: Required value",
            id="metadata.name",
        ),
        pytest.param(
            "apiVersion: ome.io/v1beta1\nkind: AcceleratorClass\n",
            "f.yaml:1: document 1: AcceleratorClass: metadata.name: Required value",
            id="metadata",
        ),
    ],
)
def test_I4_missing_kind_api_version_or_name(text: str, message: str):
    assert_error(explain(write("f.yaml", text)), message)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        pytest.param(
            "    priority: high\n",
            'f.yaml:10: document 1: ClusterServingRuntime rt: spec.supportedModelFormats[0].priority: Invalid value: '
            '"string": spec.supportedModelFormats[0].priority in body must be of type integer: "string"',
            id="priority-high",
        ),
        pytest.param(
            '    name: vllm\n    quantization:\n    - fp8\n',
            'f.yaml:11: document 1: ClusterServingRuntime rt: spec.supportedModelFormats[0].quantization: Invalid value: '
            '"array": spec.supportedModelFormats[0].quantization in body must be of type string: "array"',
            id="list-for-a-string",
        ),
    ],
)
def test_I4_wrong_types(entry: str, message: str):
    assert_error(explain(write("f.yaml", runtime(entry))), message)


def test_I4_I5_auto_select_yes_in_quotes_is_not_a_boolean():
    text = runtime().replace("    autoSelect: true\n", '    autoSelect: "yes"\n')
    assert_error(
        explain(write("f.yaml", text)),
        'f.yaml:9: document 1: ClusterServingRuntime rt: spec.supportedModelFormats[0].autoSelect: Invalid value: '
        '"string": spec.supportedModelFormats[0].autoSelect in body must be of type boolean: "string"',
    )


def test_I4_list_where_a_map_belongs():
    text = runtime().replace("  - modelFormat: {name: safetensors}\n", "  - modelFormat: [safetensors]\n")
    assert_error(
        explain(write("f.yaml", text)),
        'f.yaml:7: document 1: ClusterServingRuntime rt: spec.supportedModelFormats[0].modelFormat: Invalid value: '
        '"array": spec.supportedModelFormats[0].modelFormat in body must be of type object: "array"',
    )


def test_I4_weight_outside_int64():
    text = runtime().replace("{name: transformers}", "{name: transformers, weight: 9223372036854775808}")
    assert_error(
        explain(write("f.yaml", text)),
        "f.yaml:8: document 1: ClusterServingRuntime rt: spec.supportedModelFormats[0].modelFramework.weight: "
        "Invalid value: 9223372036854775808: spec.supportedModelFormats[0].modelFramework.weight in body should be "
        "less than or equal to 9223372036854775807",
    )


def test_I4_priority_outside_int32():
    assert_error(
        explain(write("f.yaml", runtime("    priority: -2147483649\n"))),
        "f.yaml:10: document 1: ClusterServingRuntime rt: spec.supportedModelFormats[0].priority: Invalid value: "
        "-2147483649: spec.supportedModelFormats[0].priority in body should be greater than or equal to 1",
    )


def test_I1_I4_same_object_twice_names_both_places():
    write("a.yaml", MODEL_DOC + "---\n" + runtime())
    write("dir/b.yaml", "kind: ConfigMap\n---\n" + runtime().replace("autoSelect: true", "autoSelect: false"))
    assert_error(
        explain("a.yaml", "dir"),
        "dir/b.yaml:3: document 2: ClusterServingRuntime rt: duplicate object, first defined at a.yaml:9: document 2"
        + KUSTOMIZE_HINT,
    )


def test_I1_empty_input_is_an_error():
    """No object at all is most likely a wrong path or an empty dump: say so instead
    of reporting that the model is not found (docs/decisions.md D-26)."""
    write("empty.yaml", "")
    write("comments.yaml", "# nothing here\n---\n")
    write("list.yaml", "apiVersion: v1\nkind: List\nitems: []\n")
    Path("dir").mkdir()
    assert_error(
        explain("empty.yaml", "comments.yaml", "list.yaml", "dir"),
        "no objects in the input: empty.yaml, comments.yaml, list.yaml, dir",
    )
    assert_error(run_cli("explain", "--model", "m", "-f", "-", stdin=b""), "no objects in the input: <stdin>")


@pytest.mark.parametrize("escape", ["\\n", "\\t", "\\u0085", "\\u2028", "\\u2029"])
def test_I11_E2_names_that_would_break_the_line_are_quoted(escape: str):
    """D-27: a value is printed as written unless it holds a character that is
    not printable (also the Unicode line separators, which JSON leaves raw) or
    is very long; then it is JSON-quoted, so a message stays one line. Such a
    name is refused (D-86), its error quoting it."""
    path = write("f.yaml", runtime("    priority: 0\n", name=f'"a{escape}b"'))
    result = explain(path)
    assert result.stderr.startswith(f'error: f.yaml:4: document 1: ClusterServingRuntime: metadata.name: Invalid value: "a{escape}b": ')
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize(("name", "namespace", "field", "rule"), [
    ("--kubeconfig=evil.cfg", "ns", "metadata.name", "subdomain"),
    ("Team-A", "ns", "metadata.name", "subdomain"),
    ("a_b", "ns", "metadata.name", "subdomain"),
    ("\u0430b", "ns", "metadata.name", "subdomain"),  # a Cyrillic а
    ("a.", "ns", "metadata.name", "subdomain"),
    ("a" * 254, "ns", "metadata.name", "subdomain"),
    ("rt", "ns.x", "metadata.namespace", "label"),
    ("rt", "-ns", "metadata.namespace", "label"),
    ("rt", "n" * 64, "metadata.namespace", "label"),
])
def test_issue28_D86_names_are_refused_as_the_api_server_refuses_them(name, namespace, field, rule):
    """A name no cluster can hold (was: read, and `steer -o patch` printed it where kubectl reads a flag)."""
    result = explain(write("f.yaml", runtime("", name=f'"{name}"').replace("kind: ClusterServingRuntime", "kind: ServingRuntime").replace(
        "metadata:\n", f'metadata:\n  namespace: "{namespace}"\n')))
    assert result.code == 1 and len(result.stderr.splitlines()) == 1, result.stderr
    assert f": {field}: Invalid value: " in result.stderr and f"a lowercase RFC 1123 {rule} must consist of" in result.stderr


def test_E2_a_file_name_that_would_break_the_line_is_quoted():
    write("a\nb.yaml", "kind: [\n")
    result = explain("a\nb.yaml")
    assert result.stderr.startswith('error: "a\\nb.yaml":2:1: document 1: not valid YAML: ')
    assert len(result.stderr.splitlines()) == 1


def test_E2_long_values_are_cut_in_messages():
    mode = "x" * 1000
    text = MODEL_DOC + f"---\napiVersion: ome.io/v1beta1\nkind: InferenceService\nmetadata: {{name: s}}\nspec:\n  model: {{name: m}}\n  deploymentMode: {mode}\n"
    assert_error(
        explain(write("f.yaml", text)),
        f'f.yaml:14: document 2: InferenceService default/s: spec.deploymentMode: Unsupported value: "{"x" * 100}"… '
        '(1000 characters): supported values: "OMENative", "RawDeployment"',
    )


# --- I11 and the Z2 / V2 readings: warnings, errors with --strict ---------------------


BAD_STRINGS = MODEL_DOC.replace("{name: safetensors}", '{name: safetensors, version: "1.08.0"}') + (
    "  modelParameterSize: 7b\n---\n"
    + runtime(
        "    autoselect: true\n",
        spec="  modelSizeRange:\n    max: 4b\n",
    )
    + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n"
)


def test_I11_Z2_V2_warnings_say_how_the_input_is_read():
    """Unparseable sizes and versions are accepted (I4), read as Z2 and V2 say, and
    each one is a warning, as are unknown kinds and likely typos (I11)."""
    result = explain(write("f.yaml", BAD_STRINGS))
    assert result.code == 0 and result.stdout.startswith("RUNTIME")
    assert result.stderr.splitlines() == [
        (
            'warning: f.yaml:6: document 1: ClusterBaseModel m: spec.modelFormat.version: "1.08.0" is not a version (V1); '
            "it never matches (V2)"
        ),
        'warning: f.yaml:8: document 1: ClusterBaseModel m: spec.modelParameterSize: "7b" is not a size (Z1); read as 0 (Z2)',
        (
            'warning: f.yaml:19: document 2: ClusterServingRuntime rt: spec.supportedModelFormats[0]: unknown field "autoselect"; '
            'did you mean "autoSelect"?'
        ),
        'warning: f.yaml:21: document 2: ClusterServingRuntime rt: spec.modelSizeRange.max: "4b" is not a size (Z1); read as 0 (Z2)',
        "warning: f.yaml:23: document 3: kind Deployment is not read by ome-asp",
    ]


def test_I11_strict_makes_the_first_warning_an_error():
    assert_error(
        explain(write("f.yaml", BAD_STRINGS), strict=True),
        'f.yaml:6: document 1: ClusterBaseModel m: spec.modelFormat.version: "1.08.0" is not a version (V1); it never matches (V2)',
    )


def test_V1_a_version_number_beyond_64_bits_is_only_unparseable():
    """V1: nums must fit in 64 bits; a 5,000-digit one is read by V2 (never matches), not a crash."""
    version = "1" * 5000
    text = MODEL_DOC.replace("{name: safetensors}", f'{{name: safetensors, version: "{version}"}}')
    result = explain(write("f.yaml", text))
    assert result.code == 0
    assert result.stderr.startswith('warning: f.yaml:6: document 1: ClusterBaseModel m: spec.modelFormat.version: "1111')


def test_I8_a_size_with_more_than_1000_digits_is_refused():
    """Sizes are exact (I8); Python refuses to convert numbers of more than 4,300 digits."""
    assert run_cli("explain", "--model", "m", "-f", write("ok.yaml", MODEL_DOC + "  modelParameterSize: " + "9" * 1000 + "B\n")).code == 0
    size = "1" * 1001
    assert_error(
        explain(write("f.yaml", MODEL_DOC + f"  modelParameterSize: {size}B\n")),
        f'f.yaml:8: document 1: ClusterBaseModel m: spec.modelParameterSize: Invalid value: "{"1" * 100}"… '
        "(1002 characters): more than 1000 digits",
    )


# --- E4 -------------------------------------------------------------------------------


def test_E4_exactly_1000_candidates_are_explained():
    """E4: the limit is "more than 1,000"; 1,000 candidates still get their table."""
    runtimes = "".join("---\n" + runtime(name=f"rt-{i:04d}") for i in range(1000))
    result = explain(write("f.yaml", MODEL_DOC + runtimes))
    assert result.code == 0 and len(result.stdout.splitlines()) == 1001


# --- limits -----------------------------------------------------------------------------


def test_input_size_is_bounded_in_total():
    """All files and stdin together; the limit itself is allowed. Inputs are
    read in the canonical order, stdin first (I10), whatever the order of -f."""
    write("a.yaml", MODEL_DOC)
    size = len(MODEL_DOC.encode())
    ok = run_cli("explain", "--model", "m", "-f", "a.yaml", "--max-input-size", str(size))
    assert ok.code == 0
    for order in (["a.yaml", "-"], ["-", "a.yaml"]):
        result = run_cli("explain", "--model", "m", "-f", order[0], "-f", order[1], "--max-input-size", str(size), stdin=b"#\n")
        assert_error(result, f"a.yaml: the input is larger than {size} bytes in total; raise the limit with --max-input-size")
    assert_error(
        run_cli("explain", "--model", "m", "-f", "a.yaml", "--max-input-size", "0Ki"),
        "a.yaml: the input is larger than 0 bytes in total; raise the limit with --max-input-size",
    )


def test_input_size_flag_takes_bytes_or_binary_quantities():
    assert [limits.parse_byte_size(t) for t in ("10", "2Ki", "64Mi", "1Gi")] == [10, 2048, 64 * 2**20, 2**30]
    assert limits.format_byte_size(limits.MAX_INPUT_BYTES) == "64Mi"
    assert_error(
        run_cli("explain", "--model", "m", "-f", "x", "--max-input-size", "1MB"),
        "argument --max-input-size: not a size: '1MB' (use bytes or a quantity such as 512Mi or 1Gi)",
    )


LAUGHS = "apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata: {name: m}\nspec:\n" + "".join(
    f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}" if i else '"lol"'] * 10) + "]\n" for i in range(10)
)


@pytest.fixture
def nothing_constructed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Constructing a document (where PyYAML expands aliases and merges `<<`)
    fails the test: a bomb is refused from its nodes, before (issue 39: these
    tests asserted wall-clock times instead)."""
    def construct_document(loader, node):
        raise AssertionError("a document was constructed")
    monkeypatch.setattr(documents._Loader, "construct_document", construct_document)


def test_billion_laughs_is_refused_before_anything_is_built(nothing_constructed):
    """1.2 * 10^10 nodes once expanded (the sum of the repunits 11 ... 11111111111
    and 21 others), 41 as written: refused before anything is built."""
    assert_error(explain(write("f.yaml", LAUGHS)),
                 "f.yaml:1: document 1: YAML aliases expand the document from 41 to 12345679031 nodes (limit: 100000)")


def test_merge_key_bomb_is_refused_before_anything_is_built(nothing_constructed):
    """`<<` merges copy pairs while PyYAML constructs; the check runs before that."""
    text = "kind: x\na0: &a0 {k0: 0, k1: 1}\n" + "".join(
        f"a{i}: &a{i} {{<<: [" + ", ".join([f"*a{i - 1}"] * 10) + "]}\n" for i in range(1, 9)
    )
    result = explain(write("f.yaml", text))
    assert result.code == 1 and "YAML aliases expand the document from" in result.stderr


def test_recursive_alias_is_refused():
    """The line is the anchor's."""
    assert_error(explain(write("f.yaml", "kind: x\nspec: &s\n  self: *s\n")), "f.yaml:2: document 1: a YAML alias refers to a node that contains it")


def test_anchors_within_the_limit_read_like_the_expanded_document():
    """I10: reusing an anchored entry is ordinary YAML and gives the same answer
    (anchors live within one document, here a `kind: List`)."""
    entry = "modelFormat: {name: safetensors}\n      modelFramework: {name: transformers}\n      autoSelect: true"
    item = "- apiVersion: ome.io/v1beta1\n  kind: ClusterServingRuntime\n  metadata: {{name: {}}}\n  spec:\n    supportedModelFormats:\n"
    anchored = "kind: List\nitems:\n" + item.format("rt") + f"    - &entry\n      {entry}\n" + item.format("rt2") + "    - *entry\n"
    expanded = "kind: List\nitems:\n" + item.format("rt") + f"    - {entry}\n" + item.format("rt2") + f"    - {entry}\n"
    first = explain(write("m.yaml", MODEL_DOC), write("a.yaml", anchored))
    second = explain(write("m.yaml", MODEL_DOC), write("b.yaml", expanded))
    assert first.code == 0 and (first.stdout, first.stderr) == (second.stdout, second.stderr)


def test_alias_check_counts_without_expanding(monkeypatch: pytest.MonkeyPatch):
    """The count itself must not expand: 10^30 nodes are counted by visiting
    each of the 64 written nodes twice (on the way down and back up)."""
    text = "a0: &a0 [x]\n" + "".join(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n" for i in range(1, 31))
    root = yaml.compose(text, Loader=documents._Loader)
    visits: list[int] = []  # ids: a failing assert would print the nodes, whose repr expands every alias
    children = limits._children
    monkeypatch.setattr(limits, "_children", lambda node: visits.append(id(node)) or children(node))
    node, why = check_alias_expansion(root)
    assert node is root and int(why.split(" to ")[1].split()[0]) > 10**30
    assert (len(visits), len(set(visits))) == (2 * 64, 64)


PIGEONS = "p(1..14). h(1..13). 1 { a(P, H) : h(H) } 1 :- p(P). :- a(P1, H), a(P2, H), P1 < P2."


def test_solving_is_bounded_in_time():
    """A pigeonhole problem clasp cannot finish is cancelled at the bound
    (how long that took is not asserted, issue 39: a bound not kept leaves
    the test running for hours, which CI's own limit reports)."""
    ctl = clingo.Control()
    ctl.add("base", [], PIGEONS)
    ctl.ground([("base", [])])
    with pytest.raises(SolveTimeout, match=r"^solving did not finish within 0\.2 s$"):
        solve_bounded(ctl, lambda model: None, 0.2)


def test_bounded_solving_finds_what_the_engine_finds():
    """solve_bounded with an on_model callback sees the same optimal models as the
    engine's `for model in handle` loop (the change proposed for ask.solve)."""
    facts = run_cli("explain", "--model", MODEL, "-n", "llama-demo", "-f", WORKED, "--show", "facts").stdout

    def grounded() -> clingo.Control:
        ctl = clingo.Control(["--opt-mode=optN", "--models=0"])
        ctl.load(str(programs.encoding_dir() / "main.lp"))
        ctl.add("base", [], facts)
        ctl.ground([("base", [])])
        return ctl

    ctl = grounded()
    with ctl.solve(yield_=True) as handle:
        expected = [m.symbols(shown=True) for m in handle if m.optimality_proven]
    optimal = []
    result = solve_bounded(grounded(), lambda m: optimal.append(m.symbols(shown=True)) if m.optimality_proven else None)
    assert result.satisfiable and len(optimal) == len(expected) == 1
    assert sorted(optimal[0]) == sorted(expected[0])


# --- internal errors: exit 3 and a reproduction ------------------------------------------


def failing_solve(error: Exception):
    def solve(*args, **kwargs):
        raise error

    return solve


def dump_of(stderr: str) -> Path:
    return Path(stderr.split("a reproduction is in ")[1].split(" (see README.md there)")[0])


def test_internal_error_from_the_engine_gives_exit_3_and_a_replayable_dump(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(ask, "solve", failing_solve(engine.InternalError("the encoding has no answer set for this input")))
    argv = ["explain", "--model", MODEL, "-n", "llama-demo", "-f", WORKED]
    result = run_cli(*argv)
    assert (result.code, result.stdout) == (3, "")
    dump = dump_of(result.stderr)
    assert result.stderr == (
        f"internal error: the encoding has no answer set for this input; a reproduction is in {dump} (see README.md there)\n"
    )
    assert dump.parent == Path(tempfile.tempdir) and dump.name.startswith("ome-asp-internal-error-")
    facts = run_cli(*argv, "--show", "facts").stdout
    assert (dump / "facts.lp").read_text() == facts.split("\n", 2)[2]  # the facts without the header comments
    assert sorted(p.name for p in (dump / "encoding").glob("*.lp")) == sorted(p.name for p in programs.encoding_dir().glob("*.lp"))
    assert (dump / "command.txt").read_text().endswith(f"ome-asp explain --model {MODEL} -n llama-demo -f {WORKED}\n")
    assert "python -m clingo facts.lp encoding/main.lp --opt-mode=optN --models=0" in (dump / "README.md").read_text()
    assert "InternalError: the encoding has no answer set" in (dump / "traceback.txt").read_text()
    replay = subprocess.run(
        [sys.executable, "-m", "clingo", "facts.lp", "encoding/main.lp", "--opt-mode=optN", "--models=0", "--outf=0", "-V0"],
        cwd=dump, capture_output=True, text=True, check=False,
    )
    assert "OPTIMUM FOUND" in replay.stdout


def test_unexpected_exception_is_an_internal_error_without_traceback(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(ask, "solve", failing_solve(ZeroDivisionError("division by zero")))
    result = run_cli("explain", "--model", MODEL, "-n", "llama-demo", "-f", WORKED)
    assert result.code == 3 and "Traceback" not in result.stderr
    assert result.stderr.startswith("internal error: ZeroDivisionError: division by zero; a reproduction is in ")
    assert (dump_of(result.stderr) / "facts.lp").is_file()


def test_an_internal_error_of_a_search_leaves_its_facts(monkeypatch: pytest.MonkeyPatch):
    """Every solve records its facts (ask.py): steer's edit search failing
    leaves the facts of the program it was about to solve; before, only
    explain, select and admit left any."""
    def broken_ground(program, files, load=None):
        if "edits.lp" in files:
            raise ZeroDivisionError("division by zero")
        return ground(program, files, load)

    ground = engine.ground_program
    monkeypatch.setattr(engine, "ground_program", broken_ground)
    result = run_cli("steer", "--model", MODEL, "-n", "llama-demo", "-f", WORKED, "--want", "srt-llama-small")
    assert result.code == 3 and result.stderr.startswith("internal error: ZeroDivisionError: division by zero; ")
    facts = (dump_of(result.stderr) / "facts.lp").read_text()
    assert "query(1)." in facts and "wanted(" in facts


def test_an_internal_error_in_a_batch_worker_leaves_its_chunks_facts(monkeypatch: pytest.MonkeyPatch, tmp_path):
    """-j 2: a chunk fails in a forked worker, which recorded the facts it was
    solving; the parent's reproduction holds them (analysis/batch.py), not
    what the parent solved last (D-120: a batch has no whole-cluster facts)."""
    def fail_a_chunk(facts, n_queries, variant, sizes=False):
        if n_queries:
            raise ZeroDivisionError("division by zero")
        return solve(facts, n_queries, variant, sizes)

    solve = ask.solve
    monkeypatch.setattr(ask, "solve", fail_a_chunk)
    documents = [model("a", "ns1"), model("b", "ns2"), runtime_doc("rt", "ns1"), runtime_doc("rt", "ns2")]
    result = run_cli("explain", "--all-models", "-j", "2", "-f", write_documents(tmp_path, *documents))
    assert result.code == 3 and result.stderr.startswith("internal error: ZeroDivisionError: division by zero; ")
    facts = (dump_of(result.stderr) / "facts.lp").read_text()
    assert 'query_namespace(1,"ns1").' in facts and 'runtime_declared(sr("ns1","rt")).' in facts
    assert 'sr("ns2","rt")' not in facts  # the first chunk's part of the cluster


def test_internal_error_before_the_facts_exist(monkeypatch: pytest.MonkeyPatch):
    def broken_load(*args, **kwargs):
        raise KeyError("spec")

    monkeypatch.setattr(options, "load", broken_load)
    result = run_cli("explain", "--model", MODEL, "-f", WORKED)
    assert result.code == 3 and result.stderr.startswith("internal error: KeyError: 'spec'; a reproduction is in ")
    dump = dump_of(result.stderr)
    assert not (dump / "facts.lp").exists()
    assert "failed before the facts were built" in (dump / "README.md").read_text()


def test_internal_error_when_no_dump_can_be_written(monkeypatch: pytest.MonkeyPatch):
    def no_space(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ask, "solve", failing_solve(engine.InternalError("boom")))
    monkeypatch.setattr(tempfile, "mkdtemp", no_space)
    result = run_cli("explain", "--model", MODEL, "-n", "llama-demo", "-f", WORKED)
    assert (result.code, result.stderr) == (3, "internal error: boom (no reproduction written: [Errno 28] No space left on device)\n")


def test_internal_error_in_a_non_utf8_directory_with_any_bytes(monkeypatch: pytest.MonkeyPatch, tmp_path):
    """Issue 38 item 7: a working directory, an argument and a message that are
    no UTF-8 (lone surrogates in Python) still give the one line, exit 3 and a
    reproduction whose command.txt holds the directory's own bytes (was: a
    UnicodeEncodeError traceback, exit 1). Fails when command.txt or the
    traceback is written as text in the strict encoding."""
    directory = tmp_path / os.fsdecode(b"team-\xff")
    directory.mkdir()
    monkeypatch.chdir(directory)
    monkeypatch.setattr(ask, "solve", failing_solve(ZeroDivisionError("a \udcff b \ud800")))
    result = run_cli("explain", "--model", MODEL, "-n", "llama-demo", "-f", WORKED, "--runtime", os.fsdecode(b"x\xfe"))
    assert result.code == 3 and len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith("internal error: ZeroDivisionError: a \udcff b \ud800; a reproduction is in ")
    dump = dump_of(result.stderr)
    command = (dump / "command.txt").read_bytes()
    assert command.startswith(b"cd '" + os.fsencode(str(directory)) + b"'\n") and command.endswith(b" --runtime 'x\xfe'\n")
    assert "a \\udcff b \\ud800" in (dump / "traceback.txt").read_text()


def test_unknown_reason_term_is_an_internal_error():
    with pytest.raises(engine.InternalError):
        reasons.text(clingo.Function("no_such_reason"))


def test_input_errors_are_never_internal(monkeypatch: pytest.MonkeyPatch):
    """I4: an InputError is the user's: `error:`, exit 1, no dump."""
    def refuse(*args, **kwargs):
        raise InputError("f.yaml:1: document 1: kind: Required value")

    monkeypatch.setattr(options, "load", refuse)
    assert_error(run_cli("explain", "--model", "m", "-f", "f.yaml"), "f.yaml:1: document 1: kind: Required value")
    assert not list(Path(tempfile.tempdir).glob("ome-asp-internal-error-*"))


def test_I9_E2_admission_warning_stays_one_line_for_odd_names():
    text = MODEL_DOC + "---\n" + runtime(
        spec='  acceleratorRequirements:\n    acceleratorClasses: ["x\\ny"]\n'
    )
    result = explain(write("f.yaml", text))
    assert result.code == 0
    assert all(line.startswith(("warning: ", "No serving runtimes")) for line in result.stderr.splitlines())


def test_E4_E2_not_found_stays_one_line_for_odd_names():
    result = run_cli("explain", "--model", "a\nb", "-f", write("f.yaml", MODEL_DOC))
    assert_error(result, 'clusterbasemodels.ome.io "a\\nb" not found')


# --- issue 18: never a wrong answer or a traceback ------------------------------------------

ROOT = Path(__file__).resolve().parent.parent


def console(*argv, env: dict | None = None, **popen) -> subprocess.CompletedProcess:
    """The installed command (ome_asp.console), as a user's shell runs it."""
    return subprocess.run([sys.executable, "-m", "ome_asp.console", *argv], capture_output=not popen,
                          env={**os.environ, **(env or {})}, timeout=120, **popen)


def many_runtimes(count: int) -> str:
    return write("many.yaml", MODEL_DOC + "".join("---\n" + runtime(name=f"rt-{i:04d}") for i in range(count)))


@pytest.mark.parametrize("flag", ["--model", "--isvc", "-n"])
def test_issue18_D10_a_query_name_clingo_cannot_carry_is_an_error(flag: str):
    """NUL was cut short by clingo into another name: a wrong answer. A lone
    surrogate (an argument that is not UTF-8) crashed the facts."""
    target = [] if flag != "-n" else ["--model", "m"]
    result = run_cli("explain", *target, flag, "a\0b", "-f", write("f.yaml", MODEL_DOC))
    field = {"--model": "model", "--isvc": "isvc", "-n": "namespace"}[flag]
    assert_error(result, f'{field}: Invalid value: "a\\u0000b": must not contain a NUL character')
    result = run_cli("explain", *target, flag, "a\udcff", "-f", "f.yaml")
    assert_error(result, f'{field}: Invalid value: "a\\udcff": must be valid Unicode')
    result = run_cli("select", *target, flag, "a\0b", "-f", "f.yaml")
    assert (result.code, result.stderr) == (2, f'error: {field}: Invalid value: "a\\u0000b": must not contain a NUL character\n')


def test_issue18_arguments_that_are_not_utf8_and_a_c_locale():
    """Bytes that are not UTF-8 are refused; UTF-8 names work under LC_ALL=C,
    and the output is UTF-8 whatever the locale."""
    write("f.yaml", MODEL_DOC)
    result = console(b"explain", b"--model", b"\xff", b"-f", b"f.yaml")
    assert (result.returncode, result.stderr) == (1, b'error: model: Invalid value: "\\udcff": must be valid Unicode\n')
    # issue 28: checked before the input is read (was: a namespace warning first)
    result = console(b"explain", b"--model", b"\xff", b"-n", b"other", b"-f", b"f.yaml")
    assert (result.returncode, result.stderr) == (1, b'error: model: Invalid value: "\\udcff": must be valid Unicode\n')
    c_locale = {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    result = console("explain", "--model", "modèle", "-f", "f.yaml", "-o", "json", env=c_locale)
    assert (result.returncode, result.stderr) == (1, 'error: clusterbasemodels.ome.io "modèle" not found\n'.encode())
    result = console("explain", "--model", "modèl", "-f", "f.yaml", env=c_locale)
    assert (result.returncode, result.stderr) == (1, 'error: clusterbasemodels.ome.io "modèl" not found\n'.encode())


def test_issue18_stdout_closed_or_full_is_one_error_line():
    write("f.yaml", MODEL_DOC)
    closed = console("explain", "--model", "m", "-f", "f.yaml", stdout=None, stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1))
    assert (closed.returncode, closed.stderr) == (1, b"error: standard output is closed\n")
    with open("/dev/full", "w") as full:
        for argv in (["explain", "--model", MODEL, "-n", "llama-demo", "-f", WORKED], ["explain", "--model", "m", "-f", many_runtimes(300)],
                     ["select", "--model", "m", "-f", "f.yaml", "-o", "json"]):
            result = console(*argv, stdout=full, stderr=subprocess.PIPE)
            code = 1 if argv[0] == "explain" else 2
            assert (result.returncode, result.stderr) == (code, b"error: cannot write the output: No space left on device\n"), argv


@pytest.mark.parametrize("unbuffered", ["", "1"])
def test_issue18_D48_a_closed_pipe_exits_141_also_unbuffered(unbuffered: str):
    """With PYTHONUNBUFFERED=1 a raw write took part of the text and dropped
    the rest without an error: exit 0 and a truncated output."""
    process = subprocess.Popen([sys.executable, "-m", "ome_asp.console", "explain", "--model", "m", "-f", many_runtimes(1000),
                                "--show", "facts"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "PYTHONUNBUFFERED": unbuffered})
    process.stdout.read(10)
    process.stdout.close()
    assert (process.wait(timeout=120), process.stderr.read()) == (141, b"")


def test_issue18_ctrl_c_in_any_phase_is_one_line_and_exit_130():
    """SIGINT while importing, reading, solving or writing: `error: interrupted`, 130.
    The signal is sent from inside the process after a delay, so every delay
    falls in ome-asp's own run (not the interpreter's start-up)."""
    path = many_runtimes(600)
    script = (
        "import os, signal, sys, threading\n"
        "from ome_asp.console import main\n"
        "threading.Timer(float(sys.argv[1]), os.kill, (os.getpid(), signal.SIGINT)).start()\n"
        f"sys.argv = ['ome-asp', 'explain', '--model', 'm', '-f', {path!r}]\n"
        "main()\n"
    )
    codes = set()
    for delay in ("0.01", "0.03", "0.1", "0.3", "0.6", "1", "1.5", "2.5"):
        result = subprocess.run([sys.executable, "-c", script, delay], capture_output=True, timeout=120)
        codes.add(result.returncode)
        assert (result.returncode, result.stderr) in {(130, b"error: interrupted\n"), (0, b"")}, delay
    assert 130 in codes


def test_issue18_ome_version_with_a_5000_digit_component():
    result = run_cli("explain", "--model", "m", "--ome-version", "1." + "9" * 5000 + ".0", "-f", write("f.yaml", MODEL_DOC))
    assert_error(result, '--ome-version: "1.' + "9" * 98 + '"… (5004 characters) is not a version such as 1.3.0')


def test_issue18_gen_and_diff_output_that_cannot_be_written():
    write("file", "not a directory")
    result = run_cli("gen", "--count", "1", "--seed", "1", "-o", "file/cases")
    assert (result.code, result.stderr) == (2, "error: cannot write file/cases/gen-1-0000: Not a directory\n")


def test_issue18_a_fifo_in_a_directory_is_skipped_with_a_warning():
    """`-f DIR` opened a FIFO named *.yaml and blocked forever."""
    write("dir/m.yaml", MODEL_DOC)
    os.mkfifo("dir/pipe.yaml")
    result = run_cli("explain", "--model", "m", "-f", "dir")
    assert (result.code, result.stderr) == (0, "warning: dir/pipe.yaml: not a regular file; skipped\nNo serving runtimes found in the selected namespace or at cluster scope.\n")
    assert_error(run_cli("explain", "--model", "m", "-f", "dir", "--strict"), "dir/pipe.yaml: not a regular file; skipped")


def test_issue18_a_huge_input_limit_is_never_allocated(monkeypatch: pytest.MonkeyPatch):
    """--max-input-size at or above free memory (or 2^63): reading must not preallocate it."""
    result = run_cli("explain", "--model", "m", "-f", write("f.yaml", MODEL_DOC), "--max-input-size", str(2**63))
    assert result.code == 0, result.stderr
    sizes = []
    real = limits.InputBudget.read

    class Spy:
        def __init__(self, stream):
            self.stream = stream

        def read(self, size=-1):
            sizes.append(size)
            return self.stream.read(size)

    monkeypatch.setattr(limits.InputBudget, "read", lambda self, stream, label: real(self, Spy(stream), label))
    assert run_cli("explain", "--model", "m", "-f", "f.yaml", "--max-input-size", str(2**40)).code == 0
    assert sizes and max(sizes) <= limits.READ_CHUNK


# --- issue 18: scalars and keys as kubectl reads them -------------------------------------

#: A plain scalar in a manifest, what kubectl sends the API server for it
#: (sigs.k8s.io/yaml: go-yaml's types, then JSON), and so what ome-asp reads.
#: PyYAML's YAML 1.1 reads the first rows otherwise (1:30 as 90, 0o17 as a
#: string, y as a string); D-59.
KUBECTL_SCALARS = [
    ("1:30", "1:30"),  # no base 60: a string
    ("1:30.5", "1:30.5"),
    ("-1:30", "-1:30"),
    ("017", 15),
    ("0x1f", 31),
    ("1_000", 1000),
    ("+5", 5),
    ("yes", True),
    ("off", False),
    ("1.5", 1.5),
    ("2024-01-01", "2024-01-01"),  # no timestamps
    ("=", "="),
    ("1.2.3", "1.2.3"),
    ("~", None),
]
#: Where kubectl (go-yaml) and ome-asp still differ, and why that is safe:
#: kubectl reads these as a boolean, an int and a number; ome-asp reads
#: strings, which every field that takes a boolean or a number refuses (I4).
KUBECTL_DIFFERENCES = [("y", "y"), ("N", "N"), ("0o17", "0o17"), ("1e3", "1e3")]


@pytest.mark.parametrize(("text", "value"), KUBECTL_SCALARS + KUBECTL_DIFFERENCES)
def test_issue18_D59_plain_scalars_read_as_kubectl_sends_them(text: str, value):
    assert next(documents.documents("f.yaml", f"v: {text}\n")).content == {"v": value}


@pytest.mark.parametrize(("text", "accepted"), [
    ("1:30", 'Invalid value: "string": spec.supportedModelFormats[0].priority in body must be of type integer: "string"'),
    ("017", 15),
    ("0o17", 'Invalid value: "string": spec.supportedModelFormats[0].priority in body must be of type integer: "string"'),
])
def test_issue18_D59_priority_as_the_api_server_takes_it(text: str, accepted):
    """`priority: 1:30` was read as 90; the API server gets the string "1:30" and refuses it."""
    path = write("f.yaml", runtime(f"    priority: {text}\n"))
    if isinstance(accepted, int):
        from ome_asp.input.loader import load

        assert load([path]).runtimes[0].entries[0].priority == accepted
    else:
        assert_error(explain(path), f"f.yaml:10: document 1: ClusterServingRuntime rt: spec.supportedModelFormats[0].priority: {accepted}")


def test_issue18_D59_keys_are_json_keys_and_1_and_true_do_not_collide():
    text = "a:\n  1: one\n  true: yes\n  ~: v\n  01: x\n"
    with pytest.raises(InputError, match='f.yaml:5:3: document 1: not valid YAML: mapping key "1" already defined at line 2'):
        list(documents.documents("f.yaml", text))
    assert next(documents.documents("f.yaml", text[:-8])).content == {"a": {"1": "one", "true": True, "null": "v"}}
    for key, kind in (("[a]", "an array"), ("{a: 1}", "an object"), ("1.5", "a number")):
        with pytest.raises(InputError, match=f"not valid YAML: a mapping key must be a string, an integer, a boolean or null, not {kind}"):
            list(documents.documents("f.yaml", f"? {key}\n: v\n"))


def test_issue18_a_bom_at_the_start_of_a_later_document():
    """libyaml skipped a BOM only at the start of the stream; after `---` it
    read `kind` at column 1 and the document's other keys went missing: a
    misleading "metadata.name: Required value"."""
    text = "\ufeff" + MODEL_DOC + "---\n\ufeff" + MODEL_DOC.replace("name: m", "name: m2") + "\ufeff---\n" + MODEL_DOC.replace("name: m", "name: m3")
    write("f.yaml", text.encode())
    result = explain("f.yaml", model="m3")
    assert (result.code, result.stderr) == (0, "No serving runtimes found in the selected namespace or at cluster scope.\n")


@pytest.mark.parametrize("space", ["\u2028", "\u2029", "\u0085"])
def test_issue18_alias_guard_sees_every_alias_libyaml_parses(space: str, nothing_constructed):
    """A merge-key bomb whose aliases follow a line break only libyaml knows
    (U+2028, U+2029, U+0085) ran for minutes: any `*` now triggers the check."""
    lines = ["a: &a {x0: 0, x1: 1, x2: 2, x3: 3, x4: 4, x5: 5, x6: 6, x7: 7, x8: 8, x9: 9}"]
    for parent, child in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{child}: &{child} [" + ",".join(f"{space}*{parent}" for _ in range(10)) + "]")
    with pytest.raises(InputError, match="YAML aliases expand the document"):
        list(documents.documents("f.yaml", "\n".join(lines) + "\n"))


def test_issue18_pinned_yaml_reader():
    """What the loader relies on: PyYAML 6 with libyaml (its nesting limit of
    1,000 and the line breaks above); pyproject.toml pins pyyaml>=6.0.1,<7."""
    assert yaml.__version__.split(".")[0] == "6" and yaml.__with_libyaml__
    assert documents._SafeLoader is yaml.CSafeLoader


def test_issue18_I10_two_bad_files_give_the_same_error_whatever_the_order():
    write("a.yaml", "kind: [\n")
    write("b.yaml", MODEL_DOC.replace("kind: ClusterBaseModel", "kind: ''"))
    write("c.yaml", MODEL_DOC)
    write("d.yaml", MODEL_DOC)
    for files in (("a.yaml", "b.yaml"), ("b.yaml", "a.yaml")):
        assert_error(explain(*files), "a.yaml:2:1: document 1: not valid YAML: did not find expected node content")
    for files in (("c.yaml", "d.yaml"), ("d.yaml", "c.yaml")):
        assert_error(explain(*files), "d.yaml:1: document 1: ClusterBaseModel m: duplicate object, first defined at c.yaml:1: document 1" + KUSTOMIZE_HINT)
