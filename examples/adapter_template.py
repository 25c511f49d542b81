#!/usr/bin/env python3
"""Template: connect your implementation of OME runtime selection to `ome-asp diff`.

    ome-asp diff --impl 'python examples/adapter_template.py' --corpus fixtures/cases/ordering
    ome-asp diff --impl 'python examples/adapter_template.py' --generate 100 --seed 1 --batch

The protocol (docs/oracle.md, "Differential testing"): one JSON request per
line on stdin, one JSON answer per line on stdout, in order, flushed.

    request: {"id": "...", "profile": "v1.3", "namespace": "ns",
              "model": "m"  (or "isvc": "i"),  "manifests": [{...}, ...]}
    answer:  {"id": "...", "selected": {"kind": ..., "namespace": ..., "name": ...} | null,
              "ranking": [{"kind", "namespace", "name", "score"?, "distance"?}, ...],
              "rejected"?: [{"kind", "namespace", "name", "failedCheck", "reason"?}, ...]}
       or    {"id": "...", "error": "..."}

Replace `select` below with a call into your implementation. As shipped, it
adapts a command-line tool that reads manifest files and prints JSON, using
`ome-asp explain -o json` itself as that tool, so it agrees with ome-asp.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

TOOL = [sys.executable, "-m", "ome_asp", "explain"]  # your tool here


def select(request: dict) -> dict:
    """Your implementation's answer to one request (without the id)."""
    target = ["--model", request["model"]] if "model" in request else ["--isvc", request["isvc"]]
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "manifests.yaml"
        path.write_text(yaml.safe_dump_all(request["manifests"]), encoding="utf-8")
        done = subprocess.run([*TOOL, *target, "-n", request["namespace"], "-f", str(path), "-o", "json"],
                              capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    report = json.loads(done.stdout)
    # Convert the tool's output to the protocol's answer.
    namespace = request["namespace"]

    def runtime(row: dict) -> dict:
        return {"kind": row["kind"], "namespace": namespace if row["kind"] == "ServingRuntime" else None,
                "name": row["runtime"]}

    return {
        "selected": report["selected"],
        "ranking": [{**runtime(r), "score": r["score"], "distance": r["distance"]} for r in report["rows"] if r["compatible"]],
        "rejected": [{**runtime(r), "failedCheck": r["failedCheck"]} for r in report["rows"] if not r["compatible"]],
    }


def main() -> int:
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            answer = select(request)
        except Exception as error:  # report, do not die: diff counts it as this case's answer
            answer = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps({"id": request.get("id"), **answer}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
