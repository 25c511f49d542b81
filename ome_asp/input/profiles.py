"""OME versions as profiles: the default behaviour of docs/spec.md plus overrides by
rule id (docs/profiles.md).

A profile is data. Its switches become `switch(Name, Value)` facts that the
encoding reads (encoding/input.lp lists them), and the few Python stages that
come before the encoding (defaulting, validation, size syntax) or after it
(the Go sort of code-v0.1.5, message forms) read the same switches here. There
is one encoding, not a fork per version.
"""

from __future__ import annotations

from ome_asp.errors import UsageError
from ome_asp.input.documents import quote
from ome_asp.records import record

DEFAULT = "v1.3"


@record(frozen=True)
class Profile:
    """One OME version's behaviour: a switch per difference (docs/profiles.md section 1)."""

    name: str
    # docs/profiles.md section 1, one attribute per switch
    absent_weight: int  # I3: what an absent modelFormat/modelFramework weight is
    schema_validation: bool  # I4: entry fields required, priority >= 1, ...
    lenient_score_versions: bool  # S2: a one-sided version still scores
    mode_filter: str  # D: "full" (annotations + spec.deploymentMode), "annotations", "off"
    size_syntax: str  # Z1: "decimal" (exact) or "go" (strconv.ParseFloat, float64)
    one_bounded_range: str  # Z3: "supported", "unsupported-input", "panic"
    go_sort: bool  # O3/O4: Go's comparator and sort.Slice over the fetch order
    explicit_lookup: str  # X2: "by-kind" or "namespace-first"
    explicit_incompatible: str  # X6: "advisory" (used, with a warning) or "error" (not used)
    failure_surface: str  # O9: "condition" (RuntimeReady) or "event" (RuntimeSelectionError)
    excluded_list: str  # O8: "sorted" (collisions kept) or "set" (collisions merge)
    explain_available: bool  # E1-E18: kubectl ome runtime explain exists in this version
    webhook_quirks: bool  # W4: Go's first-runtime skip and absent-priority shadowing
    cross_runtime_check: bool  # W5
    # Not in docs/profiles.md's switch table, but overrides by rule id of section 2/3:
    model_rule: str  # M6/I4: "model-or-runtime" (v1.3), "required" (v1.2.2), "none" (no schema check)
    virtual_deployment_skip: bool  # Q1: metadata annotation VirtualDeployment skips selection
    int64_scores: bool  # S3, S5: Go's int64 two's-complement products and sums (issue 17); else exact (I8)

    def facts(self) -> list[tuple[str, str]]:
        """The switches the encoding reads, as (name, value) constants
        (encoding/input.lp). The others act before the encoding (I3, I4, Z1:
        the loader and the fact builder) or after it (O3/O4's Go sort, E1's
        note: the commands). A missing switch fact means the v1.3 value, so
        every encoding file also runs on facts without any."""
        def name(value: object) -> str:
            return str(value).lower().replace("-", "_")

        return [
            ("schema_validation", name(self.schema_validation)),
            ("score_versions", "lenient" if self.lenient_score_versions else "strict"),
            ("mode_filter", name(self.mode_filter)),
            ("size_syntax", name(self.size_syntax)),
            ("one_bounded_range", name(self.one_bounded_range)),
            ("explicit_lookup", name(self.explicit_lookup)),
            ("explicit_incompatible", name(self.explicit_incompatible)),
            ("failure_surface", name(self.failure_surface)),
            ("excluded_list", name(self.excluded_list)),
            ("isvc_without_model", "fails" if self.model_rule == "none" else "runtime_only"),
            ("webhook_quirks", name(self.webhook_quirks)),
            ("cross_runtime_check", name(self.cross_runtime_check)),
        ]


V1_3 = Profile(
    name="v1.3", absent_weight=1, schema_validation=True, lenient_score_versions=False, mode_filter="full",
    size_syntax="decimal", one_bounded_range="supported", go_sort=False, explicit_lookup="by-kind",
    explicit_incompatible="advisory", failure_surface="condition", excluded_list="sorted", explain_available=True,
    webhook_quirks=False, cross_runtime_check=False, model_rule="model-or-runtime", virtual_deployment_skip=False,
    int64_scores=False,
)
V1_2_2 = Profile(
    name="v1.2.2", absent_weight=1, schema_validation=True, lenient_score_versions=False, mode_filter="annotations",
    size_syntax="decimal", one_bounded_range="unsupported-input", go_sort=False, explicit_lookup="namespace-first",
    explicit_incompatible="error", failure_surface="event", excluded_list="sorted", explain_available=False,
    webhook_quirks=False, cross_runtime_check=False, model_rule="required", virtual_deployment_skip=False,
    int64_scores=False,
)
CODE_V0_1_5 = Profile(
    name="code-v0.1.5", absent_weight=0, schema_validation=False, lenient_score_versions=True, mode_filter="off",
    size_syntax="go", one_bounded_range="panic", go_sort=True, explicit_lookup="namespace-first",
    explicit_incompatible="error", failure_surface="event", excluded_list="set", explain_available=False,
    webhook_quirks=True, cross_runtime_check=True, model_rule="none", virtual_deployment_skip=True,
    int64_scores=True,
)
PROFILES = {p.name: p for p in (V1_3, V1_2_2, CODE_V0_1_5)}


def for_release(release: str) -> Profile:
    """--ome-version X.Y.Z: 0.x -> code-v0.1.5; 1.0 up to 1.3 (excluded) -> v1.2.2; 1.3 on -> v1.3."""
    from packaging.version import Version  # only --ome-version needs it (CLI start, issue 13)

    try:
        version = Version(release)
    except ValueError:  # InvalidVersion, or a number Python will not convert (over 4,300 digits)
        raise UsageError(f"--ome-version: {quote(release)} is not a version such as 1.3.0") from None
    if version < Version("1.0"):
        return CODE_V0_1_5
    if version < Version("1.3"):
        return V1_2_2
    return V1_3


def resolve(profile: str | None, ome_version: str | None) -> Profile:
    """The profile of --profile or --ome-version (not both); v1.3 by default."""
    if profile is not None and ome_version is not None:
        raise UsageError("--profile and --ome-version cannot be combined")
    if ome_version is not None:
        return for_release(ome_version)
    return PROFILES[profile or DEFAULT]
