"""The conformance case format: read, validate, run and write cases.

A case is a directory with three files (docs/oracle.md, "Conformance cases"):

    case.yaml       description, rules (spec ids), profile, query, check (commands)
    manifests.yaml  the cluster: a multi-document YAML stream
    expected.yaml   one answer per checked command: explain, select, admit

An answer is the command's JSON report reduced to what the specification
decides (`explain_answer`, `select_answer`, `admit_answer`): for explain the
selected runtime, the ranking (score, distance, PRIORITY, WEIGHT), each No
row's failed checks and reason, the no-runtime message; or the error. The
optional keys `table` (explain's stdout with the default table output),
`stderr` and `exit` are compared only when the expected answer has them.

ome-asp answers a case by running its own command line in-process
(`cli.main`), with manifests.yaml on stdin (so messages name the input
`<stdin>` wherever the corpus lives) and the case's profile passed through
`case_files.profile_flags`; or, for many cases at once (`answers`), by reading the
manifests as that command line reads them and answering the cases as worlds
of one grounding per command, which gives the same answers (tests/test_worlds.py).
"""

from __future__ import annotations

import difflib
import io
import json
from dataclasses import dataclass
from pathlib import Path

import yaml

from ome_asp.errors import InputError
from ome_asp.input.documents import decode, documents, shown
from ome_asp.render import report
from ome_asp.render.case_files import (
    CASE_FILE,
    EXPECTED_FILE,
    MANIFESTS_FILE,
    admit_answer,
    case_argv,
    dump,
    explain_answer,
    outcome_answer,
    select_answer,
)

DEFAULT_PROFILE = "v1.3"
PROFILES = ("v1.3", "v1.2.2", "code-v0.1.5")
COMMANDS = ("explain", "select", "admit")
CHECK_IDS = ("Q2", "Q3", "Q4", "Q5", "Q6", "Q7", "Q8")
OPTIONAL_KEYS = ("table", "stderr", "exit")  # compared only when expected

_RUNTIME_PROPERTIES = {
    "kind": {"enum": ["ServingRuntime", "ClusterServingRuntime"]},
    "namespace": {"type": ["string", "null"], "description": "the namespace of a ServingRuntime; null for a ClusterServingRuntime"},
    "name": {"type": "string"},
}
_RUNTIME_KEYS = ["kind", "namespace", "name"]
_STRINGS = {"type": "array", "items": {"type": "string"}}
_OUTPUT = {
    "stderr": {"type": "string", "description": "exact stderr of the command (compared only when given)"},
    "exit": {"type": "integer", "description": "exit code of the command (compared only when given)"},
}

CASE_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "ome-asp/case.schema.json",
    "title": "case.yaml of an ome-asp conformance case",
    "type": "object",
    "required": ["description", "rules", "profile", "query", "check"],
    "additionalProperties": False,
    "properties": {
        "description": {"type": "string", "minLength": 1},
        "rules": {
            "description": "the spec.md rule ids the case exercises",
            "type": "array", "minItems": 1, "uniqueItems": True,
            "items": {"type": "string", "pattern": "^[IMQVZADSOEXW][0-9]+$"},
        },
        "profile": {"enum": list(PROFILES)},
        "query": {
            "type": "object",
            "required": ["namespace"],
            "additionalProperties": False,
            "properties": {
                "namespace": {"type": "string"},
                "model": {"type": "string"},
                "isvc": {"type": "string"},
                "flags": {"description": "extra explain flags (E1, E3); implementations without a CLI skip such cases", **_STRINGS},
            },
            "oneOf": [{"required": ["model"]}, {"required": ["isvc"]}],
        },
        "check": {
            "description": "the commands whose answers expected.yaml gives; always explain",
            "type": "array", "minItems": 1, "uniqueItems": True,
            "items": {"enum": list(COMMANDS)}, "contains": {"const": "explain"},
        },
    },
}

