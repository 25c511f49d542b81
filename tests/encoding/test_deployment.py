"""deployment.lp on its own: the deployment-mode check (D1-D9), every row of
the D9 table.

Upstream, given as facts: query_isvc/2 (lookup.lp) and examined/2
(qualification.lp: the runtimes that support the model; explanation.lp:
every candidate).
"""

import pytest

from ome_asp.solver.facts import FactBuilder, const, runtime_id

from .lp import run, term, text

FILES = ("deployment.lp",)
UPSTREAM = ("examined/2", "query_isvc/2")

RT = runtime_id("ClusterServingRuntime", None, "rt")
R = text(RT)
I = term('isvc("ns","chat")')


def check(isvc=None, runtime=None, with_isvc=True, examined=True):
    """isvc: {"components": [...], "engine"/"decoder": annotation, "spec": spec.deploymentMode};
    runtime: {"engine"/"decoder": mode} from engineConfig/decoderConfig."""
    isvc, runtime = isvc or {}, runtime or {}
    b = FactBuilder(schema=None)
    f = b.fact
    if examined:
        f.examined(1, RT)
    f.isvc(I)
    if with_isvc:
        f.query_isvc(1, I)
    for component in isvc.get("components", ["engine"]):
        f.isvc_component(I, const(component))
    for component in ("engine", "decoder"):
        if component in isvc:
            f.isvc_mode_annotation(I, const(component), isvc[component])
        if component in runtime:
            f.runtime_mode(RT, const(component), runtime[component])
    if "spec" in isvc:
        f.isvc_deployment_mode(I, isvc["spec"])
    return run(FILES, b, upstream=UPSTREAM)


def reason(component, runtime_mode, requested):
    return {("1", R, f'mode_mismatch({component},"{runtime_mode}","{requested}")')}


@pytest.mark.parametrize(
    ("isvc", "runtime", "expected"),
    [
        pytest.param({}, {"engine": "MultiNode"}, set(), id="nothing-requested"),
        pytest.param({"spec": "OMENative"}, {}, set(), id="runtime-declares-nothing"),
        pytest.param({"engine": "OMENative"}, {"engine": "OMENative"}, set(), id="same"),
        pytest.param({"engine": "OMENative"}, {"engine": "MultiNode"}, reason("engine", "MultiNode", "OMENative"), id="different"),
        pytest.param({"engine": "RawDeployment"}, {"engine": "OMENative"}, reason("engine", "OMENative", "RawDeployment"), id="raw-vs-omenative"),
        pytest.param({"engine": "MultiNode", "spec": "RawDeployment"}, {"engine": "MultiNode"}, set(), id="annotation-wins"),
        pytest.param({"engine": ""}, {"engine": "MultiNode"}, set(), id="empty-annotation-no-request"),
        pytest.param({"engine": "InvalidMode"}, {"engine": "MultiNode"}, set(), id="invalid-annotation-no-request"),
        pytest.param({"spec": "RawDeployment"}, {"decoder": "MultiNode"}, set(), id="decoder-not-compared-without-spec-decoder"),
        # metadata.annotations are not an input at all: the ISVC requests nothing
        pytest.param({}, {"engine": "RawDeployment"}, set(), id="metadata-annotation-not-read"),
        pytest.param(
            {"components": ["engine", "decoder"], "engine": "MultiNode", "decoder": "MultiNode"},
            {"engine": "MultiNode", "decoder": "RawDeployment"},
            reason("decoder", "RawDeployment", "MultiNode"),
            id="decoder-reason",
        ),
    ],
)
def test_d9_table(isvc, runtime, expected):
    """D9, every row (the row with "OMENative" alone is requested via the engine
    annotation; spec.deploymentMode is tested by rows 2, 6, 8)."""
    assert check(isvc, runtime).rows("mode_reason") == expected


@pytest.mark.parametrize("value", ["", "multinode", "Raw Deployment", "OMENATIVE", "Serverless"])
def test_d1_invalid_runtime_values_declare_no_mode(value):
    """D1 (D2): a runtime value that is not exactly a valid mode is "no mode declared"."""
    answer = check({"spec": "OMENative", "components": ["engine", "decoder"]}, {"engine": value, "decoder": value})
    assert answer.rows("runtime_declares_mode") == set()
    assert answer.rows("mode_reason") == set()


@pytest.mark.parametrize("mode", ["RawDeployment", "OMENative", "MultiNode", "VirtualDeployment"])
def test_d1_the_four_valid_modes(mode):
    """D1: each valid mode counts on both sides."""
    other = "OMENative" if mode != "OMENative" else "RawDeployment"
    assert check({"engine": mode}, {"engine": other}).rows("mode_reason") == reason("engine", other, mode)


def test_d3_invalid_annotation_falls_back_to_spec_deployment_mode():
    """D3 (OQ-10): an invalid engine annotation falls back to spec.deploymentMode."""
    answer = check({"engine": "multinode", "spec": "OMENative"}, {"engine": "MultiNode"})
    assert answer.rows("mode_reason") == reason("engine", "MultiNode", "OMENative")


def test_d3_engine_requested_even_without_spec_engine():
    """D3: spec.deploymentMode requests the engine mode even without spec.engine."""
    answer = check({"components": [], "spec": "OMENative"}, {"engine": "MultiNode"})
    assert answer.rows("mode_reason") == reason("engine", "MultiNode", "OMENative")


@pytest.mark.parametrize(
    ("components", "expected"),
    [
        pytest.param(["engine", "decoder"], reason("decoder", "MultiNode", "RawDeployment"), id="with-spec-decoder"),
        pytest.param(["engine"], set(), id="without-spec-decoder"),
    ],
)
def test_d3_decoder_requested_only_with_spec_decoder(components, expected):
    """D3: spec.deploymentMode requests the decoder mode only when the ISVC has
    spec.decoder."""
    answer = check({"components": components, "spec": "RawDeployment"}, {"decoder": "MultiNode"})
    assert answer.rows("mode_reason") == expected


def test_d4_d5_engine_first():
    """D4, D5: both components mismatch: the engine gives the one reason."""
    answer = check(
        {"components": ["engine", "decoder"], "engine": "OMENative", "decoder": "OMENative"},
        {"engine": "MultiNode", "decoder": "MultiNode"},
    )
    assert answer.rows("mode_reason") == reason("engine", "MultiNode", "OMENative")


def test_d7_explain_model_requests_nothing():
    """D7: without an ISVC in the query (explain --model) nothing is compared."""
    assert check({"engine": "OMENative"}, {"engine": "MultiNode"}, with_isvc=False).rows("mode_mismatch") == set()


def test_d4_only_examined_runtimes_are_checked():
    """D4 (Q4) runs on the examined runtimes only."""
    assert check({"engine": "OMENative"}, {"engine": "MultiNode"}, examined=False).rows("mode_reason") == set()
