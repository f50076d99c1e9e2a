"""Data synthesis for trainers: verified, difficulty-graded question sets from a graph (`synthesize`), and
sets aimed at a run's weak spots that repeat none of its questions (`from_run`)."""
from .config import SynthesisConfig
from .run import SynthesisResult, estimate, synthesize

__all__ = ["SynthesisConfig", "SynthesisResult", "estimate", "synthesize"]
