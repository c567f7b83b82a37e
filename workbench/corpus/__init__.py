"""The corpus: provenance, admission, the tracked catalogue, fetching bytes, a researcher's own files."""
