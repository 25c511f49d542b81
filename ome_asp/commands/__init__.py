"""One module per command of the CLI (explain, select_runtime, admit, serve,
steer, compare): each adds its parser and runs it; `ome_asp.cli` only parses
and dispatches. Beside them: batch (a batch's chunks over processes), options
(shared flags), diagnostics (internal-error reproductions)."""
