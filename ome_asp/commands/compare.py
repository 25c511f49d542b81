"""`ome-asp compare`: what a change to the cluster, or another OME version,
does to every selection, and which edit caused it (issue 15).

    ome-asp compare (--before PATH... | --before-k DIR | --before-from-cluster) (--after ... likewise) TARGET [-n NS] [-o ...]
    ome-asp compare --git (REV1..REV2 | REV1...REV2 | REV) (-f PATH | -k DIR)... TARGET
    ome-asp compare (-f PATH... | -k DIR | --from-cluster) (--profiles A,B | --ome-versions X,Y) TARGET
    TARGET: --model NAME | --isvc NAME | --all-models | --all

Each snapshot is read by explain's readers (commands/options.py); a flag
this mode does not read is a usage error, never ignored (issue 25).

Before/after: both snapshots are selected as explain selects them; for each
query whose selected runtime differs, the rows that changed, the criterion
that now decides between the old and the new winner, and the cause: the
smallest sets of the field changes between the snapshots that, applied alone
to the earlier one, already give the later selection. The sets are found by
the solver (encoding/compare.lp over encoding/edits.lp, which steer shares:
an optimization over which changes to apply) and each is verified by
selecting again on the earlier manifests plus the set
(ome_asp/analysis/compare.py is the search, ome_asp/render/compare.py shows
the result; this module reads the flags and wires them).

Profiles: the same manifests under two profiles; for each query that
differs, the profile settings (docs/profiles.md's switch and settings rows)
that alone turn the first profile's answer into the second's, each verified
by selecting under a profile that differs from the first in those settings
only (the settings act before, inside and after the encoding, so this search
is by re-selection, not by the solver).

Exit codes: 0 no selection changed (with --fail-on: none of that kind), 1
some changed, 2 usage or input error.
"""

from __future__ import annotations

import argparse
import io
from typing import TextIO

from ome_asp.analysis.compare import compare_snapshots, compared, profile_settings, setting_causes
from ome_asp.commands.options import add_explain_targets, load_cluster, source_inputs
from ome_asp.errors import Exit, InputError, UsageError
from ome_asp.input import profiles
from ome_asp.input.documents import shown
from ome_asp.input.loader import STDIN, load
from ome_asp.input.objects import Cluster, Query
from ome_asp.render import reasons, report
from ome_asp.render.compare import (
    CHANGE_KINDS,
    MARKDOWN_BYTES,
    Comparison,
    Snapshot,
    render_markdown,
    render_text,
    show_optimum,
    to_document,
    verdict,
)
from ome_asp.solver.answer import QueryAnswer


def queries_of(clusters: list[Cluster], namespace: str, target) -> tuple[list[Query], str]:
    """The queries of the target, over both snapshots, and what to call them."""
    if target.model is not None or target.isvc is not None:
        return [Query(namespace, model=target.model, isvc=target.isvc)], "models" if target.model else "InferenceServices"
    models = {(m.namespace or namespace, m.name) for c in clusters for m in c.models}
    queries = [Query(ns, model=name) for ns, name in sorted(models)]
    if not target.all:
        return queries, "models"
    services = {(s.namespace, s.name) for c in clusters for s in c.inference_services}
    return queries + [Query(ns, isvc=name) for ns, name in sorted(services)], "queries"



def compare_profiles(args, stdin, pair: tuple[profiles.Profile, profiles.Profile], stderr: TextIO) -> Comparison:
    a, b = pair
    inputs = source_inputs(args)  # -k and --from-cluster read once, loaded under each profile
    if STDIN in args.filename:  # read once, then under each profile
        stdin = io.BytesIO(stdin.read())

    def under(profile: profiles.Profile) -> Cluster:
        if isinstance(stdin, io.BytesIO):
            stdin.seek(0)
        return load(args.filename, stdin=stdin, strict=args.strict, max_bytes=args.max_input_size, profile=profile,
                    sources=inputs)

    first_cluster, second_cluster = under(a), under(b)
    for label, cluster in ((a.name, first_cluster), (b.name, second_cluster)):
        _warn(label, cluster.warnings, stderr)
        _check_contents(label, cluster, args.allow_empty, stderr)
    queries, noun = queries_of([first_cluster, second_cluster], args.namespace, args)
    items, unchanged = compared((first_cluster, second_cluster), queries)
    _check_found(args, unchanged)
    setting_causes(under, a, profile_settings(a, b), items)
    return Comparison((a.name, b.name), items, unchanged, len(queries), noun, [], [], f"{a.name},{b.name}")


