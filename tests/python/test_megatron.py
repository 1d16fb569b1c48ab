# SPDX-License-Identifier: MIT
"""Megatron-LM's own reader and builder (megatron-core's ``IndexedDataset`` and
``IndexedDatasetBuilder``, the pinned megatron-core of python/requirements.txt) on
``morpheus pack --format megatron`` output: sequence and document counts, every document's ids
= ``morpheus encode`` + ``</s>``, and Megatron's merge of shards = ``morpheus pack merge``.

megatron-core's package ``__init__`` imports its model-parallel code, which needs PyTorch >= 2
(``torch.distributed._coalescing_manager``); Debian's PyTorch is 1.13. So this test imports only
the module file of the reader, ``megatron/core/datasets/indexed_dataset.py`` of the installed
package (with the two small modules it imports, ``msc_utils`` and ``object_storage_utils``): its
parent packages are entered as empty package modules (their ``__init__`` files do not run) and
``megatron.core.utils``, of which the reader uses only the logging call ``log_single_rank``, as
a module holding that one call. Nothing of Megatron is copied into this repository.
"""
import importlib.util
import logging
import os
import subprocess
import sys
import types

import numpy as np
import pytest

import morpheus
from conftest import run_cli


def _load_indexed_dataset():
    spec = importlib.util.find_spec("megatron")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("megatron-core is not installed (scripts/setup.sh: python/requirements.txt)")
    root = list(spec.submodule_search_locations)[0]
    saved = {k: v for k, v in sys.modules.items() if k.startswith("megatron")}
    try:
        for name, sub in (("megatron", ""), ("megatron.core", "core"),
                          ("megatron.core.datasets", os.path.join("core", "datasets"))):
            package = types.ModuleType(name)
            package.__path__ = [os.path.join(root, sub)]
            sys.modules[name] = package
        utils = types.ModuleType("megatron.core.utils")

        def log_single_rank(logger, *args, rank=0, **kwargs):
            logger.log(*args, **kwargs)

        utils.log_single_rank = log_single_rank
        sys.modules["megatron.core.utils"] = utils
        module = importlib.import_module("megatron.core.datasets.indexed_dataset")
    finally:
        for k in [k for k in sys.modules if k.startswith("megatron")]:
            del sys.modules[k]
        sys.modules.update(saved)
    assert os.path.dirname(module.__file__) == os.path.join(root, "core", "datasets")
    return module


@pytest.fixture(scope="module")
def megatron():
    logging.getLogger("megatron").setLevel(logging.WARNING)
    return _load_indexed_dataset()


@pytest.fixture(scope="module")
def tok(tokdir):
    return morpheus.Tokenizer(tokdir)