EXPECTED_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "ome-asp/expected.schema.json",
    "title": "expected.yaml of an ome-asp conformance case",
    "type": "object",
    "minProperties": 1,
    "additionalProperties": False,
    "properties": {name: {"$ref": f"#/$defs/{name}"} for name in COMMANDS},
    "$defs": {
        "runtime": {"type": "object", "required": _RUNTIME_KEYS, "additionalProperties": False, "properties": _RUNTIME_PROPERTIES},
        "error": {
            "type": "object", "required": ["error"], "additionalProperties": False,
            "properties": {"error": {"type": "string", "description": "the message after `error: `"}, **_OUTPUT},
        },
        "explain": {"oneOf": [{"$ref": "#/$defs/error"}, {"$ref": "#/$defs/explainReport"}]},
        "explainReport": {
            "type": "object", "required": ["selected", "ranking", "rejected", "message"], "additionalProperties": False,
            "properties": {
                "selected": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/runtime"}]},
                "ranking": {"description": "the Yes rows in O-order", "type": "array", "items": {"$ref": "#/$defs/ranked"}},
                "rejected": {"description": "the No rows in E10 order", "type": "array", "items": {"$ref": "#/$defs/rejected"}},
                "message": {"type": ["string", "null"], "description": "the O8 no-runtime message, or null"},
                "table": {"type": "string", "description": "exact stdout of explain with the default table output"},
                **_OUTPUT,
            },
        },
        "ranked": {
            "type": "object", "additionalProperties": False,
            "required": _RUNTIME_KEYS + ["score", "distance", "priority", "weight"],
            "properties": {
                **_RUNTIME_PROPERTIES,
                "score": {"type": "integer", "description": "S1"},
                "distance": {"type": ["string", "null"], "pattern": "^([0-9]+(\\.[0-9]+)?|NaN|\\+Inf)$",
                             "description": "Z5, exact decimal (NaN or +Inf: code-v0.1.5's float64); "
                                            "null when the model has no size"},
                "priority": {"type": "integer", "description": "E9 PRIORITY"},
                "weight": {"type": "integer", "description": "E9 WEIGHT"},
            },
        },
        "rejected": {
            "type": "object", "additionalProperties": False,
            "required": _RUNTIME_KEYS + ["failedCheck", "reason", "checks"],
            "properties": {
                **_RUNTIME_PROPERTIES,
                "failedCheck": {"enum": list(CHECK_IDS), "description": "the first failed check (Q2-Q8)"},
                "reason": {"type": "string", "description": "its E14 reason"},
                "checks": {"description": "every failed check, in order", "type": "array", "minItems": 1,
                           "items": {"enum": list(CHECK_IDS)}},
            },
        },
        "select": {"oneOf": [{"$ref": "#/$defs/error"}, {"$ref": "#/$defs/selection"}]},
        "selection": {
            "type": "object", "additionalProperties": False,
            "required": ["explicit", "selected", "message", "warnings", "admission", "condition", "events"],
            "properties": {
                "explicit": {"type": "boolean"},
                "selected": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/runtime"}]},
                "message": {"type": ["string", "null"]},
                "warnings": _STRINGS,
                "admission": {
                    "type": "object", "additionalProperties": False, "required": ["path", "allowed", "warnings", "denial"],
                    "properties": {"path": {"type": "boolean"}, "allowed": {"type": "boolean"},
                                   "warnings": _STRINGS, "denial": {"type": ["string", "null"]}},
                },
                "condition": {"oneOf": [{"type": "null"}, {
                    "type": "object", "additionalProperties": False, "required": ["type", "status", "reason", "message"],
                    "properties": {"type": {"const": "RuntimeReady"}, "status": {"enum": ["True", "False"]},
                                   "reason": {"type": "string"}, "message": {"type": ["string", "null"]}},
                }]},
                "events": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False, "required": ["type", "reason", "message"],
                    "properties": {"type": {"const": "Warning"}, "reason": {"type": "string"}, "message": {"type": "string"}},
                }},
                **_OUTPUT,
            },
        },
        "admit": {"oneOf": [{"$ref": "#/$defs/error"}, {
            "type": "object", "additionalProperties": False, "required": ["items"],
            "properties": {
                "items": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False, "required": _RUNTIME_KEYS + ["allowed", "message"],
                    "properties": {**_RUNTIME_PROPERTIES, "allowed": {"type": "boolean"}, "message": {"type": ["string", "null"]}},
                }},
                **_OUTPUT,
            },
        }]},
    },
}

_NULLABLE_INT = {"type": ["integer", "null"]}
_RUNTIME = {"type": "object", "required": _RUNTIME_KEYS, "additionalProperties": False, "properties": _RUNTIME_PROPERTIES}

