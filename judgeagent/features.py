"""The question side's CPU work, kept across runs: the encoder's vectors and spaCy's mentions of a batch's texts.

A run of the online stage encodes every batch's questions and runs spaCy on them (issue 31: about 60 ms of
CPU per question on MiniLM, more than a fast endpoint's calls). Next week's run on the next checkpoint asks
the same questions in the same batches, and a resumed run asks the unfinished ones again: both read them from
here instead. Stored in the cache folder (`features.sqlite`, beside the model responses), skipped with
`--no-cache`.

Vectors are keyed by the exact list of texts given to the model, not per text: a text's vector depends by
~1e-7 on the texts it was padded with, so only the same list gives the same bytes, and a run that reads the
store writes the records a run that computes would. A batch's question vectors are one list of the batch's
own, so a resumed run finds them. Mentions are keyed per text: spaCy's mentions of a text do not depend on
the texts read with it (checked on 1,391 questions of the five datasets, read 1, 7, 40 and 256 at a time),
so a resumed run, which reads its batches in other groups than the first run did, finds them too. The key
also holds the model's identity (its name and a fingerprint of its weights: what they make of a fixed
text) and the library versions.
"""
from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from .entities import Mention
from .models.cache import ResponseCache


class FeatureStore:
    def __init__(self, folder: str | Path | None = None) -> None:
        self._db = ResponseCache(folder, file="features.sqlite")

    def vectors(self, identity: dict[str, Any], texts: Sequence[str], make: Callable[[], np.ndarray]) -> np.ndarray:
        key = _key("vectors", identity, texts)
        hit = self._db.get(key)
        if hit is not None:
            return np.frombuffer(base64.b64decode(hit["data"]), dtype=np.float32).reshape(hit["shape"]).copy()
        vectors = np.ascontiguousarray(make(), dtype=np.float32)
        self._db.put(key, {"shape": list(vectors.shape), "data": base64.b64encode(vectors.tobytes()).decode()})
        return vectors

    def mentions(self, identity: dict[str, Any], texts: Sequence[str],
                 make: Callable[[list[str]], list[list[Mention]]]) -> list[list[Mention]]:
        """Each text's mentions, from the store or from one `make` call on the texts it does not hold."""
        keys = {text: _key("mention", identity, [text]) for text in texts}
        found: dict[str, list[Mention]] = {}
        for text, key in keys.items():
            hit = self._db.get(key)
            if hit is not None:
                found[text] = [Mention(**m) for m in hit["mentions"]]
        missing = [text for text in keys if text not in found]
        if missing:
            for text, mentions in zip(missing, make(missing)):
                self._db.put(keys[text], {"mentions": [asdict(m) for m in mentions]})
                found[text] = mentions
        return [found[text] for text in texts]

    def __len__(self) -> int:
        return len(self._db)

    def close(self) -> None:
        self._db.close()


def _key(kind: str, identity: dict[str, Any], texts: Sequence[str]) -> str:
    payload = json.dumps([kind, identity, list(texts)], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()
