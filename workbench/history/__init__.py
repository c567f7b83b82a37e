"""Through time: dating a quote across a family, rechecking recorded quotes, and the amendment
instructions of held laws, read from their prose, verified against the releases before and after
each law, and reconciled with the diff (`amendments`, `enactment`, `reconcile`)."""
