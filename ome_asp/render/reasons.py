"""Where the reason terms of the encoding become text.

The encoding reports every failure as a functor term (`size_out_of_range(S,
Min, Max)`, `mode_mismatch(engine, RM, IM)`, ...); `text(term)` dispatches on
the functor's name to the function that renders it with the exact strings of
spec E14/E15, Z4, D5, W3/W4 and E4 (and, for select, `outcome_text`: M2, M3,
X3, X4, X6, O9). An unknown functor is an internal error,
never a guess. Two texts about a selection are not written here because they
are not terms of the encoding: the fixed detail of each outcome of
docs/profiles.md section 0 (`solver.answer.OUTCOME_DETAILS`) and the Go sort's
"order unspecified" detail (`solver.gosort`).
"""

from __future__ import annotations

import functools
from typing import Callable

import clingo

from ome_asp.errors import InternalError, OmeAspError
from ome_asp.input.documents import quote, shown
from ome_asp.input.loader import closest_in_reach
from ome_asp.solver.answer import QueryAnswer

NONE = "none"  # the constant the encoding uses for an absent value


def value(term: clingo.Symbol) -> str | None:
    """A user string, or None for the constant `none`."""
    if term.type == clingo.SymbolType.String:
        return term.string
    if term.match(NONE, 0):
        return None
    return str(term)


def check_id(check: clingo.Symbol | str) -> str:
    """q5 -> Q5 (the rule id of the check)."""
    return str(check).upper()


def _registry(table: dict[str, Callable[..., str]]):
    """A decorator factory: @name("functor") files the function under the functor in `table`."""
    def named(name: str):
        def register(function):
            table[name] = function
            return function

        return register

    return named


_RENDER: dict[str, Callable[..., str]] = {}
_renders = _registry(_RENDER)


def text(term: clingo.Symbol, details: dict[int, list[clingo.Symbol]] | None = None) -> str:
    """The message for a reason term; `details` are the E15 pieces of a format failure."""
    if details and term.name == "format_unsupported":
        return _text(term, tuple((i, tuple(pieces)) for i, pieces in sorted(details.items())))
    return _text(term, ())


# Rendering walks the term through clingo's API, a call per name and argument;
# a report of many rows repeats the same few reasons (the same term, and for a
# format failure the same pieces) thousands of times.
@functools.lru_cache(maxsize=2**16)
def _text(term: clingo.Symbol, details: tuple[tuple[int, tuple[clingo.Symbol, ...]], ...]) -> str:
    render = _RENDER.get(term.name)
    if render is None:
        raise InternalError(f"no message for reason {term}")
    args = [value(a) if a.type == clingo.SymbolType.String or a.match(NONE, 0) else a for a in term.arguments]
    if term.name == "format_unsupported":
        return render(*args, details=dict(details))
    return render(*args)


# --- E14: the first failed check -------------------------------------------------


@_renders("runtime_disabled")
def _runtime_disabled() -> str:
    return "runtime is disabled"


@_renders("accelerator_class_unsupported")
def _accelerator() -> str:
    return "runtime does not support the required accelerator class"


@_renders("mode_mismatch")
def _mode(component, runtime_mode: str, requested: str) -> str:
    return (
        f"runtime {component} deployment mode {runtime_mode} "
        f"does not match requested {component} deployment mode {requested}"
    )


def label(term: clingo.Symbol) -> str:
    """E16: mt:<format>[:<version>][:<arch>][:<quant>][:<framework>[:<version>]]."""
    parts = [value(a) for a in term.arguments]
    fmt, fmt_version, arch, quant, framework, framework_version = parts
    shown = [fmt, fmt_version, arch, quant]
    if framework is not None:
        shown += [framework, framework_version]
    return "mt:" + ":".join(p for p in shown if p is not None)


@_renders("format_unsupported")
def _format_unsupported(model_label, details: dict[int, list[clingo.Symbol]]) -> str:
    return format_unsupported(_label(model_label), [entry_text(pieces) for _, pieces in sorted(details.items())])


