"""Shared infrastructure: the pass/dialect registry, the ti-opt driver, diagnostics."""