# --- the snapshots ------------------------------------------------------------------

# The flags that give one side's snapshot (before/after mode).
SIDE_FLAGS = ("before", "after", "before_k", "after_k", "before_from_cluster", "after_from_cluster")


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def check_mode(args, pair) -> None:
    """Every flag given is one this mode reads (issue 25: an ignored -k
    compared nothing and said nothing changed)."""
    sides = [_flag(d) for d in SIDE_FLAGS if getattr(args, d)]
    if pair is not None or args.git is not None:
        mode = "--git" if pair is None else "--profiles/--ome-versions"
        if pair is not None and args.git is not None:
            raise UsageError("--git and --profiles/--ome-versions cannot be combined")
        if sides:
            raise UsageError(f"{sides[0]}: {mode} reads both snapshots from -f/-k; --before and --after do not apply")
        if not (args.filename or args.kustomize or (pair is not None and args.from_cluster)):
            raise UsageError(f"no input: {mode} needs -f PATH or -k DIR" + (" or --from-cluster" if pair else ""))
        if args.git is not None and (args.from_cluster or args.context or args.kubeconfig or args.request_timeout):
            raise UsageError("--from-cluster, --context, --kubeconfig and --request-timeout: --git reads both "
                             "snapshots from the repository, no cluster")
        if args.show_ignored and pair is not None:
            raise UsageError("--show-ignored: profiles compare one set of manifests, no field changes")
        return
    for flag, value, instead in (("-f", args.filename, "--before PATH/--after PATH"),
                                 ("-k", args.kustomize, "--before-k DIR/--after-k DIR"),
                                 ("--from-cluster", args.from_cluster, "--before-from-cluster/--after-from-cluster")):
        if value:
            raise UsageError(f"{flag} applies to --profiles/--ome-versions and --git; give each snapshot with {instead}")
    for side in ("before", "after"):
        if not any(getattr(args, f"{side}{suffix}") for suffix in ("", "_k", "_from_cluster")):
            raise UsageError(f"no {side} snapshot: compare needs --{side} PATH..., --{side}-k DIR or "
                             f"--{side}-from-cluster (or -f PATH... with --profiles A,B, or --git REV1..REV2)")
    if STDIN in args.before and STDIN in args.after:
        raise UsageError("- (stdin) can be one snapshot only")
    if (args.context or args.kubeconfig or args.request_timeout) and not (args.before_from_cluster or args.after_from_cluster):
        raise UsageError("--context, --kubeconfig and --request-timeout need --before-from-cluster or --after-from-cluster")


def side_args(args, paths: list[str], kustomizations: list[str], from_cluster: bool) -> argparse.Namespace:
    """The flags of one snapshot, as explain would be given them (so the
    snapshot is read by explain's readers): a path holding a kustomization
    is read as -k."""
    from ome_asp.input.sources import FILES, holds_kustomization

    held = [p for p in paths if p != STDIN and holds_kustomization(FILES, p)]
    cluster = {} if from_cluster else {"context": None, "kubeconfig": None, "request_timeout": None}
    return argparse.Namespace(**{**vars(args), "filename": [p for p in paths if p not in held],
                                 "kustomize": kustomizations + held, "from_cluster": from_cluster, **cluster})