def format_unsupported(model_label: str, entries: list[str]) -> str:
    """E15's message from the model's label (E16, `label`) and the texts of
    the runtime's entries (`entry_text`), in list order."""
    return f"model format '{model_label}' not in supported formats: {'; '.join(entries)}"


def entry_text(pieces: list[clingo.Symbol]) -> str:
    """E15: one entry's mismatch pieces, in part order."""
    return ", ".join(text(piece) for piece in pieces)


_label = functools.lru_cache(maxsize=2**12)(label)  # a batch's rows repeat each model's label


@_renders("no_supported_formats")
def _no_formats(model_label) -> str:
    return f"model format '{label(model_label)}' not in supported formats: no supported formats defined"


@_renders("size_out_of_range")
def _size(size: str, low: str | None, high: str | None) -> str:
    lower = "(-inf" if low is None else f"[{low}"
    upper = "inf)" if high is None else f"{high}]"
    return f"model size {size} is outside supported range {lower}, {upper}"


@_renders("no_auto_select_entry")
def _no_auto_select() -> str:
    return (
        "supports the model but has no supportedModelFormats[].autoSelect=true entry, "
        "so automatic selection skips it (pin it explicitly via spec.runtime.name instead)"
    )


@_renders("matching_entry_not_auto_selected")
def _not_auto_selected(fmt: str) -> str:
    return (
        f"matching format {fmt} is not autoSelect-enabled (a different supportedModelFormats entry "
        "on this runtime has autoSelect=true, but not the one that matches this model)"
    )


@_renders("auto_select_score_zero")
def _score_zero() -> str:
    return "auto-select score is 0"


# --- E15: per-entry mismatch pieces ----------------------------------------------


@_renders("pipeline_missing")
def _pipeline_missing() -> str:
    return "diffusion pipeline required by runtime but not specified in model"


@_renders("pipeline_class_mismatch")
def _pipeline_class(model_class: str | None, runtime_class: str) -> str:
    shown = "<nil>" if model_class is None else model_class
    return f"pipeline class mismatch (model={shown}, runtime={runtime_class})"


@_renders("component_missing")
def _component_missing(component: clingo.Symbol) -> str:
    key = component.arguments[0].string
    if component.name == "named":
        return f"component {key} required by runtime but not specified in model"
    return f"diffusion component {key} missing in model"


@_renders("component_field_mismatch")
def _component_field(component: clingo.Symbol, field: clingo.Symbol, model_value: str, runtime_value: str) -> str:
    key = component.arguments[0].string
    return f"{key} {field} mismatch (model={model_value}, runtime={runtime_value})"


@_renders("additional_components_missing")
def _additional_missing() -> str:
    return "diffusion pipeline missing required additional components"


def _one_sided(attribute: str):
    """The three pieces Q11 (architecture) and Q12 (quantization) share."""

    def mismatch(model_value: str, runtime_value: str) -> str:
        return f"{attribute} mismatch (model={model_value}, runtime={runtime_value})"

    def model_lacks(runtime_value: str) -> str:
        return f"model has no {attribute} but runtime requires {runtime_value}"

    def runtime_lacks(model_value: str) -> str:
        return f"model has {attribute} {model_value} but runtime has no {attribute} requirement"

    _RENDER[f"{attribute}_mismatch"] = mismatch
    _RENDER[f"model_lacks_{attribute}"] = model_lacks
    _RENDER[f"runtime_lacks_{attribute}"] = runtime_lacks


_one_sided("architecture")
_one_sided("quantization")


@_renders("name_mismatch")
def _name(side, model_name: str, runtime_name: str) -> str:
    return f"{side} name mismatch (model={model_name}, runtime={runtime_name})"


@_renders("version_mismatch")
def _version(side, model_version: str, runtime_version: str) -> str:
    return f"{side} version mismatch (model={model_version}, runtime={runtime_version})"


@_renders("model_lacks_version")
def _model_lacks_version(side, runtime_version: str) -> str:
    return f"model has no {side} version but runtime requires {runtime_version}"


@_renders("runtime_lacks_version")
def _runtime_lacks_version(side) -> str:
    return f"model has {side} version but runtime has no version requirement"


