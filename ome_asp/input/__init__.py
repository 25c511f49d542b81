"""Input: YAML documents in, validated and defaulted objects out (spec I1–I11),
and what a profile changes before the encoding runs. Imports nothing above it."""