def load_side(label: str, args, stdin, stderr: TextIO, kustomize: str, inputs: list | None = None) -> Cluster:
    """One snapshot, read by explain's readers (-k as `kustomize` says:
    sources.KUSTOMIZE_MODES; `inputs`: a revision's files instead of the
    flags'), each object's lines kept for the causes; its warnings named by
    the side."""
    captured = io.StringIO()
    # no objects at all is _check_contents' error, which names --allow-empty (issue 38 item 7)
    cluster = load_cluster(args, stdin, captured, lines=True, allow_empty=True, kustomize=kustomize, inputs=inputs)
    _warn(label, [line.removeprefix("warning: ") for line in captured.getvalue().splitlines()], stderr)
    _check_contents(label, cluster, args.allow_empty, stderr)
    return cluster


def _warn(label: str, warnings: list[str], stderr: TextIO) -> None:
    for warning in warnings:
        print(f"warning: {label}: {warning}", file=stderr)


def _check_contents(label: str, cluster: Cluster, allow_empty: bool, stderr: TextIO) -> None:
    """A snapshot without runtimes or models compares nothing: an error, or
    with --allow-empty a warning (a catalog deleted on purpose)."""
    missing = [what for what, present in (("runtimes", cluster.runtimes), ("models", cluster.models)) if not present]
    if not missing:
        return
    message = f"the {label} snapshot has no {' and no '.join(missing)}"
    if not allow_empty:
        raise InputError(f"{message}; check its paths, or pass --allow-empty to compare it anyway")
    print(f"warning: {message}: every answer on that side is 'no runtime' (--allow-empty)", file=stderr)


def _check_found(args, unchanged: list[tuple[Query, QueryAnswer]]) -> None:
    """--model/--isvc that neither snapshot has: explain's error (an answer
    that is the same error on both sides is the error, not 'unchanged')."""
    if (args.model is not None or args.isvc is not None) and unchanged:
        reasons.check_single_answer(unchanged[0][1])


def snapshots(args, stdin, stderr: TextIO) -> tuple[Cluster, Cluster, tuple[Snapshot, Snapshot]]:
    """(before, after, where each was read) of --before/--after (-k read
    natively first, so causes name the user's files: D-221), or of --git's
    revisions (read as git stores them, input/revision.py) and the working
    tree, where -k never runs kubectl (D-220)."""
    if args.git is None:
        clusters, named = [], []
        for side in ("before", "after"):
            paths, kustomizations = getattr(args, side), getattr(args, f"{side}_k")
            live = getattr(args, f"{side}_from_cluster")
            clusters.append(load_side(side, side_args(args, paths, kustomizations, live), stdin, stderr, "native"))
            named.append(Snapshot(" ".join([shown(p, cut=False) for p in paths + kustomizations]
                                           + ["the live cluster"] * live)))
        return clusters[0], clusters[1], (named[0], named[1])
    if STDIN in args.filename:
        raise UsageError("--git: -f names files of the repository; - (stdin) does not apply")
    from ome_asp.input import revision, sources  # git's runner, imported only when asked for (as -k's, issue 26)

    bounds = sources.Bounds(args.max_input_size, args.kubectl_timeout)
    span = revision.parse_range(args.git, bounds)
    top = revision.top_directory(bounds)
    clusters = []
    for label, commit in zip(span.labels, span.commits):
        if commit is None:  # the working tree: its files as the user sees them, tracked or not
            clusters.append(load_side(label, side_args(args, args.filename, args.kustomize, False), stdin, stderr,
                                      "offline"))
            continue
        with revision.Revision(label, commit, top, bounds) as tree:
            inputs = tree.inputs(args.filename, args.kustomize)
        clusters.append(load_side(label, side_args(args, [], [], False), stdin, stderr, "offline", inputs))
    revisions = [label if commit is not None else None for label, commit in zip(span.labels, span.commits)]
    return clusters[0], clusters[1], (Snapshot(span.described[0], revisions[0]), Snapshot(span.described[1], revisions[1]))


# --- the command line --------------------------------------------------------------