# One schema reads every RuntimeExplainReport: explain -o json (each item of an
# --all-models List), serve's `report`, and an outcome's report (issue 16).
REPORT_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "ome-asp/report.schema.json",
    "title": "RuntimeExplainReport: explain -o json, serve's report, an outcome's report",
    "type": "object",
    "required": ["apiVersion", "kind", "profile", "query", "selected", "rows", "warnings", "denied"],
    "additionalProperties": False,
    "properties": {
        "apiVersion": {"const": report.API_VERSION},
        "kind": {"const": "RuntimeExplainReport"},
        "profile": {"enum": list(PROFILES)},
        "query": {
            "type": "object", "required": ["namespace"], "additionalProperties": False,
            "properties": {"namespace": {"type": "string"}, "model": {"type": ["string", "null"]}, "isvc": {"type": "string"}},
        },
        "selected": {"oneOf": [{"type": "null"}, _RUNTIME], "description": "the first row's runtime; null when none qualifies or an outcome ends the query"},
        "rows": {"type": "array", "items": {
            "type": "object", "additionalProperties": False,
            "required": ["runtime", "kind", "scope", "compatible", "rank", "score", "priority", "weight", "distance",
                         "reason", "failedCheck", "reasons"],
            "properties": {
                "runtime": {"type": "string"}, "kind": _RUNTIME_PROPERTIES["kind"],
                "scope": {"enum": ["Namespaced", "Cluster"]}, "compatible": {"type": "boolean"},
                "rank": _NULLABLE_INT, "score": _NULLABLE_INT, "priority": _NULLABLE_INT, "weight": _NULLABLE_INT,
                "distance": {"type": ["string", "null"]}, "reason": {"type": ["string", "null"]},
                "failedCheck": {"type": ["string", "null"]},
                "reasons": {"type": "array", "items": {
                    "type": "object", "required": ["check", "message"], "additionalProperties": False,
                    "properties": {"check": {"type": "string"}, "message": {"type": "string"}},
                }},
            },
        }},
        "message": {"type": ["string", "null"], "description": "O8's no-runtime message"},
        "outcome": {"type": "string", "description": "an outcome without a table (profiles.md section 0)"},
        "detail": {"type": "string"},
        "error": {"type": "string", "description": "a query explain cannot answer (--all-models)"},
        "warnings": {**_STRINGS, "description": "the text of each `warning:` line of stderr"},
        "denied": {"type": "array", "description": "the runtimes the admission webhook would deny (I9)", "items": {
            "type": "object", "required": [*_RUNTIME_KEYS, "message"], "additionalProperties": False,
            "properties": {**_RUNTIME_PROPERTIES, "message": {"type": "string"}},
        }},
    },
}

SCHEMAS = {"case.schema.json": CASE_SCHEMA, "expected.schema.json": EXPECTED_SCHEMA, "report.schema.json": REPORT_SCHEMA}


@dataclass
class Case:
    directory: Path
    name: str  # the directory relative to where it was found
    spec: dict  # case.yaml
    manifests: bytes  # manifests.yaml as written
    expected: dict | None  # expected.yaml, None when the file is missing

    @property
    def query(self) -> dict:
        return self.spec["query"]

    @property
    def profile(self) -> str:
        return self.spec["profile"]

    def documents(self) -> list:
        return [d for d in yaml.safe_load_all(self.manifests) if d is not None]


# --- finding and reading cases ------------------------------------------------


def find(paths: list[str]) -> list[tuple[Path, str]]:
    """(directory, name) of every case under `paths` (a directory holding case.yaml), sorted."""
    found = []
    for path in map(Path, paths):
        if not path.exists():
            raise InputError(f"{path}: no such file or directory")
        base = path if path.is_dir() else path.parent
        marker = [path] if path.name == CASE_FILE else sorted(base.rglob(CASE_FILE))
        for file in marker:
            name = file.parent.relative_to(base).as_posix()
            found.append((file.parent, name if name != "." else file.parent.name))
    if not found:
        raise InputError(f"no cases (directories with a {CASE_FILE}) under {', '.join(paths)}")
    return found


#: The explain flags a case's query.flags may carry, each with how many values
#: it takes (docs/oracle.md). Only flags that change what explain answers about
#: the case's own manifests: a case is data, and a flag that reads input
#: (-f, -k, --from-cluster, --kubeconfig) or writes output would let a case
#: read or run what its user never named (issue 28). `check` runs them; `diff`
#: skips cases with flags (its implementations answer JSON requests).
CASE_FLAGS = {"--with-effective": 0, "--ome-namespace": 1, "--runtime": 1, "--strict": 0, "-v": 0, "--verbose": 0}


