"""Present a decoded answer: explain's rows (E8-E10), its table (E11-E13),
the JSON/YAML report, and the no-runtime message (O8).

Nothing here decides anything about selection: the verdicts, the order and
the reasons come from the encoding; this module orders rows as E10 prescribes
for display and fills in the strings.
"""

from __future__ import annotations

import functools
from _json import encode_basestring
from typing import Callable, TextIO

import yaml

from ome_asp.input.documents import shown
from ome_asp.input.objects import Query, RuntimeRef
from ome_asp.input.profiles import DEFAULT as DEFAULT_PROFILE
from ome_asp.input.sizes import in_units, is_size
from ome_asp.records import field, record
from ome_asp.render import reasons
from ome_asp.render.table import GAP, render_table
from ome_asp.solver.answer import Answer, Criterion, QueryAnswer, Verdict

API_VERSION = "ome-asp/v1alpha1"


def scope(r: RuntimeRef) -> str:
    """E8's SCOPE column."""
    return "Namespaced" if r.namespaced else "Cluster"


def runtime_sort_key(r: RuntimeRef) -> tuple[str, str, str]:
    """I10's canonical order: kind, namespace, name."""
    return (r.kind, r.namespace or "", r.name)


def runtime_json(r: RuntimeRef) -> dict:
    """A runtime in a JSON/YAML report."""
    return {"kind": r.kind, "namespace": r.namespace, "name": r.name}


@record
class Row:
    """One row of an explain report: a runtime's verdict and its place in the order."""

    verdict: Verdict
    rank: int | None  # 1, 2, ... for Yes rows
    # check -> its message, rendered once: the first failure is both `reason` and in `reasons`
    _texts: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    @property
    def runtime(self) -> RuntimeRef:
        return self.verdict.runtime

    def reason_text(self, check: str) -> str:
        if check not in self._texts:
            self._texts[check] = _message(self.verdict, check)
        return self._texts[check]

    @property
    def reason(self) -> str | None:
        first = self.verdict.first_failure
        return None if first is None else self.reason_text(first[0])

    @property
    def failed_check(self) -> str | None:
        first = self.verdict.first_failure
        return None if first is None else reasons.check_id(first[0])


def rows(answer: QueryAnswer, keep: Callable[[Row], bool] | None = None) -> list[Row]:
    """E10: Yes rows in rank order, then No rows, ServingRuntimes first, each by name;
    `keep` shows only some (explain --runtime, --compatible-only: issue 16), ranks unchanged."""
    yes = [Row(answer.verdicts[r], rank) for rank, r in enumerate(answer.ranking, 1)]
    no = [v for v in answer.verdicts.values() if not v.qualifies]
    no.sort(key=lambda v: (not v.runtime.namespaced, v.runtime.name))
    every = yes + [Row(v, None) for v in no]
    return every if keep is None else [row for row in every if keep(row)]


def model_format(answer: QueryAnswer) -> str:
    return answer.label.arguments[0].string


def no_runtime_message(answer: QueryAnswer, namespace: str, all_rows: list[Row] | None = None,
                       cache: RowsCache | None = None) -> str | None:
    """O8, or None when some runtime qualifies or selection did not run (a query error);
    `all_rows`: `rows(answer)` when the caller has them; `cache`: what the
    reports of one Answer share (RowsCache)."""
    if answer.ranking or answer.error is not None:
        return None
    fmt = model_format(answer)
    message = f"no runtime found to support model {fmt} with format {fmt} in namespace {namespace}"
    all_rows = rows(answer) if all_rows is None else all_rows
    if all_rows:
        namespaced = sum(1 for row in all_rows if row.runtime.namespaced)
        message += (
            f". Checked {len(all_rows)} runtimes ({namespaced} namespace-scoped, "
            f"{len(all_rows) - namespaced} cluster-scoped)"
        )
    excluded = [row for row in all_rows if row.verdict.in_no_runtime_message]
    if excluded:
        local = RowsCache() if cache is None else cache
        message += ". Excluded runtimes: " + "; ".join(f"{row.runtime.name} ({_first_message(row.verdict, local)})"
                                                       for row in excluded)
    return message


