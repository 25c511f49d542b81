"""Conformance: the case format, and the commands that check, generate and
diff cases against ome-asp (check, gen, diff, exhaustive: diff --exhaustive),
and find, which checks the specification itself and writes its witnesses as
cases."""