def add_parser(commands, common) -> None:
    parser = commands.add_parser(
        "compare",
        help="what a change to the manifests, or another OME version, does to every selection, and which edit caused it",
        description="Compare the selections of two snapshots (--before/--after) or of one snapshot under two profiles.",
    )
    target = add_explain_targets(parser)
    target.add_argument("--all-models", action="store_true", help="every model of either snapshot")
    target.add_argument("--all", action="store_true",
                        help="every model and every InferenceService, and list the queries that keep their runtime")
    sides = parser.add_argument_group("the two snapshots (each read as explain reads -f, -k and --from-cluster)")
    sides.add_argument("--before", nargs="+", action="extend", default=[], metavar="PATH",
                       help="the earlier manifests: files, directories (one holding a kustomization.yaml is read "
                       "as -k), or - (stdin, one side only)")
    sides.add_argument("--after", nargs="+", action="extend", default=[], metavar="PATH", help="the later manifests, as --before")
    sides.add_argument("--before-k", action="append", default=[], metavar="DIR", help="the earlier snapshot's kustomization")
    sides.add_argument("--after-k", action="append", default=[], metavar="DIR", help="the later snapshot's kustomization")
    sides.add_argument("--before-from-cluster", action="store_true",
                       help="the earlier snapshot is the live cluster (kubectl get; --context, --kubeconfig apply)")
    sides.add_argument("--after-from-cluster", action="store_true", help="the later snapshot is the live cluster")
    sides.add_argument("--git", metavar="RANGE",
                       help="both snapshots from this git repository, read as git stores them (no checkout, "
                       "nothing fetched, kubectl never run): REV1..REV2, REV1...REV2 (REV2 against the merge base: "
                       "a pull request's change) or REV (the working tree against REV); -f PATH and -k DIR name "
                       "its files (relative to the working directory)")
    sides.add_argument("--allow-empty", action="store_true",
                       help="compare a snapshot without runtimes or models (else an error), with a warning")
    parser.add_argument("--profiles", metavar="A,B", help="compare -f's manifests under two profiles")
    parser.add_argument("--ome-versions", metavar="X,Y", help="compare -f's manifests under two OME releases' profiles")
    parser.add_argument("-o", "--output", choices=("table", "json", "yaml", "markdown", "junit", "sarif", "github"),
                        default="table", help="markdown: for a pull request's comment (a summary table, details "
                        "folded); junit, sarif, github: a check per query for CI, failed by --fail-on's kinds")
    parser.add_argument("--fail-on", metavar="KINDS", type=_kinds, action="append",
                        help="the kinds of change that fail the gate (exit 1; else 0), comma-separated or repeated: "
                        "lost (a model had a runtime and has none), moved (another runtime), changed (an error or "
                        "outcome became another), gained (a runtime where there was none), any (every kind: the "
                        "default); the verdict line of every output names what failed it")
    parser.add_argument("--max-bytes", metavar="N", type=_budget,
                        help=f"-o markdown: at most N bytes (default {MARKDOWN_BYTES}, a GitHub comment's limit): the "
                        "folded details, then the lists, then the causes cut at a row, with a note")
    parser.add_argument("--show", choices=("opt",),
                        help="opt: the optimum of the causes' search (compare.lp's criteria and their values) "
                        "for each query whose selection changed, instead of the comparison")
    parser.add_argument("--show-ignored", action="store_true",
                        help="list each change selection does not read (default: their counts by object and field)")
    common(parser)
    parser.set_defaults(run=run)


def _kinds(text: str) -> list[str]:
    """--fail-on's comma-separated kinds."""
    kinds = text.split(",")
    unknown = [kind for kind in kinds if kind not in (*CHANGE_KINDS, "any")]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown kind {shown(unknown[0])} (choose from {', '.join(CHANGE_KINDS)}, any; "
                                         "comma-separated or repeated)")
    return kinds


#: Less than this holds no more than the heading and the summary.
MIN_MARKDOWN_BYTES = 2048