def _first_message(v: Verdict, local: RowsCache) -> str:
    """A No row's `reason` (Row.reason), written once per its first failed
    check's reason text (and E15's pieces): on a No-heavy cluster O8 names
    half of a query's runtimes, most failing alike (issue 40)."""
    check, text = v.failures_key[0]
    key = (check, text, id(v.format_details)) if check == "q5" and v.format_details else (check, text)
    found = local.messages.get(key)
    if found is None:
        found = local.messages[key] = _message(v, check)
    return found


def query_json(query: Query, answer: QueryAnswer) -> dict:
    if query.isvc is None:
        return {"namespace": query.namespace, "model": query.model}
    return {"namespace": query.namespace, "isvc": query.isvc, "model": answer.model.arguments[-1].string}


def denials(result: Answer) -> list[tuple[RuntimeRef, str]]:
    """I9: each runtime the admission webhook would deny, with its message, in I10's order."""
    return [(r, reasons.admission_text(result.denied[r], r, result.unknown_classes.get(r, [])))
            for r in sorted(result.denied, key=runtime_sort_key)]


def denial_warning(runtime: RuntimeRef, message: str) -> str:
    """The text of the stderr line `warning: …` for a denied runtime."""
    return f"{runtime} would be denied by admission: {message}"


def notes_json(warnings: list[str], denied: list[tuple[RuntimeRef, str]]) -> dict:
    """What stderr says besides the result, for every report (issue 16):
    `warnings`, the text of each `warning:` line (input warnings, then the
    denials), and `denied`, the runtimes admission would deny, which have no row."""
    return {
        "warnings": [*warnings, *(denial_warning(r, m) for r, m in denied)],
        "denied": [{**runtime_json(r), "message": m} for r, m in denied],
    }


NO_NOTES = notes_json([], [])


def outcome_json(query: dict, ended: tuple[str, str], profile: str, notes: dict = NO_NOTES) -> dict:
    """The report of an outcome without a table, for every command (docs/profiles.md
    section 0): a RuntimeExplainReport with `outcome`, `detail`, no rows and
    `selected: null`, so one schema reads every report (issue 16)."""
    name, detail = ended
    return {
        "apiVersion": API_VERSION, "kind": "RuntimeExplainReport", "profile": profile,
        "query": query, "outcome": name, "detail": detail, "selected": None, "rows": [], **notes,
    }


def explain_json(query: Query, answer: QueryAnswer, profile: str = DEFAULT_PROFILE, for_json: bool = False,
                 notes: dict = NO_NOTES, keep: Callable[[Row], bool] | None = None,
                 cache: RowsCache | None = None) -> dict:
    """The RuntimeExplainReport (field names fixed by the core issue); a query
    that explain cannot answer (E4, in a batch) adds `error`, with no rows.
    `for_json`: the rows are `RowsJson`, for `to_json` only (-o json), with
    `cache` (the reports of one Answer's queries may share one); `notes` is
    notes_json's `warnings` and `denied`; `keep` which rows to show."""
    all_rows = rows(answer)
    shown = all_rows if keep is None else rows(answer, keep)
    selected = all_rows[0].runtime if all_rows and all_rows[0].rank == 1 else None
    error = {} if answer.error is None else {"error": reasons.text(answer.error)}
    return {
        "apiVersion": API_VERSION,
        "kind": "RuntimeExplainReport",
        "profile": profile,
        "query": query_json(query, answer),
        "selected": None
        if selected is None
        else {"kind": selected.kind, "namespace": selected.namespace, "name": selected.name},
        "rows": RowsJson(shown, cache) if for_json else [_row_json(row) for row in shown],
        "message": no_runtime_message(answer, query.namespace, all_rows, cache),
        **notes,
        **error,
    }


