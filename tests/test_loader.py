"""Tests of the manifest loader (spec I1–I5, I10, I11, M4, M5; OQ-22, OQ-24).

Messages are asserted exactly, with the user's own tokens (file, document
number, kind, namespace/name, field path), because the CLI prints them as
they are.
"""

from __future__ import annotations

import io
import itertools
from pathlib import Path
from typing import Any

import pytest
import yaml

from ome_asp import records
from ome_asp.errors import InputError
from ome_asp.input import documents, profiles
from ome_asp.input.loader import KUSTOMIZE_HINT, load
from ome_asp.input.objects import (
    AcceleratorClass,
    Cluster,
    Component,
    Entry,
    FormatRef,
    InferenceService,
    Model,
    Pipeline,
    Runtime,
    SizeRange,
    Source,
)

# --- helpers -------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Relative paths, so messages read as the user would see them."""
    monkeypatch.chdir(tmp_path)


def obj(kind: str, name: str, spec: dict | None = None, namespace: str | None = None, **metadata: Any) -> dict:
    document: dict[str, Any] = {"apiVersion": "ome.io/v1beta1", "kind": kind, "metadata": {"name": name, **metadata}}
    if namespace is not None:
        document["metadata"]["namespace"] = namespace
    if spec is not None:
        document["spec"] = spec
    return document


def entry(**fields: Any) -> dict:
    return {"modelFormat": {"name": "safetensors"}, "modelFramework": {"name": "transformers"}, **fields}


def csr(name: str = "rt", *entries: dict, **spec: Any) -> dict:
    return obj("ClusterServingRuntime", name, {"supportedModelFormats": list(entries or [entry()]), **spec})


def sr(name: str = "rt", namespace: str = "ns", **spec: Any) -> dict:
    return obj("ServingRuntime", name, {"supportedModelFormats": [entry()], **spec}, namespace)


def isvc(name: str = "svc", namespace: str = "ns", **spec: Any) -> dict:
    return obj("InferenceService", name, {"model": {"name": "m"}, **spec}, namespace)


def write(name: str, *documents: Any) -> str:
    path = Path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(documents, sort_keys=False))
    return name


def load_docs(*documents: Any, strict: bool = False) -> Cluster:
    return load([write("m.yaml", *documents)], strict=strict)


def load_text(text: str, strict: bool = False) -> Cluster:
    Path("m.yaml").write_text(text)
    return load(["m.yaml"], strict=strict)


def error(*documents: Any, strict: bool = False) -> str:
    with pytest.raises(InputError) as caught:
        load_docs(*documents, strict=strict)
    return str(caught.value)


def text_error(text: str | bytes) -> str:
    Path("m.yaml").write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(InputError) as caught:
        load(["m.yaml"])
    return str(caught.value)


def type_error(path: str, expected: str, actual: str) -> str:
    return f'{path}: Invalid value: "{actual}": {path} in body must be of type {expected}: "{actual}"'


def without_sources(cluster: Cluster) -> Cluster:
    """The cluster with every `source` blanked: what must not depend on input
    order (I10; models and AcceleratorClasses as sets, D-170)."""

    def strip(items: list) -> list:
        return [records.replace(item, source=None) for item in items]

    return Cluster(
        models=sorted(strip(cluster.models), key=repr),
        runtimes=strip(cluster.runtimes),
        inference_services=strip(cluster.inference_services),
        accelerator_classes=sorted(strip(cluster.accelerator_classes), key=repr),
        warnings=cluster.warnings,
    )


# --- 13.1 worked example -----------------------------------------------------------

WORKED_EXAMPLE = (Path(__file__).resolve().parent.parent / "fixtures" / "worked-example" / "manifests.yaml").read_text()


def llama_entry(priority: int, format_weight: int = 1) -> Entry:
    return Entry(
        name=None,
        model_format=FormatRef("safetensors", "1.0.0", "Equal", format_weight),
        model_framework=FormatRef("transformers", "4.45.0.dev0", "Equal", 1),
        architecture="LlamaForCausalLM",
        auto_select=True,
        priority=priority,
    )


def test_worked_example_13_1_loads_to_the_expected_objects() -> None:
    """13.1 with I2 (fields read), I3 (weights not written are 1) and I10 (canonical order)."""
    cluster = load_text(WORKED_EXAMPLE)

    def src(document: int) -> Source:
        return Source("m.yaml", document)

    assert cluster == Cluster(
        models=[
            Model(
                kind="BaseModel",
                namespace="llama-demo",
                name="llama-3-2-3b-instruct",
                source=src(1),
                model_format=FormatRef("safetensors", "1.0.0"),
                model_framework=FormatRef("transformers", "4.45.0.dev0"),
                architecture="LlamaForCausalLM",
                size="3.21B",
            )
        ],
        runtimes=[
            Runtime(
                "ClusterServingRuntime",
                None,
                "srt-llama-large",
                src(5),
                entries=(llama_entry(3),),
                size_range=SizeRange("1B", "70B"),
            ),
            Runtime(
                "ClusterServingRuntime",
                None,
                "srt-llama-small",
                src(4),
                entries=(llama_entry(3),),
                size_range=SizeRange("1B", "8B"),
            ),
            Runtime("ClusterServingRuntime", None, "vllm-llama", src(3), entries=(llama_entry(2, format_weight=2),)),
            Runtime("ServingRuntime", "llama-demo", "team-llama", src(2), entries=(llama_entry(1),)),
        ],
        inference_services=[
            InferenceService("llama-demo", "llama-chat", src(6), model_name="llama-3-2-3b-instruct", has_engine=True)
        ],
        accelerator_classes=[],
        warnings=[],
    )


# --- I1: input forms ---------------------------------------------------------------


def test_directory_is_read_recursively_in_sorted_path_order_with_extension_filter() -> None:
    """I1, I10: only *.yaml, *.yml, *.json below a directory, in sorted path order
    (which numbers nothing but the messages)."""
    write("dir/b.yaml", {"kind": "ConfigMap"})
    write("dir/a/x.yml", {"kind": "Secret"})
    Path("dir/a/y.json").write_text('{"kind": "Pod"}')
    Path("dir/notes.txt").write_text("not: [yaml")  # would fail if read
    Path("dir/c.YAML").write_text("not: [yaml")  # extensions are case-sensitive, as in kubectl
    cluster = load(["dir"])
    assert cluster.warnings == [
        "dir/a/x.yml:1: document 1: kind Secret is not read by ome-asp",
        "dir/a/y.json:1: document 1: kind Pod is not read by ome-asp",
        "dir/b.yaml:1: document 1: kind ConfigMap is not read by ome-asp",
    ]


def test_directory_label_keeps_the_path_as_given() -> None:
    """I1: file labels are the user's path joined with the relative file name."""
    write("dir/sub/m.yaml", obj("AcceleratorClass", "h100"))
    assert load(["dir/"]).accelerator_classes == [AcceleratorClass("h100", Source("dir/sub/m.yaml", 1))]


def test_a_file_named_explicitly_is_read_whatever_its_extension() -> None:
    """I1: the extension filter applies to directories only."""
    write("manifest.txt", obj("AcceleratorClass", "h100"))
    assert [c.name for c in load(["manifest.txt"]).accelerator_classes] == ["h100"]


def test_missing_file_is_an_input_error() -> None:
    """I4 (malformed input): a path that does not exist."""
    with pytest.raises(InputError, match=r"^nope\.yaml: No such file or directory$"):
        load(["nope.yaml"])


