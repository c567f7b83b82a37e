"""Exports: bundles anyone can re-check offline."""
