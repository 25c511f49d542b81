"""Conformance: the case format, and the commands that check, generate and
diff cases against ome-asp (check, gen, diff)."""
