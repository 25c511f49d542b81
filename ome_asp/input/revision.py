"""A git revision's files as git stores them: `compare --git` (issues 37, 38).

A pull request writes the revision compare reads, so nothing the revision
holds decides how it is read: no checkout and no `git archive` (which apply
the revision's .gitattributes: export-ignore, export-subst, filters), no
hooks. Trees and blobs are read raw through one `git cat-file --batch`, and
only those on the paths the command names: -f's files and directories, -k's
kustomizations and what their resources name (an unrelated 70 MB file or
30,000 unrelated files are never read). A symbolic link is read as git stores
it (the text of its target) and followed inside the tree only; a link that
leaves the tree, and a submodule (a gitlink: a commit of another repository),
is an error naming it. Nothing is fetched, and kubectl never runs (D-220).

A revision's paths are the repository's, rooted where the working directory's
repository has its top directory, so a path relative to the working directory
(from a subdirectory too) and kustomize's rules (D-85: a file in or below its
kustomization's directory) mean in a revision what they mean in a folder.
Messages and objects name a file as `git show` does: `REV:path`, the path from
the repository's top.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from typing import IO

from ome_asp.errors import InputError, UsageError
from ome_asp.input.documents import shown
from ome_asp.input.limits import InputBudget
from ome_asp.input.loader import EXTENSIONS
from ome_asp.input.sources import Bounds, Files, holds_kustomization, kustomize, run_kubectl

TREE, SYMLINK, GITLINK = 0o40000, 0o120000, 0o160000
#: Links followed in one lookup, as Linux's MAXSYMLINKS: a cycle of links ends.
MAX_LINKS = 40
#: A partial clone's missing objects are fetched from its remote by default;
#: git >= 2.45 refuses instead when this is set (older gits ignore it).
_ENV = {**os.environ, "GIT_NO_LAZY_FETCH": "1"}


@dataclass(frozen=True)
class Range:
    """The two snapshots `--git` names: the earlier commit and the later one
    (None: the working tree), each side's name in messages, and each side as
    a report's heading describes it."""

    commits: tuple[str, str | None]
    labels: tuple[str, str]
    described: tuple[str, str]


def parse_range(text: str, bounds: Bounds) -> Range:
    """`A..B` (B against A), `A...B` (B against the merge base of A and B:
    what a pull request changes, GitHub's form) or `REV` (the working tree
    against REV); each revision resolved to a commit before git reads it as
    anything else."""
    three = "..." in text
    parts = text.split("..." if three else "..")
    if len(parts) > 2 or not all(parts) or any(part.startswith(".") for part in parts):
        raise UsageError(f"--git: expected REV1..REV2, REV1...REV2 or REV (the working tree against REV), found "
                         f"{shown(text)}" + ("; git reads a missing side as HEAD, ome-asp asks for both"
                                             if len(parts) == 2 and not all(parts) else ""))
    commits = [commit(part, bounds) for part in parts]
    named = [f"{part} ({found[:12]})" for part, found in zip(parts, commits)]
    if len(parts) == 1:
        return Range((commits[0], None), (parts[0], "working tree"), (named[0], "the working tree"))
    if not three:
        return Range((commits[0], commits[1]), (parts[0], parts[1]), (named[0], named[1]))
    base = _git(["git", "merge-base", commits[0], commits[1]], bounds)
    if base is None:
        raise InputError(f"--git: {shown(parts[0])} and {shown(parts[1])} have no merge base")
    return Range((base, commits[1]), (base[:12], parts[1]),
                 (f"{base[:12]} (the merge base of {parts[0]} and {parts[1]})", named[1]))


def commit(revision: str, bounds: Bounds) -> str:
    """The commit a revision names; never read by git as a flag (`--end-of-options`)."""
    if revision.startswith("-"):
        raise UsageError(f"--git: {shown(revision)} is not a revision")
    found = _git(["git", "rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}"], bounds)
    if found is None:
        raise InputError(f"--git: {shown(revision)} is not a commit of this repository")
    return found


def _git(command: list[str], bounds: Bounds) -> str | None:
    """git's one-line answer, or None when it has none (exit 1 of --verify --quiet)."""
    try:
        return os.fsdecode(run_kubectl(command, "--git", bounds)).strip()
    except InputError:
        return None