@_renders("model_lacks_framework")
def _model_lacks_framework(runtime_framework: str) -> str:
    return f"model has no framework but runtime requires {runtime_framework}"


@_renders("runtime_lacks_framework")
def _runtime_lacks_framework(model_framework: str) -> str:
    """code-v0.1.5 only (an entry without modelFramework, Q14): getFormatMismatchReason's words (D-33)."""
    return f"model has framework {model_framework} but runtime has no framework requirement"


@_renders("unknown_mismatch")
def _unknown() -> str:
    return "unknown mismatch"


# --- E4: query errors, E5: notes ---------------------------------------------


def query_error(error: clingo.Symbol, cluster=None, namespace: str | None = None, asked: str | None = None) -> OmeAspError:
    """E4's error line, with a "did you mean" note under it where it names a
    model or an InferenceService the input lacks and another is close (issue
    24; the line itself stays OME's). `asked`: the name the query asked for,
    where `error` (model_not_found, isvc_not_found) is a stand-in's, a name the
    input lacks too (serve, D-321)."""
    failure = OmeAspError(text(error) if asked is None else _RENDER[error.name](asked))
    failure.hint = None if cluster is None else did_you_mean(error, cluster, namespace, asked)
    return failure


CANDIDATE_LIMIT = 1000  # E4: a single-query explain refuses larger snapshots
NOT_FOUND = ("model_not_found", "isvc_not_found")  # E4's errors about a name the input lacks


def check_single_answer(answer: QueryAnswer, cluster=None, namespace: str | None = None, asked: str | None = None) -> None:
    """The errors of a one-query explain (E4), which serve answers alike; with
    the cluster and -n, a misspelt name gets a "did you mean" note (`asked`:
    query_error's)."""
    if answer.error is not None:
        raise query_error(answer.error, cluster, namespace, asked)
    if len(answer.verdicts) > CANDIDATE_LIMIT:
        raise OmeAspError("runtime candidate snapshot exceeds the CLI collection limit")


def did_you_mean(error: clingo.Symbol, cluster, namespace: str | None, asked: str | None = None) -> str | None:
    """The hint for an error naming a model or an InferenceService the input
    lacks (or naming a stand-in for `asked`, query_error): the namespaces that
    hold one of that name (-n, issue 36), else another name in reach of the
    namespace that is close, else None."""
    if error.name not in NOT_FOUND:
        return None
    objects = cluster.models if error.name == "model_not_found" else cluster.inference_services
    name = error.arguments[0].string if asked is None else asked
    elsewhere = sorted({o.namespace for o in objects if o.name == name and o.namespace not in (None, namespace)})
    if elsewhere:
        kind = "BaseModel" if error.name == "model_not_found" else "InferenceService"
        return (f"{kind} {shown(name)} is in namespace{'s' if len(elsewhere) > 1 else ''} "
                f"{', '.join(map(shown, elsewhere))}: add -n {shown(elsewhere[0])}")
    close = closest_in_reach(name, objects, namespace)
    return None if close is None else f"did you mean {quote(close)}?"


def runtime_did_you_mean(failure: clingo.Symbol | None, cluster) -> str | None:
    """select: the hint for a spec.runtime.name that names no runtime (X3)
    when one in reach of its namespace is close (issue 36)."""
    if failure is None or not failure.match("runtime_not_found", 3):
        return None
    _, name, namespace = failure.arguments
    close = closest_in_reach(name.string, cluster.runtimes, namespace.string)
    if close is None or close == name.string:  # that runtime is there, but the webhook denies it (I9)
        return None
    return f"spec.runtime.name {quote(name.string)}: did you mean {quote(close)}?"


@_renders("isvc_not_found")
def _isvc_not_found(name: str) -> str:
    return f"inferenceservices.ome.io {_go_quoted(name)} not found"


@_renders("isvc_without_model")
def _isvc_without_model(name: str) -> str:
    return f"InferenceService {_go_quoted(name)} has no spec.model; pass --model instead"


@_renders("model_not_found")
def _model_not_found(name: str) -> str:
    return f"clusterbasemodels.ome.io {_go_quoted(name)} not found"


