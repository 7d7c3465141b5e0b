"""One module per step of the workflow (see METHOD.md for the design)."""
