"""Text: extraction, PDF, normalization, numbering profiles, structure and passages."""