@pytest.mark.parametrize("stream", [io.BytesIO, lambda b: io.StringIO(b.decode())], ids=["binary", "text"])
def test_dash_reads_stdin_labelled_stdin(stream: Any) -> None:
    """I1: `-` reads the given stdin stream; messages name it `<stdin>`."""
    data = yaml.safe_dump_all([{"kind": "Pod"}, obj("AcceleratorClass", "h100")]).encode()
    cluster = load(["-"], stdin=stream(data))
    assert cluster.warnings == ["<stdin>:1: document 1: kind Pod is not read by ome-asp"]
    assert cluster.accelerator_classes == [AcceleratorClass("h100", Source("<stdin>", 2))]


def test_stdin_and_files_combine_in_argument_order() -> None:
    """I1: several inputs form one cluster."""
    write("a.yaml", {"kind": "Pod"})
    cluster = load(["-", "a.yaml"], stdin=io.BytesIO(b"kind: Secret\n"))
    assert cluster.warnings == [
        "<stdin>:1: document 1: kind Secret is not read by ome-asp",
        "a.yaml:1: document 1: kind Pod is not read by ome-asp",
    ]


def test_list_documents_are_unwrapped_with_item_indexes() -> None:
    """I1: `kind: List` (kubectl get -o yaml) contributes each item; sources carry items[i]."""
    listing = {
        "apiVersion": "v1",
        "kind": "List",
        "metadata": {"resourceVersion": ""},
        "items": [
            obj("AcceleratorClass", "h100"),
            {"apiVersion": "v1", "kind": "Pod"},
            obj("AcceleratorClass", "a100"),
        ],
    }
    cluster = load_docs({"kind": "Secret"}, listing)
    assert cluster.accelerator_classes == [
        AcceleratorClass("h100", Source("m.yaml", 2, 0)),
        AcceleratorClass("a100", Source("m.yaml", 2, 2)),
    ]
    assert cluster.warnings == [
        "m.yaml:1: document 1: kind Secret is not read by ome-asp",
        "m.yaml:12: document 2: items[1]: kind Pod is not read by ome-asp",
    ]


def test_errors_inside_a_list_name_the_item() -> None:
    """I1, I4: an item's error names `items[i]`; a List without items is empty."""
    listing = {"kind": "List", "items": [obj("AcceleratorClass", "h100"), ["not", "a", "mapping"]]}
    assert error(listing) == "m.yaml:7: document 1: items[1]: expected an object (a YAML mapping), found array"
    assert error({"kind": "List", "items": None}) == "no objects in the input: m.yaml"
    assert error({"kind": "List", "items": {}}) == "m.yaml:2: document 1: List: " + type_error("items", "array", "object")


def test_empty_documents_are_skipped_but_keep_their_number() -> None:
    """I1: `---` with nothing is no object; document numbers count stream positions."""
    cluster = load_text("---\n---\nkind: Pod\n---\n# just a comment\n---\nkind: Secret\n---\n")
    assert cluster.warnings == [
        "m.yaml:3: document 2: kind Pod is not read by ome-asp",
        "m.yaml:7: document 4: kind Secret is not read by ome-asp",
    ]


def test_json_input_is_read() -> None:
    """I1: JSON is YAML."""
    Path("m.json").write_text(
        '{"apiVersion": "ome.io/v1beta1", "kind": "AcceleratorClass", "metadata": {"name": "h100"}}'
    )
    assert [c.name for c in load(["m.json"]).accelerator_classes] == ["h100"]


def test_namespaced_objects_without_namespace_go_to_default_without_warning() -> None:
    """I1, OQ-22: no (or an empty) metadata.namespace means `default`, silently."""
    cluster = load_docs(
        obj("BaseModel", "m", {}),
        obj("ServingRuntime", "rt", {}, namespace=""),
        obj("InferenceService", "svc", {"model": {"name": "m"}}),
    )
    assert [m.namespace for m in cluster.models] == ["default"]
    assert [r.namespace for r in cluster.runtimes] == ["default"]
    assert [s.namespace for s in cluster.inference_services] == ["default"]
    assert cluster.warnings == []


def test_cluster_scoped_objects_ignore_a_namespace() -> None:
    """I1: ClusterBaseModel, ClusterServingRuntime and AcceleratorClass have no namespace."""
    cluster = load_docs(
        obj("ClusterBaseModel", "m", {}, namespace="x"),
        csr("rt") | {"metadata": {"name": "rt", "namespace": 5}},  # not even type-checked
        obj("AcceleratorClass", "h100", namespace="x"),
    )
    assert cluster.models[0].namespace is None
    assert cluster.runtimes[0].namespace is None
    assert cluster.accelerator_classes[0].name == "h100"


def test_strings_are_kept_exactly_as_written() -> None:
    """I6, I2: no trimming or case folding; sizes and versions stay unparsed strings."""
    spec = {
        "modelFormat": {"name": " SafeTensors ", "version": "v1.0.0-rc1"},
        "modelArchitecture": "llamaForCausalLM",
        "modelParameterSize": "3.21 b",
    }
    (model,) = load_docs(obj("ClusterBaseModel", "m", spec)).models
    assert model.model_format == FormatRef(" SafeTensors ", "v1.0.0-rc1")
    assert (model.architecture, model.size) == ("llamaForCausalLM", "3.21 b")


def test_unquoted_dates_stay_strings() -> None:
    """I2, I4: like Kubernetes' YAML reader, `2024-01-01` is a string, not a timestamp."""
    cluster = load_text(
        "apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata: {name: m}\n"
        "spec: {modelFormat: {name: safetensors, version: 2024-01-01}}\n"
    )
    assert cluster.models[0].model_format == FormatRef("safetensors", "2024-01-01")


# --- I2: fields read -----------------------------------------------------------------


def test_runtime_fields_are_read() -> None:
    """I2: every runtime path selection reads, including pipelines (Q20–Q23) and modes (D2)."""
    pipeline = {
        "className": "FluxPipeline",
        "scheduler": {"library": "diffusers", "type": "FlowMatch"},
        "vae": {},
        "additionalComponents": {"text_encoder_2": {"library": "transformers"}, "extra": None},
    }
    runtime = sr(
        "rt",
        "ns",
        disabled=False,
        supportedModelFormats=[
            entry(
                name="vllm",
                modelArchitecture="LlamaForCausalLM",
                quantization="fp8",
                diffusionPipeline=pipeline,
                autoSelect=False,
                priority=7,
            ),
            entry(diffusionPipeline={"additionalComponents": {}}),
        ],
        modelSizeRange={},
        acceleratorRequirements={"acceleratorClasses": ["h100", "h200"]},
        engineConfig={"annotations": {"ome.io/deploymentMode": "MultiNode"}},
        decoderConfig={"annotations": {"ome.io/deploymentMode": ""}},
    )
    (loaded,) = load_docs(runtime).runtimes
    assert loaded == Runtime(
        kind="ServingRuntime",
        namespace="ns",
        name="rt",
        source=Source("m.yaml", 1),
        disabled=False,
        entries=(
            Entry(
                name="vllm",
                model_format=FormatRef("safetensors", None, "Equal", 1),
                model_framework=FormatRef("transformers", None, "Equal", 1),
                architecture="LlamaForCausalLM",
                quantization="fp8",
                pipeline=Pipeline(
                    class_name="FluxPipeline",
                    components={"scheduler": Component("diffusers", "FlowMatch"), "vae": Component()},
                    additional={"text_encoder_2": Component("transformers"), "extra": Component()},
                ),
                auto_select=False,
                priority=7,
            ),
            Entry(
                name=None,
                model_format=FormatRef("safetensors", None, "Equal", 1),
                model_framework=FormatRef("transformers", None, "Equal", 1),
                pipeline=Pipeline(additional={}),
            ),
        ),
        size_range=SizeRange(),
        accelerator_classes=("h100", "h200"),
        engine_mode="MultiNode",
        decoder_mode="",
    )


