#!/usr/bin/env python3
"""Structure-aware fuzzing of `ome-asp explain` and `compare --git` (docs/reliability.md).

    python scripts/fuzz.py [--inputs 10000] [--seed 0] [--timeout 30] [--failures DIR] [--git N]

Each input is a random cluster from ome_asp.testing.strategies, four times in
five broken by `mutated_documents()` (deleted fields, swapped types, huge numbers, odd
strings, repeated documents, non-mappings, other kinds), written as YAML or
JSON, and one time in four also damaged as text (cut short, bytes inserted or
deleted, invalid UTF-8, tabs, explicit tags, anchors and aliases, a "billion
laughs"). It
runs through the CLI in-process, twice, with random flags, and fails when:

- `main()` raises (a traceback), or the exit code is not 0 or 1 (3 is an
  internal error: an exception main() caught);
- stderr holds a line that is not `warning:`, `error:`, `Note:` or E6's, or
  an error run does not end in exactly one `error:` line, or a run that
  succeeded has one;
- an error run prints on stdout;
- the two runs differ in any byte (nondeterminism);
- a run takes longer than --timeout seconds (a hang: the watchdog saves the
  input and ends the process with exit code 2).

Every failing input is saved under --failures with its command line; the
summary counts inputs, exit codes, the message kinds reached and failures.

`--git N` fuzzes `compare --git` instead, on N hostile repositories (issue
38): two commits of a catalog whose second one (and working tree) adds
attributes (export-ignore, export-subst, a filter whose program leaves a mark,
eol, ident), symbolic links (absolute, outward, in a loop, inside), a
submodule, odd file names (not UTF-8, a newline, a leading dash), remote
kustomize bases and keys only kustomize applies; ranges of every form, -f
and -k. It fails on a traceback, an exit code other than 0, 1 or 2, exit 2
without exactly one final `error:` line or with output, a stderr line of no
known kind, two runs that differ, or a filter program that ran.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from ome_asp import cli  # noqa: E402
from ome_asp.testing.strategies import ODD_STRINGS, clusters, mutated_documents  # noqa: E402

NO_RUNTIMES = "No serving runtimes found in the selected namespace or at cluster scope."
TRACEBACK = -1  # the exit code recorded when main() raises instead of returning
STDERR_PREFIXES = ("warning: ", "error: ", "Note: ")

#: Byte strings inserted by text mutations: YAML syntax, control and non-UTF-8 bytes.
INSERTS = (
    b"\xff", b"\xc3", b"\x00", b"\x01", b"\t", b"\r", b"\xef\xbb\xbf", b": ", b"- ", b"[", b"]", b"{", b"}",
    b",", b"'", b'"', b"#", b"&a ", b"*a", b"!!int ", b"!!binary ", b"!!set ", b"!!python/tuple ", b"<<: ",
    b"? ", b"|", b">", b"%YAML 1.1\n", b"---\n", b"...\n", b"\n", b"  ", b"\\",
)
#: Explicit tags put on a value (`key: !!int text`): PyYAML's constructors raise on a misfit.
TAGS = (b"!!int ", b"!!float ", b"!!bool ", b"!!timestamp ", b"!!binary ", b"!!null ", b"!!str ", b"!!set ", b"!!omap ")
LAUGHS = "".join(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}" if i else "lol"] * 9) + "]\n" for i in range(9)).encode()
#: Where the message kind starts in an `error:`/`warning:` line: after the location and the object.
MESSAGE_KIND = re.compile(
    r"(not valid YAML|not valid UTF-8|YAML aliases|YAML alias|expected an object|Required value|Invalid value|"
    r"Unsupported value|duplicate object|unknown field|is not a version|is not a size|is not read by ome-asp|"
    r"no objects in the input|not found|has no spec.model|model format name is required|would be denied|"
    r"collection limit|cannot be specified|at least one of)"
)


@dataclass(frozen=True)
class Case:
    """One fuzz input: the bytes of the manifests and the explain arguments."""

    data: bytes
    argv: tuple[str, ...]  # `-f FILE` is added at run time; FILE is `-` when via_stdin
    via_stdin: bool = False


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    seconds: float = field(default=0.0, compare=False)


def _serialize(draw, documents: list) -> bytes:
    style = draw(st.sampled_from(("block", "block", "flow", "json")))
    if style == "json":
        listing = {"apiVersion": "v1", "kind": "List", "items": documents}
        return json.dumps(listing, ensure_ascii=False, indent=draw(st.sampled_from((None, 2)))).encode("utf-8", "surrogatepass")
    text = yaml.safe_dump_all(documents, default_flow_style=style == "flow", allow_unicode=draw(st.booleans()))
    return text.encode("utf-8", "surrogatepass")


@st.composite
def _damaged(draw, data: bytes) -> bytes:
    """`data` with 1-3 text-level edits."""
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(data)))
        edit = draw(st.sampled_from(("cut", "insert", "delete", "repeat_line", "tag", "laughs")))
        if edit == "cut":
            data = data[:at]
        elif edit == "insert":
            data = data[:at] + draw(st.sampled_from(INSERTS)) + data[at:]
        elif edit == "delete":
            data = data[:at] + data[at + draw(st.integers(1, 20)):]
        elif edit == "tag":
            value = data.find(b": ", at) + 2
            if value > 1:
                data = data[:value] + draw(st.sampled_from(TAGS)) + data[value:]
        elif edit == "repeat_line":
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            line = data[start:] if end < 0 else data[start:end + 1]
            data = data[:start] + line + data[start:]
        else:
            data = data + b"\n---\nkind: Pod\n" + LAUGHS
    return data


@st.composite
def cases(draw) -> Case:
    # Valid clusters too (one in five): odd flags and text damage on top, and
    # the solver's own determinism.
    documents, query = draw(clusters() if draw(st.integers(0, 4)) == 0 else mutated_documents())
    data = _serialize(draw, documents)
    if draw(st.integers(0, 3)) == 0:
        data = draw(_damaged(data))
    namespace, target = query["namespace"], ("--isvc", query["isvc"]) if "isvc" in query else ("--model", query["model"])
    if draw(st.integers(0, 9)) == 0:  # odd names on the command line too
        namespace = draw(st.sampled_from(ODD_STRINGS).filter(lambda s: "\x00" not in s))
    argv = ["explain", *target, "-n", namespace, "-o", draw(st.sampled_from(("table", "wide", "json", "yaml")))]
    if draw(st.integers(0, 4)) == 0:
        argv.append("--strict")
    if draw(st.integers(0, 9)) == 0:
        argv += ["--show", "facts"]
    return Case(data, tuple(argv), via_stdin=draw(st.integers(0, 4)) == 0)


def run(case: Case, directory: Path) -> Run:
    """`ome-asp explain` on `case`, in-process, as a user would see it."""
    path = directory / "input.yaml"
    path.write_bytes(case.data)
    argv = [*case.argv, "-f", "-" if case.via_stdin else str(path)]
    stdout, stderr = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    try:
        code = cli.main(argv, stdin=io.BytesIO(case.data), stdout=stdout, stderr=stderr)
    except Exception as error:  # what the user would see as a traceback
        code = TRACEBACK
        stderr.write(f"Traceback: {type(error).__name__}: {error}\n")
    return Run(code, stdout.getvalue(), stderr.getvalue(), time.perf_counter() - start)


def problems(first: Run, second: Run) -> list[str]:
    """What is wrong with a pair of runs of the same case; [] when nothing is."""
    found = []
    if first != second:
        found.append("nondeterministic: the two runs differ")
    if first.code == TRACEBACK:
        found.append(f"traceback: {first.stderr.strip().splitlines()[-1]}")
    elif first.code not in (0, 1):
        found.append(f"exit code {first.code}: {first.stderr.strip().splitlines()[-1:]}")
    lines = first.stderr.splitlines()
    errors = [line for line in lines if line.startswith("error: ")]
    odd = [line for line in lines if not line.startswith(STDERR_PREFIXES) and line != NO_RUNTIMES]
    if odd:
        found.append(f"stderr line of no known kind: {odd[0][:200]!r}")
    if first.code == 1 and (len(errors) != 1 or lines[-1] != errors[0]):
        found.append(f"exit 1 without exactly one final error line: {lines[-3:]!r}")
    if first.code == 0 and errors:
        found.append(f"exit 0 with an error line: {errors[0][:200]!r}")
    if first.code == 1 and first.stdout:
        found.append("exit 1 with output on stdout")
    return found


def check(case: Case, directory: Path, timeout: float) -> tuple[Run, list[str]]:
    first, second = run(case, directory), run(case, directory)
    found = problems(first, second)
    slowest = max(first.seconds, second.seconds)
    if slowest > timeout:
        found.append(f"slow: {slowest:.1f} s")
    return first, found


class Watchdog:
    """Ends the process (exit 2) when one case runs longer than `timeout`, after
    saving it: a hang inside the solver cannot be interrupted from Python."""

    def __init__(self, timeout: float, failures: Path) -> None:
        self.timeout = timeout
        self.failures = failures
        self.timer: threading.Timer | None = None

    def start(self, case: Case) -> None:
        self.timer = threading.Timer(self.timeout * 2, self._hang, args=(case,))
        self.timer.daemon = True
        self.timer.start()

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()

    def _hang(self, case: Case) -> None:
        where = save(case, ["hang"], self.failures)
        print(f"fuzz: hang (> {self.timeout * 2:g} s), input saved as {where}", file=sys.stderr, flush=True)
        os._exit(2)


def save(case: Case, found: list[str], failures: Path) -> Path:
    failures.mkdir(parents=True, exist_ok=True)
    name = hashlib.sha256(case.data + "\0".join(case.argv).encode()).hexdigest()[:12]
    (failures / f"{name}.yaml").write_bytes(case.data)
    file = "-" if case.via_stdin else f"{name}.yaml"
    command = " ".join(case.argv) + f" -f {file}" + (f" < {name}.yaml" if case.via_stdin else "")
    (failures / f"{name}.txt").write_text(f"ome-asp {command}\n" + "".join(f"{p}\n" for p in found))
    return failures / f"{name}.yaml"


# --- compare --git on hostile repositories --------------------------------------------

#: Attribute lines a pull request may add: each changes what `git archive` or a checkout gives.
ATTRIBUTES = (b"catalog/** export-ignore", b"* export-subst", b"*.yaml filter=fuzz", b"*.yaml eol=crlf",
              b"* ident", b"catalog/all.yaml -text")
#: Links a pull request may add: (name, target).
LINKS = ((b"abs.yaml", b"/etc/passwd"), (b"up.yaml", b"../../outside.yaml"), (b"loop.yaml", b"loop.yaml"),
         (b"in.yaml", b"all.yaml"), (b"here", b"."), (b"dangling.yaml", b"missing.yaml"))
#: File names: not UTF-8, a line break, a flag, spaces, non-ASCII.
NAMES = (b"\xff.yaml", b"new\nline.yaml", b"-rf.yaml", b" space .yaml", "\u00fcml\u00e4ut.yaml".encode())
KUSTOMIZATIONS = (b"resources: [all.yaml]\n", b"resources: [all.yaml, https://evil.example/base?ref=main]\n",
                  b"resources: [all.yaml, github.com/evil/repo//base]\n", b"resources: [all.yaml]\npatches: [{path: p.yaml}]\n",
                  b"resources: [all.yaml, in.yaml]\n", b"resources: [here]\n", b"resources: [../outside.yaml]\n")
RANGES = ("v1..v2", "v1...v2", "v1", "v2", "v1..", "..v2", "v1....v2")
SUBMODULE = b"0" * 39 + b"1"


@dataclass(frozen=True)
class GitCase:
    """A repository: its first commit's catalog, the second's (and the working
    tree's), the hostile parts of the second, and compare's arguments."""

    first: bytes
    second: bytes
    attributes: tuple[bytes, ...]
    links: tuple[tuple[bytes, bytes], ...]
    names: tuple[bytes, ...]
    kustomization: bytes
    submodule: bool
    argv: tuple[str, ...]


@st.composite
def git_cases(draw) -> GitCase:
    first = yaml.safe_dump_all(draw(clusters())[0]).encode()
    second = yaml.safe_dump_all(draw(clusters())[0]).encode() if draw(st.booleans()) else first
    names = tuple(draw(st.lists(st.sampled_from(NAMES), max_size=2, unique=True)))
    target = draw(st.sampled_from(("-k catalog", "-f catalog", "-f catalog/all.yaml", "-f catalog/sub", "-f catalog/abs.yaml",
                                   "-f catalog/up.yaml", "-f catalog/loop.yaml", "-k catalog/here", "-f .", "-f ../outside.yaml")
                                  + tuple(f"-f catalog/{os.fsdecode(name)}" for name in names)))
    argv = ("compare", "--git", draw(st.sampled_from(RANGES)), *target.split(" ", 1), "--all-models",
            "-o", draw(st.sampled_from(("table", "json", "markdown"))), *draw(st.sampled_from(((), ("--fail-on", "lost,moved")))))
    return GitCase(first, second, tuple(draw(st.lists(st.sampled_from(ATTRIBUTES), max_size=3, unique=True))),
                   tuple(draw(st.lists(st.sampled_from(LINKS), max_size=3, unique=True))), names,
                   draw(st.sampled_from(KUSTOMIZATIONS)), draw(st.booleans()), argv)


def _git(top: Path, *argv: str, stdin: bytes | None = None) -> None:
    subprocess.run(["git", "-C", str(top), "-c", "user.email=f@example.com", "-c", "user.name=f", *argv],
                   input=stdin, check=True, capture_output=True)


def build(case: GitCase, top: Path) -> Path:
    """The repository of `case` in `top/repo` (v1, v2 tagged; the working tree
    as v2, less nothing), and the file a filter program would create."""
    repo, mark = top / "repo", top / "filter-ran"
    catalog = repo / "catalog"
    catalog.mkdir(parents=True)
    (top / "outside.yaml").write_bytes(case.first)
    _git(repo, "init", "-q")
    (catalog / "all.yaml").write_bytes(case.first)
    (catalog / "kustomization.yaml").write_bytes(b"resources: [all.yaml]\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "v1")
    _git(repo, "tag", "v1")
    (catalog / "all.yaml").write_bytes(case.second)
    (catalog / "kustomization.yaml").write_bytes(case.kustomization)
    (repo / ".gitattributes").write_bytes(b"\n".join(case.attributes) + b"\n")
    for name, target in case.links:
        os.symlink(target, os.path.join(os.fsencode(catalog), name))
    for name in case.names:
        (catalog / os.fsdecode(name)).write_bytes(case.second)
    _git(repo, "add", "-A")
    if case.submodule:
        _git(repo, "update-index", "--add", "--cacheinfo", f"160000,{SUBMODULE.decode()},catalog/sub")
    _git(repo, "commit", "-q", "-m", "v2")
    _git(repo, "tag", "v2")
    # the reviewer's clone knows the filter (set after the commits: `git add` runs it)
    _git(repo, "config", "filter.fuzz.smudge", f"touch {mark}; cat")
    _git(repo, "config", "filter.fuzz.clean", f"touch {mark}; cat")
    return mark


def git_run(case: GitCase, top: Path) -> Run:
    """`ome-asp compare --git` in the repository, in-process."""
    stdout, stderr = io.StringIO(), io.StringIO()
    start, here = time.perf_counter(), os.getcwd()
    os.chdir(top / "repo")
    try:
        code = cli.main(list(case.argv), stdin=io.BytesIO(), stdout=stdout, stderr=stderr)
    except Exception as error:  # what the user would see as a traceback
        code = TRACEBACK
        stderr.write(f"Traceback: {type(error).__name__}: {error}\n")
    finally:
        os.chdir(here)
    return Run(code, stdout.getvalue(), stderr.getvalue(), time.perf_counter() - start)


def git_problems(first: Run, second: Run, mark: Path) -> list[str]:
    """What is wrong with two runs of `compare --git` on one repository
    (compare's exit 1 is "a selection changed", 2 an error)."""
    found = []
    if first != second:
        found.append("nondeterministic: the two runs differ")
    if first.code == TRACEBACK:
        found.append(f"traceback: {first.stderr.strip().splitlines()[-1]}")
    elif first.code not in (0, 1, 2):
        found.append(f"exit code {first.code}: {first.stderr.strip().splitlines()[-1:]}")
    lines = first.stderr.splitlines()
    errors = [line for line in lines if line.startswith("error: ")]
    odd = [line for line in lines if not line.startswith(STDERR_PREFIXES)]
    if odd:
        found.append(f"stderr line of no known kind: {odd[0][:200]!r}")
    if first.code == 2 and (len(errors) != 1 or lines[-1] != errors[0] or first.stdout):
        found.append(f"exit 2 without exactly one final error line, or with output: {lines[-3:]!r}")
    if first.code in (0, 1) and errors:
        found.append(f"exit {first.code} with an error line: {errors[0][:200]!r}")
    if mark.exists():
        found.append("a filter program of the repository ran")
    return found


def git_check(case: GitCase, top: Path) -> tuple[Run, list[str]]:
    mark = build(case, top)
    first, second = git_run(case, top), git_run(case, top)
    return first, git_problems(first, second, mark)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=10_000, help="how many inputs to generate (each runs twice)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds one run may take")
    parser.add_argument("--failures", type=Path, default=Path("fuzz-failures"), help="where failing inputs are saved")
    parser.add_argument("--git", type=int, metavar="N", help="fuzz compare --git on N hostile repositories instead")
    args = parser.parse_args(argv)
    if args.git is not None:
        return main_git(args)

    counts: collections.Counter = collections.Counter()
    kinds: collections.Counter = collections.Counter()
    failed: collections.Counter = collections.Counter()
    slowest = 0.0
    watchdog = Watchdog(args.timeout, args.failures)
    started = time.perf_counter()

    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        tempfile.tempdir = scratch  # internal-error reproductions land here and go with it

        @hypothesis_seed(args.seed)
        @settings(
            max_examples=args.inputs, deadline=None, database=None, phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(cases())
        def fuzz(case: Case) -> None:
            nonlocal slowest
            watchdog.start(case)
            try:
                result, found = check(case, directory, args.timeout)
            finally:
                watchdog.stop()
            counts["inputs"] += 1
            counts[f"exit {result.code}"] += 1
            slowest = max(slowest, result.seconds)
            kinds.update({m[0] for m in map(MESSAGE_KIND.search, result.stderr.splitlines()) if m})
            for problem in found:
                failed[problem.split(":")[0]] += 1
            if found:
                where = save(case, found, args.failures)
                print(f"fuzz: {found[0]} -- saved as {where}", file=sys.stderr, flush=True)
            if counts["inputs"] % 500 == 0:
                print(f"fuzz: {counts['inputs']} inputs, {sum(failed.values())} failures", file=sys.stderr, flush=True)

        fuzz()

    print(f"inputs: {counts['inputs']} (runs: {2 * counts['inputs']}), seed {args.seed}, "
          f"{time.perf_counter() - started:.0f} s, slowest run {slowest:.2f} s")
    print("exit codes: " + ", ".join(f"{k.split()[1]}: {v}" for k, v in sorted(counts.items()) if k.startswith("exit")))
    print("messages reached: " + ", ".join(f"{k} {v}" for k, v in kinds.most_common()))
    print(f"failures: {sum(failed.values())}" + "".join(f", {k}: {v}" for k, v in failed.most_common()))
    return 1 if failed else 0


def main_git(args: argparse.Namespace) -> int:
    """--git N: compare --git on N hostile repositories; each failing case's
    repository is kept under --failures."""
    counts: collections.Counter = collections.Counter()
    failed: collections.Counter = collections.Counter()

    @hypothesis_seed(args.seed)
    @settings(max_examples=args.git, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(git_cases())
    def fuzz(case: GitCase) -> None:
        with tempfile.TemporaryDirectory() as scratch:
            result, found = git_check(case, Path(scratch))
            counts[f"exit {result.code}"] += 1
            for problem in found:
                failed[problem.split(":")[0]] += 1
            if found:
                args.failures.mkdir(parents=True, exist_ok=True)
                kept = Path(tempfile.mkdtemp(dir=args.failures))
                os.rename(Path(scratch) / "repo", kept / "repo")
                (kept / "command.txt").write_text("ome-asp " + " ".join(case.argv) + "\n" + "".join(f"{p}\n" for p in found))
                print(f"fuzz --git: {found[0]} -- kept as {kept}", file=sys.stderr, flush=True)

    fuzz()
    print(f"repositories: {sum(counts.values())}, seed {args.seed}")
    print("exit codes: " + ", ".join(f"{k.split()[1]}: {v}" for k, v in sorted(counts.items())))
    print(f"failures: {sum(failed.values())}" + "".join(f", {k}: {v}" for k, v in failed.most_common()))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