def _row_json(row: Row) -> dict:
    v, yes = row.verdict, row.rank is not None
    return {
        "runtime": v.runtime.name,
        "kind": v.runtime.kind,
        "scope": scope(v.runtime),
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


class JsonText:
    """A value `to_json` writes as the text its `json(pad)` returns."""

    def json(self, pad: str) -> str:
        raise NotImplementedError


class RowsJson(JsonText):
    """An explain report's rows as `to_json` writes `[_row_json(row), ...]`,
    the same text (tests/test_report.py), from templates: the generic writer
    costs a call per value, about 30 µs a row, most of a batch's output time
    (issue 13). A runtime's cells and a No row's reasons are written once per
    indentation and reused, keyed by the reasons' text as the decoder read
    it (Verdict.failures_key): rows that fail alike share the text from
    `reason` on, and each reason's item of `reasons`; E15's message is
    written once per the pieces' text and signature tuple in a batch (issue 26)."""

    def __init__(self, rows: list[Row], cache: RowsCache | None = None) -> None:
        self.rows = rows
        self.cache = cache

    def json(self, pad: str) -> str:
        if not self.rows:
            return "[]"
        inner = pad + "  "
        local = RowsCache() if self.cache is None else self.cache
        return f"[\n{inner}" + f",\n{inner}".join(_row_text(row, inner, local) for row in self.rows) + f"\n{pad}]"


class RowsCache:
    """What the rows with E15's pieces of one Answer share, in one query's
    report or in each of its queries' (explain --all-models writes a chunk's
    with one): the decoder shares the pieces' dicts among the rows whose
    entries' pieces read alike, whatever their model (answer._complete), and
    they are alive while the Answer is, so their ids identify them here."""

    def __init__(self) -> None:
        self.rows: dict[tuple, str] = {}  # (failures_key, id of the pieces) -> as _REASONS
        self.formats: dict[tuple[int, str], tuple[str, str]] = {}  # (id of the pieces, Q5's reason) -> its item, as _ITEMS
        self.entries: dict[int, str] = {}  # E15's pieces of an entry, by the id of their list
        self.labels: dict[str, str] = {}  # Q5's reason as printed -> the model's label (E16)
        self.messages: dict[tuple, str] = {}  # a first failure's (check, reason text[, id of the pieces]) -> its message


# json's C escaping (json.encoder's, ensure_ascii=False), without importing json,
# whose decoder compiles a regular expression: text output needs no json (D-142).
_string = encode_basestring


def _scalar(value: int | str | None) -> str:
    return "null" if value is None else _string(value) if isinstance(value, str) else int.__repr__(value)


@functools.lru_cache(maxsize=2**14)
def _head(runtime: RuntimeRef, pad: str) -> str:
    """A row's text up to its `compatible` value."""
    i = pad + "  "
    return (f'{{\n{i}"runtime": {_string(runtime.name)},\n{i}"kind": {_string(runtime.kind)},\n'
            f'{i}"scope": "{scope(runtime)}",\n{i}"compatible": ')


def _row_text(row: Row, pad: str, local: RowsCache) -> str:
    v, i = row.verdict, pad + "  "
    if row.rank is None:
        cells = f'false,\n{i}"rank": null,\n{i}"score": null,\n{i}"priority": null,\n{i}"weight": null,\n{i}"distance": null'
    else:
        cells = (f'true,\n{i}"rank": {row.rank},\n{i}"score": {_scalar(v.score)},\n{i}"priority": {_scalar(v.priority)},\n'
                 f'{i}"weight": {_scalar(v.weight)},\n{i}"distance": {_scalar(v.distance)}')
    if not v.failures:
        return f'{_head(v.runtime, pad)}{cells},\n{i}"reason": null,\n{i}"failedCheck": null,\n{i}"reasons": []\n{pad}}}'
    if v.format_details:
        key, cache = (v.failures_key, id(v.format_details)), local.rows
    else:
        key, cache = (pad, v.failures_key), _REASONS
        if len(cache) > 2**14:
            cache.clear()
    found = cache.get(key)
    if found is None:
        found = cache[key] = _reasons_text(v, pad, local)
    return f'{_head(v.runtime, pad)}{cells},\n{found}'


# (pad, Verdict.failures_key) -> a No row's text from `reason` on, and
# (pad, check, reason text) -> (its message as JSON, its item of `reasons`),
# for the reasons without E15's pieces: few distinct ones, the same in every query.
_REASONS: dict[tuple, str] = {}
_ITEMS: dict[tuple[str, str, str], tuple[str, str]] = {}


def _reasons_text(v: Verdict, pad: str, local: RowsCache) -> str:
    """A No row's `reason` and `failedCheck` (its first failed check, the
    first in check order) and `reasons`, to the row's end."""
    i = pad + "  "
    items = [_item(v, check, text, pad, local) for check, text in v.failures_key]
    listed = ",\n".join([item for _, item in items])
    return (f'{i}"reason": {items[0][0]},\n{i}"failedCheck": {_check_json(v.failures_key[0][0])},\n'
            f'{i}"reasons": [\n{listed}\n{i}]\n{pad}}}')


def _item(v: Verdict, check: str, text: str, pad: str, local: RowsCache) -> tuple[str, str]:
    """A failed check's message (as JSON) and its item of `reasons`, written once."""
    cache: dict
    if check == "q5" and v.format_details:
        key, cache = (id(v.format_details), text), local.formats  # the pieces are shared by models of other labels
    else:
        key, cache = (pad, check, text), _ITEMS
        if len(cache) > 2**14:
            cache.clear()
    found = cache.get(key)
    if found is None:
        message = _format_message(v, text, local) if cache is local.formats else _message(v, check)
        message, j, k = _string(message), pad + "    ", pad + "      "
        found = cache[key] = (message, f'{j}{{\n{k}"check": {_check_json(check)},\n{k}"message": {message}\n{j}}}')
    return found


@functools.lru_cache(maxsize=None)
def _check_json(check: str) -> str:
    """A check's rule id as a JSON string (q5 -> "Q5")."""
    return _string(reasons.check_id(check))


def _message(v: Verdict, check: str) -> str:
    """The message of a failed check."""
    return reasons.text(v.failures[check], v.format_details)


def _format_message(v: Verdict, text: str, local: RowsCache) -> str:
    """E15's message of a Q5 row whose runtime has entries (its reason's
    text is `text`): the model's label written once per reason, each entry's
    pieces once per list of them (the rows of one answer share both)."""
    label = local.labels.get(text)
    if label is None:
        label = local.labels[text] = reasons.label(v.failures["q5"].arguments[0])
    texts = []
    for pieces in v.format_details.values():
        entry = local.entries.get(id(pieces))
        if entry is None:
            entry = local.entries[id(pieces)] = reasons.entry_text(pieces)
        texts.append(entry)
    return reasons.format_unsupported(label, texts)


HEADERS = ["RUNTIME", "SCOPE", "COMPATIBLE", "PRIORITY", "WEIGHT", "REASON"]
WIDE_HEADERS = ["RUNTIME", "SCOPE", "COMPATIBLE", "PRIORITY", "WEIGHT", "SCORE", "DISTANCE", "CHECKS", "REASON"]


def explain_table(answer: QueryAnswer, wide: bool = False, keep: Callable[[Row], bool] | None = None,
                  headers: bool = True) -> str:
    """E8-E13; `wide` adds SCORE, DISTANCE and every failed check, the first first;
    without `headers` (--no-headers), the rows alone, laid out without them."""
    lines = []
    for row in rows(answer, keep):
        v, yes = row.verdict, row.rank is not None
        cells = [v.runtime.name, scope(v.runtime), "Yes" if yes else "No"]
        cells += [str(v.priority), str(v.weight)] if yes else ["-", "-"]  # E9's WEIGHT; the score is not shown (S8)
        if wide:
            checks = ",".join(reasons.check_id(c) for c in v.failures)
            cells += [str(v.score), in_units(v.distance) if v.distance else "-", "-"] if yes else ["-", "-", checks]
        cells.append("-" if yes else row.reason)
        lines.append(cells)
    return render_table(WIDE_HEADERS if wide else HEADERS, lines, headers=headers)


# explain -v on a query that ends with an outcome (issue 24): what ended it and
# what gives it a table again (docs/profiles.md section 0).
_OUTCOME_HELP = {
    "unsupported-input": "OME v1.2.2 cannot evaluate a modelSizeRange with one bound for a sized model (Z3): "
                         "write both min and max on that runtime, or remove the range",
    "panic": "OME v0.1.5 dereferences the missing bound of a modelSizeRange with one bound (Z3) and panics: "
             "write both min and max on that runtime, or remove the range",
    "order-unspecified": "Go's sort leaves the order of these runtimes to the implementation (profiles.md 3.3): "
                         "make their scores or size distances differ",
}


def outcome_details(ended: tuple[str, str], profile: str) -> str:
    """explain -v for an outcome: no ranking, so no DETAILS; why the query ended and what to change."""
    name, detail = ended
    return (f"\nOUTCOME {name} (profile {profile}, profiles.md section 0)\n  {detail}\n"
            f"  The query ends before any ranking: no runtime is ranked or selected.\n"
            f"  {_OUTCOME_HELP.get(name, 'see docs/profiles.md section 0')}.\n")


def explain_details(answer: QueryAnswer, entry_names: dict, weights: dict, keep: Callable[[Row], bool] | None = None,
                    runtimes: dict | None = None, isvc=None, criteria: dict[int, str] | None = None,
                    classes: frozenset[str] = frozenset()) -> str:
    """explain -v: why each Yes row ranks where it does (score, distance, the
    entries that scored, and the criterion that put it after the row above)
    and every failed check of each No row, a format failure entry by entry.
    `entry_names` and `weights` are Facts' tables; `runtimes` (RuntimeRef ->
    Runtime) and `isvc` (the queried InferenceService) let it name what the
    manifests wrote: a version's operator, accelerator classes, a size bound
    that reads as 0 (issue 16), a class asked for that is no AcceleratorClass
    of the input (`classes`: theirs, issue 36); `criteria` is the Answer's (level -> name),
    None where the order is not the #minimize order (Go's sort)."""
    runtimes = runtimes or {}
    out = ["", "DETAILS"]
    above = None
    for row in rows(answer):
        v = row.verdict
        runtime = runtimes.get(v.runtime)
        if keep is not None and not keep(row):
            above = row if row.rank is not None else above
            continue
        if row.rank is not None:
            out.append(f"{v.runtime} (rank {row.rank}):")
            out.append(f"  score {v.score}: {_score_basis(v, entry_names[v.runtime], weights)}")
            out += _typo_notes(runtime, {f"spec.supportedModelFormats[{i}]" for i, *_ in v.scoring}, ("priority", "weight"), "  ")
            out.append(f"  {_distance_basis(v)}")
            if above is not None and criteria is not None:
                out.append(f"  after {above.runtime.name}: {_criterion(above.verdict, v, criteria)}")
            above = row
        else:
            out.append(f"{v.runtime} (not compatible):")
            for check, term in v.failures.items():
                if term.name == "format_unsupported":
                    out.append(f"  {reasons.check_id(check)}: model format '{reasons.label(term.arguments[0])}' not in supported formats:")
                    for i, pieces in v.format_details.items():
                        texts = [reasons.text(p) + _operator_note(p, runtime, i, v.version_shapes) for p in pieces]
                        out.append(f"    {_entry_ref(i, entry_names[v.runtime][i])}: {', '.join(texts)}")
                else:
                    out.append(f"  {reasons.check_id(check)}: {reasons.text(term, v.format_details)}"
                               + (_accelerator_note(runtime, isvc, classes) if term.name == "accelerator_class_unsupported" else ""))
                if check == "q7" or term.name == "matching_entry_not_auto_selected":
                    out += _typo_notes(runtime, None, ("autoSelect",), "    ")
                if check == "q8":  # the arithmetic of the zero score (issue 16)
                    basis = _score_basis(v, entry_names[v.runtime], weights)
                    # a compatible runtime (Q5 passed) has an entry that matches; an incompatible
                    # one may have none, whatever its autoSelect (issue 16: -v blamed autoSelect)
                    out.append(f"    score: {basis}, none above 0 (S1)" if basis else
                               "    score: no entry counts: each matching entry has autoSelect: false (S2)" if "q5" not in v.failures
                               else "    score: no entry counts: none both matches the model's format and framework "
                                    "(names and versions) and has autoSelect other than false (S2)")
        out += [f"  {note}" for note in _unit_notes(runtime)]
    return "\n".join(out) + "\n"


# V3: the operator reads runtime-version OP model-version, so an ordering operator
# is an upper limit on the model's version; other operators are equality (V9).
_OPERATOR = {"GreaterThan": "below", "GreaterThanOrEqual": "at most"}


def _operator_note(piece, runtime, index: int, shapes: list) -> str:
    """A version failure with the entry's operator and its direction (V3), or,
    where the versions' shapes alone decide (V8, V9), the shapes (issue 24:
    "must be at most 4.50" read as if 4.45.0 failed the comparison)."""
    if runtime is None or piece.name != "version_mismatch":
        return ""
    side, model_version, runtime_version = piece.arguments
    ref = getattr(runtime.entries[index], "model_format" if side.name == "format" else "model_framework")
    decided = [why for i, s, _, _, why, flag in shapes if (i.number, s.name, flag.name) == (index, side.name, "decides")]
    if decided:
        rule = "V8" if ref.operator in _OPERATOR else "V9"
        return (f" [operator {ref.operator} compares only versions of the same shape ({rule}): "
                + "; ".join(_shape_text(why, reasons.value(runtime_version), reasons.value(model_version)) for why in decided)
                + "; whatever their numbers, they do not match]")
    return (f" [operator {ref.operator} reads runtime {reasons.value(runtime_version)} {ref.operator} model "
            f"{reasons.value(model_version)} (V3): the model's {side.name} version must be "
            f"{_OPERATOR.get(ref.operator, 'equal to')} {reasons.value(runtime_version)}]")


def _shape_text(why, runtime_version: str | None, model_version: str | None) -> str:
    """How two versions differ in shape: precision(entry's, model's) parts, or prefix (v or none)."""
    theirs, ours = (a.number if why.name == "precision" else a.name for a in why.arguments)
    if why.name == "precision":
        return (f"the runtime's {runtime_version} has {theirs} part{'s' if theirs != 1 else ''}, "
                f"the model's {model_version} has {ours}")
    has = lambda prefix: "has the v prefix" if prefix == "v" else "has no v prefix"  # noqa: E731
    return f"the runtime's {runtime_version} {has(theirs)}, the model's {model_version} {has(ours)}"


def version_warnings(answer: QueryAnswer, entry_names: dict, keep: Callable[[Row], bool] | None = None) -> list[str]:
    """explain -v (issue 24): one warning per entry whose version differs in
    shape from the model's (V8, V9): ordering and other operators never match
    such a pair, so a later operator edit would break it; Equal ignores the
    shape (V5)."""
    lines = []
    for row in rows(answer, keep):
        v = row.verdict
        for index, side, entry_version, model_version, why, flag in v.version_shapes:
            effect = ("so its operator does not match (V8, V9)" if flag.name == "decides"
                      else "which Equal ignores (V5) but GreaterThan, GreaterThanOrEqual and other operators would not match (V8, V9)")
            lines.append(f"warning: {v.runtime} {_entry_ref(index.number, entry_names[v.runtime][index.number])}: "
                         f"{side.name} version: {_shape_text(why, entry_version.string, model_version.string)}, {effect}")
    return lines


def _accelerator_note(runtime, isvc, classes: frozenset[str]) -> str:
    """An accelerator failure with the class asked for and the runtime's list
    (A1-A3); a class that is no AcceleratorClass of the input is said to be
    none: no runtime the webhook admits can list it (W3)."""
    unknown = " (no AcceleratorClass of that name in the input: no runtime the webhook admits can list it, W3)"
    asked = [] if isvc is None else [f"{where} {value!r}" + ("" if value in classes else unknown) for where, value in (
        ("annotation ome.io/accelerator-class", isvc.accelerator_annotation),
        ("spec.acceleratorSelector.acceleratorClass", isvc.selector_class),
        ("spec.engine.acceleratorOverride.acceleratorClass", isvc.engine_class),
        ("spec.decoder.acceleratorOverride.acceleratorClass", isvc.decoder_class)) if value is not None]
    classes = None if runtime is None else runtime.accelerator_classes
    return (f" [the InferenceService asks: {'; '.join(asked) or 'no class'}; the runtime supports: "
            f"{'[' + ', '.join(classes) + ']' if classes else 'no list'}]")


def _unit_notes(runtime) -> list[str]:
    """A size bound that is not a size reads as 0 (Z1, Z2): `70b` for 70B."""
    if runtime is None or runtime.size_range is None:
        return []
    notes = []
    for bound in ("min", "max"):
        text = getattr(runtime.size_range, bound)
        if text is not None and not is_size(text):
            fixed = text[:-1] + text[-1:].upper()
            hint = f"; did you mean {fixed!r}?" if is_size(fixed) else ""
            notes.append(f"note: spec.modelSizeRange.{bound} {text!r} is not a size (Z1) and reads as 0 (Z2){hint}")
    return notes


def _typo_notes(runtime, paths: set[str] | None, fields: tuple[str, ...], indent: str) -> list[str]:
    """The loader's likely typos (I11) of `fields` in the runtime's entries at
    `paths` (None: any entry), at the check or number they decide (issue 36):
    the key as written, the field it misspells, and that it is ignored."""
    if runtime is None:
        return []
    return [f"{indent}note: {typo.path} has {shown(typo.key)}: {_written(typo.value)}, an unknown field (did you mean "
            f"{typo.field}?): ignored, as if it had no {typo.field}"
            for typo in runtime.typos if typo.field in fields and typo.path.startswith("spec.supportedModelFormats[")
            and (paths is None or typo.path.split(".modelF")[0] in paths)]


def _written(value) -> str:
    """A value as the manifest wrote it, for a note."""
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    return shown(value) if isinstance(value, str) else str(value)


def _criterion(above: Verdict, v: Verdict, criteria: dict[int, str]) -> str:
    """The first criterion (ordering.lp's criterion/2, highest level first) on
    which this row's rank key differs from the row above's."""
    level = next(len(v.cost) - i for i, (a, b) in enumerate(zip(above.cost, v.cost)) if a != b)
    name = criteria[level]
    return {
        "namespaced_first": "O1: the row above is a ServingRuntime, which comes first whatever the score",
        "higher_score": f"O2: score {v.score} < {above.score}",
        "smaller_distance": f"O3: the same score, distance {in_units(v.distance)} > {in_units(above.distance)}",
        "name_order": f"O4: the same score and distance; {above.runtime.name} sorts first by name",
    }.get(name, name)


def _entry_ref(index: int, name: str | None) -> str:
    return f"entry {index}" if name is None else f"entry {index} ({name})"


_READ_AS = {"ten": "10 (weight 0)", "five": "5 (weight 0)", "none": "0 (no such side)"}


def _score_basis(v: Verdict, names: list, weights: dict) -> str:
    """S1-S3 as the entries that score say it: (wf' + ww') x P; `none` is a
    side the entry lacks (code-v0.1.5)."""
    parts = []
    for index, w, format_reading, framework_reading in v.scoring:
        wf, ww, priority = weights[w]
        shown_f = _READ_AS.get(format_reading, str(wf))
        shown_w = _READ_AS.get(framework_reading, str(ww))
        parts.append(f"({shown_f} + {shown_w}) × {priority} from {_entry_ref(index, names[index])}")
    return "; ".join(parts)


def _distance_basis(v: Verdict) -> str:
    """Z5 as the case that applied; O3 is skipped for a model without a size."""
    basis = v.distance_basis
    if basis is None:
        return "no distance: the model has no modelParameterSize (O3 is skipped)"
    distance = in_units(v.distance)  # as the manifests write sizes; JSON keeps the exact count
    if basis.name == "one_bound":
        bound = basis.arguments[0].name
        return f"distance {distance}: |{bound} - model size|, the only bound set"
    return {
        "no_range": f"distance {distance}: no modelSizeRange",
        "no_bounds": f"distance {distance}: modelSizeRange sets no bound",
        "both_bounds": f"distance {distance}: max - min, the width of the range",
    }[basis.name]


class YamlDumper(yaml.SafeDumper):
    """safe_dump's dumper, less one PyYAML bug: it writes NEL (U+0085) raw inside a
    single-quoted scalar, where a YAML reader folds it into a space. Strings that
    hold one are double-quoted, where it is escaped (`\\N`)."""


def _represent_str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style='"' if "\x85" in text else None)


