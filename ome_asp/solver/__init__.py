"""The solver layer: objects to clingo facts, the encoding's program variants
grounded and solved, the answer set decoded into Python values."""