def test_absent_and_empty_runtime_parts_differ() -> None:
    """I2, A3: no acceleratorClasses is None, `[]` is an empty tuple; no range is None."""
    absent, empty = load_docs(
        csr("a"), csr("b", acceleratorRequirements={"acceleratorClasses": []}, modelSizeRange={"max": "8B"})
    ).runtimes
    assert (absent.accelerator_classes, absent.size_range) == (None, None)
    assert (empty.accelerator_classes, empty.size_range) == ((), SizeRange(max="8B"))


def test_model_fields_are_read_and_operator_weight_ignored() -> None:
    """I2, M5: a model's operator and weight are not kept."""
    spec = {
        "modelFormat": {"name": "safetensors", "version": "1.0.0", "operator": "GreaterThan", "weight": 9},
        "modelFramework": {"name": "diffusers", "version": "0.30", "weight": 9},
        "modelArchitecture": "FluxPipeline",
        "quantization": "int4",
        "diffusionPipeline": {"className": "FluxPipeline", "transformer": {"type": "FluxTransformer2DModel"}},
        "modelParameterSize": "12B",
        "disabled": True,
    }
    assert load_docs(obj("ClusterBaseModel", "flux", spec)).models == [
        Model(
            kind="ClusterBaseModel",
            namespace=None,
            name="flux",
            source=Source("m.yaml", 1),
            model_format=FormatRef("safetensors", "1.0.0"),
            model_framework=FormatRef("diffusers", "0.30"),
            architecture="FluxPipeline",
            quantization="int4",
            pipeline=Pipeline("FluxPipeline", {"transformer": Component(type="FluxTransformer2DModel")}),
            size="12B",
            disabled=True,
        )
    ]


@pytest.mark.parametrize("model_format", [None, {}, {"name": ""}, {"version": "1"}])
def test_model_without_format_name_loads(model_format: dict | None) -> None:
    """M4: a model without a format name is reported at query time, not by the loader."""
    spec = {} if model_format is None else {"modelFormat": model_format}
    (model,) = load_docs(obj("BaseModel", "m", spec, "ns")).models
    assert model.model_format == (
        None if model_format is None else FormatRef(model_format.get("name"), model_format.get("version"))
    )


def test_inference_service_fields_are_read() -> None:
    """I2, O9: every ISVC path selection reads."""
    service = isvc(
        runtime={"name": "rt", "kind": "ServingRuntime"},
        acceleratorSelector={"acceleratorClass": "h100", "policy": "BestFit"},
        engine={
            "acceleratorOverride": {"acceleratorClass": "h200"},
            "annotations": {"ome.io/deploymentMode": "MultiNode"},
            "runner": {"image": "img:1"},
            "leader": {"runner": {"image": "leader:1"}},
            "worker": {"runner": {"image": "worker:1"}, "size": 2},
        },
        decoder={
            "acceleratorOverride": {"acceleratorClass": "a100"},
            "annotations": {"ome.io/deploymentMode": "Bogus"},
        },
        deploymentMode="RawDeployment",
    )
    service["metadata"]["annotations"] = {"ome.io/accelerator-class": "", "ome.io/deploymentMode": "MultiNode"}
    assert load_docs(service).inference_services == [
        InferenceService(
            namespace="ns",
            name="svc",
            source=Source("m.yaml", 1),
            model_name="m",
            runtime_name="rt",
            runtime_kind="ServingRuntime",
            accelerator_annotation="",
            selector_class="h100",
            engine_class="h200",
            decoder_class="a100",
            has_engine=True,
            has_decoder=True,
            engine_mode="MultiNode",
            decoder_mode="Bogus",
            deployment_mode="RawDeployment",
            engine_runner_image="img:1",
            engine_leader_image="leader:1",
            engine_worker_image="worker:1",
        )
    ]


def test_inference_service_without_model_names_a_runtime() -> None:
    """M6, I2: spec.model absent; an empty engine still counts as present."""
    service = obj("InferenceService", "svc", {"runtime": {"name": "rt"}, "engine": {}}, "ns")
    (loaded,) = load_docs(service).inference_services
    assert (loaded.model_name, loaded.runtime_name, loaded.has_engine, loaded.has_decoder) == (None, "rt", True, False)


def test_accelerator_class_reads_only_its_name() -> None:
    """I2: AcceleratorClass `spec` is ignored silently."""
    cluster = load_docs(obj("AcceleratorClass", "h100", {"vendor": 1, "whatever": {"x": []}}))
    assert cluster.accelerator_classes == [AcceleratorClass("h100", Source("m.yaml", 1))]
    assert cluster.warnings == []


# --- I3: defaults ----------------------------------------------------------------------


def test_entry_defaults() -> None:
    """I3: absent weight 1, absent operator Equal; priority and autoSelect stay absent."""
    (runtime,) = load_docs(csr()).runtimes
    (e,) = runtime.entries
    assert e.model_format == FormatRef("safetensors", None, "Equal", 1)
    assert e.model_framework == FormatRef("transformers", None, "Equal", 1)
    assert (e.priority, e.auto_select) == (None, None)


def test_explicit_entry_values_are_kept() -> None:
    """I3: an explicit weight 0 or -1 and any operator string are kept as written."""
    e = entry(
        modelFormat={"name": "f", "weight": 0, "operator": "GreaterThan"},
        modelFramework={"name": "w", "weight": -1, "operator": "Whatever"},
    )
    (runtime,) = load_docs(csr("rt", e)).runtimes
    assert runtime.entries[0].model_format == FormatRef("f", None, "GreaterThan", 0)
    assert runtime.entries[0].model_framework == FormatRef("w", None, "Whatever", -1)


@pytest.mark.parametrize(
    ("runtime", "expected"),
    [(None, None), ({"name": "rt"}, "ClusterServingRuntime"), ({"name": "rt", "kind": None}, "ClusterServingRuntime")],
)
def test_isvc_runtime_kind_defaults_to_cluster_serving_runtime(runtime: dict | None, expected: str | None) -> None:
    """I3: spec.runtime.kind absent (or null) defaults when spec.runtime is set."""
    spec = {} if runtime is None else {"runtime": runtime}
    assert load_docs(isvc(**spec)).inference_services[0].runtime_kind == expected


def test_yaml_null_means_absent() -> None:
    """I3, 0.2: a null field is absent, an empty string is set."""
    (runtime,) = load_docs(
        csr("rt", entry(priority=None, autoSelect=None, modelArchitecture=""), disabled=None)
    ).runtimes
    assert (runtime.disabled, runtime.entries[0].priority, runtime.entries[0].auto_select) == (None, None, None)
    assert runtime.entries[0].architecture == ""


# --- I10: canonical order ------------------------------------------------------------------

