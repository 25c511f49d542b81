"""Where operators' objects live besides files: a live cluster (`--from-cluster`,
read through the kubectl on PATH) and kustomize directories (`-k DIR`).

Each source is one or more `(label, bytes)` inputs the loader reads like a file:
the label names the command or file in messages. Nothing here talks to a
cluster itself: kubectl does, with the user's kubeconfig, context and RBAC,
so ome-asp sees what `kubectl get` shows the user (issue 16).

kubectl runs under the same bounds as a file (issue 28): its output is read
as it comes and refused one byte past --max-input-size, it is ended (its whole
process group) past --kubectl-timeout, and its stderr is shown whole, with
terminal escapes removed and other control characters made visible.
"""

from __future__ import annotations

import os
import re
import selectors
import shlex
import shutil
import signal
import stat
import subprocess
import time
from dataclasses import dataclass
from typing import NoReturn

from ome_asp.errors import InputError, UsageError
from ome_asp.input.documents import decode, documents, shown
from ome_asp.input.limits import KUBECTL_TIMEOUT_S, InputBudget, format_byte_size
from ome_asp.input.loader import KUSTOMIZATION_FILES

#: The six kinds selection reads, as kubectl names their resources (group-qualified,
#: so KServe's InferenceService and ServingRuntime are never read instead).
RESOURCES = (
    "basemodels.ome.io", "clusterbasemodels.ome.io", "servingruntimes.ome.io",
    "clusterservingruntimes.ome.io", "inferenceservices.ome.io", "acceleratorclasses.ome.io",
)
KUBECTL = "kubectl"
#: kustomization.yaml keys that change no object selection reads (labels only)
#: or that read it (resources); every other key needs kustomize itself.
NATIVE_KEYS = frozenset({"apiVersion", "kind", "metadata", "resources", "commonLabels", "labels"})

#: kubectl's stderr kept for the message: its errors are a few lines.
STDERR_BYTES = 2**16
_PIECE = 2**16
#: Terminal escapes (CSI `ESC [ … final`, OSC `ESC ] … BEL|ESC \`, and any
#: other two-character `ESC x`) are removed from kubectl's messages.
_ESCAPE = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[@-_]?)")

_KLOG = re.compile(r"[IWEF][0-9]{4} [0-9:.]+ +[0-9]+ [^ \]]+:[0-9]+\] ")


@dataclass(frozen=True)
class KubectlTarget:
    """How to reach the live cluster: kubectl's own flags, passed through."""

    context: str | None = None
    kubeconfig: str | None = None
    request_timeout: str | None = None


@dataclass(frozen=True)
class Bounds:
    """What one kubectl run or one kustomization may take."""

    max_bytes: int
    timeout: float = KUBECTL_TIMEOUT_S


def kubectl_get(where: KubectlTarget, namespace: str | None, bounds: Bounds) -> tuple[str, bytes]:
    """The six kinds of `namespace` (None: every namespace) and the cluster-scoped
    ones, as one `kind: List`: `kubectl get <resources> -o json`."""
    command = [KUBECTL, "get", ",".join(RESOURCES), "-o", "json"]
    # every value joined to its flag: whatever it holds, kubectl reads it as a value (D-85)
    command += ["--all-namespaces"] if namespace is None else [f"--namespace={namespace}"]
    for flag, value in (("--context", where.context), ("--kubeconfig", where.kubeconfig),
                        ("--request-timeout", where.request_timeout)):
        if value is not None:
            command += [f"{flag}={value}"]
    return shlex.join(command), run_kubectl(command, "--from-cluster", bounds)


#: How -k is read: "kubectl": `kubectl kustomize` when kubectl is on PATH,
#: else natively; "native": natively first (each object at its file and line:
#: compare's causes, D-221), kubectl for what only kustomize applies;
#: "offline": natively only, kubectl never runs and nothing is fetched
#: (compare --git, D-220).
KUSTOMIZE_MODES = ("kubectl", "native", "offline")


class NeedsKustomize(InputError):
    """A kustomization the built-in reader does not read: a key only
    kustomize applies, or a remote base (`remote`)."""

    def __init__(self, message: str, remote: bool = False) -> None:
        super().__init__(message)
        self.remote = remote


class Files:
    """The file system as the built-in reader reads it; a git revision is read
    through the same five questions (input/revision.py)."""

    def isdir(self, path: str) -> bool:
        return os.path.isdir(path)

    def isfile(self, path: str) -> bool:
        return os.path.isfile(path)

    def realpath(self, path: str) -> str:
        return os.path.realpath(path)

    def read(self, path: str, label: str, budget: InputBudget) -> bytes:
        return _read_regular(path, label, budget)

    def label(self, path: str) -> str:
        """The file as messages and objects' sources name it."""
        return path


FILES = Files()


