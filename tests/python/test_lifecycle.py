# SPDX-License-Identifier: MIT
"""The life of morpheus.Tokenizer and morpheus.Embedder handles: version, pickling, close() and
``with``, forked children (os.fork and PyTorch DataLoader workers)."""
import functools
import os
import pickle
import re
import signal

import pytest

import morpheus
from conftest import run_cli

NEW_TEXTS = ["Zqxwvzqxwlarımızdan kuşkulandık.", "Qwxzvyqlerimizde ve Xqzvwyların evi",
             "Vxqzwlerimizin kitapları", "Wqzxvyçılar geldi"]


def test_version_is_the_cli_version(morpheus_bin):
    assert re.fullmatch(r"\d+\.\d+\.\d+", morpheus.__version__)
    cli = run_cli(morpheus_bin, "--version").decode()
    assert morpheus.__version__ in cli
    assert morpheus.git_describe in cli


def test_pickled_tokenizer_reopens_with_the_same_options(tokdir, tmp_path, monkeypatch):
    tok = morpheus.Tokenizer(tokdir, threads=2)
    want = [tok.encode(text) for text in NEW_TEXTS]
    copy = pickle.loads(pickle.dumps(tok))
    assert copy._native is None  # opened on first use
    assert [copy.encode(text) for text in NEW_TEXTS] == want
    assert copy.path == tok.path and copy.model_runs >= 1
    monkeypatch.chdir(tmp_path)  # the directory was pickled as an absolute path
    relative = morpheus.Tokenizer(os.path.relpath(tokdir, tmp_path))
    assert pickle.loads(pickle.dumps(relative)).encode(NEW_TEXTS[0]) == want[0]


def test_close_releases_the_cache_file_and_the_handle(tokdir, tmp_path):
    cache = tmp_path / "runs.cache"
    with morpheus.Tokenizer(tokdir, cache_file=cache) as tok:
        want = tok.encode(NEW_TEXTS[0])
        with pytest.raises(RuntimeError, match="being written by another process"):
            morpheus.Tokenizer(tokdir, cache_file=cache)
    assert tok.closed
    with pytest.raises(ValueError, match="is closed"):
        tok.encode(NEW_TEXTS[0])
    with pytest.raises(ValueError, match="closed"):
        pickle.dumps(tok)
    again = morpheus.Tokenizer(tokdir, cache_file=cache)  # the lock is free
    assert again.encode(NEW_TEXTS[0]) == want and again.cache_file_hits >= 1
    again.close()


def _encode_in_child(tok, texts, encode=None):
    """ids of `texts` encoded in a forked child by `encode` (default tok.encode, looked up in the
    child), with tok.model_runs there, read back through a pipe; the child ends after 60 s."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            signal.alarm(60)  # a child stuck on a lock of the parent's fails the test, not hangs it
            os.close(r)
            ids = [(encode or tok.encode)(t) for t in texts]
            os.write(w, pickle.dumps((ids, tok.model_runs)))
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    assert os.waitpid(pid, 0)[1] == 0
    return pickle.loads(data)


def test_forked_child_opens_its_own_tokenizer(tokdir):
    tok = morpheus.Tokenizer(tokdir)
    first = tok.encode(NEW_TEXTS[0])  # the parent's model is loaded
    runs = tok.model_runs
    ids, child_runs = _encode_in_child(tok, NEW_TEXTS)
    assert child_runs >= len(NEW_TEXTS)  # its own tokenizer and model
    assert ids[0] == first
    # The parent's tokenizer is untouched by the child and its exit.
    assert [tok.encode(t) for t in NEW_TEXTS] == ids
    assert tok.model_runs > runs


def test_method_taken_before_a_fork_runs_on_the_childs_tokenizer(tokdir):
    tok = morpheus.Tokenizer(tokdir)
    encode = functools.partial(tok.encode, add_eos=True)  # bound while the parent's runs
    first = encode(NEW_TEXTS[0])
    ids, child_runs = _encode_in_child(tok, NEW_TEXTS, encode)
    assert child_runs >= len(NEW_TEXTS)  # the child's own tokenizer answered
    assert ids[0] == first and ids == [encode(t) for t in NEW_TEXTS]
    assert pickle.loads(pickle.dumps(encode))(NEW_TEXTS[1]) == ids[1]
    assert tok.encode.__doc__ == morpheus._tokenizer.Tokenizer.encode.__doc__


def test_dataloader_workers_encode_as_the_parent(tokdir, dev_lines):
    torch = pytest.importorskip("torch")

    class Texts(torch.utils.data.Dataset):
        def __init__(self, tok, texts):
            self.tok, self.texts = tok, texts

        def __len__(self):
            return len(self.texts)

        def __getitem__(self, i):
            return self.tok.encode(self.texts[i])

    texts = NEW_TEXTS + dev_lines[:200]
    tok = morpheus.Tokenizer(tokdir)
    want = [tok.encode(t) for t in texts]
    loader = torch.utils.data.DataLoader(Texts(tok, texts), batch_size=16, num_workers=2,
                                         collate_fn=list)
    got = [ids for batch in loader for ids in batch]
    assert got == want
    assert tok.encode(NEW_TEXTS[1]) == want[1]  # the parent's model still answers


def test_pickled_embedder_embeds_the_same_rows(tokdir):
    emb = morpheus.Embedder(tokdir, batch_size=7)
    want = emb.embed(["kitap", "evlerimizde"])
    with pickle.loads(pickle.dumps(emb)) as copy:
        assert (copy.embed(["kitap", "evlerimizde"]) == want).all()
        assert copy.dim == emb.dim
    assert copy.closed
