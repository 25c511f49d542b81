"""Present a decoded answer: explain's rows (E8-E10), its table (E11-E13),
the JSON/YAML report, and the no-runtime message (O8).

Nothing here decides anything about selection: the verdicts, the order and
the reasons come from the encoding; this module orders rows as E10 prescribes
for display and fills in the strings.
"""

from __future__ import annotations

from dataclasses import dataclass

import clingo

from . import reasons
from .engine import QueryAnswer, Verdict
from .facts import Query
from .objects import CLUSTER_SERVING_RUNTIME, SERVING_RUNTIME
from .table import render_table

API_VERSION = "ome-asp/v1alpha1"
PROFILE = "v1.3"

KIND = {"sr": SERVING_RUNTIME, "csr": CLUSTER_SERVING_RUNTIME}
SCOPE = {"sr": "Namespaced", "csr": "Cluster"}


def runtime_name(r: clingo.Symbol) -> str:
    return r.arguments[-1].string


def runtime_namespace(r: clingo.Symbol) -> str | None:
    return r.arguments[0].string if r.name == "sr" else None


def runtime_sort_key(r: clingo.Symbol) -> tuple[str, str, str]:
    """I10's canonical order: kind, namespace, name."""
    return (KIND[r.name], runtime_namespace(r) or "", runtime_name(r))


def object_ref(r: clingo.Symbol) -> str:
    """`ServingRuntime ns/name` or `ClusterServingRuntime name`, as in messages."""
    namespace = runtime_namespace(r)
    return f"{KIND[r.name]} {namespace}/{runtime_name(r)}" if namespace is not None else f"{KIND[r.name]} {runtime_name(r)}"


@dataclass
class Row:
    verdict: Verdict
    rank: int | None  # 1, 2, ... for Yes rows

    @property
    def runtime(self) -> clingo.Symbol:
        return self.verdict.runtime

    def reason_text(self, check: str) -> str:
        return reasons.text(self.verdict.failures[check], self.verdict.format_details)

    @property
    def reason(self) -> str | None:
        first = self.verdict.first_failure
        return None if first is None else self.reason_text(first[0])

    @property
    def failed_check(self) -> str | None:
        first = self.verdict.first_failure
        return None if first is None else reasons.check_id(first[0])


def rows(answer: QueryAnswer) -> list[Row]:
    """E10: Yes rows in rank order, then No rows, ServingRuntimes first, each by name."""
    yes = [Row(answer.verdicts[r], rank) for rank, r in enumerate(answer.ranking, 1)]
    no = [v for v in answer.verdicts.values() if not v.qualifies]
    no.sort(key=lambda v: (v.runtime.name != "sr", runtime_name(v.runtime)))
    return yes + [Row(v, None) for v in no]


def model_format(answer: QueryAnswer) -> str:
    return answer.label.arguments[0].string


def no_runtime_message(answer: QueryAnswer, namespace: str) -> str | None:
    """O8, or None when some runtime qualifies."""
    if answer.ranking:
        return None
    fmt = model_format(answer)
    message = f"no runtime found to support model {fmt} with format {fmt} in namespace {namespace}"
    all_rows = rows(answer)
    if all_rows:
        namespaced = sum(1 for row in all_rows if row.runtime.name == "sr")
        message += (
            f". Checked {len(all_rows)} runtimes ({namespaced} namespace-scoped, "
            f"{len(all_rows) - namespaced} cluster-scoped)"
        )
    excluded = [row for row in all_rows if row.verdict.in_no_runtime_message]
    if excluded:
        message += ". Excluded runtimes: " + "; ".join(f"{runtime_name(row.runtime)} ({row.reason})" for row in excluded)
    return message


def query_json(query: Query, answer: QueryAnswer) -> dict:
    if query.isvc is None:
        return {"namespace": query.namespace, "model": query.model}
    return {"namespace": query.namespace, "isvc": query.isvc, "model": runtime_name(answer.model)}


def explain_json(query: Query, answer: QueryAnswer) -> dict:
    """The RuntimeExplainReport (field names fixed by the core issue)."""
    all_rows = rows(answer)
    selected = all_rows[0].runtime if all_rows and all_rows[0].rank == 1 else None
    return {
        "apiVersion": API_VERSION,
        "kind": "RuntimeExplainReport",
        "profile": PROFILE,
        "query": query_json(query, answer),
        "selected": None
        if selected is None
        else {"kind": KIND[selected.name], "namespace": runtime_namespace(selected), "name": runtime_name(selected)},
        "rows": [_row_json(row) for row in all_rows],
        "message": no_runtime_message(answer, query.namespace),
    }


def _row_json(row: Row) -> dict:
    v, yes = row.verdict, row.rank is not None
    return {
        "runtime": runtime_name(v.runtime),
        "kind": KIND[v.runtime.name],
        "scope": SCOPE[v.runtime.name],
        "compatible": yes,
        "rank": row.rank,
        "score": v.score if yes else None,
        "priority": v.priority if yes else None,
        "weight": v.weight if yes else None,
        "distance": v.distance if yes else None,
        "reason": row.reason,
        "failedCheck": row.failed_check,
        "reasons": [{"check": reasons.check_id(c), "message": row.reason_text(c)} for c in v.failures],
    }


HEADERS = ["RUNTIME", "SCOPE", "COMPATIBLE", "PRIORITY", "WEIGHT", "REASON"]
WIDE_HEADERS = ["RUNTIME", "SCOPE", "COMPATIBLE", "PRIORITY", "WEIGHT", "SCORE", "DISTANCE", "CHECK", "REASON"]


def explain_table(answer: QueryAnswer, wide: bool = False) -> str:
    """E8-E13; `wide` adds SCORE, DISTANCE and the first failed check."""
    lines = []
    for row in rows(answer):
        v, yes = row.verdict, row.rank is not None
        cells = [runtime_name(v.runtime), SCOPE[v.runtime.name], "Yes" if yes else "No"]
        cells += [str(v.priority), str(v.weight)] if yes else ["-", "-"]
        if wide:
            cells += [str(v.score), v.distance or "-", "-"] if yes else ["-", "-", row.failed_check]
        cells.append("-" if yes else row.reason)
        lines.append(cells)
    return render_table(WIDE_HEADERS if wide else HEADERS, lines)