YamlDumper.add_representer(str, _represent_str)


def to_yaml(document, dumper: type[yaml.SafeDumper] = YamlDumper, **options) -> str:
    """YAML that reads back as `document`, keys in their order."""
    return yaml.dump(document, Dumper=dumper, sort_keys=False, allow_unicode=True, **options)


def to_yaml_all(documents: list, dumper: type[yaml.SafeDumper] = YamlDumper, **options) -> str:
    """A multi-document YAML stream of `documents`."""
    return yaml.dump_all(documents, Dumper=dumper, sort_keys=False, allow_unicode=True, **options)


def optimum_text(program: str, optimum: list[Criterion]) -> str:
    """`--show opt` (as `spack solve --show opt`): each named level of the
    optimum of `program`, highest priority first, and its value there."""
    rows = [["PRIORITY", "CRITERION", "VALUE"]] + [[str(c.level), c.name, str(c.value)] for c in optimum]
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    lines = [GAP.join([row[0].ljust(widths[0]), row[1].ljust(widths[1]), row[2]]) for row in rows]
    return f"Optimization criteria of {program}, highest priority first:\n" + "".join(line + "\n" for line in lines)


def optimum_json(program: str, optimum: list[Criterion]) -> dict:
    """`--show opt -o json|yaml`: the levels of optimum_text."""
    return {"apiVersion": API_VERSION, "kind": "OptimizationCriteria", "program": program,
            "criteria": [{"priority": c.level, "criterion": c.name, "value": c.value} for c in optimum]}


