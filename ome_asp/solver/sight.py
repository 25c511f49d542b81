"""What a batch's queries read of the cluster (issue 28, D-120), so that
`explain --all-models` and `select --all` ground each chunk of their queries
on its own namespaces, not on the whole cluster: with queries spread over
namespaces, chunks × cluster grew quadratically.

A query reads the ServingRuntimes of its namespace and every
ClusterServingRuntime (Q1, O1: its candidates; X1: the runtime an
InferenceService names; W4, W5: admission compares a runtime only with the
runtimes of its kind and scope), the InferenceService it names (E4), the
models its model name may resolve to (M1: the BaseModel of its namespace, else
the ClusterBaseModel) and every AcceleratorClass (W3, A). So each query's
answer is the one the whole cluster gives (tests/test_batch.py compares them).
What a part leaves out is the admission verdicts of the other namespaces'
runtimes, which every report lists (I9): `unseen` is what a batch must admit
once, before its chunks.
"""

from __future__ import annotations

from collections import defaultdict

from ome_asp import records
from ome_asp.input.objects import Cluster, Query


class Sight:
    """A cluster filed by namespace and by name once, so that each chunk's
    part is found without walking the whole cluster (that walk, per chunk,
    would be quadratic again)."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self._runtimes: dict[str | None, list] = defaultdict(list)  # by namespace; None: cluster-scoped
        for runtime in cluster.runtimes:
            self._runtimes[runtime.namespace].append(runtime)
        self._models: dict[str, list] = defaultdict(list)
        for model in cluster.models:
            self._models[model.name].append(model)
        self._isvcs = {(isvc.namespace, isvc.name): isvc for isvc in cluster.inference_services}

    def part(self, queries: list[Query]) -> Cluster:
        """What `queries` read, each kind in canonical order (I10) as the cluster's."""
        namespaces = {q.namespace for q in queries}
        named = sorted({(q.namespace, q.isvc) for q in queries if q.isvc is not None})
        isvcs = [self._isvcs[key] for key in named if key in self._isvcs]
        names = {q.model for q in queries if q.model is not None} | {i.model_name for i in isvcs if i.model_name is not None}
        models = [m for name in names for m in self._models.get(name, ()) if m.namespace is None or m.namespace in namespaces]
        return records.replace(
            self.cluster,
            models=sorted(models, key=lambda m: (m.kind, m.namespace or "", m.name)),
            runtimes=[*self._runtimes.get(None, ()), *(r for ns in sorted(namespaces) for r in self._runtimes.get(ns, ()))],
            inference_services=isvcs,
        )

    def candidates(self, query: Query) -> int:
        """How many runtimes `query` has as candidates (Q1): its namespace's and
        the cluster-scoped ones, explain's rows (admission's denials aside)."""
        return len(self._runtimes.get(None, ())) + len(self._runtimes.get(query.namespace, ()))

    def unseen(self, parts: list[list[Query]]) -> Cluster:
        """The runtimes that some of the `parts` does not read, with every
        AcceleratorClass: the ServingRuntimes of the namespaces not asked
        about in every part. Every part admits the rest itself."""
        everywhere = set.intersection(*({q.namespace for q in part} for part in parts)) if parts else set()
        return records.replace(
            self.cluster, models=[], inference_services=[],
            runtimes=[r for r in self.cluster.runtimes if r.namespace is not None and r.namespace not in everywhere],
        )
