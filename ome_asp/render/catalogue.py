"""The catalogue of reasons: for every reason term the encoding can produce,
the check it belongs to, what causes it and what to change.

docs/troubleshooting.md is generated from this table (scripts/gen_troubleshooting.py)
and the messages come from `ome_asp.render.reasons`, so docs and messages never
drift; a test keeps the catalogue and the renderers in step.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reason:
    name: str  # the functor of the reason term
    check: str  # the rule it reports on (Q2..Q8, a Q5 piece, W3, E4, ...)
    example: str  # a reason term, as clingo writes it, to render in the docs
    cause: str
    remedy: str


_LABEL = 'label("safetensors","1.0.0","LlamaForCausalLM",none,"transformers","4.45.0.dev0")'

CATALOGUE = [
    # --- E14: the first failed check of a No row ---------------------------------
    Reason("runtime_disabled", "Q2", "runtime_disabled",
           "The runtime sets `spec.disabled: true` (I5).",
           "Remove `spec.disabled: true`, or pick another runtime."),
    Reason("accelerator_class_unsupported", "Q3", "accelerator_class_unsupported",
           "The InferenceService asks for accelerator classes (annotation `ome.io/accelerator-class`, "
           "`spec.acceleratorSelector`, engine/decoder overrides; A1) and the runtime's "
           "`spec.acceleratorRequirements.acceleratorClasses` does not list every one of them (A3).",
           "List the requested classes in the runtime's `acceleratorRequirements.acceleratorClasses`, "
           "or request a class the runtime lists."),
    Reason("mode_mismatch", "Q4", 'mode_mismatch(engine,"MultiNode","OMENative")',
           "The InferenceService requests a deployment mode for the engine or decoder (annotation or "
           "`spec.deploymentMode`, D3) and the runtime declares a different one in "
           "`engineConfig`/`decoderConfig` annotations (D2, D4).",
           "Request the runtime's mode, or use a runtime declaring the requested mode (or none)."),
    Reason("format_unsupported", "Q5", f"format_unsupported({_LABEL})",
           "No `supportedModelFormats` entry is compatible with the model: each entry differs in "
           "pipeline, architecture, quantization, format or framework (Q10-Q14); the pieces after "
           "the colon say how, entry by entry (E15).",
           "Add an entry matching the model's format, framework, versions and architecture "
           "(`explain -v` lists each entry's differences), or pick a runtime made for this model."),
    Reason("no_supported_formats", "Q5", f"no_supported_formats({_LABEL})",
           "The runtime has no `supportedModelFormats` entry at all.",
           "Add an entry for the model's format and framework."),
    Reason("size_out_of_range", "Q6", 'size_out_of_range("3.21B","500M","2B")',
           "The model's `modelParameterSize` is outside the runtime's `modelSizeRange` (bounds "
           "inclusive; an unparseable size reads as 0; Z1-Z3).",
           "Widen or remove the runtime's `modelSizeRange`, or pick a runtime whose range holds the size."),
    Reason("no_auto_select_entry", "Q7", "no_auto_select_entry",
           "No entry of the runtime sets `autoSelect: true`, so automatic selection skips it even "
           "though it supports the model (Q18).",
           "Set `autoSelect: true` on an entry, or name the runtime in the InferenceService's "
           "`spec.runtime.name`."),
    Reason("matching_entry_not_auto_selected", "Q8", 'matching_entry_not_auto_selected("safetensors")',
           "The score is 0: the entry that matches the model has `autoSelect: false` or none, and "
           "the entries that do set `autoSelect: true` do not match (S2, E14 row 7).",
           "Set `autoSelect: true` on the matching entry, or name the runtime in `spec.runtime.name`."),
    Reason("auto_select_score_zero", "Q8", "auto_select_score_zero",
           "The runtime's score is 0: no counted entry scores above 0 (negative weights, or no entry "
           "matching format and framework with its versions and `autoSelect` not false; S1-S3).",
           "Raise the weights or the priority of the matching entry, or fix its versions."),
    # --- E15: the pieces of a Q5 failure, per entry --------------------------------
    Reason("pipeline_missing", "Q5 (Q20)", "pipeline_missing",
           "The entry sets `diffusionPipeline` and the model has none.",
           "Use an entry without `diffusionPipeline` for models without one."),
    Reason("pipeline_class_mismatch", "Q5 (Q21)", 'pipeline_class_mismatch(none,"FluxPipeline")',
           "The entry's `diffusionPipeline.className` differs from the model's (or the model has none).",
           "Match the pipeline class of the model."),
    Reason("component_missing", "Q5 (Q22, Q23)", 'component_missing(named("vae"))',
           "The entry requires a pipeline component (named or additional) that the model does not have.",
           "Remove the component from the entry, or use a model that has it."),
    Reason("component_field_mismatch", "Q5 (Q22, Q23)", 'component_field_mismatch(named("vae"),library,"diffusers","custom")',
           "A non-empty `library` or `type` of an entry's pipeline component differs from the model's.",
           "Match the model's component, or leave the field empty (a wildcard)."),
    Reason("additional_components_missing", "Q5 (Q23)", "additional_components_missing",
           "The entry lists `additionalComponents` and the model has none.",
           "Remove the entry's additional components, or use a model that has them."),
    Reason("architecture_mismatch", "Q5 (Q11)", 'architecture_mismatch("LlamaForCausalLM","MistralForCausalLM")',
           "The entry's `modelArchitecture` differs from the model's.",
           "Set the entry's `modelArchitecture` to the model's."),
    Reason("model_lacks_architecture", "Q5 (Q11)", 'model_lacks_architecture("MistralForCausalLM")',
           "The entry requires an architecture and the model declares none (one-sided values fail).",
           "Remove the entry's `modelArchitecture`, or declare the model's."),
    Reason("runtime_lacks_architecture", "Q5 (Q11)", 'runtime_lacks_architecture("LlamaForCausalLM")',
           "The model declares an architecture and the entry none (one-sided values fail).",
           "Add the model's `modelArchitecture` to the entry."),
    Reason("quantization_mismatch", "Q5 (Q12)", 'quantization_mismatch("fp8","int4")',
           "The entry's `quantization` differs from the model's.",
           "Set the entry's `quantization` to the model's."),
    Reason("model_lacks_quantization", "Q5 (Q12)", 'model_lacks_quantization("fp8")',
           "The entry requires a quantization and the model declares none.",
           "Remove the entry's `quantization`, or declare the model's."),
    Reason("runtime_lacks_quantization", "Q5 (Q12)", 'runtime_lacks_quantization("fp8")',
           "The model declares a quantization and the entry none.",
           "Add the model's `quantization` to the entry."),
    Reason("name_mismatch", "Q5 (Q13, Q14)", 'name_mismatch(format,"safetensors","onnx")',
           "The entry's `modelFormat.name` or `modelFramework.name` differs from the model's "
           "(case-sensitive).",
           "Use an entry for the model's format and framework."),
    Reason("version_mismatch", "Q5 (Q13, Q14, V)", 'version_mismatch(framework,"4.45.0.dev0","4.46.0")',
           "Both sides set a version and the entry's operator does not accept the model's version "
           "(the runtime's version is on the left: `GreaterThan` is an upper limit; a suffixed or "
           "unparseable version never matches an ordering; V1-V9).",
           "Set the entry's version (and operator) so that it accepts the model's version."),
    Reason("model_lacks_version", "Q5 (Q13, Q14)", 'model_lacks_version(format,"1.0.0")',
           "The entry requires a version and the model declares none.",
           "Remove the entry's version, or declare the model's."),
    Reason("runtime_lacks_version", "Q5 (Q13, Q14)", "runtime_lacks_version(framework)",
           "The model declares a version and the entry none (one-sided versions fail).",
           "Add a version (and operator) to the entry."),
    Reason("model_lacks_framework", "Q5 (I7, Q14)", 'model_lacks_framework("transformers")',
           "The model declares no `modelFramework`; every entry has one, so none matches.",
           "Declare the model's `modelFramework`."),
    Reason("runtime_lacks_framework", "Q5 (Q14, code-v0.1.5)", 'runtime_lacks_framework("transformers")',
           "Profile code-v0.1.5 only (no schema validation): the entry has no `modelFramework` and the "
           "model has one.", "Add the framework to the entry, or remove it from the model."),
    Reason("unknown_mismatch", "Q5 (E15)", "unknown_mismatch",
           "An entry with no difference listed; it cannot occur in profile v1.3. Under code-v0.1.5 it is "
           "an entry without `modelFormat` and no other difference (Q13).",
           "Report it under v1.3: it would be a bug of ome-asp; under code-v0.1.5 give the entry a `modelFormat`."),
    # --- E4: why a query has no table; E5: notes ------------------------------------
    Reason("isvc_not_found", "E4", 'isvc_not_found("llama-chat")',
           "No InferenceService of that name in the namespace.", "Check the name and `-n`."),
    Reason("isvc_without_model", "E4", 'isvc_without_model("pinned")',
           "The InferenceService names a runtime but no model (M6); explain needs a model.",
           "Pass `--model` instead."),
    Reason("model_not_found", "E4 (M1)", 'model_not_found("llama-3-2-3b-instruct")',
           "Neither a BaseModel of that name in the namespace nor a ClusterBaseModel.",
           "Check the name, the namespace, and that the model's manifest is in the input."),
    Reason("model_format_name_missing", "E4 (M4)", "model_format_name_missing",
           "The model has no `spec.modelFormat.name`.", "Set the model's format name."),
    Reason("virtual_deployment", "Q1 (code-v0.1.5)", 'virtual_deployment("svc")',
           "Profile code-v0.1.5: the InferenceService's `metadata.annotations[\"ome.io/deploymentMode\"]` is "
           "`VirtualDeployment`, so the controller skips runtime selection.",
           "Nothing to select; remove the annotation to have a runtime selected."),
    Reason("explicit_runtime", "E5", 'explicit_runtime("vllm-llama")',
           "The InferenceService names its runtime, so OME does not select one; the table shows "
           "what automatic selection would do.", "Nothing to fix."),
]

# The admission webhook's denials (W3, W4) are rendered with the runtime they
# deny (reasons.admission_text); their examples name the runtime `rt`.
ADMISSION = [
    Reason("unknown_accelerator_classes", "W3", "unknown_accelerator_classes",
           "The runtime lists accelerator classes with no AcceleratorClass object of that name; the "
           "webhook denies it, so it does not exist for selection (I9).",
           "Create the AcceleratorClass objects, or fix the names in `acceleratorRequirements`."),
    Reason("different_priorities", "W4", 'different_priorities("vllm")',
           "Two `autoSelect: true` entries of one runtime with the same `name` (or both without one) set "
           "different priorities; the webhook denies the runtime (I9).",
           "Give those entries the same priority, or different names."),
    Reason("invalid_configuration", "W3 (code-v0.1.5)", "invalid_configuration(multi_node)",
           "Profile code-v0.1.5: `spec.workers.size` and the deployment mode (a `DEPLOYMENT_MODE` env of "
           "`spec.containers`, else MultiNode when workers.size > 0) do not fit (profiles.md 3.5).",
           "For MultiNode give `workers.size` > 0; for RawDeployment drop the workers."),
    Reason("same_priority", "W5 (code-v0.1.5)", 'same_priority(csr("other"),"vllm")',
           "Profile code-v0.1.5: an `autoSelect: true` entry equal, as Go compares it, to one of an existing "
           "runtime of the same kind and protocol, with the same priority (profiles.md 3.4).",
           "Give the entries different priorities, or tell them apart (a version, an operator, a weight)."),
]

# What `select` reports when OME would use no runtime, or uses one with a
# warning (M2, M3, M6, X3-X6, O9); rendered by reasons.outcome_text.
EXAMPLE_NO_RUNTIME = "no runtime found to support model safetensors with format safetensors in namespace ns"
OUTCOMES = [
    Reason("isvc_names_nothing", "I4 (select)", 'isvc_names_nothing("svc")',
           "The InferenceService sets neither `spec.model` nor `spec.runtime.name`.",
           "Name the model (and, to pin it, the runtime)."),
    Reason("referenced_model_not_found", "M2", 'referenced_model_not_found("m","ns")',
           "No BaseModel of that name in the namespace and no ClusterBaseModel of that name: the "
           "InferenceService is denied at admission.",
           "Create the model, or fix `spec.model.name`."),
    Reason("disabled_model", "M3", 'disabled_model("m")',
           "The model sets `spec.disabled: true`: OME selects no runtime for it, automatic or named.",
           "Remove `spec.disabled: true` from the model."),
    Reason("runtime_not_found", "X3", 'runtime_not_found(cluster_serving_runtime,"rt","ns")',
           "`spec.runtime.name` names no runtime of `spec.runtime.kind` (a ClusterServingRuntime, else "
           "a ServingRuntime of the namespace, for the default kind; X2).",
           "Fix the name or `spec.runtime.kind`, or create the runtime."),
    Reason("named_runtime_disabled", "X4", 'named_runtime_disabled(sr("ns","rt"))',
           "The runtime named in `spec.runtime.name` sets `spec.disabled: true`. Since v1.3 the "
           "admission webhook rejects such an InferenceService (with a model); on v1.2.2 it is a "
           "`RuntimeValidationError` event.",
           "Enable the runtime, or name another one."),
    Reason("model_reference_required", "M6 (code-v0.1.5)", "model_reference_required",
           "Profile code-v0.1.5: the InferenceService has no `spec.model`; the controller needs one.",
           "Set `spec.model.name`."),
    Reason("model_reference_required_at_admission", "M6 (code-v0.1.5)", "model_reference_required_at_admission",
           "Profile code-v0.1.5: no `spec.model`, no runtime name and an engine without a complete runner: "
           "the webhook denies the InferenceService.", "Set `spec.model.name`."),
    Reason("no_supporting_runtime", "O9", 'no_supporting_runtime("m",no_runtime)',
           "No runtime qualifies and the InferenceService's engine has no complete runner, so the "
           "admission webhook denies it (O9).",
           "Make a runtime qualify (see the Q-reasons above, or `ome-asp steer`), name one, or give the "
           "engine a complete runner."),
    Reason("auto_selected", "O9", 'auto_selected(sr("llama-demo","team-llama"),"llama-3-2-3b-instruct")',
           "The admission webhook's warning for an InferenceService whose engine has no complete runner: "
           "the runtime OME selects.", "Nothing to fix."),
    Reason("does_not_support", "X6", 'does_not_support(csr("rt"),"safetensors",size_out_of_range("3.21B","500M","2B"))',
           "The named runtime fails one of Q3-Q6 for the model: the detail of X6's warning and event.",
           "Fix the runtime (see the reason), or name one that supports the model."),
    Reason("compatibility_warning", "X6",
           'compatibility_warning(csr("rt"),"m",does_not_support(csr("rt"),"safetensors",size_out_of_range("3.21B","500M","2B")))',
           "The admission webhook's warning for a named runtime that does not declare support for the "
           "model: OME uses it anyway (X5, X6).",
           "Fix the runtime, or accept the warning if the runtime does serve the model."),
    Reason("compatibility_advisory", "X6",
           'compatibility_advisory(csr("rt"),"m",does_not_support(csr("rt"),"safetensors",size_out_of_range("3.21B","500M","2B")))',
           "The `RuntimeCompatibilityAdvisory` event for the same situation.", "As for the warning."),
    Reason("failed_to_find_runtime", "O9 (M4)", 'failed_to_find_runtime("m",model_format_name_missing)',
           "The `RuntimeSelectionError` event when selection fails after admission for a model without a "
           "format name (docs/decisions.md D-17).", "Set the model's `spec.modelFormat.name`."),
    Reason("validation_failed", "X4 (O9)", 'validation_failed(sr("ns","rt"),"m",named_runtime_disabled(sr("ns","rt")))',
           "The `RuntimeValidationError` event when the named runtime cannot be used after admission: "
           "disabled on v1.2.2 and code-v0.1.5, or without a model (M6); see docs/decisions.md D-17.", "Enable the runtime, or name another one."),
]
