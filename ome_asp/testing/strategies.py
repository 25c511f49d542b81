"""Hypothesis strategies for OME manifests and ``explain`` queries (spec profile v1.3).

Every strategy here produces plain ``dict`` manifests with ``apiVersion:
ome.io/v1beta1``, as ``yaml.safe_load`` would return them, that are valid per
spec I4 (so an implementation must accept them): every entry has
``modelFormat.name`` and ``modelFramework.name``, priorities are >= 1, weights
fit in int64, version and size strings are strings, an InferenceService's
``spec.deploymentMode`` is ``OMENative`` or ``RawDeployment``, a decoder comes
only with an engine, an InferenceService sets ``spec.model`` or
``spec.runtime``, and :func:`clusters` never repeats a (kind, namespace, name).
They contain no unknown fields, so an implementation prints no I11 warning
for them (ome-asp does warn about the unparseable versions and sizes, D-24).

The *content* is deliberately drawn from small domains, so that collisions and
ties happen often: a handful of names (the same runtime name in both kinds),
two formats and two frameworks, versions that parse and versions that do not
(``"1.08.0"``, ``""``), suffixed versions (``"4.45.0.dev0"``), every operator
kind, zero / negative / 64-bit weights, equal priorities, one-sided ranges,
unparseable sizes (``"7b"``), accelerator classes that may lack an
AcceleratorClass object (W3 denial), same-name entries with different
priorities (W4 denial), deployment-mode annotations, diffusion pipelines and
disabled flags.

Main entry point::

    from ome_asp.testing.strategies import clusters

    @given(clusters())
    def test_something(cluster):
        documents, query = cluster   # query: {"namespace", "model"} or {"namespace", "isvc"}

For invalid input (fuzzing), :func:`mutated_documents` breaks such a cluster
on purpose.

The building blocks (:func:`models`, :func:`entries`, :func:`runtimes`,
:func:`inference_services`, :func:`version_strings`, :func:`size_strings`, ...)
are public and composable. Names are plain DNS-style strings.

Each composite strategy is a thin wrapper of a builder in
``ome_asp.testing.builders``, which makes every random decision through a
*chooser*: here Hypothesis' ``draw`` (so examples shrink towards absent fields,
fewer documents and the first option of each domain), in ``ome-asp gen`` and
``ome-asp diff --generate`` a ``random.Random(seed)`` (so a seed always gives
the same cases, without Hypothesis). Without Hypothesis::

    from ome_asp.testing.builders import RandomChooser, cluster
    documents, query = cluster(RandomChooser(seed=7))
"""

from __future__ import annotations

import copy

from hypothesis import strategies as st

from . import builders
from .builders import (  # noqa: F401  (the domains are part of this module's API)
    ABSENT,
    ACCELERATOR_ANNOTATION,
    ACCELERATOR_CLASS_NAMES,
    API_VERSION,
    ARCHITECTURES,
    ENTRY_NAMES,
    FORMATS,
    FRAMEWORKS,
    ISVC_MODES,
    ISVC_NAMES,
    MODE_KEY,
    MODEL_NAMES,
    NAMESPACES,
    OPERATORS,
    PRIORITIES,
    QUANTIZATIONS,
    RUNTIME_MODES,
    RUNTIME_NAMES,
    SIZES,
    VERSIONS,
    WEIGHTS,
    accelerator_class,
    document_key,
)

__all__ = [
    "API_VERSION", "NAMESPACES", "RUNTIME_NAMES", "MODEL_NAMES", "ISVC_NAMES",
    "ACCELERATOR_CLASS_NAMES", "FORMATS", "FRAMEWORKS", "VERSIONS", "OPERATORS", "WEIGHTS",
    "PRIORITIES", "SIZES", "ARCHITECTURES", "QUANTIZATIONS", "RUNTIME_MODES", "ISVC_MODES",
    "ENTRY_NAMES",
    "version_strings", "size_strings", "operators", "weights", "priorities", "auto_selects",
    "size_ranges", "diffusion_pipelines", "models", "entries", "runtimes",
    "accelerator_class", "inference_services", "clusters", "document_key",
    "HUGE_NUMBERS", "ODD_STRINGS", "mutated_documents", "HypothesisChooser",
]


class HypothesisChooser:
    """The builders' chooser over Hypothesis' ``draw``: shrinkable choices."""

    def __init__(self, draw) -> None:
        self.draw = draw

    def choice(self, options):
        return self.draw(st.sampled_from(options))

    def integer(self, low: int, high: int) -> int:
        return self.draw(st.integers(low, high))


def version_strings() -> st.SearchStrategy[str]:
    """A version string from :data:`VERSIONS` (valid, suffixed, or unparseable)."""
    return st.sampled_from(VERSIONS)


