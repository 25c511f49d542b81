#!/usr/bin/env python3
"""A toy implementation of OME runtime selection that speaks the `ome-asp diff`
protocol, with bugs you can plant, to see `diff` find and shrink them.

    ome-asp diff --impl 'python examples/toy_impl.py' --generate 50 --seed 1 --batch
    ome-asp diff --impl 'python examples/toy_impl.py --bug namespaced-first' --generate 50 --seed 1 --batch
    ome-asp diff --impl 'python examples/toy_impl.py --bug namespaced-first' --batch --exhaustive \
        --pool formats=f --pool runtime_names=a    # every cluster of a bound, smallest first (docs/oracle.md)

It answers with the independent reference model of the test suite
(tests/reference_model.py, written from docs/spec.md alone), so without `--bug`
it agrees with ome-asp. Each `--bug` replaces one rule of the model:

    namespaced-first   O1 ignored: ServingRuntimes are not ranked before ClusterServingRuntimes
    zero-weight        S3: a weight 0 counts as 0, not as 10 (format) / 5 (framework); under
                       code-v0.1.5 an absent weight too
    exclusive-bounds   Z3: a size equal to a bound of modelSizeRange is outside the range
    absent-autoselect  S2: an entry whose autoSelect is absent does not count in the score

Requests are read one JSON line at a time and answered one JSON line each, so
the same program works per case and in batch mode (docs/oracle.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import reference_model as model  # noqa: E402

_original_order_key = model._order_key


def _no_namespaced_first(runtime, score, distance):
    return _original_order_key(runtime, score, distance)[1:]


def _zero_weight_as_zero(weight, part):
    return weight


def _exclusive_bounds(runtime, model_spec, profile=model.PROFILE):
    size, size_range = model_spec.get("modelParameterSize"), model._get(runtime, "spec", "modelSizeRange")
    if size is not None and size_range is not None:
        count = model.size_count(size)
        if any(bound in size_range and model.size_count(size_range[bound]) == count for bound in ("min", "max")):
            return f"model size {size} is on a bound of the supported range"
    return _original_size_reason(runtime, model_spec, profile)


_original_size_reason = model.size_reason
_original_counts = model.counts_in_score


def _absent_autoselect_not_counted(entry, model_spec):
    return entry.get("autoSelect") is True and _original_counts(entry, model_spec)


BUGS = {
    "namespaced-first": ("_order_key", _no_namespaced_first),
    "zero-weight": ("counted_weight", _zero_weight_as_zero),
    "exclusive-bounds": ("size_reason", _exclusive_bounds),
    "absent-autoselect": ("counts_in_score", _absent_autoselect_not_counted),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bug", action="append", default=[], choices=sorted(BUGS), help="plant a bug (repeatable)")
    args = parser.parse_args()
    for bug in args.bug:
        name, replacement = BUGS[bug]
        setattr(model, name, replacement)
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            answer = model.protocol_answer(request)
        except Exception as error:  # input the model does not handle (it assumes valid manifests)
            answer = {"id": request.get("id"), "error": f"toy: {type(error).__name__}: {error}"}
        print(json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