ORDER_DOCS = [
    sr("b", "ns2"),
    csr("z"),
    obj("AcceleratorClass", "h200"),
    sr("a", "ns2"),
    isvc("svc", "ns2"),
    obj("BaseModel", "m", {}, "ns1"),
    csr("a"),
    obj("ClusterBaseModel", "m", {}),
    sr("z", "ns1"),
    isvc("svc", "ns1"),
    obj("AcceleratorClass", "a100"),
    isvc("a", "ns2"),
]


def test_canonical_order() -> None:
    """I10: runtimes by (kind, namespace, name), ISVCs by (namespace, name);
    models and AcceleratorClasses in input order, which nothing reads (D-170)."""
    cluster = load_docs(*ORDER_DOCS)
    assert [(r.kind, r.namespace, r.name) for r in cluster.runtimes] == [
        ("ClusterServingRuntime", None, "a"),
        ("ClusterServingRuntime", None, "z"),
        ("ServingRuntime", "ns1", "z"),
        ("ServingRuntime", "ns2", "a"),
        ("ServingRuntime", "ns2", "b"),
    ]
    assert [(s.namespace, s.name) for s in cluster.inference_services] == [("ns1", "svc"), ("ns2", "a"), ("ns2", "svc")]


def test_result_does_not_depend_on_document_or_file_order() -> None:
    """I10: any split into files and any order give the same objects (sources aside)."""
    expected = without_sources(load_docs(*ORDER_DOCS))
    for shift in range(1, len(ORDER_DOCS), 3):
        documents = ORDER_DOCS[shift:] + ORDER_DOCS[:shift]
        documents.reverse()
        files = [write(f"f{i}.yaml", *documents[i::3]) for i in range(3)]
        assert without_sources(load(files)) == expected
        assert without_sources(load(list(reversed(files)))) == expected


# --- I4: malformed input -----------------------------------------------------------------


def test_not_utf8() -> None:
    """I4: bytes that are not UTF-8 name the file and the offset."""
    assert text_error(b"kind: \xff\n") == "m.yaml:1:7: not valid UTF-8: byte 0xff"
    assert text_error("kind: Pod\nname: é".encode() + b"\xc3(") == "m.yaml:2:8: not valid UTF-8: byte 0xc3"


def test_not_utf8_on_stdin() -> None:
    """I4: the stdin label is used in the message."""
    with pytest.raises(InputError, match=r"^<stdin>:1:1: not valid UTF-8: byte 0xc3$"):
        load(["-"], stdin=io.BytesIO(b"\xc3("))


def test_not_yaml_gives_problem_line_and_column() -> None:
    """I4: a YAML syntax error names the file, the problem and its position."""
    message = text_error("kind: Pod\n---\na: b: c\n")
    assert message.startswith("m.yaml:3:5: document 2: not valid YAML: mapping values are not allowed")


def test_unacceptable_character_gives_line_and_column() -> None:
    """I4: a control character is a YAML reader error, placed by line and column."""
    message = text_error("kind: Pod\nname: é\x01\n")
    assert message.startswith("m.yaml:2:8: not valid YAML: unacceptable character #x0001: ")


@pytest.mark.parametrize(
    ("content", "found", "line"), [(["a"], "array", 3), ("text", "string", 2), (5, "integer", 2), (True, "boolean", 2)]
)
def test_document_that_is_not_a_mapping(content: Any, found: str, line: int) -> None:
    """I4: every non-empty document must be a mapping (its line is where its content starts)."""
    assert error({"kind": "Pod"}, content) == (
        f"m.yaml:{line}: document 2: expected an object (a YAML mapping), found {found}"
    )


def test_missing_kind() -> None:
    """I4: a document without kind (or an empty one)."""
    assert error({"apiVersion": "v1"}) == "m.yaml:1: document 1: kind: Required value"
    assert error({"apiVersion": "v1", "kind": ""}) == "m.yaml:2: document 1: kind: Required value"


def test_kind_not_a_string() -> None:
    """I4: kind must be a string."""
    assert error({"kind": 3}) == "m.yaml:1: document 1: " + type_error("kind", "string", "integer")


def test_missing_name() -> None:
    """I4: the identity is just the kind when the name is missing."""
    assert error(obj("BaseModel", "x") | {"metadata": {"namespace": "ns"}}) == (
        "m.yaml:3: document 1: BaseModel: metadata.name: Required value"
    )
    assert error({"apiVersion": "ome.io/v1beta1", "kind": "AcceleratorClass"}) == (
        "m.yaml:1: document 1: AcceleratorClass: metadata.name: Required value"
    )


def test_name_not_a_string() -> None:
    """I4: metadata.name must be a string."""
    assert error(obj("ClusterBaseModel", 12)) == (
        "m.yaml:4: document 1: ClusterBaseModel: " + type_error("metadata.name", "string", "integer")
    )


def test_missing_api_version() -> None:
    """I4: apiVersion is required on the kinds read; the message names the object."""
    document = obj("BaseModel", "m", {}, "ns")
    del document["apiVersion"]
    assert error(document) == "m.yaml:1: document 1: BaseModel ns/m: apiVersion: Required value"


def test_other_ome_api_version_is_unsupported() -> None:
    """I4, OQ-24: only ome.io/v1beta1 is read for the OME kinds."""
    document = csr("rt") | {"apiVersion": "ome.io/v1alpha1"}
    assert error(document) == (
        'm.yaml:1: document 1: ClusterServingRuntime rt: apiVersion: Unsupported value: "ome.io/v1alpha1": '
        'supported values: "ome.io/v1beta1"'
    )


def test_same_kind_of_another_api_group_is_skipped_with_a_warning() -> None:
    """I11: a KServe ServingRuntime is not an OME object."""
    document = sr("rt", "ns") | {"apiVersion": "serving.kserve.io/v1alpha1"}
    cluster = load_docs(document)
    assert cluster.runtimes == []
    assert cluster.warnings == [
        "m.yaml:1: document 1: kind ServingRuntime of apiVersion serving.kserve.io/v1alpha1 is not read by ome-asp"
    ]


ENTRY0 = "spec.supportedModelFormats[0]"


@pytest.mark.parametrize(
    ("fields", "path", "actual", "line"),
    [
        ({"modelFormat": {"name": "f", "version": 1.0}}, f"{ENTRY0}.modelFormat.version", "number", 9),
        ({"modelFormat": {"name": 1}}, f"{ENTRY0}.modelFormat.name", "integer", 8),
        ({"modelFramework": {"name": "w", "version": 4}}, f"{ENTRY0}.modelFramework.version", "integer", 11),
        ({"modelFramework": {"name": "w", "operator": True}}, f"{ENTRY0}.modelFramework.operator", "boolean", 11),
        ({"name": ["vllm"]}, f"{ENTRY0}.name", "array", 11),
        ({"modelArchitecture": {"a": 1}}, f"{ENTRY0}.modelArchitecture", "object", 11),
        ({"quantization": 8}, f"{ENTRY0}.quantization", "integer", 11),
        ({"diffusionPipeline": {"className": 1}}, f"{ENTRY0}.diffusionPipeline.className", "integer", 12),
        ({"diffusionPipeline": {"vae": {"type": 1.5}}}, f"{ENTRY0}.diffusionPipeline.vae.type", "number", 13),
        (
            {"diffusionPipeline": {"additionalComponents": {"te": {"library": False}}}},
            f"{ENTRY0}.diffusionPipeline.additionalComponents.te.library",
            "boolean",
            14,
        ),
    ],
)
def test_entry_strings_must_be_strings(fields: dict, path: str, actual: str, line: int) -> None:
    """I4: `version: 1.0` and friends are not strings; the line is the field's."""
    e = entry()
    for key, value in fields.items():
        e[key] = value
    assert error(csr("rt", e)) == (
        f"m.yaml:{line}: document 1: ClusterServingRuntime rt: {type_error(path, 'string', actual)}"
    )


