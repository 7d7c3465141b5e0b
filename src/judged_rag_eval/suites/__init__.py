"""The suites: what each measures, one module per suite."""
