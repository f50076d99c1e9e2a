"""The wave-3 layout move changed no byte that a run writes: a scripted run of each protocol gives the
records, episodes and summary that the code before the move gave (tests/make_layout_reference.py wrote them).

Each line of records.jsonl and episodes.jsonl must be byte-identical; their order is compared sorted, because
episodes run concurrently and finish (and append) in the order the scheduler gives, which differs between two
runs of the same code. summary.json must be byte-identical as a whole.
"""
from __future__ import annotations

import pytest

from tests.make_layout_reference import RUNS, capture, stored


@pytest.mark.parametrize("name", list(RUNS))
def test_a_scripted_run_writes_what_the_code_before_the_move_wrote(name, tmp_path):
    found, reference = capture(name, tmp_path), stored(name)
    for f in ("records.jsonl", "episodes.jsonl"):
        assert sorted(found[f].splitlines()) == sorted(reference[f].splitlines()), f
    assert found["summary.json"] == reference["summary.json"]
