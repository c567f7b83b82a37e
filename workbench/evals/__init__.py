"""Scorecards: the demonstration corpus and pairing quality against the documents' identifiers."""
