"""Quotes through time: dating a quote across a family, rechecking recorded quotes."""
