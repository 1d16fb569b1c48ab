# SPDX-License-Identifier: MIT
"""Morpheus: a morphology-aware neural tokenizer and word embedder (Turkish first).

``morpheus.Tokenizer`` is torch-free (the module ``morpheus._tokenizer``); ``morpheus.Embedder``
loads LibTorch (``morpheus._embed``) only when it is first used. Both run the C++ code of the
``morpheus`` command line: the same ids and the same vectors.

Approximate nearest-neighbour indexes written by ``morpheus index build`` are FAISS files: read
them with Debian's ``python3-faiss`` (``faiss.read_index(path)``); the words of row i are line i
of the ``.vocab`` file next to them. ``morpheus.Index`` does both.
"""
import os as _os
import shutil as _shutil

from . import _tokenizer

__all__ = ["Tokenizer", "Embedder", "Index", "model_server_binary"]


def model_server_binary():
    """The ``morpheus-model-server`` binary that segments letter runs missing from the table.

    In order: ``$MORPHEUS_MODEL_SERVER``, ``morpheus-model-server`` on ``PATH``, the one of the
    build tree this module was built in; "" when none exists (such runs are then an error).
    """
    env = _os.environ.get("MORPHEUS_MODEL_SERVER", "")
    if env:
        return env
    found = _shutil.which("morpheus-model-server")
    if found:
        return found
    built = _tokenizer.BUILD_MODEL_SERVER
    return built if built and _os.path.exists(built) else ""


class Tokenizer(_tokenizer.Tokenizer):
    __doc__ = _tokenizer.Tokenizer.__doc__

    def __init__(
        self, path, model_server=None, cache=1 << 20, self_test=True, cache_file=None, device="cpu"
    ):
        if model_server is None:
            model_server = model_server_binary()
        cache_file = "" if cache_file is None else _os.fspath(cache_file)
        super().__init__(_os.fspath(path), model_server, cache, self_test, cache_file, device)


class Index:
    """A ``morpheus index build`` file F.faiss and its F.vocab, read with python3-faiss.

    ``search(vectors, k)`` ranks by cosine as ``morpheus neighbors --faiss`` does (the query rows
    are normalised; ``ef_search`` and ``nprobe`` as its flags) and returns, per row, a list of
    (word, cosine) pairs, best first.

    ``ef_search`` and ``nprobe`` are set once, here, and never while searching, so several
    threads may call ``search`` on one Index at once (FAISS CPU indexes are safe for concurrent
    searches); python3-faiss releases the GIL inside ``index.search``, so they run in parallel.
    """

    def __init__(self, path, ef_search=64, nprobe=16):
        import faiss

        path = _os.fspath(path)
        self.index = faiss.read_index(path)
        stem = path[: -len(".faiss")] if path.endswith(".faiss") else path
        with open(stem + ".vocab", encoding="utf-8") as f:
            self.words = f.read().split("\n")[:-1]
        if len(self.words) != self.index.ntotal:
            raise RuntimeError(
                f"{stem}.vocab has {len(self.words)} words but {path} holds "
                f"{self.index.ntotal} vectors\nhint: rebuild the index"
            )
        if hasattr(self.index, "hnsw"):
            self.index.hnsw.efSearch = ef_search
        ivf = faiss.try_extract_index_ivf(self.index)
        if ivf is not None:
            ivf.nprobe = nprobe

    def search(self, vectors, k=10):
        """Per query row, up to k (word, cosine) pairs, best first. Thread-safe; the FAISS search
        runs without the GIL."""
        import faiss
        import numpy as np

        q = np.array(vectors, dtype=np.float32, ndmin=2, copy=True)
        faiss.normalize_L2(q)
        scores, rows = self.index.search(q, k)
        return [
            [(self.words[r], float(s)) for r, s in zip(row, score) if r >= 0]
            for row, score in zip(rows, scores)
        ]


def __getattr__(name):
    # Embedder lives in the LibTorch extension: imported on first use only.
    if name == "Embedder":
        from ._embed import Embedder

        return Embedder
    raise AttributeError(f"module 'morpheus' has no attribute {name!r}")
