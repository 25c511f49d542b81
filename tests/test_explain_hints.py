"""explain and select answers an operator can read at once (issue 36 item 3):
sizes and distances in the manifests' units, and the hints that connect a
failure to its cause in the input."""

from __future__ import annotations

import json

from conftest import FIXTURES, run_cli

WORKED = ["-n", "llama-demo", "-f", str(FIXTURES / "worked-example")]
MODEL = ["--model", "llama-3-2-3b-instruct", *WORKED]


def test_distances_print_in_the_manifests_units_and_stay_exact_in_json():
    """`69B`, as the manifests write sizes, in the wide table and -v (was
    69000000000); the JSON report keeps the exact decimal. Fails with the
    count printed as it is, or with JSON's distance changed."""
    wide = run_cli("explain", *MODEL, "-o", "wide").stdout.splitlines()
    assert [line.split()[6] for line in wide[1:]] == ["0", "0", "7B", "69B"]
    verbose = run_cli("explain", *MODEL, "-v").stdout
    assert "  distance 69B: max - min, the width of the range\n" in verbose
    assert "O3: the same score, distance 69B > 7B" in verbose
    rows = json.loads(run_cli("explain", *MODEL, "-o", "json").stdout)["rows"]
    assert [row["distance"] for row in rows] == ["0", "0", "7000000000", "69000000000"]