def holds_kustomization(tree: Files, path: str) -> bool:
    """Whether `path` is a directory holding a kustomization (compare reads it as -k)."""
    return tree.isdir(path) and any(tree.isfile(os.path.join(path, name)) for name in KUSTOMIZATION_FILES)


def kustomize(directory: str, bounds: Bounds, mode: str = "kubectl", tree: Files = FILES) -> list[tuple[str, bytes]]:
    """`-k DIR` as kubectl reads it (KUSTOMIZE_MODES): `kubectl kustomize DIR`,
    or the kustomization's `resources:` read natively (files, directories,
    nested kustomizations) under kubectl's rules (D-85), refusing what only
    kustomize can apply."""
    if not tree.isdir(directory):
        raise InputError(f"-k {shown(tree.label(directory), cut=False)}: not a directory")
    kubectl = mode != "offline" and shutil.which(KUBECTL) is not None
    if mode == "kubectl" and kubectl:
        return _kubectl_kustomize(directory, bounds)
    try:
        return _native(directory, bounds.max_bytes, tree)
    except NeedsKustomize as error:
        if kubectl:
            return _kubectl_kustomize(directory, bounds)
        if mode == "offline":
            hint = ("; compare --git never fetches anything (D-220)" if error.remote else
                    "; compare --git never runs kubectl kustomize, which fetches remote bases (D-220): render the "
                    "kustomization in a step you trust and compare its output with --before/--after")
        else:
            hint = "" if error.remote else ("; put kubectl on PATH (-k then runs `kubectl kustomize`), or pass its "
                                            "output with -f -")
        raise InputError(f"{error}{hint}") from None


def _kubectl_kustomize(directory: str, bounds: Bounds) -> list[tuple[str, bytes]]:
    command = [KUBECTL, "kustomize", "--", directory]
    return [(shlex.join(command), run_kubectl(command, "-k", bounds))]


def run_kubectl(command: list[str], flag: str, bounds: Bounds) -> bytes:
    """kubectl's stdout, read as it comes under `bounds`; its absence, failure,
    too much output or too long a run is one message naming the command."""
    label = shlex.join(command)
    try:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, start_new_session=True)
    except FileNotFoundError:
        raise UsageError(f"{flag} needs {command[0]} on PATH: `{label}` cannot run") from None
    out: list[bytes] = []
    err = bytearray()
    size, deadline = 0, time.monotonic() + bounds.timeout
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            selector.register(process.stderr, selectors.EVENT_READ)
            while selector.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise InputError(f"`{label}` did not finish within {bounds.timeout:g} s; "
                                     "raise the limit with --kubectl-timeout")
                for key, _ in selector.select(left):
                    piece = os.read(key.fd, _PIECE)
                    if not piece:
                        selector.unregister(key.fileobj)
                    elif key.fileobj is process.stderr:
                        err += piece[: STDERR_BYTES + 1 - len(err)]
                    else:
                        size += len(piece)
                        if size > bounds.max_bytes:
                            raise InputError(f"`{label}`: the output is larger than "
                                             f"{format_byte_size(bounds.max_bytes)}; raise the limit with --max-input-size")
                        out.append(piece)
        code = process.wait(max(deadline - time.monotonic(), 0.1))
    except subprocess.TimeoutExpired:
        raise InputError(f"`{label}` did not finish within {bounds.timeout:g} s; "
                         "raise the limit with --kubectl-timeout") from None
    finally:
        if process.returncode is None:
            # kubectl and whatever it started (an exec credential plugin)
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        process.stdout.close()
        process.stderr.close()
    if code != 0:
        raise InputError(f"`{label}` failed (exit {code}): {_message(bytes(err))}")
    return b"".join(out)


def _message(stderr: bytes) -> str:
    """kubectl's stderr for a message: its error, every line of it, without
    terminal escapes, other control characters shown as `\\xNN`; lines
    after the first indented. kubectl's log lines (klog's `E1202 10:10:58.88
    9363 file.go:381] …`, one per retry) are left out when an error follows."""
    text = _ESCAPE.sub("", stderr[:STDERR_BYTES].decode("utf-8", "replace"))
    lines = ["".join(c if c.isprintable() or c == "\t" else f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}"
                     for c in line).strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    error = [line for line in lines if not _KLOG.match(line)]
    lines = error or lines
    if len(stderr) > STDERR_BYTES:
        lines.append(f"… (stderr cut at {format_byte_size(STDERR_BYTES)})")
    return "\n  ".join(lines) if lines else "no message"


# --- the built-in reader (no kubectl on PATH) ----------------------------------------


