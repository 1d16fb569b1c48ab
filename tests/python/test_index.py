# SPDX-License-Identifier: MIT
"""A `morpheus index build` file read with Debian's python3-faiss: faiss.read_index and
morpheus.Index."""
import subprocess

import faiss
import numpy as np
import pytest

from conftest import run_cli


@pytest.fixture(scope="module")
def built(morpheus_bin, tmp_path_factory):
    rng = np.random.default_rng(3)
    vectors = np.repeat(rng.normal(size=(25, 8)), 20, axis=0) + 0.2 * rng.normal(size=(500, 8))
    vectors = vectors.astype(np.float32)
    words = [f"w{i}" for i in range(len(vectors))]
    d = tmp_path_factory.mktemp("index")
    np.save(d / "e.npy", vectors)
    (d / "e.vocab").write_text("\n".join(words) + "\n", encoding="utf-8")
    run_cli(morpheus_bin, "index", "build", "--embeddings", str(d / "e.npy"), "--type", "hnsw",
            "--out", str(d / "e.faiss"))
    return d, vectors, words


def test_faiss_reads_the_index_and_its_vocab_rows(built):
    d, vectors, words = built
    index = faiss.read_index(str(d / "e.faiss"))
    assert (index.ntotal, index.d) == vectors.shape
    assert (d / "e.vocab").read_text(encoding="utf-8").split("\n")[:-1] == words
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    scores, rows = index.search(unit[:5], 1)
    assert rows[:, 0].tolist() == [0, 1, 2, 3, 4]
    np.testing.assert_allclose(scores[:, 0], 1.0, atol=1e-5)


def test_neighbors_faiss_equals_faiss_search(built, morpheus_bin):
    d, vectors, words = built
    index = faiss.read_index(str(d / "e.faiss"))
    index.hnsw.efSearch = 64
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    _, rows = index.search(unit[7:8], 4)
    want = [words[r] for r in rows[0] if r != 7][:3]
    out = run_cli(morpheus_bin, "neighbors", "--faiss", str(d / "e.faiss"), "--query", "w7", "-k",
                  "3")
    assert [line.split("\t")[0] for line in out.decode().splitlines()] == want


def test_a_corrupt_index_is_an_error(built, morpheus_bin, tmp_path):
    d, _, _ = built
    (tmp_path / "bad.faiss").write_bytes(b"\0" * 64)
    (tmp_path / "bad.vocab").write_text("w0\n", encoding="utf-8")
    done = subprocess.run([morpheus_bin, "neighbors", "--faiss", str(tmp_path / "bad.faiss"),
                           "--query", "w0"], capture_output=True, check=False)
    assert done.returncode == 1
    assert b"not a readable FAISS index" in done.stderr


def test_morpheus_index_searches_like_neighbors_faiss(built, morpheus_bin):
    import morpheus

    d, vectors, words = built
    hits = morpheus.Index(d / "e.faiss").search(vectors[7], k=4)[0]
    assert hits[0][0] == "w7" and abs(hits[0][1] - 1.0) < 1e-5
    out = run_cli(morpheus_bin, "neighbors", "--faiss", str(d / "e.faiss"), "--query", "w7", "-k",
                  "3")
    assert [w for w, _ in hits[1:]] == [line.split("\t")[0] for line in out.decode().splitlines()]


def test_morpheus_index_rejects_a_vocab_of_another_build(built, tmp_path):
    import shutil

    import morpheus

    d, _, _ = built
    shutil.copy(d / "e.faiss", tmp_path / "x.faiss")
    (tmp_path / "x.vocab").write_text("w0\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match="x.vocab has 1 words but"):
        morpheus.Index(tmp_path / "x.faiss")


def test_morpheus_index_searches_from_two_threads_equal_sequential_ones(built):
    from concurrent.futures import ThreadPoolExecutor

    import morpheus

    d, vectors, _ = built
    index = morpheus.Index(d / "e.faiss")
    blocks = [vectors[i : i + 25] for i in range(0, len(vectors), 25)]
    sequential = [index.search(block, k=5) for block in blocks]
    with ThreadPoolExecutor(max_workers=2) as pool:
        for _ in range(3):
            assert list(pool.map(lambda block: index.search(block, k=5), blocks)) == sequential
