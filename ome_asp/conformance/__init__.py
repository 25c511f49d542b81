"""Conformance: reading and running cases (cases), and the commands that
check, generate and diff cases against ome-asp (check, gen, diff,
exhaustive: diff --exhaustive)."""
