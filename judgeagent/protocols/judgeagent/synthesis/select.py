"""Which candidates become items: per-difficulty quotas, no near-duplicates, nothing close to a test question."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from ....embedding import Encoder
from ....grading.text import normalise_answer
from .config import SynthesisConfig
from .rows import KeptItem, SlotRow

NEAR_DUPLICATE = "near-duplicate of a kept item"
ASKED = "too close to a question the run asked"


class Selector:
    """Takes candidates in slot order (so that a resumed synthesis keeps the same items)."""

    def __init__(self, encoder: Encoder, config: SynthesisConfig, asked: Sequence[str] = ()) -> None:
        self.encoder, self.config = encoder, config
        self.quotas = config.quotas()
        self.kept: list[KeptItem] = []
        self.counts: Counter[str] = Counter()
        self.rejected: Counter[tuple[str, str]] = Counter()
        """(difficulty, reason) -> candidates turned down, at generation or here."""
        self.candidates: Counter[str] = Counter()
        self._asked = {normalise_answer(q) for q in asked}
        self._asked_vectors = encoder.encode(list(asked)) if asked else np.zeros((0, encoder.dim), np.float32)
        self._vectors = np.zeros((0, encoder.dim), np.float32)

    def missing(self) -> int:
        return sum(self.quotas[d] - self.counts[d] for d in self.open_tiers())

    def open_tiers(self) -> list[str]:
        return [d for d in self.config.difficulties if self.counts[d] < self.quotas[d]]

    @property
    def done(self) -> bool:
        return not self.open_tiers()

    def offer(self, rows: Sequence[SlotRow]) -> None:
        """One wave's slot rows, in slot order."""
        items = [item for r in rows if (item := r.get("item"))]
        vectors = self.encoder.encode([i["question"] for i in items]) if items else None
        at = 0
        for row in rows:
            tier = row["difficulty"]
            if self.counts[tier] >= self.quotas[tier]:
                at += bool(row.get("item"))
                continue  # planned before the tier filled up: neither a candidate nor a rejection
            self.candidates[tier] += 1
            for reason in row["rejected"]:
                self.rejected[tier, reason] += 1
            if not row.get("item"):
                continue
            assert vectors is not None
            self._take(row, vectors[at])
            at += 1

    def _take(self, row: SlotRow, vector: np.ndarray) -> None:
        item, tier = row["item"], row["difficulty"]
        assert item is not None
        asked = float((self._asked_vectors @ vector).max()) if len(self._asked_vectors) else 0.0
        if normalise_answer(item["question"]) in self._asked or asked >= self.config.contamination_similarity:
            self.rejected[tier, ASKED] += 1
            return
        nearest = float((self._vectors @ vector).max()) if len(self._vectors) else 0.0
        if nearest >= self.config.duplicate_similarity:
            self.rejected[tier, NEAR_DUPLICATE] += 1
            return
        checks = [*item["checks"], "not_near_duplicate"] + (["not_in_run"] if len(self._asked_vectors) else [])
        kept: KeptItem = {"qid": f"syn-{row['slot']:06d}", **item, "checks": checks, "anchor_doc_id": row["doc_id"],
                "nearest_item_similarity": round(nearest, 4)}
        if len(self._asked_vectors):
            kept["nearest_asked_similarity"] = round(asked, 4)
        self.kept.append(kept)
        self.counts[tier] += 1
        self._vectors = np.vstack([self._vectors, vector[None, :]])