def size_strings() -> st.SearchStrategy[str]:
    """A size string from :data:`SIZES` (``"7b"`` is unparseable and reads as 0)."""
    return st.sampled_from(SIZES)


def operators() -> st.SearchStrategy[str]:
    """A version operator as written in an entry."""
    return st.sampled_from(OPERATORS)


def weights() -> st.SearchStrategy[int]:
    """A stored weight: negative, zero (scored as 10/5), small, or beyond 32 bits."""
    return st.sampled_from(WEIGHTS)


def priorities() -> st.SearchStrategy[int]:
    """A priority (>= 1, I4)."""
    return st.sampled_from(PRIORITIES)


def auto_selects() -> st.SearchStrategy:
    """An ``autoSelect`` value: ABSENT, True (most often) or False."""
    return st.sampled_from((ABSENT, True, True, False))


@st.composite
def size_ranges(draw) -> dict:
    """A ``modelSizeRange``: both bounds, one bound, or ``{}``."""
    return builders.size_range(HypothesisChooser(draw))


@st.composite
def diffusion_pipelines(draw, model_side: bool = False) -> dict:
    """A ``diffusionPipeline`` for a model (``model_side``) or a runtime entry (may be ``{}``)."""
    return builders.diffusion_pipeline(HypothesisChooser(draw), model_side)


@st.composite
def models(draw, kind: str | None = None, name: str | None = None,
           namespace: str | None = None) -> dict:
    """A BaseModel or ClusterBaseModel.

    Mostly well-formed; sometimes without framework (I7), without size, with an
    unparseable version or size, disabled (ignored by explain), with a diffusion
    pipeline, or without a format name (M4).
    """
    return builders.model(HypothesisChooser(draw), kind, name, namespace)


@st.composite
def entries(draw, like: dict | None = None) -> dict:
    """One ``supportedModelFormats`` entry.

    With ``like`` (a model's ``spec``), half of the entries copy the model's
    format, framework, versions, architecture and quantization exactly (with an
    operator that accepts equal versions), and the others copy each of these
    fields with probability 3/4, so that entries often match a model of the
    cluster and near-misses differ in a field or two.
    """
    return builders.entry(HypothesisChooser(draw), like)


@st.composite
def runtimes(draw, kind: str | None = None, name: str | None = None,
             namespace: str | None = None, like: tuple = (), disabled=None) -> dict:
    """A ServingRuntime or ClusterServingRuntime.

    ``like``: model specs that entries may imitate (see :func:`entries`).
    ``disabled``: force ``spec.disabled`` (True/False); by default it is drawn
    (ABSENT, False or True). Runtimes sometimes have no entries, a
    ``modelSizeRange``, accelerator classes (possibly unknown: W3), deployment
    modes, or a same-name ``autoSelect: true`` twin entry (a W4 conflict when
    the priorities differ).
    """
    return builders.runtime(HypothesisChooser(draw), kind, name, namespace, like, disabled)


@st.composite
def inference_services(draw, name: str | None = None, namespace: str | None = None,
                       model_names: tuple = MODEL_NAMES) -> dict:
    """An InferenceService.

    Usually names a model (``spec.model``), sometimes also a runtime (E5) or
    only a runtime (M6). May request accelerator classes (annotation, selector,
    engine/decoder overrides; rarely the empty class) and deployment modes
    (``spec.deploymentMode``, engine/decoder annotations, valid or not).
    """
    return builders.inference_service(HypothesisChooser(draw), name, namespace, model_names)


@st.composite
def clusters(draw, max_runtimes: int = 7):
    """A random cluster and an explain query: ``(documents, query)``.

    ``documents`` is a list of 1+ manifests in random order: some
    AcceleratorClasses (most, not all, of :data:`ACCELERATOR_CLASS_NAMES`),
    1-3 models, 0-2 InferenceServices, and 0-``max_runtimes`` runtimes whose
    entries often imitate the queried model (and ServingRuntimes often live in
    the queried namespace), plus up to 3 clones of a runtime under another name
    or kind, often with another size range, so that scores tie; no (kind,
    namespace, name) repeats. ``query`` is
    ``{"namespace": NS, "model": NAME}`` or ``{"namespace": NS, "isvc":
    NAME}``; it usually names an existing target, sometimes a missing one (an
    E4 error).
    """
    return builders.cluster(HypothesisChooser(draw), max_runtimes)


# --------------------------------------------------------------------------
# Invalid input: valid clusters, then broken on purpose (fuzzing)
# --------------------------------------------------------------------------