def test_version_one_point_zero_exact_message() -> None:
    """I4: the seed's example, written out in full."""
    assert error(csr("rt", entry(modelFormat={"name": "safetensors", "version": 1.0}))) == (
        "m.yaml:9: document 1: ClusterServingRuntime rt: spec.supportedModelFormats[0].modelFormat.version: "
        'Invalid value: "number": spec.supportedModelFormats[0].modelFormat.version in body must be of type '
        'string: "number"'
    )


@pytest.mark.parametrize(
    ("spec", "path", "expected", "actual", "line"),
    [
        ({"modelSizeRange": {"min": 1}}, "spec.modelSizeRange.min", "string", "integer", 13),
        ({"modelSizeRange": {"max": 7.5}}, "spec.modelSizeRange.max", "string", "number", 13),
        ({"modelSizeRange": "1B-8B"}, "spec.modelSizeRange", "object", "string", 12),
        (
            {"acceleratorRequirements": {"acceleratorClasses": "h100"}},
            "spec.acceleratorRequirements.acceleratorClasses",
            "array",
            "string",
            13,
        ),
        (
            {"acceleratorRequirements": {"acceleratorClasses": ["h100", 100]}},
            "spec.acceleratorRequirements.acceleratorClasses[1]",
            "string",
            "integer",
            15,
        ),
        (
            {"engineConfig": {"annotations": {"ome.io/deploymentMode": 1}}},
            'spec.engineConfig.annotations["ome.io/deploymentMode"]',
            "string",
            "integer",
            14,
        ),
        ({"decoderConfig": {"annotations": ["x"]}}, "spec.decoderConfig.annotations", "object", "array", 13),
        ({"supportedModelFormats": {"a": 1}}, "spec.supportedModelFormats", "array", "object", 7),
        ({"supportedModelFormats": [entry(), "x"]}, "spec.supportedModelFormats[1]", "object", "string", 12),
        ({"disabled": "true"}, "spec.disabled", "boolean", "string", 12),
    ],
)
def test_runtime_field_types(spec: dict, path: str, expected: str, actual: str, line: int) -> None:
    """I4, I5: runtime fields have their schema types; `disabled` is a real boolean."""
    assert (
        error(sr("rt", "ns", **spec))
        == f"m.yaml:{line}: document 1: ServingRuntime ns/rt: {type_error(path, expected, actual)}"
    )


@pytest.mark.parametrize(("value", "actual"), [("yes", "string"), ("true", "string"), (1, "integer")])
def test_auto_select_must_be_a_boolean(value: Any, actual: str) -> None:
    """I5: autoSelect is three-valued; a string "yes" is not a boolean."""
    assert error(csr("rt", entry(autoSelect=value))) == (
        f"m.yaml:11: document 1: ClusterServingRuntime rt: {type_error(ENTRY0 + '.autoSelect', 'boolean', actual)}"
    )


def test_unquoted_yes_is_a_yaml_boolean() -> None:
    """I5: YAML 1.1 `yes` is true (as for kubectl); only the quoted string is an error."""
    text = (
        "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata: {name: rt}\nspec:\n"
        "  disabled: no\n  supportedModelFormats:\n"
        "  - {modelFormat: {name: f}, modelFramework: {name: w}, autoSelect: yes}\n"
    )
    (runtime,) = load_text(text).runtimes
    assert (runtime.disabled, runtime.entries[0].auto_select) == (False, True)


@pytest.mark.parametrize(("value", "actual"), [(True, "boolean"), (1.5, "number"), ("2", "string")])
def test_weight_must_be_an_integer(value: Any, actual: str) -> None:
    """I4: a weight is an integer; a YAML boolean is not one."""
    path = f"{ENTRY0}.modelFramework.weight"
    assert error(csr("rt", entry(modelFramework={"name": "w", "weight": value}))) == (
        f"m.yaml:11: document 1: ClusterServingRuntime rt: {type_error(path, 'integer', actual)}"
    )


def test_weight_within_int64() -> None:
    """I4: a weight outside int64 is rejected; the int64 bounds themselves load."""
    path = f"{ENTRY0}.modelFormat.weight"
    assert error(csr("rt", entry(modelFormat={"name": "f", "weight": 2**63}))) == (
        f"m.yaml:9: document 1: ClusterServingRuntime rt: {path}: Invalid value: 9223372036854775808: "
        f"{path} in body should be less than or equal to 9223372036854775807"
    )
    assert error(csr("rt", entry(modelFormat={"name": "f", "weight": -(2**63) - 1}))) == (
        f"m.yaml:9: document 1: ClusterServingRuntime rt: {path}: Invalid value: -9223372036854775809: "
        f"{path} in body should be greater than or equal to -9223372036854775808"
    )
    (runtime,) = load_docs(csr("rt", entry(modelFormat={"name": "f", "weight": 2**63 - 1}))).runtimes
    assert runtime.entries[0].model_format.weight == 2**63 - 1


@pytest.mark.parametrize("priority", [0, -3])
def test_priority_at_least_one(priority: int) -> None:
    """I4: the exact rejection of a priority below 1."""
    assert error(csr("rt", entry(), entry(priority=priority))) == (
        f"m.yaml:15: document 1: ClusterServingRuntime rt: spec.supportedModelFormats[1].priority: Invalid value: "
        f"{priority}: spec.supportedModelFormats[1].priority in body should be greater than or equal to 1"
    )


def test_priority_within_int32() -> None:
    """I4: a priority outside int32 is rejected; 2147483647 loads."""
    assert error(csr("rt", entry(priority=2**31))) == (
        f"m.yaml:11: document 1: ClusterServingRuntime rt: {ENTRY0}.priority: Invalid value: 2147483648: "
        f"{ENTRY0}.priority in body should be less than or equal to 2147483647"
    )
    assert load_docs(csr("rt", entry(priority=2**31 - 1))).runtimes[0].entries[0].priority == 2**31 - 1


def test_priority_type() -> None:
    """I4: priority is an integer."""
    assert error(csr("rt", entry(priority="1"))) == (
        f"m.yaml:11: document 1: ClusterServingRuntime rt: {type_error(ENTRY0 + '.priority', 'integer', 'string')}"
    )


@pytest.mark.parametrize(
    ("drop", "path", "line"),
    [
        (("modelFormat",), "modelFormat", 11),
        (("modelFramework",), "modelFramework", 11),
        (("modelFormat", "name"), "modelFormat.name", 11),
        (("modelFramework", "name"), "modelFramework.name", 13),
    ],
)
def test_entry_requires_format_and_framework_with_names(drop: tuple[str, ...], path: str, line: int) -> None:
    """I4, I7: every entry has modelFormat and modelFramework, each with a name; a
    missing field is placed at the line of its parent."""
    e = entry()
    parent = e
    for key in drop[:-1]:
        parent = parent[key]
    del parent[drop[-1]]
    assert error(csr("rt", entry(), e)) == (
        f"m.yaml:{line}: document 1: ClusterServingRuntime rt: spec.supportedModelFormats[1].{path}: Required value"
    )