def dump(document: dict, output: str, stdout: TextIO) -> None:
    """`-o json` / `-o yaml` of every command."""
    if output == "json":
        stdout.write(to_json(document) + "\n")
    else:
        stdout.write(to_yaml(document))


# A List of reports written item by item (a batch, ome_asp.analysis.batch):
# its head, each item after what separates it from the one before, its tail;
# together the text dump() writes of the whole List (tests/test_batch.py).
_LIST_HEAD = {
    "json": f'{{\n  "apiVersion": "{API_VERSION}",\n  "kind": "List",\n  "items": [',
    "yaml": f"apiVersion: {API_VERSION}\nkind: List\nitems:",
}


def list_head(output: str, empty: bool) -> str:
    if output == "yaml":
        return _LIST_HEAD[output] + (" []\n" if empty else "\n")
    return _LIST_HEAD.get(output, "")


def list_item(output: str, item: dict, first: bool) -> str:
    if output == "json":
        return ("\n    " if first else ",\n    ") + to_json(item, "    ")
    return to_yaml([item])


def list_tail(output: str, empty: bool) -> str:
    if output == "json":
        return "]\n}\n" if empty else "\n  ]\n}\n"
    return ""


def to_json(document, pad: str = "") -> str:
    """`json.dumps(document, indent=2, ensure_ascii=False)`, the same text
    (tests/test_report.py), written without json's indenting encoder: that one
    is pure Python, a generator per container, and took half of a batch
    explain's time (docs/performance.md). Strings go through json's C
    escaping; null, booleans and ints are written here, floats by json.
    With `pad`, the text of `document` nested that deep in a larger one (a
    List's item written on its own: ome_asp.analysis.batch)."""
    out: list[str] = []
    append, string = out.append, _string
    keys: dict[str, str] = {}  # a report repeats a few keys many times
    constants = {None: "null", True: "true", False: "false"}

    def key(k) -> str:
        if not isinstance(k, str):  # json writes such a key as the text of its value
            import json  # a rare key: D-142

            return string(json.dumps(k))
        if k not in keys:  # (1 == True as a key: only strings are cached)
            keys[k] = string(k)
        return keys[k]

    def write(value, pad: str) -> None:
        if isinstance(value, str):
            append(string(value))
        elif isinstance(value, dict):
            if not value:
                append("{}")
                return
            inner, separator = pad + "  ", "{\n"
            for k, item in value.items():
                append(f"{separator}{inner}{key(k)}: ")
                write(item, inner)
                separator = ",\n"
            append(f"\n{pad}}}")
        elif isinstance(value, (list, tuple)):
            if not value:
                append("[]")
                return
            inner, separator = pad + "  ", "[\n"
            for item in value:
                append(separator + inner)
                write(item, inner)
                separator = ",\n"
            append(f"\n{pad}]")
        elif value is None or isinstance(value, bool):
            append(constants[value])
        elif type(value) is int:
            append(int.__repr__(value))
        elif isinstance(value, JsonText):
            append(value.json(pad))
        else:
            import json  # floats, rare: D-142

            append(json.dumps(value))

    write(document, pad)
    return "".join(out)
