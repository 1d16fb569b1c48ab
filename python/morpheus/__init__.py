# SPDX-License-Identifier: MIT
"""Morpheus: a morphology-aware neural tokenizer and word embedder (Turkish first).

``morpheus.Tokenizer`` (``morpheus._tokenizer``) and ``morpheus.Embedder`` (``morpheus._embed``)
run the C++ code of the ``morpheus`` command line, the same ids and the same vectors, with the
model on the torch-free engine in this process: nothing of LibTorch is loaded.

Both are handles on the C++ object of one process: they pickle as (directory, options) and open
again on first use after unpickling; ``close()`` (or leaving a ``with`` block) releases the
object and its ``cache_file`` lock. A forked child (a DataLoader worker) never uses its parent's
C++ object (another parent thread may have held one of its locks at the fork): its handle opens
the directory again on first use, without the cache file (the parent holds its lock); the
weights are a read-only mapping, so parent and children share their pages.

Approximate nearest-neighbour indexes written by ``morpheus index build`` are FAISS files: read
them with Debian's ``python3-faiss`` (``faiss.read_index(path)``); the words of row i are line i
of the ``.vocab`` file next to them. ``morpheus.Index`` does both.

``morpheus.pack`` writes the token files LM trainers read (Megatron-LM, llm.c, npy) with the
``morpheus pack`` command, ``morpheus.merge_packs`` joins shards, and ``morpheus.read_pack``
reads a pack back as one NumPy array of ids per document.
"""
import ctypes as _ctypes
import os as _os
import threading as _threading
import weakref as _weakref

from . import _paths, _tokenizer
from ._pack import merge_packs, pack, read_pack
from ._version import __version__, git_describe

__all__ = ["Tokenizer", "Embedder", "Index", "binary", "pack", "merge_packs", "read_pack",
           "__version__"]


def binary(name):
    """Path of the executable ``name`` (morpheus, morpheus-torch, ...) of this copy of the
    package: its bin/ when installed, the build tree's tools/ when run from there; "" when
    absent."""
    bin_dir = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), _paths.BIN_DIR)
    path = _os.path.join(bin_dir, name)
    return path if _os.access(path, _os.X_OK) else ""


_handles = _weakref.WeakSet()  # every open _Handle, for the fork hook


def _forwarding_method(cls, name, doc):
    """A method of `cls` that calls NAME of the C++ object its handle holds when called."""

    def method(self, *args, **kwargs):
        return getattr(self._get(), name)(*args, **kwargs)

    method.__name__, method.__qualname__, method.__doc__ = name, f"{cls.__name__}.{name}", doc
    return method


class _Handle:
    """A C++ object opened from (directory, options): opened at construction, again on first use
    after unpickling; closed by close() or a ``with`` block. Subclasses give _open()."""

    def __init__(self, options):
        self._options = options
        self._native = None
        self._closed = False
        self._lock = _threading.Lock()
        self._native = self._open()
        _handles.add(self)

    def _get(self):
        with self._lock:
            if self._closed:
                raise ValueError(f"{type(self).__name__} of {self._options['path']} is closed")
            if self._native is None:
                self._native = self._open()
            return self._native

    def __getattr__(self, name):
        # Only reached for names the wrapper lacks: the C++ object's properties, and its methods,
        # which become methods of the wrapper class on first use: they call the C++ object the
        # handle holds when called, so a method taken before a fork or a pickle (e.g.
        # functools.partial(tok.encode_batch, ...) as a DataLoader's collate_fn) runs on the C++
        # object of the process that calls it.
        if name.startswith("_"):
            raise AttributeError(name)
        value = getattr(self._get(), name)
        if not callable(value):
            return value
        setattr(type(self), name, _forwarding_method(type(self), name, value.__doc__))
        return getattr(self, name)

    def close(self):
        """Releases the C++ object (and its cache-file lock); using the handle afterwards raises
        ValueError."""
        with self._lock:
            self._closed = True
            self._native = None

    @property
    def closed(self):
        return self._closed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __getstate__(self):
        if self._closed:
            raise ValueError(f"cannot pickle a closed {type(self).__name__}")
        return dict(self._options)

    def __setstate__(self, options):
        self._options = options
        self._native = None
        self._closed = False
        self._lock = _threading.Lock()
        _handles.add(self)

    def __repr__(self):
        state = "closed" if self._closed else "open"
        return f"<morpheus.{type(self).__name__} {self._options['path']!r} ({state})>"

    def _after_fork_in_child(self):
        # The parent's C++ object stays the parent's: the child never calls its copy (another
        # parent thread may have held one of its locks at the fork) nor destroys it; it opens the
        # directory again on first use, without the cache file (the parent holds its lock).
        self._lock = _threading.Lock()
        if self._native is not None:
            _ctypes.pythonapi.Py_IncRef(_ctypes.py_object(self._native))
            self._native = None
            if "cache_file" in self._options:
                self._options = dict(self._options, cache_file="")


def _after_fork_in_child():
    for handle in list(_handles):
        handle._after_fork_in_child()


_os.register_at_fork(after_in_child=_after_fork_in_child)


class Tokenizer(_Handle):
    __doc__ = _tokenizer.Tokenizer.__doc__

    def __init__(self, path, self_test=True, cache_file=None, device="cpu", threads=1):
        cache_file = "" if cache_file is None else _os.path.abspath(_os.fspath(cache_file))
        super().__init__(
            {
                "path": _os.path.abspath(_os.fspath(path)),
                "self_test": self_test,
                "cache_file": cache_file,
                "device": device,
                "threads": threads,
            }
        )

    def _open(self):
        return _tokenizer.Tokenizer(**self._options)


class Embedder(_Handle):
    """The word embedder of a tokenizer directory (``morpheus._embed.Embedder``, torch-free);
    see its documentation for the options."""

    def __init__(self, path, device="cpu", batch_size=16384, threads=1):
        super().__init__(
            {
                "path": _os.path.abspath(_os.fspath(path)),
                "device": device,
                "batch_size": batch_size,
                "threads": threads,
            }
        )

    def _open(self):
        from ._embed import Embedder as _Embedder

        return _Embedder(**self._options)


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
