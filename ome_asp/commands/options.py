"""What the commands share: the input, profile and target flags, reading
the manifests of -f with their warnings, and the outputs several commands
print alike (an outcome, the admission warnings)."""

from __future__ import annotations

import argparse
import io
import os
import re
from typing import Callable, TextIO

from ome_asp.errors import Exit, InputError, UsageError
from ome_asp.input import limits, profiles
from ome_asp.input.loader import load, namespace_warning
from ome_asp.input.objects import Query
from ome_asp.render import kubectl, report
from ome_asp.solver.answer import Answer


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


def add_overlay_flag(parser: argparse.ArgumentParser) -> None:
    """--overlay (explain, select, admit, steer: the commands that read one snapshot with load_cluster)."""
    parser.add_argument(
        "--overlay", action="append", default=[], metavar="PATH",
        help="manifests read after the others: an object replaces the one of the same kind, namespace and name "
             "(as kubectl apply would), to check a hand-edited copy; repeatable",
    )


def add_max_input_size_flag(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--max-input-size", type=limits.parse_byte_size, default=limits.format_byte_size(limits.MAX_INPUT_BYTES),
        metavar="SIZE", help=f"refuse {what} larger than SIZE: bytes, or a quantity such as 512Mi (default: %(default)s)",
    )


def add_jobs_flag(parser: argparse.ArgumentParser, what: str, unit: str = "processes") -> None:
    parser.add_argument(
        "-j", "--jobs", type=jobs_count, default=None, metavar="N",
        help=f"{what} in N {unit} (default: the cores this process may use)",
    )


def jobs_count(text: str) -> int:
    """-j's value: a positive integer."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return int(text)


def name_argument(text: str) -> str:
    """A name on the command line (--model, --isvc, -n). Arguments are bytes,
    which Python decodes by the locale (undecodable bytes become lone
    surrogates); names are UTF-8, as Kubernetes has them, whatever the locale.
    Bytes that are not UTF-8 stay surrogates, which the query refuses (D-10)."""
    try:
        return os.fsencode(text).decode("utf-8")
    except UnicodeError:
        return text


_DURATION = r"([0-9]+(?:\.[0-9]+)?)(s|m|h)?"  # compiled on first use (re's cache), not at import (issue 26)
#: The longest duration a flag takes (D-340): a week, far below what a clock
#: or a thread's wait can hold (1e308 s overflowed time_t: an internal error).
MAX_DURATION_S = 7 * 24 * 3600


def duration_argument(text: str) -> float:
    """--kubectl-timeout, diff's --timeout and --time-limit: seconds, or a
    number with s, m or h (as kubectl writes durations); positive and at most
    a week, so no NaN, infinity or overflow reaches a clock (D-340)."""
    match = re.fullmatch(_DURATION, text)
    if match is None or float(match[1]) <= 0:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (use seconds or a number with s, m or h, "
                                         "such as 90s or 2m, more than 0)")
    seconds = float(match[1]) * {"s": 1, "m": 60, "h": 3600, None: 1}[match[2]]
    if seconds > MAX_DURATION_S:
        raise argparse.ArgumentTypeError(f"too long: {text!r} (at most 168h, a week)")
    return seconds


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


def load_cluster(args, stdin, stderr: TextIO, lines: bool = False, allow_empty: bool = False, kustomize: str = "kubectl",
                 inputs: list | None = None):
    """The manifests of -f, -k and --from-cluster, read under the chosen
    profile, with their warnings (I11) printed on stderr (`lines`,
    `allow_empty`: as `load`'s; `kustomize`: how -k is read,
    sources.KUSTOMIZE_MODES; `inputs`: (label, bytes) read instead of -k's
    and --from-cluster's, compare's git revisions)."""
    profile = profile_of(args)
    if hasattr(args, "namespace"):
        # the names asked about are checked before any input is read (issue 28:
        # a namespace warning came before the error about the argument)
        Query(args.namespace, getattr(args, "model", None), getattr(args, "isvc", None))
    if inputs is None and not (args.filename or args.kustomize or args.from_cluster):
        raise UsageError("no input: pass the manifests with -f FILE, -f DIR, -f - (stdin), -k DIR or --from-cluster")
    cluster = load(args.filename, stdin=stdin, strict=args.strict, max_bytes=args.max_input_size, profile=profile,
                   sources=source_inputs(args, kustomize) if inputs is None else inputs,
                   overlays=getattr(args, "overlay", []), lines=lines, allow_empty=allow_empty)
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


def source_inputs(args, kustomize: str = "kubectl") -> list[tuple[str, bytes]]:
    """The inputs of -k (read as `kustomize` says) and --from-cluster, as
    (label, bytes) the loader reads like files (compare reads them once and
    loads them under two profiles)."""
    if not args.from_cluster and (args.context or args.kubeconfig or args.request_timeout):
        raise UsageError("--context, --kubeconfig and --request-timeout need --from-cluster")
    if not (args.kustomize or args.from_cluster):
        return []
    # kubectl's runner and kustomize's reader, subprocess and all, imported only when asked for (issue 26)
    from ome_asp.input import sources

    bounds = sources.Bounds(args.max_input_size, args.kubectl_timeout)
    inputs = [item for directory in args.kustomize for item in sources.kustomize(directory, bounds, kustomize)]
    if args.from_cluster:
        # a run about every namespace (select --all, explain --all-models) lists them all
        every = getattr(args, "all", False) or getattr(args, "all_models", False)
        target = sources.KubectlTarget(args.context, args.kubeconfig, args.request_timeout)
        inputs.append(sources.kubectl_get(target, None if every else args.namespace, bounds))
    return inputs


def add_output_flags(parser: argparse.ArgumentParser, formats: tuple[str, ...], note: str = "") -> None:
    """-o with the command's own `formats` (the first the default; `note`
    says what its own help needs) and kubectl's (name, jsonpath=TEMPLATE,
    custom-columns=SPEC: kubectl_view), and --no-headers."""
    def output(text: str) -> str:
        if text in formats:
            return text
        if kubectl.is_format(text):
            kubectl.check(text)  # a template kubectl refuses is a usage error before any input is read
            return text
        choices = ", ".join(map(repr, formats + kubectl.FORMATS))
        raise argparse.ArgumentTypeError(f"invalid choice: {text!r} (choose from {choices})")

    parser.add_argument("-o", "--output", type=output, default=formats[0], metavar="FORMAT",
                        help=f"{'|'.join(formats + kubectl.FORMATS)} (default: %(default)s); "
                             "kubectl's formats are views of -o json's document" + (f"; {note}" if note else ""))
    parser.add_argument("--no-headers", action="store_true",
                        help="leave out the column headers (tables, custom-columns), as kubectl's --no-headers")


def kubectl_view(run: Callable[..., int], args, stdin, stdout: TextIO, stderr: TextIO) -> int:
    """-o name, jsonpath=… or custom-columns=… (D-282): `run` for -o json, its
    document rendered as kubectl renders an object's JSON; stderr and the
    exit code are -o json's."""
    view, args.output = args.output, "json"
    document = io.StringIO()
    code = run(args, stdin, document, stderr)
    if document.getvalue():
        import json  # only these formats read a document back (D-142)

        stdout.write(kubectl.render(view, json.loads(document.getvalue()), args.no_headers))
    return code