def test_entry_framework_null_is_missing() -> None:
    """I3, I4: `modelFramework: null` is absent, so required; the line is the null's."""
    assert error(csr("rt", entry(modelFramework=None))) == (
        f"m.yaml:9: document 1: ClusterServingRuntime rt: {ENTRY0}.modelFramework: Required value"
    )


def test_model_framework_needs_a_name() -> None:
    """I4: a model's modelFramework, when given, has a name."""
    assert error(obj("BaseModel", "m", {"modelFramework": {"version": "4.45"}}, "ns")) == (
        "m.yaml:7: document 1: BaseModel ns/m: spec.modelFramework.name: Required value"
    )


@pytest.mark.parametrize(
    ("spec", "path", "expected", "actual", "line"),
    [
        ({"modelParameterSize": 8000000000}, "spec.modelParameterSize", "string", "integer", 6),
        ({"modelFormat": {"name": "f", "version": 1.0}}, "spec.modelFormat.version", "string", "number", 8),
        ({"modelFormat": "safetensors"}, "spec.modelFormat", "object", "string", 6),
        ({"modelArchitecture": None, "quantization": 4}, "spec.quantization", "string", "integer", 7),
        ({"disabled": "yes"}, "spec.disabled", "boolean", "string", 6),
        ({"diffusionPipeline": {"tokenizer": "clip"}}, "spec.diffusionPipeline.tokenizer", "object", "string", 7),
    ],
)
def test_model_field_types(spec: dict, path: str, expected: str, actual: str, line: int) -> None:
    """I4, I5: model fields have their schema types."""
    assert error(obj("ClusterBaseModel", "m", spec)) == (
        f"m.yaml:{line}: document 1: ClusterBaseModel m: {type_error(path, expected, actual)}"
    )


def test_spec_must_be_an_object() -> None:
    """I4: `spec` is an object."""
    assert error(obj("BaseModel", "m", ["x"], "ns")) == (
        "m.yaml:6: document 1: BaseModel ns/m: " + type_error("spec", "object", "array")
    )


def test_isvc_deployment_mode_values() -> None:
    """I4: spec.deploymentMode takes OMENative or RawDeployment only."""
    assert error(isvc(deploymentMode="MultiNode")) == (
        'm.yaml:9: document 1: InferenceService ns/svc: spec.deploymentMode: Unsupported value: "MultiNode": '
        'supported values: "OMENative", "RawDeployment"'
    )
    assert load_docs(isvc(deploymentMode="OMENative")).inference_services[0].deployment_mode == "OMENative"


@pytest.mark.parametrize("kind", ["BaseModel", "", "servingruntime"])
def test_isvc_runtime_kind_values(kind: str) -> None:
    """I4, OQ-24: spec.runtime.kind is ServingRuntime or ClusterServingRuntime."""
    assert error(isvc(runtime={"name": "rt", "kind": kind})) == (
        f'm.yaml:11: document 1: InferenceService ns/svc: spec.runtime.kind: Unsupported value: "{kind}": '
        'supported values: "ServingRuntime", "ClusterServingRuntime"'
    )


def test_isvc_decoder_without_engine() -> None:
    """I4: the webhook's rule, with its own message."""
    assert (
        error(isvc(decoder={}))
        == "m.yaml:9: document 1: InferenceService ns/svc: decoder cannot be specified without engine"
    )


def test_isvc_needs_model_or_runtime() -> None:
    """I4, M6: at least one of spec.model or spec.runtime."""
    service = obj("InferenceService", "svc", {"engine": {}}, "ns")
    assert error(service) == (
        "m.yaml:6: document 1: InferenceService ns/svc: at least one of spec.model or spec.runtime must be set"
    )
    assert error(obj("InferenceService", "svc")) == (
        "m.yaml:1: document 1: InferenceService default/svc: at least one of spec.model or spec.runtime must be set"
    )


def test_isvc_model_needs_a_name() -> None:
    """I4, M1: spec.model.name is required when spec.model is set."""
    assert (
        error(isvc(model={"kind": "BaseModel"}))
        == "m.yaml:7: document 1: InferenceService ns/svc: spec.model.name: Required value"
    )


@pytest.mark.parametrize(
    ("spec", "path", "expected", "actual", "line"),
    [
        ({"engine": "yes"}, "spec.engine", "object", "string", 9),
        ({"engine": {"runner": {"image": 1}}}, "spec.engine.runner.image", "string", "integer", 11),
        ({"engine": {"leader": {"runner": []}}}, "spec.engine.leader.runner", "object", "array", 11),
        (
            {"acceleratorSelector": {"acceleratorClass": 1}},
            "spec.acceleratorSelector.acceleratorClass",
            "string",
            "integer",
            10,
        ),
        ({"runtime": {"name": 5}}, "spec.runtime.name", "string", "integer", 10),
        ({"deploymentMode": True}, "spec.deploymentMode", "string", "boolean", 9),
    ],
)
def test_isvc_field_types(spec: dict, path: str, expected: str, actual: str, line: int) -> None:
    """I4: ISVC fields have their schema types."""
    assert error(isvc(**spec)) == (
        f"m.yaml:{line}: document 1: InferenceService ns/svc: {type_error(path, expected, actual)}"
    )


def test_isvc_annotation_types() -> None:
    """I4: annotations are a string map; the key is written as in I2."""
    service = isvc()
    service["metadata"]["annotations"] = {"ome.io/accelerator-class": 7}
    assert error(service) == "m.yaml:7: document 1: InferenceService ns/svc: " + type_error(
        'metadata.annotations["ome.io/accelerator-class"]', "string", "integer"
    )


def test_nul_character_is_rejected_naming_the_field() -> None:
    """I4: clingo strings cannot hold NUL, so a string with one is an input error."""
    assert error(csr("rt", entry(modelFormat={"name": "f", "version": "1\x00"}))) == (
        f'm.yaml:9: document 1: ClusterServingRuntime rt: {ENTRY0}.modelFormat.version: Invalid value: "1\\u0000": '
        "must not contain a NUL character"
    )
    service = isvc()
    service["metadata"]["annotations"] = {"ome.io/accelerator-class": "h\x00"}
    assert error(service) == (
        'm.yaml:7: document 1: InferenceService ns/svc: metadata.annotations["ome.io/accelerator-class"]: '
        'Invalid value: "h\\u0000": must not contain a NUL character'
    )


def test_nul_in_a_name_or_a_component_key() -> None:
    """I4: names and additionalComponents keys reach the solver too."""
    assert error(obj("AcceleratorClass", "h\x00")) == (
        'm.yaml:4: document 1: AcceleratorClass: metadata.name: Invalid value: "h\\u0000": must not contain a NUL character'
    )
    pipeline = {"additionalComponents": {"k\x00": {}}}
    assert error(obj("ClusterBaseModel", "m", {"diffusionPipeline": pipeline})) == (
        "m.yaml:8: document 1: ClusterBaseModel m: spec.diffusionPipeline.additionalComponents keys: "
        'Invalid value: "k\\u0000": must not contain a NUL character'
    )


def test_lone_surrogate_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    """I4: the pure-Python YAML loader lets a "\\ud800" escape through; it cannot reach the solver."""
    monkeypatch.setattr(documents, "_Loader", yaml.SafeLoader)
    message = text_error('apiVersion: ome.io/v1beta1\nkind: AcceleratorClass\nmetadata: {name: "a\\ud800"}\n')
    assert (
        message
        == 'm.yaml:3: document 1: AcceleratorClass: metadata.name: Invalid value: "a\\ud800": must be valid Unicode'
    )


