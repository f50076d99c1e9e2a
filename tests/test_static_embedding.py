"""The static embedding model (`--embedding-model static`): distilled from the packaged MiniLM, offline."""
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("model2vec")  # the `static` extra; `make test` installs it


def test_static_model_loads_offline_and_embeds_normalised_vectors(tmp_path):
    code = (
        "import numpy as np\n"
        "from judgeagent.embedding import Encoder, static_model_folder\n"
        "e = Encoder('static')\n"
        "v = e.encode(['The Federal Reserve raised interest rates.', 'federal reserve', 'a banana split'])\n"
        "print(e.dim, static_model_folder().is_dir(), *np.round((v ** 2).sum(1), 4), "
        "float(v[0] @ v[1]) > float(v[0] @ v[2]))\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "JUDGEAGENT_CACHE": str(tmp_path),
           # no route to any hub: a download attempt fails instead of waiting
           "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    dim, stored, *norms, related = out.stdout.split()
    assert dim == "256" and stored == "True" and related == "True"
    np.testing.assert_allclose([float(n) for n in norms], 1.0, atol=1e-3)


def test_a_text_with_no_known_token_gets_a_zero_vector_not_nan():
    """Real entity names from MultiHop-RAG medium ('post🤯', mathematical-alphanumeric 'This'): the static
    model knows none of their tokens. Their vectors must be finite (zero), and an index built over them
    must still find the other entities: NaN vectors gave NaN distances, which an HNSW graph cannot order."""
    from judgeagent.config import IndexConfig
    from judgeagent.embedding import Encoder, build_index

    encoder = Encoder("static")
    names = ["post🤯", "𝑻𝒉𝒊𝒔", "federal reserve", "interest rates", "a banana split"]
    vectors = encoder.encode(names)
    assert np.isfinite(vectors).all()
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), [0, 0, 1, 1, 1], atol=1e-3)
    index, _ = build_index(vectors, IndexConfig(kind="hnsw"))
    _, found = index.search(encoder.encode(["the federal reserve", "banana split"]), 1)
    assert found[:, 0].tolist() == [2, 4]


def test_the_static_model_encodes_from_two_threads():
    """The online stage encodes on two threads (issue 31). model2vec resets its tokenizer's truncation on every
    call, which fails ("Already borrowed") while another thread encodes: its calls must take turns."""
    from concurrent.futures import ThreadPoolExecutor

    from judgeagent.embedding import Encoder

    encoder = Encoder("static")
    batches = [[f"which bank raised rates in week {i} of year {j}?" for i in range(5)] for j in range(200)]
    alone = [encoder.encode(b) for b in batches]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(encoder.encode, batches))
    assert all(a.tobytes() == t.tobytes() for a, t in zip(alone, together))