@_renders("model_format_name_missing")
def _format_name_missing() -> str:
    return "invalid model specification: modelFormat.name: model format name is required"


@_renders("virtual_deployment")
def _virtual_deployment(name: str) -> str:
    return f'InferenceService {_go_quoted(name)} is a VirtualDeployment: OME v0.1.5 selects no runtime for it'


@_renders("explicit_runtime")
def _explicit_runtime(name: str) -> str:
    return "Note: spec.runtime is explicit; automatic selection below is hypothetical."


# --- W3, W4: admission ---------------------------------------------------------


def admission_text(reason: clingo.Symbol, runtime, unknown_classes: list[str]) -> str:
    """The webhook's denial message (W3, W4) for `runtime` (an objects.RuntimeRef)."""
    if reason.name == "unknown_accelerator_classes":
        return f"unknown accelerator classes referenced in AcceleratorRequirements: [{' '.join(map(shown, unknown_classes))}]"
    if reason.name == "different_priorities":
        group = reason.arguments[0].string
        return f"different priorities assigned for the model format {group if group.isprintable() else quote(group)} under the {runtime.kind.lower()} {shown(runtime.name)}"
    if reason.match("invalid_configuration", 1):  # code-v0.1.5 (docs/profiles.md 3.5)
        if reason.arguments[0].name == "raw_deployment":
            return "invalid configuration: for RawDeployment, leader and worker must not be defined"
        return ("invalid configuration: for MultiNode deployment, both leader and worker must be defined "
                "and worker.size must be greater than 0")
    if reason.match("same_priority", 2):  # W5, code-v0.1.5 (docs/profiles.md 3.4)
        other, name = shown(reason.arguments[0].arguments[-1].string), reason.arguments[1].string
        name = name if name.isprintable() else quote(name)
        if runtime.namespaced:
            return (f"same priority assigned for the model format {name} in the servingruntimes {other} "
                    f"and {shown(runtime.name)} in namespace {shown(runtime.namespace)}")
        return f"same priority assigned for the model format {name} in the clusterservingruntimes {other} and {shown(runtime.name)}"
    raise InternalError(f"no message for admission reason {reason}")


# --- what OME does with a selection (encoding/outcome.lp) ------------------------
# Messages of select: M2, M3, X3, X4, X6, O9 and the events and condition of
# O9, X3, X6. They nest (O9 wraps O8 or M4; X6 wraps an E14 reason), so each
# renderer gets `render` for its nested terms.

ISVC_WEBHOOK = "inferenceservice.ome-webhook-server.validator"  # O9


def _go_quoted(text: str) -> str:
    """Go's %q, as JSON quoting (D-8): equal for every printable string; a
    long one cut (D-27: a 100,000-character name in "not found", issue 18)."""
    return quote(text)


def _runtime_name(runtime: clingo.Symbol) -> str:
    """The metadata.name of a runtime identifier sr(NS, Name) / csr(Name), as messages show it (D-27)."""
    return shown(runtime.arguments[-1].string)


_OUTCOME: dict[str, Callable[..., str]] = {}
_outcome = _registry(_OUTCOME)


def outcome_text(
    term: clingo.Symbol, details: dict[int, list[clingo.Symbol]] | None = None, no_runtime: str | None = None
) -> str:
    """The message for an outcome term. `details` are the E15 pieces of the
    named runtime's format failure (X6); `no_runtime` is the query's O8
    message (report.no_runtime_message), which the term `no_runtime` stands for."""

    def render(t: clingo.Symbol) -> str:
        if t.match("no_runtime", 0):
            if no_runtime is None:
                raise InternalError("no O8 message for no_runtime")
            return no_runtime
        function = _OUTCOME.get(t.name)
        if function is None:
            return text(t, details)  # an E4 or E14 reason
        args = [value(a) if a.type == clingo.SymbolType.String or a.match(NONE, 0) else a for a in t.arguments]
        return function(render, *args)

    return render(term)