@pytest.fixture(scope="module")
def corpus(dev_lines, tmp_path_factory):
    """2,000 dev sentences, one document per line (pack --plain)."""
    path = tmp_path_factory.mktemp("corpus") / "dev.txt"
    path.write_text("\n".join(dev_lines[:2000]) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def cli_ids(morpheus_bin, tokdir, corpus):
    out = run_cli(morpheus_bin, "encode", "--model", tokdir, corpus)
    return [[int(x) for x in line.split()] for line in out.decode().splitlines()]


def pack(morpheus_bin, tokdir, prefix, *args):
    run_cli(morpheus_bin, "-q", "pack", "--model", tokdir, "--out", str(prefix), *args)
    return str(prefix)


def documents(megatron, prefix):
    ds = megatron.IndexedDataset(prefix)
    return ds, [ds[i].tolist() for i in range(len(ds))]


def test_megatron_reads_every_document_as_encode_plus_eos(megatron, morpheus_bin, tokdir, tok,
                                                          corpus, cli_ids, tmp_path):
    prefix = pack(morpheus_bin, tokdir, tmp_path / "dev", "--plain", "--append-eos", corpus)
    ds, docs = documents(megatron, prefix)
    assert len(cli_ids) == 2000
    assert len(ds) == 2000  # one sequence per document
    assert ds.document_indices.tolist() == list(range(2001))
    assert ds.index.dtype == np.uint16  # fewer than 65,500 ids
    assert ds.sequence_lengths.tolist() == [len(ids) + 1 for ids in cli_ids]
    assert docs == [ids + [tok.eos_id] for ids in cli_ids]
    assert ds.get(5, offset=1, length=3).tolist() == cli_ids[5][1:4]


def megatron_merge(megatron, parts, prefix, dtype):
    builder = megatron.IndexedDatasetBuilder(prefix + ".bin", dtype=dtype)
    for part in parts:
        builder.add_index(part)
    builder.finalize(prefix + ".idx")
    return prefix


def test_megatron_builder_merge_equals_pack_merge(megatron, morpheus_bin, tokdir, dev_lines,
                                                  tmp_path):
    # Whole packs of three inputs (what Megatron's merge_datasets.py joins): its builder and
    # `pack merge` (whole packs are concatenated in the order given) write the same files.
    parts = []
    for i in range(3):
        path = tmp_path / f"in{i}.txt"
        path.write_text("\n".join(dev_lines[i * 500:(i + 1) * 500]) + "\n", encoding="utf-8")
        parts.append(pack(morpheus_bin, tokdir, tmp_path / f"p{i}", "--plain", "--append-eos",
                          str(path)))
    run_cli(morpheus_bin, "-q", "pack", "merge", "--out", str(tmp_path / "merged"), *parts)
    mega = megatron_merge(megatron, parts, str(tmp_path / "mega"), np.uint16)
    ds, docs = documents(megatron, mega)
    ours, our_docs = documents(megatron, str(tmp_path / "merged"))
    assert len(ds) == len(ours) == 1500
    assert ds.document_indices.tolist() == ours.document_indices.tolist()
    assert docs == our_docs
    for ext in (".bin", ".idx"):
        assert (tmp_path / f"mega{ext}").read_bytes() == (tmp_path / f"merged{ext}").read_bytes()


def test_megatron_builder_of_shards_holds_each_shard_s_documents(megatron, morpheus_bin, tokdir,
                                                                 corpus, tmp_path):
    # Shards --shard i/3 take every third document; `pack merge` re-interleaves them into the
    # unsharded pack, Megatron's builder appends them shard after shard: the same documents.
    whole = pack(morpheus_bin, tokdir, tmp_path / "whole", "--plain", "--append-eos", corpus)
    parts = [pack(morpheus_bin, tokdir, tmp_path / f"s{i}", "--plain", "--append-eos", "--shard",
                  f"{i}/3", corpus) for i in range(3)]
    run_cli(morpheus_bin, "-q", "pack", "merge", "--out", str(tmp_path / "merged"), *parts)
    _, want = documents(megatron, whole)
    assert documents(megatron, str(tmp_path / "merged"))[1] == want
    mega = megatron_merge(megatron, parts, str(tmp_path / "mega"), np.uint16)
    assert documents(megatron, mega)[1] == [want[k] for i in range(3)
                                            for k in range(i, len(want), 3)]


def test_megatron_reads_uint32_packs_of_a_wide_vocabulary(megatron, morpheus_bin, wide_tokdir,
                                                          tmp_path):
    texts = ["Kitaplarımızdan birini okudum.", "Evlerimizde kitaplar var.", "zqxw 🙂"]
    path = tmp_path / "c.txt"
    path.write_text("\n".join(texts) + "\n", encoding="utf-8")
    wide = morpheus.Tokenizer(wide_tokdir)
    assert wide.vocab_size >= 65500
    prefix = pack(morpheus_bin, wide_tokdir, tmp_path / "wide", "--plain", "--append-eos",
                  str(path))
    ds, docs = documents(megatron, prefix)
    assert ds.index.dtype == np.int32
    assert docs == [wide.encode(t) + [wide.eos_id] for t in texts]
    parts = []
    for i, text in enumerate(texts):
        (tmp_path / f"w{i}.txt").write_text(text + "\n", encoding="utf-8")
        parts.append(pack(morpheus_bin, wide_tokdir, tmp_path / f"w{i}", "--plain",
                          "--append-eos", str(tmp_path / f"w{i}.txt")))
    run_cli(morpheus_bin, "-q", "pack", "merge", "--out", str(tmp_path / "wmerged"), *parts)
    mega = megatron_merge(megatron, parts, str(tmp_path / "wmega"), np.int32)
    assert documents(megatron, mega)[1] == docs
    assert documents(megatron, str(tmp_path / "wmerged"))[1] == docs
    for ext in (".bin", ".idx"):
        assert (tmp_path / f"wmega{ext}").read_bytes() == (tmp_path / f"wmerged{ext}").read_bytes()


@pytest.fixture(scope="module")
def wide_tokdir(morpheus_bin, tmp_path_factory):
    """A tokenizer of 65,500 ids or more (the pack's uint32 switch): `morpheus export-plain`
    BPE on about 90,000 made-up word types."""
    work = tmp_path_factory.mktemp("wide")
    rng = np.random.default_rng(1)
    letters = np.array(list("abcçdefgğhıijklmnoöprsştuüvyz"))
    words = {"".join(rng.choice(letters, size=int(n))) for n in rng.integers(5, 12, 90000)}
    (work / "types.tsv").write_text("".join(f"{w}\t1\n" for w in sorted(words)),
                                    encoding="utf-8")
    out = work / "tok"
    done = subprocess.run([morpheus_bin, "-q", "export-plain", "--segmenter", "bpe", "--words",
                           str(work / "types.tsv"), "--vocab-size", "66000", "--out", str(out)],
                          capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    return str(out)


def test_an_empty_document_is_a_zero_length_sequence_without_eos(megatron, morpheus_bin, tokdir,
                                                                 tok, tmp_path):
    # As Megatron's preprocess_data.py, which stores no sequence for it: no lone </s>.
    path = tmp_path / "e.txt"
    path.write_text("kitap\n\nev\n", encoding="utf-8")
    ds, docs = documents(megatron, pack(morpheus_bin, tokdir, tmp_path / "e", "--plain",
                                        "--append-eos", str(path)))
    assert docs == [tok.encode("kitap") + [tok.eos_id], [], tok.encode("ev") + [tok.eos_id]]
    assert ds.sequence_lengths.tolist()[1] == 0
