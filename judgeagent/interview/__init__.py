"""The online stage: grading, graph-driven extension and feedback (Algorithm 1)."""
