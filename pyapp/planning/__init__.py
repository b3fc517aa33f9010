"""Planning from chunk arithmetic: index sizing, context budget, sweeps, remedies, corpora."""
