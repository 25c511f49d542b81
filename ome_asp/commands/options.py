"""What every command shares: the input and profile flags and reading the manifests of -f with their warnings."""

from __future__ import annotations

import argparse
import os
import re
from typing import TextIO

from ome_asp.errors import InputError, UsageError
from ome_asp.input import limits, profiles
from ome_asp.input.loader import load, namespace_warning
from ome_asp.solver.facts import Query


def add_input_flags(parser: argparse.ArgumentParser, namespace: bool = True) -> None:
    """The flags every command that reads manifests shares."""
    if namespace:
        parser.add_argument("-n", "--namespace", default="default", type=name_argument, help="the namespace to evaluate in (default: %(default)s)")
    parser.add_argument(
        "-f", "--filename", action="append", default=[], metavar="PATH",
        help="manifests: a file, a directory (read recursively) or - for stdin; repeatable",
    )
    parser.add_argument(
        "-k", "--kustomize", action="append", default=[], metavar="DIR",
        help="a kustomization directory, as kubectl -k reads it (`kubectl kustomize DIR`, or its resources: natively)",
    )
    cluster = parser.add_argument_group("live cluster (read through the kubectl on PATH)")
    cluster.add_argument("--from-cluster", action="store_true",
                         help="read the six kinds from the cluster: kubectl get <kinds> -o json")
    cluster.add_argument("--context", help="kubectl's --context")
    cluster.add_argument("--kubeconfig", help="kubectl's --kubeconfig")
    cluster.add_argument("--request-timeout", metavar="DURATION", help="kubectl's --request-timeout (e.g. 10s)")
    parser.add_argument(
        "--kubectl-timeout", type=duration_argument, default=limits.KUBECTL_TIMEOUT_S, metavar="DURATION",
        help="end kubectl (--from-cluster, -k) and what it started after DURATION: seconds, or 90s, 2m "
             "(default: %(default)gs)",
    )
    parser.add_argument("--strict", action="store_true", help="treat every warning as an input error")
    add_max_input_size_flag(parser, "inputs in total")
    add_profile_flags(parser)


def add_max_input_size_flag(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--max-input-size", type=limits.parse_byte_size, default=limits.format_byte_size(limits.MAX_INPUT_BYTES),
        metavar="SIZE", help=f"refuse {what} larger than SIZE: bytes, or a quantity such as 512Mi (default: %(default)s)",
    )


def name_argument(text: str) -> str:
    """A name on the command line (--model, --isvc, -n). Arguments are bytes,
    which Python decodes by the locale (undecodable bytes become lone
    surrogates); names are UTF-8, as Kubernetes has them, whatever the locale.
    Bytes that are not UTF-8 stay surrogates, which the query refuses (D-10)."""
    try:
        return os.fsencode(text).decode("utf-8")
    except UnicodeError:
        return text


_DURATION = re.compile(r"([0-9]+(?:\.[0-9]+)?)(s|m|h)?")


def duration_argument(text: str) -> float:
    """--kubectl-timeout: seconds, or a number with s, m or h (as kubectl writes durations)."""
    match = _DURATION.fullmatch(text)
    if match is None or float(match[1]) <= 0:
        raise argparse.ArgumentTypeError("not a duration: use seconds or a number with s, m or h, such as 90s or 2m")
    return float(match[1]) * {"s": 1, "m": 60, "h": 3600, None: 1}[match[2]]


def add_profile_flags(parser: argparse.ArgumentParser) -> None:
    """--profile and --ome-version (docs/profiles.md): which OME version to emulate."""
    parser.add_argument(
        "--profile", choices=tuple(profiles.PROFILES), default=None,
        help=f"the OME version to emulate (default: {profiles.DEFAULT}); see docs/profiles.md",
    )
    parser.add_argument(
        "--ome-version", metavar="X.Y.Z", default=None,
        help="an OME release, mapped to its profile: 0.x code-v0.1.5, 1.0 to 1.2 v1.2.2, 1.3 and later v1.3",
    )


def profile_of(args) -> profiles.Profile:
    """The profile the flags choose (UsageError for both flags or a bad version)."""
    return profiles.resolve(args.profile, args.ome_version)


def load_cluster(args, stdin, stderr: TextIO):
    """The manifests of -f, -k and --from-cluster, read under the chosen
    profile, with their warnings (I11) printed on stderr."""
    profile = profile_of(args)
    if hasattr(args, "namespace"):
        # the names asked about are checked before any input is read (issue 28:
        # a namespace warning came before the error about the argument)
        Query(args.namespace, getattr(args, "model", None), getattr(args, "isvc", None))
    if not (args.filename or args.kustomize or args.from_cluster):
        raise UsageError("no input: pass the manifests with -f FILE, -f DIR, -f - (stdin), -k DIR or --from-cluster")
    if not args.from_cluster and (args.context or args.kubeconfig or args.request_timeout):
        raise UsageError("--context, --kubeconfig and --request-timeout need --from-cluster")
    inputs = []
    if args.kustomize or args.from_cluster:
        # kubectl's runner and kustomize's reader, subprocess and all, imported only when asked for (issue 26)
        from ome_asp.input import sources

        bounds = sources.Bounds(args.max_input_size, args.kubectl_timeout)
        inputs = [item for directory in args.kustomize for item in sources.kustomize(directory, bounds)]
        if args.from_cluster:
            # a run about every namespace (select --all, explain --all-models) lists them all
            every = getattr(args, "all", False) or getattr(args, "all_models", False)
            target = sources.KubectlTarget(args.context, args.kubeconfig, args.request_timeout)
            inputs.append(sources.kubectl_get(target, None if every else args.namespace, bounds))
    cluster = load(args.filename, stdin=stdin, strict=args.strict, max_bytes=args.max_input_size, profile=profile,
                   sources=inputs)
    # -n of a command about one namespace (admit has none; --all and --all-models use every one)
    namespace = None if getattr(args, "all", False) or getattr(args, "all_models", False) else getattr(args, "namespace", None)
    typo = None if namespace is None else namespace_warning(cluster, namespace)
    if typo is not None and args.strict:
        raise InputError(typo)
    if typo is not None:
        cluster.warnings.append(typo)
    for warning in cluster.warnings:
        print(f"warning: {warning}", file=stderr)
    return cluster