def flags_problem(flags: list[str]) -> str | None:
    """Why `flags` are not a case's query.flags (CASE_FLAGS), or None."""
    index = 0
    while index < len(flags):
        flag, equals, _ = flags[index].partition("=")
        takes = CASE_FLAGS.get(flag)
        if takes is None or (equals and takes != 1):
            return (f"query.flags: {shown(flags[index])} is not a flag a case may carry "
                    f"(only {', '.join(CASE_FLAGS)}; docs/oracle.md)")
        if takes and not equals:
            if index + 1 == len(flags):
                return f"query.flags: {flag} needs a value"
            index += 1
        index += 1
    return None


def load_case(directory: Path, name: str | None = None) -> Case:
    """Read and validate one case; a malformed case is an InputError naming the file."""
    spec = _read_yaml(directory / CASE_FILE)
    _check(directory / CASE_FILE, spec, CASE_SCHEMA)
    problem = flags_problem(spec["query"].get("flags", []))
    if problem is not None:
        raise InputError(f"{directory / CASE_FILE}: {problem}")
    manifests_path = directory / MANIFESTS_FILE
    if not manifests_path.is_file():
        raise InputError(f"{manifests_path}: missing")
    expected = None
    if (directory / EXPECTED_FILE).is_file():
        expected = _read_yaml(directory / EXPECTED_FILE)
        _check(directory / EXPECTED_FILE, expected, EXPECTED_SCHEMA)
        if sorted(expected) != sorted(spec["check"]):
            raise InputError(f"{directory / EXPECTED_FILE}: answers {sorted(expected)}, but case.yaml checks {sorted(spec['check'])}")
    return Case(directory, name or directory.name, spec, manifests_path.read_bytes(), expected)


def _read_yaml(path: Path):
    """The file's one YAML document, read as a manifest is (its messages,
    too deep a nesting and alias bombs included, issue 28)."""
    label = shown(str(path), cut=False)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"{label}: {error.strerror}") from None
    found = [document.content for document in documents(label, decode(label, data))]
    if len(found) > 1:
        raise InputError(f"{label}: expected one YAML document, found {len(found)}")
    return found[0] if found else None


def _check(path: Path, value, schema: dict) -> None:
    errors = schema_errors(value, schema)
    if errors:
        raise InputError(f"{path}: {errors[0]}")


def schema_errors(value, schema: dict) -> list[str]:
    """Every violation of a case schema (draft 2020-12, validated by
    jsonschema), most relevant first, each as `<path>: <why>`. Where a value
    matches none of oneOf's shapes, the message is about the shape it comes
    closest to: the one whose errors lie deepest, then the fewest of them."""
    import jsonschema  # only reading cases needs it
    from jsonschema.exceptions import relevance

    def closest(error):
        while error.context:
            shapes: dict = {}
            for inner in error.context:
                shapes.setdefault(inner.schema_path[0], []).append(inner)
            errors = min(shapes.values(), key=lambda es: (-max(len(e.absolute_path) for e in es), len(es)))
            error = max(errors, key=lambda e: len(e.absolute_path))
        return error

    found = sorted(jsonschema.Draft202012Validator(schema).iter_errors(value), key=relevance)
    return [_schema_message(closest(error)) for error in found]


def _schema_message(error) -> str:
    where = error.json_path.removeprefix("$").removeprefix(".") or "(top)"
    message = error.message if len(error.message) <= 200 else error.message[:199] + "…"
    return f"{where}: {message}"


# --- running ome-asp on a case ------------------------------------------------


@dataclass
class Output:
    code: int
    stdout: str
    stderr: str


