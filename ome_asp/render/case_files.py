"""A conformance case as files (docs/oracle.md, "Conformance cases"): the
answers it records (a command's JSON report reduced to what the
specification decides), the rule ids they exercise, and the case directory
written as the corpus writes it.

Below the commands, so that whatever writes a case -- gen, diff, find --out --
writes it alike; reading, validating and running cases is
ome_asp/conformance/cases.py's.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Iterator

import yaml

from ome_asp.errors import OutputError
from ome_asp.input.documents import shown
from ome_asp.render import report

CASE_FILE, MANIFESTS_FILE, EXPECTED_FILE = "case.yaml", "manifests.yaml", "expected.yaml"



# --- the command line a case runs -------------------------------------------


def profile_flags(command: str, profile: str) -> list[str]:
    """The one place a case's profile reaches ome-asp: every command takes
    `--profile P` (docs/profiles.md)."""
    return ["--profile", profile]


def target_flags(query: dict, manifests: str = "-") -> list[str]:
    target = ["--model", query["model"]] if "model" in query else ["--isvc", query["isvc"]]
    return target + ["-n", query["namespace"], "-f", manifests]


def case_argv(command: str, query: dict, profile: str, manifests: str = "-") -> list[str]:
    """The arguments of `ome-asp` that answer a case's `command`, the manifests
    read from `manifests` (`-`: stdin)."""
    argv = [command, "-f", manifests] if command == "admit" else [command, *target_flags(query, manifests)]
    return argv + profile_flags(command, profile) + (query.get("flags", []) if command == "explain" else [])

# --- the answers a case records ------------------------------------------------


def _runtime(kind: str, namespace: str | None, name: str) -> dict:
    return {"kind": kind, "namespace": namespace if kind == "ServingRuntime" else None, "name": name}


def explain_answer(report: dict) -> dict:
    """A RuntimeExplainReport (explain -o json, serve) reduced to the case answer;
    an outcome report (docs/profiles.md section 0) is the error answer a case expects
    of it (issue 16: serve's outcome reports under v1.2.2 and code-v0.1.5)."""
    if "outcome" in report:
        return outcome_answer(report)
    namespace = report["query"]["namespace"]
    ranking, rejected = [], []
    for row in report["rows"]:
        runtime = _runtime(row["kind"], namespace, row["runtime"])
        if row["compatible"]:
            ranking.append({**runtime, **{k: row[k] for k in ("score", "distance", "priority", "weight")}})
        else:
            checks = [r["check"] for r in row["reasons"]]
            rejected.append({**runtime, "failedCheck": row["failedCheck"], "reason": row["reason"], "checks": checks})
    return {"selected": report["selected"], "ranking": ranking, "rejected": rejected, "message": report["message"]}


def outcome_answer(report: dict) -> dict:
    """An outcome report as the error line explain prints for it."""
    return {"error": f"outcome {report['outcome']}: {report['detail']}"}


def select_answer(selection: dict) -> dict:
    """A RuntimeSelection (select -o json) reduced to the case answer."""
    keys = ("explicit", "selected", "message", "warnings", "admission", "condition", "events")
    return {key: selection[key] for key in keys}


def admit_answer(report: dict) -> dict:
    """An AdmissionReport (admit -o json) reduced to the case answer."""
    return {"items": report["items"]}


# --- which rules a case exercises -----------------------------------------------

# Pieces of a No row's reason -> the rules that produced them.
_REASON_RULES = [
    (r"runtime is disabled", "Q2 I5"),
    (r"accelerator class", "Q3 A1 A3"),
    (r"deployment mode", "Q4 D1 D2 D3 D4 D5"),
    (r"not in supported formats", "Q5 E15 E16"),
    (r"no supported formats defined", "Q5"),
    (r"diffusion pipeline required", "Q10 Q20"),
    (r"pipeline class mismatch", "Q10 Q21"),
    (r"(library|type) mismatch|component \S+ required", "Q10 Q22"),
    (r"additional components|diffusion component", "Q10 Q23"),
    (r"architecture", "Q11"),
    (r"quantization", "Q12"),
    (r"format name mismatch|format version", "Q13"),
    (r"framework", "Q14"),
    (r"model has no framework", "I7"),
    (r"version mismatch", "V1 V2 V5"),
    (r"outside supported range", "Q6 Z3 Z4"),
    (r"\(-inf|inf\)", "Z4"),
    (r"autoSelect=true entry", "Q7 Q18"),
    (r"not autoSelect-enabled", "Q8 Q17 S2"),
    (r"auto-select score is 0", "Q8 S1"),
]
_SELECT_RULES = [
    (r"will be auto-selected", "O9 O5"),
    (r"does not declare support", "X6"),
    (r"not found in namespace", "X3"),
    (r"runtime \S+ is disabled", "X4"),
    (r"model \S+ is disabled", "M3"),
    (r"no runtime found", "O8"),
    (r"no supporting runtime found", "O9"),
]


def _match(table: list, text: str, rules: set) -> None:
    for pattern, ids in table:
        if re.search(pattern, text):
            rules.update(ids.split())


def exercised_rules(documents: list[dict], query: dict, answers: dict) -> list[str]:
    """The spec rule ids a case exercises, read from its answers (which checks
    failed and why, the order, the errors) and what its manifests hold."""
    rules = {"I1", "I2", "I3", "I10"}
    explain = answers["explain"]
    if "error" in explain:
        message = explain["error"]
        rules.update(("E4", "M4") if "format name is required" in message else ())
        rules.update(("E4", "M2") if "not found" in message else ())
        rules.update(("E4", "M6") if "no spec.model" in message else ())
    else:
        rules.update(("M1", "Q1", "E7", "E8", "E10"))
        _explain_rules(query, explain, rules)
    for item in answers.get("admit", {}).get("items", []):
        if not item["allowed"]:
            rules.update(("I9", "W1"))
            rules.add("W3" if "accelerator" in item["message"] else "W4")
    selection = answers.get("select", {})
    if selection and "error" not in selection:
        rules.add("X1" if selection["explicit"] else "O5")
        texts = [selection["message"] or "", selection["admission"]["denial"] or ""] + selection["warnings"]
        for text in texts:
            _match(_SELECT_RULES, text, rules)
    _document_rules(documents, rules)
    return sorted(rules, key=lambda r: (r[0], int(r[1:])))


def _explain_rules(query: dict, explain: dict, rules: set) -> None:
    if "isvc" in query:
        rules.update(("A1", "A2", "D3"))
    else:
        rules.update(("A6", "D7"))
    ranking, rejected = explain["ranking"], explain["rejected"]
    if not ranking and not rejected:
        rules.add("E6")
    if ranking:
        rules.update(("S1", "S2", "S3", "Q16", "E9", "O5"))
    if rejected:
        rules.add("E14")
    if any(r["failedCheck"] in ("Q7", "Q8") for r in rejected):
        rules.add("Q9")
    if explain["message"]:
        rules.add("O8")
    for row in rejected:
        _match(_REASON_RULES, row["reason"], rules)
        rules.update(row["checks"])
    kinds = {r["kind"] for r in ranking}
    if len(kinds) == 2:
        rules.add("O1")
    rows = ranking + rejected
    if len({r["name"] for r in rows}) < len(rows):
        rules.update(("O6", "E17"))
    for before, after in zip(ranking, ranking[1:]):
        if before["kind"] != after["kind"]:
            continue
        if before["score"] != after["score"]:
            rules.add("O2")
        elif before["distance"] != after["distance"]:
            rules.update(("O3", "Z5"))
        else:
            rules.add("O4")
    if any(r["distance"] not in (None, "0") for r in ranking):
        rules.add("Z5")


def _document_rules(documents: list[dict], rules: set) -> None:
    """Rules the manifests exercise. A case diff shrank may lack any field
    (issue 16: an entry without modelFormat under code-v0.1.5), so every
    field is read as optional."""
    for document in documents:
        spec = _mapping(document.get("spec"))
        if "modelParameterSize" in spec or "modelSizeRange" in spec:
            rules.add("Z1")
        if any(not re.fullmatch(r"([0-9]+(\.[0-9]*)?|\.[0-9]+)[MBT]?", str(v))
               for v in [spec.get("modelParameterSize")] + list(_mapping(spec.get("modelSizeRange")).values()) if v is not None):
            rules.add("Z2")
        entries = spec.get("supportedModelFormats")
        for entry in entries if isinstance(entries, list) else []:
            entry = _mapping(entry)
            for part in ("modelFormat", "modelFramework"):
                side = _mapping(entry.get(part))
                weight = side.get("weight")
                if weight == 0:
                    rules.add("S3")
                if isinstance(weight, int) and weight < 0:
                    rules.add("S4")
                if side.get("operator") in ("GreaterThan", "GreaterThanOrEqual"):
                    rules.update(("V3", "V8"))
            if "priority" in entry:
                rules.add("S5")
        if document.get("kind") in ("BaseModel", "ClusterBaseModel") and "operator" in _mapping(spec.get("modelFormat")):
            rules.add("M5")


def _mapping(value: object) -> dict:
    return value if isinstance(value, dict) else {}


# --- writing ---------------------------------------------------------------------


class _Dumper(report.YamlDumper):
    pass


def _str(dumper: _Dumper, text: str) -> yaml.Node:
    # Multi-line text (tables, stderr) as a literal block; the rest as plain or quoted scalars.
    if "\n" in text and all(line == line.rstrip() for line in text.splitlines()):
        return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|")
    return report.YamlDumper.yaml_representers[str](dumper, text)


def _list(dumper: _Dumper, items: list) -> yaml.Node:
    # Rule and check ids on one line: [Q5, E15]; a row's checks: [Q2, Q5]
    flow = bool(items) and all(isinstance(i, str) and len(i) <= 20 and "\n" not in i for i in items)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", items, flow_style=flow)


def _dict(dumper: _Dumper, mapping: dict) -> yaml.Node:
    # A runtime or a row of one on one line: {kind: ..., namespace: ..., name: ..., score: ...}
    flow = {"kind", "name"} <= mapping.keys() and not any(isinstance(v, (dict, list)) for v in mapping.values())
    return dumper.represent_mapping("tag:yaml.org,2002:map", mapping, flow_style=flow)


_Dumper.add_representer(str, _str)
_Dumper.add_representer(list, _list)
_Dumper.add_representer(dict, _dict)


def dump(value: object) -> str:
    """YAML as the corpus writes it: keys in the given order, one line per message."""
    return report.to_yaml(value, _Dumper, width=1 << 16)


def dump_manifests(documents: list[dict]) -> str:
    """A multi-document YAML stream, as manifests.yaml holds it."""
    return report.to_yaml_all(documents, width=1 << 16)


def write(directory: Path, spec: dict, documents: list[dict], expected: dict | None) -> None:
    """Write a case directory."""
    with writing(directory):
        directory.mkdir(parents=True, exist_ok=True)
        (directory / CASE_FILE).write_text(dump(spec), encoding="utf-8")
        (directory / MANIFESTS_FILE).write_text(dump_manifests(documents), encoding="utf-8")
        if expected is not None:
            (directory / EXPECTED_FILE).write_text(dump(expected), encoding="utf-8")


@contextlib.contextmanager
def writing(directory: Path) -> Iterator[None]:
    """Writing under `directory` (gen -o, diff -o): a path that cannot be
    written is one `error:` line naming it, not an internal error (issue 18)."""
    try:
        yield
    except OSError as error:
        where = shown(str(error.filename or directory), cut=False)
        raise OutputError(f"cannot write {where}: {error.strerror or error}") from None
