"""Helpers for testing ome-asp and other implementations against it (needs the `test` extra)."""
