"""Where operators' objects live besides files: a live cluster (`--from-cluster`,
read through the kubectl on PATH) and kustomize directories (`-k DIR`).

Each source is one or more `(label, bytes)` inputs the loader reads like a file:
the label names the command or file in messages. Nothing here talks to a
cluster itself: kubectl does, with the user's kubeconfig, context and RBAC,
so ome-asp sees what `kubectl get` shows the user (issue 16).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass

import yaml

from ome_asp.errors import InputError, UsageError

#: The six kinds selection reads, as kubectl names their resources (group-qualified,
#: so KServe's InferenceService and ServingRuntime are never read instead).
RESOURCES = (
    "basemodels.ome.io", "clusterbasemodels.ome.io", "servingruntimes.ome.io",
    "clusterservingruntimes.ome.io", "inferenceservices.ome.io", "acceleratorclasses.ome.io",
)
KUBECTL = "kubectl"
KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
#: kustomization.yaml keys that change no object selection reads (labels only)
#: or that read it (resources); every other key needs kustomize itself.
NATIVE_KEYS = frozenset({"apiVersion", "kind", "metadata", "resources", "commonLabels", "labels"})


@dataclass(frozen=True)
class KubectlTarget:
    """How to reach the live cluster: kubectl's own flags, passed through."""

    context: str | None = None
    kubeconfig: str | None = None
    request_timeout: str | None = None


def kubectl_get(where: KubectlTarget, namespace: str | None) -> tuple[str, bytes]:
    """The six kinds of `namespace` (None: every namespace) and the cluster-scoped
    ones, as one `kind: List`: `kubectl get <resources> -o json`."""
    command = [KUBECTL, "get", ",".join(RESOURCES), "-o", "json"]
    command += ["--all-namespaces"] if namespace is None else ["-n", namespace]
    for flag, value in (("--context", where.context), ("--kubeconfig", where.kubeconfig),
                        ("--request-timeout", where.request_timeout)):
        if value is not None:
            command += [flag, value]
    return shlex.join(command), _run(command, "--from-cluster")


def kustomize(directory: str) -> list[tuple[str, bytes]]:
    """`-k DIR` as kubectl reads it: `kubectl kustomize DIR` when kubectl is on
    PATH; else the kustomization's `resources:` read natively (files,
    directories, nested kustomizations), refusing what only kustomize can apply."""
    if not os.path.isdir(directory):
        raise InputError(f"-k {directory}: not a directory")
    if shutil.which(KUBECTL) is not None:
        command = [KUBECTL, "kustomize", directory]
        return [(shlex.join(command), _run(command, "-k"))]
    return _native(directory, [])


def _run(command: list[str], flag: str) -> bytes:
    """kubectl's stdout; its absence or failure is one line naming the command."""
    shown = shlex.join(command)
    try:
        done = subprocess.run(command, capture_output=True, stdin=subprocess.DEVNULL, check=False)
    except FileNotFoundError:
        raise UsageError(f"{flag} needs kubectl on PATH: `{shown}` cannot run") from None
    if done.returncode != 0:
        lines = [line.strip() for line in done.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
        raise InputError(f"`{shown}` failed (exit {done.returncode}): {lines[-1] if lines else 'no message'}")
    return done.stdout


def _native(directory: str, seen: list[str]) -> list[tuple[str, bytes]]:
    """The resources of the kustomization in `directory`, in its order."""
    path = next((os.path.join(directory, name) for name in KUSTOMIZATION_FILES
                 if os.path.isfile(os.path.join(directory, name))), None)
    if path is None:
        raise InputError(f"-k {directory}: no kustomization.yaml in the directory")
    real = os.path.realpath(path)
    if real in seen:
        raise InputError(f"{path}: includes itself through {seen[-1]}")
    try:
        with open(path, "rb") as file:
            spec = yaml.safe_load(file) or {}
    except (OSError, yaml.YAMLError) as error:
        raise InputError(f"{path}: {str(error).splitlines()[0]}") from None
    if not isinstance(spec, dict):
        raise InputError(f"{path}: a kustomization is a YAML mapping")
    needs = sorted(set(spec) - NATIVE_KEYS)
    if needs:
        raise InputError(f"{path}: {', '.join(needs)} needs kustomize, which ome-asp does not apply; "
                         f"put kubectl on PATH (-k then runs `kubectl kustomize`), or pass its output with -f -")
    inputs = []
    for resource in spec.get("resources") or []:
        if not isinstance(resource, str) or "://" in resource or resource.startswith("github.com/"):
            raise InputError(f"{path}: resources: {resource!r} is not a local file or directory")
        target = os.path.join(directory, resource)
        if os.path.isdir(target):
            inputs += _native(target, [*seen, real])
        else:
            try:
                with open(target, "rb") as file:
                    inputs.append((target, file.read()))
            except OSError as error:
                raise InputError(f"{path}: resources: {resource}: {error.strerror}") from None
    return inputs
