"""Grading: deciding right and wrong (answer checking, judge calibration) and checking generated questions."""