def run_cli(argv: list[str], stdin: bytes) -> Output:
    from ome_asp import cli

    out, err = io.StringIO(), io.StringIO()
    code = cli.main(argv, stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return Output(code, out.getvalue(), err.getvalue())


def answer(command: str, manifests: bytes, query: dict, profile: str, want: tuple = ()) -> dict:
    """ome-asp's answer to `command` for a cluster and a query.

    The answer comes from the command's `-o json` report. `want` lists the
    optional keys to include: `table` (explain's stdout), `stderr` and `exit`,
    all three from a second run with the default output, as a user runs it."""
    argv = case_argv(command, query, profile)
    return _with_output(_parse(command, run_cli(argv + ["-o", "json"], manifests)), argv, manifests, want)


def _with_output(result: dict, argv: list[str], manifests: bytes, want: tuple) -> dict:
    """The `want`ed keys added to the JSON report's answer, from a run with the default output."""
    if want:
        out = run_cli(argv, manifests)
        if "table" in want and "error" not in result:
            result["table"] = out.stdout
        if "stderr" in want:
            result["stderr"] = out.stderr
        if "exit" in want:
            result["exit"] = int(out.code)  # an errors.Exit member: YAML writes plain ints only
    return result


def _parse(command: str, out: Output) -> dict:
    errors = [line[len("error: "):] for line in out.stderr.splitlines() if line.startswith("error: ")]
    try:
        document = json.loads(out.stdout) if out.stdout.strip() else None
    except ValueError:
        document = None
    if document is None or (command == "explain" and out.code != 0 and "outcome" not in document):
        if errors:
            return {"error": errors[-1]}
        return {"error": f"exit {out.code} without a report: {out.stderr.strip() or out.stdout.strip()}"}
    return _reduced(command, document)


def _reduced(command: str, document: dict) -> dict:
    """A command's -o json report reduced to the case answer."""
    if "outcome" in document:  # docs/profiles.md section 0: no table, an error line
        return outcome_answer(document)
    return {"explain": explain_answer, "select": select_answer, "admit": admit_answer}[command](document)


def answers(requests: list[tuple[str, bytes, dict, str, tuple]]) -> list[dict]:
    """`answer(*request)` of each request, in order. The JSON reports of
    requests without flags are answered together, one world each of one
    grounding per command (analysis/oracle.py, as serve answers a batch), with the manifests read as
    the command line reads `-f -`; the optional keys (table, stderr, exit)
    and requests with flags run the command line."""
    from ome_asp.analysis.oracle import answer_worlds
    from ome_asp.input import profiles
    from ome_asp.input.loader import load
    from ome_asp.input.objects import Query
    from ome_asp.render.reasons import CANDIDATE_LIMIT

    results: list[dict | None] = [None] * len(requests)
    chosen, worlds = [], []
    for i, (command, manifests, query, profile, want) in enumerate(requests):
        if query.get("flags"):
            results[i] = answer(command, manifests, query, profile, want)
            continue
        try:
            cluster = load(["-"], stdin=io.BytesIO(manifests), profile=profiles.PROFILES[profile])
        except InputError as error:
            results[i] = _with_output({"error": str(error)}, case_argv(command, query, profile), manifests, want)
            continue
        target = None if command == "admit" else Query(query["namespace"], model=query.get("model"), isvc=query.get("isvc"))
        chosen.append(i)
        worlds.append((command, cluster, target, cluster.profile))
    for i, response in zip(chosen, answer_worlds(worlds)):
        command, manifests, query, profile, want = requests[i]
        if "report" in response and command == "explain" and len(response["report"].get("rows", ())) > CANDIDATE_LIMIT:
            results[i] = answer(*requests[i])  # the command line's refusal (E4)
            continue
        found = _reduced(command, response["report"]) if "report" in response else {"error": response["error"]}
        results[i] = _with_output(found, case_argv(command, query, profile), manifests, want)
    return results


def run_all(batch: list[Case]) -> list[dict]:
    """ome-asp's answers to every command each case checks, the cases
    answered together (`answers`)."""
    requests = []
    for case in batch:
        for command in case.spec["check"]:
            expected = (case.expected or {}).get(command, {})
            want = tuple(k for k in OPTIONAL_KEYS if k in expected)
            requests.append((command, case.manifests, case.query, case.profile, want))
    found = iter(answers(requests))
    return [{command: next(found) for command in case.spec["check"]} for case in batch]


# --- comparing and writing ---------------------------------------------------


def differences(expected: dict, actual: dict) -> dict[str, str]:
    """command -> a unified diff (expected vs ome-asp) for each command that differs."""
    diffs = {}
    for command, want in expected.items():
        got = actual.get(command)
        if got != want:
            diffs[command] = "".join(difflib.unified_diff(
                dump(want).splitlines(keepends=True), dump(got).splitlines(keepends=True),
                fromfile=f"expected {command}", tofile=f"ome-asp {command}"))
    return diffs


def write_schemas(directory: Path) -> None:
    """Write the JSON Schemas (fixtures/cases/*.schema.json are these)."""
    for name, schema in SCHEMAS.items():
        (directory / name).write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":  # python -m ome_asp.conformance.cases DIR: (re)write the schema files
    import sys

    write_schemas(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
