"""Smoke run of the benchmark suite on tiny sizes (the full run is
`python benchmarks/run.py`, not part of the tests)."""

import re
import subprocess
import sys

from conftest import ROOT


def test_benchmark_suite_runs_on_tiny_sizes():
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick"],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    for goal in ("G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8"):
        assert f"| {goal} |" in result.stdout
    # issue 26 item 4: decode and output per row listed, of the rows --stats counts
    assert re.search(r"\| G9r \|.*\| v1\.3 decode [\d.]+ µs, output [\d.]+ µs, .* \(60 rows, -j 1\) \|", result.stdout)
    assert "| 3 × 20 | rank |" in result.stdout and "| 3 × 20 | explain |" in result.stdout


def test_worlds_benchmark_runs_on_tiny_sizes():
    """benchmarks/worlds.py (issue 12's T1-T5) on tiny sizes, print only."""
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "worlds.py"), "--quick"],
                            capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stderr
    for goal in ("T1", "T2", "T3", "T4", "T5"):
        assert f"| {goal} |" in result.stdout
    # T3's lever states this run's profile, counted (it named work done since, D-130, D-135)
    (lever,) = [line for line in result.stdout.splitlines() if line.startswith("- T3: ")]
    assert re.search(r"\. [\d,]+ Python calls per case in the profiled batch .* makes them: .*input/loader\.py [\d,]+", lever)


def test_rows_benchmark_runs_on_tiny_sizes():
    """benchmarks/rows.py (issue 26 item 4): decode and output per row, in CPU time, and their Python calls."""
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "rows.py"), "--quick", "--profile", "code-v0.1.5"],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("3 models × 20 runtimes, code-v0.1.5: 60 rows (")
    for phase in ("decode", "output"):
        assert re.search(rf"^{phase}: [\d.]+ µs per row \(CPU, least of 1\), [\d.]+ Python calls per row$", result.stdout, re.M)


def test_linear_benchmark_computes_its_figures(tmp_path):
    """benchmarks/linear.py (issue 39: test_linear's CPU ratio moved there) on
    tiny sizes: the figure of memory per input byte is measured on the file
    it says, whose size is the one it made (not only its headings), and is
    within issue 28's goal."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import linear

    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "linear.py"), "--quick"],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    (per_byte, size), = re.findall(r"^- long value: (\d+) bytes of memory per input byte \(goal ≤ 50\) at ([\d,]+) bytes$",
                                   result.stdout, re.M)
    assert int(size.replace(",", "")) == linear.long_value(tmp_path, 4 * 2**18 // 16).stat().st_size
    assert int(per_byte) <= linear.BYTES_PER_BYTE
    for shape in ("long value", "many objects"):
        assert re.search(rf"^\| {shape} \| [\d,]+, [\d,]+ \| [\d.]+, [\d.]+ \| [\d.]+ \| \d+, \d+ \| [\d.]+ \|$", result.stdout, re.M)


def test_rows_benchmark_measures_the_no_heavy_shape():
    """Issue 40: benchmarks/rows.py's CPU per row by phase (run.py's table) on
    the No-heavy generator, whose rows almost all fail (fails if --shape
    catalog measures G8's generator: 11 of its 60 rows qualify)."""
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "rows.py"), "--quick", "--shape", "catalog"],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert re.match(r"3 models × 20 runtimes, v1\.3, catalog shape: 60 rows \([01] Yes\)", result.stdout)
    assert re.search(r"^ground: [\d.]+ µs per row \(CPU, once, 1 chunk\(s\)\)$", result.stdout, re.M)


def test_no_heavy_cluster_has_the_catalogs_likely_typo_warnings():
    """The No-heavy generator's 100 × 550 cluster (run.py's G10) carries 165
    likely-typo warnings (issue 40: ~166), each its own line after the
    loader's folding (fails if two typos fold into one)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from clusters import catalog_documents

    from ome_asp.input.loader import load_documents

    warnings = load_documents(catalog_documents(550, 100, seed=550100)).warnings
    assert len(warnings) == 165 and all("did you mean" in w for w in warnings)

def test_serve_benchmark_runs_on_tiny_sizes():
    """benchmarks/serve.py (issue 40's serve goals: S1 cases/s and CPU per case per -j, S2 memory, S3 a preloaded cluster)."""
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "serve.py"), "--quick"],
                            capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stderr
    # tiny sizes: a rate less its start-up run may come out negative under load
    assert re.search(r"^\| default \| no \| [\d.]+ \| -?[\d,]+ \| -?[\d.]+ \|$", result.stdout, re.M), result.stdout
    assert re.search(r"^S2 — memory over 200 requests .*: ([\d.]+, ){9}[\d.]+ MB; growth -?[\d.]+ MB", result.stdout, re.M), result.stdout
    assert re.search(r"^\| 1 \| [\d.]+ s, -?[\d.]+ ms \| [\d.]+ s, -?[\d.]+ ms \|$", result.stdout, re.M), result.stdout


def test_trees_benchmark_runs_both_checkouts():
    """benchmarks/trees.py (issue 40's before and after) on tiny clusters,
    this checkout against itself: a row per command (explain on both cluster
    shapes with their rows counted, steer, compare) and both trees' figures;
    fails with a tree's command failing (it exits naming it)."""
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "trees.py"), "--before", str(ROOT), "--quick"],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    rows = re.findall(r"^\| (.+?) \| ([\d.]+) s, [\d.]+ s, \d+ MB \| ([\d.]+) s, [\d.]+ s, \d+ MB \| ([\d.]+)× \|$",
                      result.stdout, re.M)
    assert [row[0] for row in rows] == ["explain --all-models, G8 3 × 20 (60 rows)", "explain --all-models, No-heavy 3 × 20 (60 rows)",
                                        "steer, dump of 20 runtimes, 3 models", "compare, No-heavy catalog upgrade 20 × 20"], result.stdout
    for _, before, after, ratio in rows:  # the ratio of the unrounded times, within the printed times' rounding
        low, high = (float(after) - 0.005) / (float(before) + 0.005), (float(after) + 0.005) / (float(before) - 0.005)
        assert low - 0.005 <= float(ratio) <= high + 0.005, (before, after, ratio)
