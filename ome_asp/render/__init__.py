"""Rendering: reason terms as text, explain's rows, table and JSON/YAML
reports, and a conformance case's answers and files (case_files). Decides
nothing about selection."""