def test_duplicate_object_names_both_places() -> None:
    """I1, I4: the same (kind, namespace, name) twice, across files and List items."""
    write("a.yaml", {"kind": "Pod"}, sr("rt", "ns"))
    write("b.yaml", {"kind": "List", "items": [csr("rt"), sr("rt", "ns")]})
    with pytest.raises(InputError) as caught:
        load(["a.yaml", "b.yaml"])
    assert str(caught.value) == (
        "b.yaml:13: document 1: items[1]: ServingRuntime ns/rt: duplicate object, first defined at a.yaml:3: document 2"
        + KUSTOMIZE_HINT  # issue 16: two files, so maybe a kustomize directory read with -f
    )


def test_duplicate_after_namespace_default() -> None:
    """I1, OQ-22: no namespace and `namespace: default` are the same object."""
    assert error(obj("BaseModel", "m", {}), obj("BaseModel", "m", {}, "default")) == (
        "m.yaml:7: document 2: BaseModel default/m: duplicate object, first defined at m.yaml:1: document 1"
    )


def test_same_name_in_other_namespace_or_kind_is_no_duplicate() -> None:
    """I1, O6: names are unique per kind and namespace only."""
    cluster = load_docs(
        obj("BaseModel", "m", {}, "a"),
        obj("BaseModel", "m", {}, "b"),
        obj("ClusterBaseModel", "m", {}),
        sr("rt", "a"),
        csr("rt"),
        obj("AcceleratorClass", "rt"),
    )
    assert (len(cluster.models), len(cluster.runtimes)) == (3, 2)


# --- I11: warnings --------------------------------------------------------------------------


def test_other_kinds_are_skipped_with_a_warning() -> None:
    """I11: the exact warning text, in input order."""
    cluster = load_docs(
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}, csr(), {"kind": "Service"}
    )
    assert [r.name for r in cluster.runtimes] == ["rt"]
    assert cluster.warnings == [
        "m.yaml:1: document 1: kind Deployment is not read by ome-asp",
        "m.yaml:17: document 3: kind Service is not read by ome-asp",
    ]


@pytest.mark.parametrize(
    ("fields", "path", "key", "hint", "line"),
    [
        ({"autoselect": True}, ENTRY0, "autoselect", "autoSelect", 11),
        ({"AutoSelect": True}, ENTRY0, "AutoSelect", "autoSelect", 11),
        ({"priorty": 2}, ENTRY0, "priorty", "priority", 11),
        ({"modelArch": "X"}, ENTRY0, "modelArch", "modelArchitecture", 11),
        ({"operator": "GreaterThan"}, ENTRY0, "operator", None, 11),
        ({"modelFormat": {"name": "f", "verison": "1"}}, f"{ENTRY0}.modelFormat", "verison", "version", 9),
        ({"modelFramework": {"name": "w", "wieght": 2}}, f"{ENTRY0}.modelFramework", "wieght", "weight", 11),
        ({"diffusionPipeline": {"classname": "P"}}, f"{ENTRY0}.diffusionPipeline", "classname", "className", 12),
        (
            {"diffusionPipeline": {"text_encoder": {}}},
            f"{ENTRY0}.diffusionPipeline",
            "text_encoder",
            "textEncoder",
            12,
        ),
        ({"diffusionPipeline": {"vae": {"libary": "d"}}}, f"{ENTRY0}.diffusionPipeline.vae", "libary", "library", 13),
        (
            {"diffusionPipeline": {"additionalComponents": {"x": {"kind": "t"}}}},
            f"{ENTRY0}.diffusionPipeline.additionalComponents.x",
            "kind",
            None,
            14,
        ),
    ],
)
def test_unknown_field_in_an_entry_warns_with_a_suggestion(
    fields: dict, path: str, key: str, hint: str | None, line: int
) -> None:
    """I11: unknown keys where selection reads, with `did you mean` when one is
    close, at the line of the unknown key."""
    cluster = load_docs(csr("rt", entry(**fields)))
    suffix = f'; did you mean "{hint}"?' if hint else ""
    assert cluster.warnings == [
        f'm.yaml:{line}: document 1: ClusterServingRuntime rt: {path}: unknown field "{key}"{suffix}'
    ]


@pytest.mark.parametrize(
    ("spec", "path", "key", "hint", "line"),
    [
        ({"modelSizeRange": {"min": "1B", "mx": "8B"}}, "spec.modelSizeRange", "mx", "max", 14),
        (
            {"acceleratorRequirements": {"acceleratorClass": ["h100"]}},
            "spec.acceleratorRequirements",
            "acceleratorClass",
            "acceleratorClasses",
            13,
        ),
        ({"acceleratorRequirements": {"gpus": 8}}, "spec.acceleratorRequirements", "gpus", None, 13),
    ],
)
def test_unknown_field_in_runtime_parts_warns(spec: dict, path: str, key: str, hint: str | None, line: int) -> None:
    """I11: modelSizeRange and acceleratorRequirements are checked too."""
    suffix = f'; did you mean "{hint}"?' if hint else ""
    assert load_docs(sr("rt", "ns", **spec)).warnings == [
        f'm.yaml:{line}: document 1: ServingRuntime ns/rt: {path}: unknown field "{key}"{suffix}'
    ]


def test_unknown_field_in_model_format_and_framework_warns() -> None:
    """I11: a model's modelFormat/modelFramework (and its pipeline) are checked."""
    spec = {
        "modelFormat": {"name": "f", "Version": "1"},
        "modelFramework": {"nmae": "w", "name": "w"},
        "diffusionPipeline": {"vae": {"typ": "x"}},
    }
    assert load_docs(obj("BaseModel", "m", spec, "ns")).warnings == [
        'm.yaml:9: document 1: BaseModel ns/m: spec.modelFormat: unknown field "Version"; did you mean "version"?',
        'm.yaml:11: document 1: BaseModel ns/m: spec.modelFramework: unknown field "nmae"; did you mean "name"?',
        'm.yaml:15: document 1: BaseModel ns/m: spec.diffusionPipeline.vae: unknown field "typ"; did you mean "type"?',
    ]


def test_known_but_ignored_fields_do_not_warn() -> None:
    """I2, I11, A5, M5: fields of the OME API that selection ignores are silent."""
    e = entry(
        version="1",
        modelType="llama",
        acceleratorConfig={"h100": {"minMemoryPerBillionParams": 2}},
        modelCacheProviders=["x"],
    )
    requirements = {
        "acceleratorClasses": ["h100"],
        "minMemory": 80,
        "minComputePerformanceTFLOPS": 100,
        "minArchitectureVersion": "9.0",
        "requiredFeatures": ["fp8"],
        "preferredPrecisions": ["fp8"],
    }
    model = {
        "modelFormat": {"name": "f", "operator": "Equal", "weight": 3},
        "modelFramework": {"name": "w", "weight": 1},
    }
    cluster = load_docs(csr("rt", e, acceleratorRequirements=requirements), obj("ClusterBaseModel", "m", model))
    assert cluster.warnings == []


