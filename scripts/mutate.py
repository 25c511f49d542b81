#!/usr/bin/env python3
"""Plant small bugs one at a time and report the ones no test catches
(issue 39: the next mutation audit is one command).

    python scripts/mutate.py                 # every mutation of MUTATIONS; exit 1 if one survives
    python scripts/mutate.py --list          # their names
    python scripts/mutate.py --only 'chunk sight' --only 'worlds profile'

Each mutation is a file, an exact snippet found there exactly once, its
replacement, and the tests that should catch it. For each, the tree (this
repository less .git, .venv and caches) is copied to a temporary directory,
the snippet replaced, and pytest runs the tests there (PYTHONPATH first, so
the copy's `ome_asp` is imported, in every subprocess too) with Hypothesis
set to run only the @example cases (OME_ASP_HYPOTHESIS=explicit, see
tests/conftest.py): a mutation must be caught on every run, never by a lucky
draw. A mutation is killed when pytest exits 1 (a test failed); it survives
when the tests pass; any other exit (a snippet gone, no test collected) is an
error of the list, reported as such. A hand list, not mutmut or cosmic-ray:
those mutate Python only, and half of what a user sees is decided in
encoding/*.lp, which a hand list mutates alike; each entry also says which
test is meant to catch it, so a survivor points at the test to write.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP = shutil.ignore_patterns(".git", ".venv", "__pycache__", ".hypothesis", ".pytest_cache", "*.egg-info", ".mypy_cache",
                              ".ruff_cache")


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str  # relative to the repository
    old: str  # found exactly once in the file
    new: str
    tests: tuple[str, ...]  # pytest node ids or files


MUTATIONS = [
    # encoding
    Mutation("O1 flipped", "encoding/ordering.lp",
             "scope_cost(R, 0) :- runtime(R), R = sr(_, _).\nscope_cost(R, 1) :- runtime(R), R = csr(_).",
             "scope_cost(R, 1) :- runtime(R), R = sr(_, _).\nscope_cost(R, 0) :- runtime(R), R = csr(_).",
             ("tests/test_ranking.py",)),
    Mutation("Z3 minimum exclusive", "encoding/sizes.lp", "Size < Min,", "Size <= Min,",
             ("tests/test_cases.py::test_check_runs_the_corpus",)),
    # Go's sort (code-v0.1.5)
    Mutation("gosort insertion compares the wrong way", "ome_asp/solver/gosort.py",
             "while j > a and self.less(j, j - 1):", "while j > a and self.less(j - 1, j):", ("tests/test_gosort_golden.py",)),
    # chunking and worlds
    Mutation("chunk overflows by one", "ome_asp/analysis/batch.py",
             "if current and len(current) + len(same) > size:", "if current and len(current) + len(same) >= size:",
             ("tests/test_batch.py::test_chunks_are_cut_where_the_namespace_changes",)),
    Mutation("chunk sight", "ome_asp/solver/sight.py", "everywhere = set.intersection(*", "everywhere = set.union(*",
             ("tests/test_batch.py::test_chunks_grounded_on_their_namespaces_answer_as_the_whole_cluster",)),
    Mutation("worlds profile", "ome_asp/solver/worlds.py",
             "profiles.setdefault(switches, len(profiles) + 1)", "profiles.setdefault(switches, 1)",
             ("tests/test_worlds.py::test_a_batch_of_worlds_answers_each_case_as_it_answers_alone",)),
    # the analysis layer: steer's and compare's searches and compare's output (issue 39's six survivors)
    Mutation("steer's weight ties left out", "ome_asp/analysis/steer.py",
             "return above | ({score // priority - other} if score % priority == 0 else set())",
             "return above | ({score // priority - other} if score % priority != 0 else set())",
             ("tests/test_steer.py::test_a_weight_that_ties_and_wins_on_the_name_is_the_cheapest_overall_O4",)),
    Mutation("compare's context never changed", "ome_asp/analysis/compare.py",
             "context_changed = bool(keys & changed)", "context_changed = False",
             ("tests/test_compare.py::test_a_runtime_qualifying_on_neither_side_still_bounds_the_search",)),
    Mutation("verifier reads a claim's first query only", "ome_asp/analysis/edits.py",
             "wrong = [claim.wrong(k, answer) for k, answer in enumerate(found)]",
             "wrong = [claim.wrong(k, answer) for k, answer in enumerate(found[:1])]",
             ("tests/test_compare.py::test_a_shared_cause_that_does_not_hold_for_a_later_query_is_refused",)),
    Mutation("verifier's answer unread", "ome_asp/analysis/edits.py",
             "for why in filter(None, refuted):", "for why in filter(None, refuted[:0]):",
             ("tests/test_steer.py::test_a_set_that_does_not_hold_when_selected_again_is_refused",)),
    Mutation("a set's edits not sorted", "ome_asp/analysis/edits.py",
             "sets = [sorted(self._positions[symbol] for symbol in applied) for applied in optima]",
             "sets = [[self._positions[symbol] for symbol in sorted(applied, key=str)] for applied in optima]",
             ("tests/test_compare.py::test_the_edits_of_a_set_are_in_the_changes_order_past_ten",)),
    Mutation("--git range with a missing side", "ome_asp/input/revision.py",
             "if len(parts) > 2 or not all(parts) or any(", "if len(parts) > 2 or any(",
             ("tests/test_compare_sources.py::test_git_revisions_never_reach_git_as_flags",)),
    Mutation("markdown cell's pipe not escaped", "ome_asp/render/compare.py",
             r'return span.replace("|", "\\|") if cell else span', "return span",
             ("tests/test_compare.py::test_markdown_values_are_only_ever_text",)),
    # report
    Mutation("denials in set order", "ome_asp/analysis/batch.py",
             "return sorted(set(found), key=lambda denial: report.runtime_sort_key(denial[0]))", "return list(set(found))",
             ("tests/test_determinism.py::test_issue39_the_same_bytes_under_every_hash_seed_and_j",)),
    Mutation("table cell not escaped", "ome_asp/render/table.py",
             "cells = [[escape(c) for c in row] for row in rows]", "cells = [list(row) for row in rows]",
             ("tests/test_table.py",)),
    # loader, sizes, sources
    Mutation("files read in the order given", "ome_asp/input/loader.py",
             "for number in sorted(range(len(files)), key=lambda n: (files[n] != STDIN, files[n])):",
             "for number in range(len(files)):",
             ("tests/test_robustness.py::test_issue18_I10_two_bad_files_give_the_same_error_whatever_the_order",)),
    Mutation("size without its multiplier", "ome_asp/input/sizes.py",
             "return Fraction(number) * _MULTIPLIER[suffix]", "return Fraction(number)", ("tests/test_sizes.py",)),
    Mutation("kustomize directory without --", "ome_asp/input/sources.py",
             'command = [KUBECTL, "kustomize", "--", directory]', 'command = [KUBECTL, "kustomize", directory]',
             ("tests/test_sources.py::test_k_with_kubectl_passes_the_directory_after_double_dash",)),
    # the oracle's own bounds (issue 38 item 6), shards (issue 40)
    Mutation("implementation's stderr kept whole", "ome_asp/conformance/differential.py",
             "self.stderr = (self.stderr + chunk)[-STDERR_TAIL_BYTES:]", "self.stderr = self.stderr + chunk",
             ("tests/test_diff.py::test_issue38_the_end_of_its_stderr_is_kept_and_no_more",)),
    Mutation("no deadline while enumerating", "ome_asp/solver/exhaustive.py",
             "                if deadline is not None and time.monotonic() > deadline:\n                    raise OutOfTime\n", "",
             ("tests/test_diff_exhaustive.py::test_issue38_the_time_limit_stops_a_resume_while_it_enumerates",)),
    Mutation("durations unbounded", "ome_asp/commands/options.py", "if seconds > MAX_DURATION_S:", "if seconds != seconds:",
             ("tests/test_diff.py::test_issue38_durations_are_finite_positive_and_bounded",)),
    Mutation("shards by division", "ome_asp/conformance/shards.py",
             "number % shard[1] == shard[0]", "number // shard[1] == shard[0]",
             ("tests/test_diff.py::test_issue40_generated_cases_in_shards_merge_into_one_run",)),
]


def plant(mutation: Mutation, tree: Path) -> None:
    path = tree / mutation.file
    text = path.read_text(encoding="utf-8")
    if text.count(mutation.old) != 1:
        raise LookupError(f"{mutation.file}: the snippet occurs {text.count(mutation.old)} times, not once")
    path.write_text(text.replace(mutation.old, mutation.new), encoding="utf-8")


def verdict(mutation: Mutation, root: Path = ROOT) -> str:
    """'killed', 'survived', or 'error: …' (the list, not the tests, is wrong)."""
    with tempfile.TemporaryDirectory(prefix="ome-asp-mutant-") as directory:
        tree = Path(directory) / "tree"
        shutil.copytree(root, tree, ignore=SKIP)
        try:
            plant(mutation, tree)
        except (LookupError, OSError) as error:
            return f"error: {error}"
        environment = {**os.environ, "PYTHONPATH": str(tree), "OME_ASP_HYPOTHESIS": "explicit", "PYTHONDONTWRITEBYTECODE": "1"}
        done = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *mutation.tests],
                              cwd=tree, env=environment, capture_output=True, text=True)
    if done.returncode == 1:
        return "killed"
    if done.returncode == 0:
        return "survived"
    return f"error: pytest exited {done.returncode}: {(done.stdout + done.stderr).strip().splitlines()[-1:]}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list the mutations and stop")
    parser.add_argument("--only", action="append", default=[], metavar="NAME", help="run only this mutation (repeatable)")
    args = parser.parse_args()
    chosen = [m for m in MUTATIONS if not args.only or m.name in args.only]
    if args.only and len(chosen) != len(set(args.only)):
        parser.error(f"no mutation named {sorted(set(args.only) - {m.name for m in chosen})}")
    if args.list:
        for m in chosen:
            print(f"{m.name}: {m.file}")
        return 0
    survivors = []
    for m in chosen:
        result = verdict(m)
        print(f"{result}: {m.name} ({m.file}; {' '.join(m.tests)})", flush=True)
        if result != "killed":
            survivors.append(m.name)
    print(f"{len(chosen)} mutations: {len(chosen) - len(survivors)} killed, {len(survivors)} not "
          + (f"({', '.join(survivors)})" if survivors else "(no survivor)"))
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
