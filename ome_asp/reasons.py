"""The one place where reason terms from the encoding become text.

The encoding reports every failure as a functor term (`size_out_of_range(S,
Min, Max)`, `mode_mismatch(engine, RM, IM)`, ...); `text(term)` dispatches on
the functor's name to the function that renders it with the exact strings of
spec E14/E15, Z4, D5, W3/W4 and E4. An unknown functor is an internal error,
never a guess.
"""

from __future__ import annotations

from typing import Callable

import clingo

from .errors import OmeAspError

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


_RENDER: dict[str, Callable[..., str]] = {}


def _renders(name: str):
    def register(function):
        _RENDER[name] = function
        return function

    return register


def text(term: clingo.Symbol, details: dict[int, list[clingo.Symbol]] | None = None) -> str:
    """The message for a reason term; `details` are the E15 pieces of a format failure."""
    render = _RENDER.get(term.name)
    if render is None:
        raise OmeAspError(f"internal error: no message for reason {term}")
    args = [value(a) if a.type == clingo.SymbolType.String or a.match(NONE, 0) else a for a in term.arguments]
    if term.name == "format_unsupported":
        return render(*args, details=details or {})
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
    entries = "; ".join(", ".join(text(piece) for piece in pieces) for _, pieces in sorted(details.items()))
    return f"model format '{label(model_label)}' not in supported formats: {entries}"


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


@_renders("unknown_mismatch")
def _unknown() -> str:
    return "unknown mismatch"


# --- E4: query errors, E5: notes ---------------------------------------------


@_renders("isvc_not_found")
def _isvc_not_found(name: str) -> str:
    return f'inferenceservices.ome.io "{name}" not found'


@_renders("isvc_without_model")
def _isvc_without_model(name: str) -> str:
    return f'InferenceService "{name}" has no spec.model; pass --model instead'


@_renders("model_not_found")
def _model_not_found(name: str) -> str:
    return f'clusterbasemodels.ome.io "{name}" not found'


@_renders("model_format_name_missing")
def _format_name_missing() -> str:
    return "invalid model specification: modelFormat.name: model format name is required"


@_renders("explicit_runtime")
def _explicit_runtime(name: str) -> str:
    return "Note: spec.runtime is explicit; automatic selection below is hypothetical."


# --- W3, W4: admission ---------------------------------------------------------


def admission_text(reason: clingo.Symbol, runtime: clingo.Symbol, unknown_classes: list[str]) -> str:
    """The webhook's denial message (W3, W4) for `runtime`."""
    if reason.name == "unknown_accelerator_classes":
        return f"unknown accelerator classes referenced in AcceleratorRequirements: [{' '.join(unknown_classes)}]"
    if reason.name == "different_priorities":
        kind = "servingruntime" if runtime.name == "sr" else "clusterservingruntime"
        group = reason.arguments[0].string
        return f"different priorities assigned for the model format {group} under the {kind} {runtime.arguments[-1].string}"
    raise OmeAspError(f"internal error: no message for admission reason {reason}")
