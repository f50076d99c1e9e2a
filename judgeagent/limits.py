"""Upper bounds of the numeric knobs, shared by the configs and the CLI flags, each with its reason.

Knobs left unbounded on purpose: `--limit` and `--sample` (capped by the benchmark's size), `--top`
(capped by the number of entities), `--max-passage-words` (a bound above a passage's length means
"whole"), and seeds (any non-negative integer seeds numpy's generator).
"""

MAX_CHUNK_WORDS = 2_000
"""The embedding model reads ~190 words of a chunk; a path of `--hops` chunks must still fit a
question-generation prompt (3 x 2,000 words is ~8k tokens)."""
MAX_HOPS = 20
"""A path's chunks all go into one prompt; the paper uses 3, and 20 x 150 words is ~4k tokens."""
MAX_BATCH_SIZE = 100
"""The feedback prompt carries every question of a batch with both answers (the paper uses 5)."""
MAX_ROUNDS = 20
"""Each round adds questions to the batch's feedback prompt, and a round's model calls (paper: 3)."""
MAX_QUESTIONS_PER_ROUND = 10
"""The interviewer writes them in one reply of `max_tokens` (512 by default)."""
