"""Grounded notes: notes, the out-of-process check, the run ledger, grades and the quotes register."""
