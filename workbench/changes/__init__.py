"""Changes: the diff, the review queue, the verdict log, the redline and the widget."""