def _native(top: str, max_bytes: int, tree: Files) -> list[tuple[str, bytes]]:
    """The resources of the kustomization in `top`, in its order, read as
    `kubectl kustomize` reads them (D-85): a file must be in or below the
    directory of the kustomization that lists it (symlinks resolved); a
    directory is another kustomization (bases may be anywhere local); only
    regular files are read, all of them together within `max_bytes`.
    Nested kustomizations are followed with a stack of their own, so depth
    costs memory, never Python's recursion limit. Each file and each
    kustomization is read once (D-280): one reached again by another path
    would add its objects twice, which kustomize refuses, so it is refused
    there (a base shared by many paths cost a read per path, 2^16 reads for 17
    kustomizations); one on the way to itself is a cycle."""
    inputs: list[tuple[str, bytes]] = []
    budget = InputBudget(max_bytes)
    # real path of each file and kustomization directory read -> where it was first listed,
    # and whether a kustomization's walk read any file (one that read none may be listed again)
    reached: dict[str, str] = {}
    added: dict[str, bool] = {}
    # each frame: (directory, its kustomization's path, its real directory, resources still to read, inputs before it)
    first = _open_kustomization(tree, top, None, [], budget)
    stack = [(*first, 0)]
    reached[first[2]] = f"-k {shown(tree.label(top), cut=False)}"
    while stack:
        directory, path, root, pending, before = stack[-1]
        if not pending:
            added[root] = len(inputs) > before
            stack.pop()
            continue
        resource = pending.pop(0)
        target = os.path.normpath(os.path.join(directory, resource))  # as kustomize (Go filepath.Join cleans)
        where = f"{shown(tree.label(path), cut=False)}: resources: {shown(resource)}"
        real = tree.realpath(target)
        if tree.isdir(target):
            roots = [frame[2] for frame in stack]
            if real in reached and real not in roots:  # on the stack: a cycle, which _open_kustomization refuses
                if added[real]:
                    _twice(where, tree.label(target), reached[real])
                continue
            stack.append((*_open_kustomization(tree, target, where, roots, budget), len(inputs)))
            reached[real] = where
            continue
        if os.path.commonpath([real, root]) != root:
            # kustomize's message (LoadRestrictionsRootOnly)
            raise InputError(f"{where}: security; file {shown(tree.label(real), cut=False)} is not in or below "
                             f"{shown(tree.label(root), cut=False)}")
        if real in reached:
            _twice(where, tree.label(target), reached[real])
        reached[real] = where
        inputs.append((tree.label(target), tree.read(target, where, budget)))
    if not inputs:  # what was read, for the loader's "no objects in the input: …"
        return [(f"{shown(tree.label(first[1]), cut=False)} (its resources list no file)", b"")]
    return inputs


def _twice(where: str, target: str, first: str) -> NoReturn:
    """A file or kustomization reached again: kustomize would add its objects twice."""
    raise InputError(f"{where}: {shown(target, cut=False)} is read already (through {first}); kustomize "
                     "refuses the same objects twice (may not add resource with an already registered id)")


#: A resource kustomize fetches: a URL, a git remote, a hosted repository, or a `?ref=`.
_REMOTE = re.compile(r"[a-z][a-z0-9+.-]*://|git@|(github|gitlab)\.com/|bitbucket\.org/|.*[?&]ref=", re.I)


def _open_kustomization(tree: Files, directory: str, where: str | None, roots: list[str],
                        budget: InputBudget) -> tuple[str, str, str, list[str]]:
    """(directory, kustomization path, real directory, its resources) of the
    kustomization in `directory`, its keys and types checked as kubectl does."""
    path = next((os.path.join(directory, name) for name in KUSTOMIZATION_FILES
                 if tree.isfile(os.path.join(directory, name))), None)
    named = shown(tree.label(directory), cut=False)
    if path is None:
        raise InputError(f"{where or '-k ' + named}: no kustomization.yaml in {named}")
    root = tree.realpath(directory)
    if root in roots:
        raise InputError(f"{where}: includes its own kustomization ({named}) again")
    label = shown(tree.label(path), cut=False)
    data = tree.read(path, label, budget)
    spec = next((document.content for document in documents(label, decode(label, data))), None) or {}
    if not isinstance(spec, dict):
        raise InputError(f"{label}: a kustomization is a YAML mapping")
    needs = sorted(set(spec) - NATIVE_KEYS)
    if needs:
        raise NeedsKustomize(f"{label}: {', '.join(shown(key) for key in needs)} needs kustomize, which ome-asp does not "
                             "apply")
    resources = spec.get("resources") or []
    # kustomize's Kustomization.resources is a []string: anything else is refused, not iterated
    if not isinstance(resources, list) or not all(isinstance(item, str) for item in resources):
        raise InputError(f"{label}: resources: must be a list of file or directory names")
    for resource in resources:
        if _REMOTE.match(resource):
            raise NeedsKustomize(f"{label}: resources: {shown(resource)} is a remote base, not a local file or directory",
                                 remote=True)
    return directory, path, root, list(resources)


def _read_regular(path: str, label: str, budget: InputBudget) -> bytes:
    """A regular file's bytes within `budget`; a FIFO, device or socket is
    refused without blocking (opened non-blocking, then checked)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        raise InputError(f"{label}: {error.strerror}") from None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError(f"{label}: not a regular file")
        return budget.read(file, label)