def isvc_denial(message: str) -> str:
    """O9: how kubectl shows the InferenceService webhook's denial."""
    return f'admission webhook "{ISVC_WEBHOOK}" denied the request: {message}'


def event_reason(constant: clingo.Symbol | str) -> str:
    """runtime_not_found -> RuntimeNotFound: a condition or event reason (O9, X6)."""
    return "".join(part.capitalize() for part in str(constant).split("_"))


@_outcome("isvc_names_nothing")
def _names_nothing(render, name: str) -> str:
    return f'InferenceService {_go_quoted(name)} has neither spec.model nor spec.runtime.name: nothing to select'


@_outcome("referenced_model_not_found")
def _referenced_model(render, name: str, namespace: str) -> str:
    return (
        f"referenced model {_go_quoted(name)} not found in namespace {_go_quoted(namespace)}: ensure a BaseModel "
        "exists in this namespace or a ClusterBaseModel exists cluster-wide with this name"
    )


@_outcome("disabled_model")
def _disabled_model(render, name: str) -> str:
    return f"model {shown(name)} is disabled"


@_outcome("runtime_not_found")
def _runtime_not_found(render, kind: clingo.Symbol, name: str, namespace: str) -> str:
    if kind.name == "serving_runtime":  # OQ-8
        return f"runtime {shown(name)} not found in namespace {shown(namespace)}"
    return f"runtime {shown(name)} not found in namespace {shown(namespace)} or at cluster scope"


@_outcome("named_runtime_disabled")
def _named_disabled(render, runtime: clingo.Symbol) -> str:
    scope = "namespace-scoped" if runtime.name == "sr" else "cluster-scoped"
    return f"{scope} runtime {_runtime_name(runtime)} is disabled"


@_outcome("model_reference_required")
def _model_reference_required(render) -> str:
    return "model reference is required"


@_outcome("model_reference_required_at_admission")
def _model_reference_required_at_admission(render) -> str:
    return "model reference is required when runtime is not specified and engine does not have complete runner configuration"


@_outcome("no_supporting_runtime")
def _no_supporting(render, model: str, reason: clingo.Symbol) -> str:
    return (
        f"no supporting runtime found for model {shown(model)} and engine does not have complete runner "
        f"configuration: {render(reason)}"
    )


@_outcome("auto_selected")
def _auto_selected(render, runtime: clingo.Symbol, model: str) -> str:
    return f"Runtime {_runtime_name(runtime)} will be auto-selected for model {shown(model)}"


@_outcome("does_not_support")
def _does_not_support(render, runtime: clingo.Symbol, model_format: str, reason: clingo.Symbol) -> str:
    """X6's <detail>; `model_format` is "" for an accelerator or mode failure."""
    model_format = shown(model_format) if model_format else model_format
    return f"runtime {_runtime_name(runtime)} does not support model {model_format}: {render(reason)}"


@_outcome("compatibility_warning")
def _compatibility_warning(render, runtime: clingo.Symbol, model: str, detail: clingo.Symbol) -> str:
    return (
        f"runtime {_go_quoted(runtime.arguments[-1].string)} does not declare support for model {_go_quoted(model)} "
        f"({render(detail)}); proceeding because the runtime was named explicitly"
    )


@_outcome("compatibility_advisory")
def _compatibility_advisory(render, runtime: clingo.Symbol, model: str, detail: clingo.Symbol) -> str:
    return (
        f"Runtime {_runtime_name(runtime)} does not declare support for model {shown(model)} "
        f"({render(detail)}); proceeding because the runtime was named explicitly"
    )


@_outcome("failed_to_find_runtime")
def _failed_to_find(render, model: str, reason: clingo.Symbol) -> str:
    return f"Failed to find runtime for model {shown(model)}: {render(reason)}"


@_outcome("validation_failed")
def _validation_failed(render, runtime: clingo.Symbol, model: str | None, reason: clingo.Symbol) -> str:
    if model is None:  # M6: no model
        return f"Runtime {_runtime_name(runtime)} failed validation: {render(reason)}"
    return f"Runtime {_runtime_name(runtime)} does not support model {shown(model)}: {render(reason)}"
