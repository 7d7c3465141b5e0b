"""One module per step of the workflow (see docs/method.md for the design)."""