def add_selection_flags(parser: argparse.ArgumentParser, batch: str, what: str) -> None:
    """-l/--selector and -A/--all-namespaces as kubectl has them, for the run
    over every `what` that `batch` asks for (D-283); selected_by checks them."""
    from ome_asp.input import label_selectors

    parser.add_argument("-l", "--selector", type=label_selectors.parse, metavar="SELECTOR",
                        help=f"with {batch}: only the {what} whose labels match, as kubectl's -l "
                             "(key=value, key!=value, 'key in (a,b)', 'key notin (a,b)', key, !key; comma: and)")
    parser.add_argument("-A", "--all-namespaces", action="store_true",
                        help=f"with {batch}: every namespace of the input (kubectl's -A; "
                             "a name cannot be asked for across all namespaces)")
    parser.set_defaults(batch_flag=batch)


def selected_by(args, batch: bool) -> None:
    """-l selects among a batch's queries; a name across all namespaces is kubectl's error."""
    if args.all_namespaces and not batch:
        raise UsageError(f"a resource cannot be retrieved by name across all namespaces (-A needs {args.batch_flag})")
    if args.selector is not None and not batch:
        raise UsageError(f"-l/--selector selects among the queries of {args.batch_flag}; pass {args.batch_flag}")


def add_explain_targets(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """--model and --isvc as explain reads them (E7); steer and compare ask about the same queries."""
    target = parser.add_argument_group("target (exactly one)")
    target.add_argument("--model", metavar="NAME", type=name_argument, help="a BaseModel in the namespace, else a ClusterBaseModel")
    target.add_argument("--isvc", metavar="NAME", type=name_argument, help="an InferenceService: also applies its accelerator class and deployment mode")
    return target


def print_outcome(output: str, document: dict, stdout: TextIO, stderr: TextIO) -> int:
    """Section 0 of docs/profiles.md: an outcome has no table; one stderr line, or
    the report with `outcome` for -o json/yaml; exit 4 (Exit.OUTCOME) either way."""
    if output in ("json", "yaml"):
        report.dump(document, output, stdout)
    else:
        print(f"error: outcome {document['outcome']}: {document['detail']}", file=stderr)
    return Exit.OUTCOME


def warn_denied(result: Answer, stderr: TextIO) -> list:
    """I9: one line per runtime the admission webhook would deny; returns them
    as report.denials does, for the report's `denied`."""
    return print_denied(report.denials(result), stderr)


def print_denied(denied: list, stderr: TextIO) -> list:
    for runtime, message in denied:
        print(f"warning: {report.denial_warning(runtime, message)}", file=stderr)
    return denied