def top_directory(bounds: Bounds) -> str:
    """The repository's top directory, as the working directory reaches it
    (git's own answer may resolve links the working directory's path keeps)."""
    prefix = os.fsdecode(run_kubectl(["git", "rev-parse", "--show-prefix"], "--git", bounds)).rstrip("\n")
    top = os.getcwd()
    for _ in filter(None, prefix.split("/")):
        top = os.path.dirname(top)
    return top


class Revision(Files):
    """One commit's files, read through one `git cat-file --batch`; paths
    are absolute, under the repository's top directory (`top`)."""

    def __init__(self, label: str, commit_name: str, top: str, bounds: Bounds) -> None:
        self.name, self.top, self.bounds = label, top, bounds
        self._process = subprocess.Popen(["git", "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, env=_ENV)
        self._budget = InputBudget(bounds.max_bytes)
        self._trees: dict[str, dict[str, tuple[int, str]]] = {}  # a directory's entries: name -> (mode, object)
        self._root, data = self._object(f"{commit_name}^{{tree}}", "tree", label)
        self._trees[self._root] = _entries(data, len(self._root) // 2)

    def __enter__(self) -> Revision:
        return self

    def __exit__(self, *_: object) -> None:
        process = self._process
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()
        process.kill()  # it waits for the next name; nothing of it is wanted any more
        process.wait()

    # --- the five questions the built-in readers ask (sources.Files) ----------------------

    def isdir(self, path: str) -> bool:
        found = self._lookup(path)
        return found is not None and found[1] == TREE

    def isfile(self, path: str) -> bool:
        found = self._lookup(path)
        return found is not None and found[1] != TREE

    def realpath(self, path: str) -> str:
        found = self._lookup(path)
        return os.path.normpath(path) if found is None else found[0]

    def read(self, path: str, label: str, budget: InputBudget) -> bytes:
        found = self._lookup(path)
        if found is None:
            raise InputError(f"{label}: No such file or directory")
        if found[1] == TREE:
            raise InputError(f"{label}: not a regular file")
        return self._object(found[2], "blob", label, budget)[1]

    def label(self, path: str) -> str:
        relative = os.path.relpath(path, self.top)
        return f"{self.name}:{'' if relative == '.' else relative}"

    # --- -f and -k -------------------------------------------------------------------

    def inputs(self, files: list[str], kustomizations: list[str]) -> list[tuple[str, bytes]]:
        """(label, bytes) of -f's files (a directory's files with a manifest's
        extension, in path order, as -f DIR; one holding a kustomization, as
        -k) and -k's kustomizations."""
        out = []
        held = [path for path in files if holds_kustomization(self, self.inside(path))]
        for path in (path for path in files if path not in held):
            where = self.inside(path)
            found = self._lookup(where)
            if found is None:
                raise InputError(f"{shown(self.label(where), cut=False)}: No such file or directory")
            names = self._walk(found[0]) if found[1] == TREE else [where]
            out += [(self.label(name), self.read(name, shown(self.label(name), cut=False), self._budget))
                    for name in names]
        for directory in kustomizations + held:
            out += kustomize(self.inside(directory), self.bounds, "offline", tree=self)
        return out

    def inside(self, path: str) -> str:
        """A path named relative to the working directory, in the revision."""
        where = os.path.abspath(path)
        if os.path.commonpath([where, self.top]) != self.top:
            raise UsageError(f"--git: {shown(path, cut=False)} is not a path inside the repository")
        return where

    def _walk(self, directory: str) -> list[str]:
        """The files under `directory` with a manifest's extension, sorted by
        path, as -f DIR reads a folder: subdirectories followed, linked
        directories not (os.walk's rule)."""
        found, stack = [], [directory]
        while stack:
            current = stack.pop()
            for name, (mode, _) in self._entries(current).items():
                path = os.path.join(current, name)
                if mode == TREE:
                    stack.append(path)
                elif name.endswith(EXTENSIONS) and not (mode == SYMLINK and self.isdir(path)):
                    found.append(path)
        return sorted(found)

    # --- git's objects ------------------------------------------------------------------

    def _lookup(self, path: str) -> tuple[str, int, str] | None:
        """(the path with every link resolved, mode, object) of `path`, or None
        when the revision has no such path. A link is followed where it
        points inside the tree; one that leaves it, a submodule and a cycle
        of links are errors naming them."""
        relative = os.path.relpath(os.path.normpath(path), self.top)
        if relative == ".":
            return self.top, TREE, self._root
        if relative.startswith(".." + os.sep) or relative == "..":
            raise InputError(f"{shown(self.label(path), cut=False)}: outside the repository; compare --git reads the "
                             "repository's files only")
        pending, done, links = relative.split(os.sep), list[str](), 0
        mode, name = TREE, self._root
        while pending:
            step = pending.pop(0)
            if step in ("", "."):
                continue
            if step == "..":
                if not done:
                    raise InputError(f"{shown(self.label(path), cut=False)}: a symbolic link leads outside the "
                                     "repository; compare --git reads the repository's files only")
                done.pop()
                mode, name = TREE, self._directory(done)
                continue
            if mode != TREE:
                return None
            entry = self._entries_of(name, done).get(step)
            if entry is None:
                return None
            mode, name = entry
            here = self.label(os.path.join(self.top, *done, step))
            if mode == GITLINK:
                raise InputError(f"{shown(here, cut=False)}: a submodule (commit {name[:12]}); compare --git does not "
                                 "read submodules")
            if mode == SYMLINK:
                links += 1
                if links > MAX_LINKS:
                    raise InputError(f"{shown(here, cut=False)}: too many levels of symbolic links")
                target = os.fsdecode(self._object(name, "blob", here)[1])
                if target.startswith("/"):
                    raise InputError(f"{shown(here, cut=False)}: a symbolic link to {shown(target, cut=False)}, outside "
                                     "the repository; compare --git reads the repository's files only")
                pending = target.split("/") + pending
                mode, name = TREE, self._directory(done)
                continue
            done.append(step)
        return os.path.join(self.top, *done), mode, name

    def _directory(self, steps: list[str]) -> str:
        """The tree object of a directory already resolved (its steps hold no link)."""
        name = self._root
        for number, step in enumerate(steps):
            name = self._entries_of(name, steps[:number])[step][1]
        return name

    def _entries(self, directory: str) -> dict[str, tuple[int, str]]:
        found = self._lookup(directory)
        assert found is not None and found[1] == TREE
        return self._entries_of(found[2], os.path.relpath(found[0], self.top).split(os.sep))

    def _entries_of(self, tree: str, steps: list[str]) -> dict[str, tuple[int, str]]:
        """A tree object's entries: name -> (mode, object name)."""
        if tree not in self._trees:
            self._trees[tree] = _entries(self._object(tree, "tree", self.label(os.path.join(self.top, *steps)))[1],
                                         len(tree) // 2)
        return self._trees[tree]

    def _object(self, name: str, kind: str, label: str, budget: InputBudget | None = None) -> tuple[str, bytes]:
        """(object name, content) of a tree or blob, its size checked against
        the run's input budget before it is read."""
        stdin, stdout = self._process.stdin, self._process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(name.encode() + b"\n")
        stdin.flush()
        header = stdout.readline().split()
        if len(header) != 3 or header[1].decode() != kind:
            raise InputError(f"{shown(label, cut=False)}: git has no {kind} {name} in this repository")
        size = int(header[2])
        (budget or self._budget).take(size, shown(label, cut=False))  # refused before a byte of it is read
        data = _exactly(stdout, size)
        stdout.read(1)  # the newline after each object
        return header[0].decode(), data


def _entries(data: bytes, width: int) -> dict[str, tuple[int, str]]:
    """A tree object's entries, `<mode> <name>\\0<object name's bytes>` each:
    name -> (mode, object name); `width`: 20 bytes (SHA-1) or 32 (SHA-256)."""
    entries, at = {}, 0
    while at < len(data):
        space = data.index(b" ", at)
        end = data.index(b"\0", space)
        entries[os.fsdecode(data[space + 1:end])] = (int(data[at:space], 8), data[end + 1:end + 1 + width].hex())
        at = end + 1 + width
    return entries


def _exactly(stream: IO[bytes], size: int) -> bytes:
    pieces, left = [], size
    while left:
        piece = stream.read(min(left, 1 << 16))
        if not piece:
            raise InputError("git cat-file ended early")
        pieces.append(piece)
        left -= len(piece)
    return b"".join(pieces)
