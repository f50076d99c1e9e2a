"""The encoder's one-batch path for small lists (issue 50) gives sentence-transformers' own `encode` bytes."""
from __future__ import annotations


def test_a_small_list_encodes_to_the_same_bytes_as_sentence_transformers_encode(encoder):
    """Texts of different lengths in one list (their order in the batch sets the padding), one text, and a
    repeat: each row the bytes `SentenceTransformer.encode` gives on the one thread a small list gets. Seen to fail
    with the vectors not normalised (and, when it was written, with the batch left in list order instead of encode's
    longest-first order: on one thread, torch 2.13 on this 2-core machine, that order no longer changes the bytes).
    `encode` is called under `sized` as ours runs: on two threads a one-text batch differs in the last bit on some
    CPUs (torch 2.13, 2 cores: the test failed run alone on the code it guards), which is the thread count, not
    `_one_batch`."""
    from judgeagent.threads import sized

    assert encoder._direct  # the packaged MiniLM takes the one-batch path
    lists = [["Apple", "What did the Federal Reserve announce about interest rates in September 2023?", "the Fed"],
             ["Which company reported record revenue?"], ["Sam Bankman-Fried", "Sam Bankman-Fried", "FTX's founder"]]
    for texts in lists:
        ours = encoder.encode(texts)
        with sized(len(texts)):
            theirs = encoder.model.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True,
                                          show_progress_bar=False)
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        assert ours.tobytes() == theirs.tobytes()