def _budget(text: str) -> int:
    """--max-bytes: a whole number of bytes, at least MIN_MARKDOWN_BYTES."""
    if not text.isdigit() or int(text) < MIN_MARKDOWN_BYTES:
        raise argparse.ArgumentTypeError(f"expected a number of bytes of at least {MIN_MARKDOWN_BYTES}, found {shown(text)}")
    return int(text)


def _pair(args) -> tuple[profiles.Profile, profiles.Profile] | None:
    if args.profiles is not None and args.ome_versions is not None:
        raise UsageError("--profiles and --ome-versions cannot be combined")
    text = args.profiles if args.profiles is not None else args.ome_versions
    if text is None:
        return None
    parts = text.split(",")
    if len(parts) != 2:
        raise UsageError(f"expected two comma-separated values, found {text!r}")
    if args.profiles is not None:
        unknown = [p for p in parts if p not in profiles.PROFILES]
        if unknown:
            raise UsageError(f"--profiles: unknown profile {unknown[0]!r} (choose from {', '.join(profiles.PROFILES)})")
        return profiles.PROFILES[parts[0]], profiles.PROFILES[parts[1]]
    return profiles.for_release(parts[0]), profiles.for_release(parts[1])


def run(args, stdin, stdout: TextIO, stderr: TextIO) -> int:
    targets = [args.model is not None, args.isvc is not None, args.all_models, args.all]
    if sum(targets) != 1:
        raise UsageError("exactly one of --model, --isvc, --all-models or --all is required")
    pair = _pair(args)
    check_mode(args, pair)
    if args.show_ignored and args.output != "table":
        raise UsageError(f"--show-ignored: -o {args.output} " + ("lists every ignored change (ignoredChanges)"
                         if args.output in ("json", "yaml") else "counts them; -o json lists them"
                         if args.output == "markdown" else "checks the queries; -o json lists the ignored changes"))
    if args.max_bytes is not None and args.output != "markdown":
        raise UsageError(f"--max-bytes: a budget for -o markdown's comment; -o {args.output} is never cut")
    if args.show == "opt" and (args.output not in ("table", "json", "yaml") or args.fail_on is not None):
        raise UsageError(f"--show opt prints the causes' optimum: {'--fail-on' if args.fail_on else f'-o {args.output}'} "
                         "does not apply")
    if pair is not None:
        if args.profile is not None or args.ome_version is not None:
            raise UsageError("--profile/--ome-version cannot be combined with --profiles/--ome-versions")
        if args.show == "opt":
            raise UsageError("--show opt: a comparison of profiles optimises nothing (each setting is tried); "
                             "compare --before/--after searches the smallest causes (compare.lp)")
        result = compare_profiles(args, stdin, pair, stderr)
    else:
        Query(args.namespace, args.model, args.isvc)  # the names asked about, checked before any input is read
        before, after, named = snapshots(args, stdin, stderr)
        queries, noun = queries_of([before, after], args.namespace, args)
        result = compare_snapshots(before, after, queries, noun)
        result.snapshots = named
        _check_found(args, result.unchanged)
    if args.show == "opt":
        show_optimum(result, args.output, stdout)
        return Exit.NEGATIVE if result.items else Exit.OK
    gate = verdict(result, args.fail_on and [kind for kinds in args.fail_on for kind in kinds])
    if args.output == "table":
        stdout.write(render_text(result, gate, args.all, args.show_ignored))
    elif args.output == "markdown":
        stdout.write(render_markdown(result, gate, args.max_bytes or MARKDOWN_BYTES))
    elif args.output in ("json", "yaml"):
        report.dump(to_document(result, gate, args.all), args.output, stdout)
    else:
        from ome_asp.render import ci

        stdout.write(ci.render(args.output, ci.comparison(result, gate), ci.CHANGES, f"ome-asp compare: {gate.text()}"))
    return Exit.NEGATIVE if gate.failing else Exit.OK
