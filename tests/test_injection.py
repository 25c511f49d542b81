"""No injection: user strings go through the solver and come back exactly as
given (docs/design.md "Facts"; spec I6: strings are compared exactly).

Every free-text string of a small cluster -- format, framework,
architecture, quantization and an entry name -- is drawn from arbitrary
text; names (namespace, objects' names, the accelerator class, also as an
annotation value) from every name Kubernetes allows (DNS-1123, D-86). The runtime that copies the
model's strings must qualify (so each string reached the solver intact and
compared equal to itself), and the JSON and YAML reports must carry every
string byte for byte. NUL is the one character the loader refuses by design
(clingo strings are C strings, D-10); that refusal is tested on its own.
Strings are written with `yaml.safe_dump`, as UTF-8 or, when one holds a NEL,
escaped (see NEL).
"""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

API = "ome.io/v1beta1"

#: Text that is hard to carry through a logic program and a YAML file.
TRICKY = ['"', "'", "\\", "\n", "\r\n", "%", ".", ":-", "#", "#show", "}", "a\"). evil(1", "é", "雪", "🦙", "\u2028", "\t", " "]


def strings(min_size: int = 1) -> st.SearchStrategy[str]:
    """Arbitrary text without NUL, often built from TRICKY pieces, sometimes very
    long. Lone surrogates are not text (no UTF-8 file can hold one)."""
    anything = st.text(st.characters(exclude_characters="\x00", exclude_categories=("Cs",)), min_size=min_size, max_size=30)
    pieces = st.lists(st.sampled_from(TRICKY), min_size=max(min_size, 1), max_size=6).map("".join)
    long = st.builds(lambda s: s * (10_000 // len(s) + 1), pieces)
    return st.integers(0, 9).flatmap(lambda n: long if n == 0 else anything if n % 2 else pieces)


def cluster(ns, model, fmt, framework, arch, other_arch, quant, accel, entry_name, runtime, other, isvc) -> list[dict]:
    """A model; a ServingRuntime that copies its strings (qualifies); a
    ClusterServingRuntime with another architecture (fails Q5 with E15's
    reason, which quotes both architectures); an ISVC whose accelerator
    annotation must equal the runtimes' class (Q3, A-rules)."""
    meta = {"name": model, "namespace": ns}
    formats = {"modelFormat": {"name": fmt, "version": "1.0.0"}, "modelFramework": {"name": framework, "version": "1.0.0"}}
    entry = {**formats, "name": entry_name, "modelArchitecture": arch, "quantization": quant, "autoSelect": True}
    return [
        {"apiVersion": API, "kind": "AcceleratorClass", "metadata": {"name": accel}},
        {"apiVersion": API, "kind": "BaseModel", "metadata": meta, "spec": {**formats, "modelArchitecture": arch, "quantization": quant}},
        {
            "apiVersion": API, "kind": "ServingRuntime", "metadata": {"name": runtime, "namespace": ns},
            "spec": {"supportedModelFormats": [entry], "acceleratorRequirements": {"acceleratorClasses": [accel]}},
        },
        {
            "apiVersion": API, "kind": "ClusterServingRuntime", "metadata": {"name": other},
            "spec": {
                "supportedModelFormats": [{**entry, "modelArchitecture": other_arch}],
                "acceleratorRequirements": {"acceleratorClasses": [accel]},
            },
        },
        {
            "apiVersion": API, "kind": "InferenceService",
            "metadata": {"name": isvc, "namespace": ns, "annotations": {"ome.io/accelerator-class": accel}},
            "spec": {"model": {"name": model}, "engine": {}},
        },
    ]


#: D-86: metadata.name is a DNS-1123 subdomain, a namespace a DNS-1123 label.
LABEL = st.from_regex(r"\A[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\Z")
SUBDOMAIN = st.lists(LABEL, min_size=1, max_size=4).map(".".join)
NAMES = {"ns": LABEL, "model": SUBDOMAIN, "accel": SUBDOMAIN, "runtime": SUBDOMAIN, "other": SUBDOMAIN, "isvc": SUBDOMAIN}


@st.composite
def clusters(draw):
    values = {key: draw(NAMES.get(key, strings())) for key in ("ns", "model", "fmt", "framework", "arch", "quant", "accel", "runtime", "other", "isvc")}
    values["other_arch"] = draw(strings().filter(lambda s: s != values["arch"]))
    values["entry_name"] = draw(strings(min_size=0))
    return values


#: NEL (U+0085) is a line break to YAML, which folds a raw one in a quoted
#: scalar into a space; PyYAML's emitter writes it raw when unicode is allowed.
#: A value holding it is written escaped (all non-ASCII escaped).
NEL = "\x85"


def written(tmp_path, documents: list[dict], values: dict) -> str:
    """The manifests' file, written once for every output a test asks of it
    (PyYAML's pure-Python emitter: two fifths of the I6 property's CPU
    when the file was written per output)."""
    raw = not any(NEL in value for value in values.values())
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(documents, allow_unicode=raw), encoding="utf-8")
    return str(path)


def explain(path: str, values: dict, output: str):
    # `--flag=value`: a value that starts with "-" is not taken for an option.
    return run_cli("explain", f"--isvc={values['isvc']}", f"--namespace={values['ns']}", "-f", path, "-o", output)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(clusters())
def test_I6_arbitrary_strings_come_back_exactly(tmp_path, values):
    path = written(tmp_path, cluster(**values), values)
    result = explain(path, values, "json")
    assert result.code == 0, result.stderr
    # the only message: values that print like others (D-115)
    assert all(line.endswith(": it matches only values written with the same characters")
               for line in result.stderr.splitlines()), result.stderr
    report = json.loads(result.stdout)
    assert report["query"] == {"namespace": values["ns"], "isvc": values["isvc"], "model": values["model"]}
    assert report["selected"] == {"kind": "ServingRuntime", "namespace": values["ns"], "name": values["runtime"]}
    label = f"mt:{values['fmt']}:1.0.0:{values['arch']}:{values['quant']}:{values['framework']}:1.0.0"
    reason = f"model format '{label}' not in supported formats: architecture mismatch (model={values['arch']}, runtime={values['other_arch']})"
    assert [(r["runtime"], r["compatible"], r["reason"]) for r in report["rows"]] == [
        (values["runtime"], True, None),
        (values["other"], False, reason),
    ]
    as_yaml = explain(path, values, "yaml")
    assert as_yaml.code == 0
    assert yaml.safe_load(as_yaml.stdout) == report
    assert explain(path, values, "wide").code == 0


def test_I6_yaml_output_keeps_a_nel_character(tmp_path):
    values = {key: key for key in ("ns", "model", "fmt", "framework", "arch", "quant", "accel", "entry_name", "runtime", "other", "isvc")}
    values |= {"other_arch": "other-arch", "fmt": f"a{NEL}b"}
    path = written(tmp_path, cluster(**values), values)
    report = json.loads(explain(path, values, "json").stdout)
    assert yaml.safe_load(explain(path, values, "yaml").stdout) == report


@pytest.mark.parametrize(
    "field",
    ["ns", "model", "fmt", "framework", "arch", "quant", "accel", "entry_name", "runtime", "other", "isvc"],
)
def test_I4_D10_nul_is_refused_wherever_it_is(tmp_path, field):
    """D-10: the one character refused by design, in every field the injection test varies."""
    values = {key: key for key in ("ns", "model", "fmt", "framework", "arch", "quant", "accel", "entry_name", "runtime", "other", "isvc")}
    values["other_arch"] = "other-arch"
    values[field] = "a\x00b"
    result = explain(written(tmp_path, cluster(**values), values), values | {"isvc": "isvc", "ns": "ns"}, "json")
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert result.stderr.endswith(': Invalid value: "a\\u0000b": must not contain a NUL character\n')