#: Numbers at and beyond the bounds of I4 (int32 priorities, int64 weights) and of floats.
HUGE_NUMBERS = (0, -1, 2**31 - 1, 2**31, -(2**31) - 1, 2**63 - 1, 2**63, -(2**63) - 1, 10**30, 1.5, 1e308, float("inf"))
#: Strings that are hard to parse, quote, compare or print: empty, control
#: characters, NUL, YAML and ASP syntax, unicode, unparseable versions and sizes.
ODD_STRINGS = (
    "", " ", "\n", "a\nb", "\t", "\x00", "a\x00", "\x7f", "\u2028", "\ufeff", "é", "🦙", "雪", '"', "'", "\\",
    '\\"', "%", "#", ":-", ".", "a\"). evil(1", "*a", "&a", "!!int", "<<", "~", "null", "true", "yes", "0x10",
    "1.08.0", "v", "V1", "1..2", "7b", "-5B", "1e3B", "NaN", "1_000B", "9" * 30, "9" * 5000 + "B", "x" * 5000,
)
_MUTATIONS = ("delete", "swap_type", "huge_number", "odd_string", "odd_name", "rename_key", "add_key",
              "duplicate", "not_a_mapping", "wrap_in_list", "other_kind")


def _slots(value, slots: list) -> list:
    """Every (container, key) below `value`, depth first."""
    if isinstance(value, dict):
        for key in value:
            slots.append((value, key))
            _slots(value[key], slots)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            slots.append((value, index))
            _slots(item, slots)
    return slots


def _any_value():
    leaves = st.one_of(st.sampled_from(HUGE_NUMBERS), st.sampled_from(ODD_STRINGS), st.booleans(), st.none())
    return st.one_of(leaves, st.lists(leaves, max_size=2), st.dictionaries(st.sampled_from(ODD_STRINGS), leaves, max_size=2))


@st.composite
def mutated_documents(draw, max_mutations: int = 4):
    """A cluster of :func:`clusters`, broken by 1 to ``max_mutations`` random
    edits: ``(documents, query)``.

    Edits: delete a field; swap a value for one of another type; put a number
    at or beyond the int32/int64 bounds; put an odd string (:data:`ODD_STRINGS`,
    NUL included) as a value, a key, a name or a namespace; misspell or add a key; repeat a
    document (same kind, namespace and name); replace a document with a
    non-mapping; wrap documents in a ``kind: List``; change a kind or an
    apiVersion. The documents may no longer be valid, or even mappings: an
    implementation must report each problem (I4, I11), never crash.
    """
    documents, query = draw(clusters(max_runtimes=4))
    for _ in range(draw(st.integers(1, max_mutations))):
        if not documents:  # all deleted: nothing left to break
            break
        mutation = draw(st.sampled_from(_MUTATIONS))
        slots = _slots(documents, [])
        container, key = slots[draw(st.integers(0, len(slots) - 1))]
        if mutation == "delete":
            del container[key]
        elif mutation == "swap_type":
            container[key] = draw(_any_value())
        elif mutation == "huge_number":
            container[key] = draw(st.sampled_from(HUGE_NUMBERS))
        elif mutation == "odd_string":
            if isinstance(container, dict) and draw(st.booleans()):
                container[draw(st.sampled_from(ODD_STRINGS))] = container.pop(key)
            else:
                container[key] = draw(st.sampled_from(ODD_STRINGS))
        elif mutation in ("rename_key", "add_key") and isinstance(container, dict) and isinstance(key, str):
            typo = draw(st.sampled_from((key.lower(), key.upper(), key[:-1], key + "s", key[1:] + key[:1])))
            if mutation == "rename_key":
                container[typo] = container.pop(key)
            else:
                container[typo] = draw(_any_value())
        elif mutation == "duplicate":
            documents.append(copy.deepcopy(draw(st.sampled_from(documents))))
        elif mutation == "not_a_mapping":
            documents[draw(st.integers(0, len(documents) - 1))] = draw(_any_value())
        elif mutation == "wrap_in_list":
            cut = draw(st.integers(0, len(documents)))
            documents = documents[:cut] + [{"apiVersion": "v1", "kind": "List", "items": documents[cut:]}]
        elif mutation == "odd_name":
            document = draw(st.sampled_from(documents))
            if isinstance(document, dict) and isinstance(document.get("metadata"), dict):
                field = draw(st.sampled_from(("name", "namespace")))
                document["metadata"][field] = draw(st.sampled_from(ODD_STRINGS))
        elif mutation == "other_kind":
            document = draw(st.sampled_from(documents))
            if isinstance(document, dict):
                field = draw(st.sampled_from(("kind", "apiVersion")))
                document[field] = draw(st.sampled_from(
                    ("ConfigMap", "List", "servingruntime", "ome.io/v1alpha1", "serving.kserve.io/v1alpha1", "")))
    return documents, query
