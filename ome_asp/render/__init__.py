"""Rendering: reason terms as text, explain's rows, table and JSON/YAML reports.
Decides nothing about selection."""
