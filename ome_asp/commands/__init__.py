"""One module per command of the CLI (explain, serve, select, admit, steer):
each adds its parser and runs it; `ome_asp.cli` only parses and dispatches."""
