"""One module per command of the CLI (explain, select_runtime, admit, serve,
steer, compare, find): each adds its parser and runs it; `ome_asp.cli` only
parses and dispatches. Beside them: batch (a batch's chunks over processes),
options (shared flags), bounds_flags (find's and diff --exhaustive's bounds),
diagnostics (internal-error reproductions)."""