def test_unknown_fields_elsewhere_are_silent() -> None:
    """I11: fields I2 does not list are ignored without a word."""
    runtime = csr("rt", protocolVersions=["openAI"], containers=[{"name": "c"}], engineConfig={"replicas": 2, "x": 1})
    runtime["metadata"]["labels"] = {"a": "b"}
    runtime["status"] = {"anything": True}
    model = obj("BaseModel", "m", {"storage": {"storageUri": "hf://x"}, "modelCapabilities": ["chat"], "typo": 1}, "ns")
    service = isvc(engine={"minReplicas": 1, "replicas": 3}, unknown={"x": 1})
    assert load_docs(runtime, model, service).warnings == []


def test_warnings_keep_input_order_across_files() -> None:
    """I11, I10: objects are sorted, warnings are not."""
    write("b.yaml", {"kind": "Pod"}, csr("a", entry(autoselect=True)))
    write("a.yaml", {"kind": "Secret"})
    assert load(["b.yaml", "a.yaml"]).warnings == [
        "b.yaml:1: document 1: kind Pod is not read by ome-asp",
        f'b.yaml:13: document 2: ClusterServingRuntime a: {ENTRY0}: unknown field "autoselect"; did you mean "autoSelect"?',
        "a.yaml:1: document 1: kind Secret is not read by ome-asp",
    ]


def test_strict_turns_the_first_warning_into_an_error() -> None:
    """I11: --strict makes every warning an input error with the same text."""
    assert error(csr("rt", entry(priorty=1)), {"kind": "Pod"}, strict=True) == (
        f'm.yaml:11: document 1: ClusterServingRuntime rt: {ENTRY0}: unknown field "priorty"; did you mean "priority"?'
    )
    assert error(csr("rt"), {"kind": "Pod"}, strict=True) == "m.yaml:12: document 2: kind Pod is not read by ome-asp"


def test_strict_without_warnings_loads() -> None:
    """I11: strict changes nothing when there is nothing to warn about."""
    assert load_text(WORKED_EXAMPLE, strict=True) == load_text(WORKED_EXAMPLE)


def test_strict_does_not_warn_about_default_namespace() -> None:
    """I11, OQ-22: the namespace default is not a warning, so strict accepts it."""
    assert load_docs(obj("BaseModel", "m", {}), strict=True).models[0].namespace == "default"


def test_unknown_key_that_is_not_a_string_is_named() -> None:
    """I11: YAML allows non-string keys; the warning still names the key."""
    cluster = load_text(
        "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata: {name: rt}\nspec:\n"
        "  modelSizeRange: {min: 1B, 8: 9}\n"
    )
    assert cluster.warnings == ['m.yaml:5: document 1: ClusterServingRuntime rt: spec.modelSizeRange: unknown field "8"']


def test_every_message_is_one_line() -> None:
    """E2: an error is one stderr line, even for odd keys and values."""
    message = error(isvc(runtime={"name": "rt", "kind": "a\nb"}))
    assert "\n" not in message
    assert message.endswith('Unsupported value: "a\\nb": supported values: "ServingRuntime", "ClusterServingRuntime"')


def test_permutations_of_small_input_give_identical_clusters() -> None:
    """I10: exhaustive check over every order of a small input."""
    documents = [csr("b"), csr("a"), sr("a", "x"), obj("AcceleratorClass", "h")]
    results = {repr(without_sources(load_docs(*order))) for order in itertools.permutations(documents)}
    assert len(results) == 1


# --- D-23: positions ----------------------------------------------------------------------


def test_D23_a_merged_field_is_placed_where_it_is_written() -> None:
    """I4: a value that comes in through `<<` is reported at its anchor's line."""
    text = (
        "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata: {name: rt}\n"
        "x-entry: &e {modelFormat: {name: f}, modelFramework: {name: w}, priority: high}\n"
        "spec:\n  supportedModelFormats:\n  - <<: *e\n    autoSelect: true\n"
    )
    assert text_error(text).startswith(f"m.yaml:4: document 1: ClusterServingRuntime rt: {ENTRY0}.priority: ")


def test_D23_json_and_crlf_lines() -> None:
    """I1: JSON is YAML, with the same positions; CRLF ends a line once."""
    json_text = '{\n  "apiVersion": "ome.io/v1beta1",\n  "kind": "AcceleratorClass",\n  "metadata": {\n    "name": 7\n  }\n}\n'
    assert text_error(json_text) == "m.yaml:5: document 1: AcceleratorClass: " + type_error("metadata.name", "string", "integer")
    crlf = "kind: Pod\r\n---\r\napiVersion: ome.io/v1beta1\r\nkind: AcceleratorClass\r\nmetadata:\r\n  name: [x]\r\n"
    assert text_error(crlf) == "m.yaml:6: document 2: AcceleratorClass: " + type_error("metadata.name", "string", "array")


def test_D23_list_items_are_placed_at_their_own_line() -> None:
    """I1, I11: a List item's messages name items[i] and the item's line."""
    text = "apiVersion: v1\nkind: List\nitems:\n- kind: Pod\n- apiVersion: v1\n  kind: Secret\n"
    assert load_text(text).warnings == [
        "m.yaml:4: document 1: items[0]: kind Pod is not read by ome-asp",
        "m.yaml:5: document 1: items[1]: kind Secret is not read by ome-asp",
    ]


@pytest.mark.parametrize(("name", "why"), [
    ("sаfetensors", "mixes Latin and Cyrillic letters"),
    ("safe\u202etensors", "holds the invisible character U+202E (RIGHT-TO-LEFT OVERRIDE)"),
    ("safe\u200btensors", "holds the invisible character U+200B (ZERO WIDTH SPACE)"),
    ("сейфтензорс", None),  # one script: what it looks like
    ("モデル-v2", None),  # Japanese mixes kana and Latin legitimately
])
def test_d115_a_value_that_looks_like_another_warns(name: str, why: str | None) -> None:
    """D-115: a lookalike format name matches no plainly written one while
    printing the same; reading says so, naming the field."""
    cluster = load_docs(csr("rt", entry(modelFormat={"name": name})))
    expected = [] if why is None else [
        f"m.yaml:8: document 1: ClusterServingRuntime rt: spec.supportedModelFormats[0].modelFormat.name: "
        f"{documents.quote(name)} {why}: it matches only values written with the same characters"]
    assert cluster.warnings == expected


def test_reading_fields_joins_no_path_unless_there_is_a_message(monkeypatch):
    """A field's path (`spec.supportedModelFormats[0].modelFormat.weight`) is
    for messages: a field read with nothing to say joins none, only each
    entry side whose fields are read below it (issue 26: serve reads ~300
    fields a request; joining each path was a third of a field read)."""
    from ome_asp.input import loader

    joined = []
    join = loader._join
    monkeypatch.setattr(loader, "_join", lambda *args: joined.append(args) or join(*args))
    runtime = {"apiVersion": "ome.io/v1beta1", "kind": "ClusterServingRuntime", "metadata": {"name": "rt"},
               "spec": {"supportedModelFormats": [
                   {"modelFormat": {"name": "f", "version": "1", "weight": 2}, "modelFramework": {"name": "t"},
                    "priority": 1, "autoSelect": True, "modelArchitecture": "A"}],
                   "modelSizeRange": {"min": "1B", "max": "7B"}}}
    for profile in profiles.PROFILES.values():
        joined.clear()
        loader.load_documents([runtime], profile=profile)
        assert sorted(key for _, key in joined) == ["modelFormat", "modelFramework"], profile.name
