# SPDX-License-Identifier: MIT
"""`morpheus pack` and morpheus.pack / morpheus.read_pack on the tiny tokenizer.

The token files are read here by readers written from the formats' published descriptions
(Megatron-LM's indexed dataset, llm.c's data file, NumPy's .npy), with struct alone: every
document's ids must be what `morpheus encode` prints for its text (+ </s>), and decode to the
text exactly."""
import json
import os
import struct
import subprocess

import pytest

import morpheus
from conftest import run_cli

TEXTS = [
    "Kitaplarımızdan birini İstanbul'da okudum.",
    "Evlerimizde  kitaplar\tvar.",
    "",
    "  İSTANBUL’da IĞDIR ılık 🙂👩‍👩‍👧 ǅemal 123,45",
    "Αθήνα Москва 東京 عربي é",
    "zqxwvzqxwlarımızdan kuşkulandıklarımız gelemeyeceklermiş",
    "   ",
    "Bir belge\niki satır\n\nve boş satır.",
    "Son satır\r\nCRLF ile",
]


# --- Independent readers: from the formats' descriptions, not from the writer's code. -------

def u64(data, at):
    return struct.unpack_from("<Q", data, at)[0]


def read_megatron(prefix):
    """Megatron-LM indexed dataset (megatron/core/datasets/indexed_dataset.py): PREFIX.idx =
    b"MMIDIDX\\x00\\x00", <Q version 1, <B dtype code, <Q sequence count, <Q document count, then
    int32 lengths, int64 byte pointers into PREFIX.bin, int64 document indices."""
    idx = open(prefix + ".idx", "rb").read()
    assert idx[:9] == b"MMIDIDX\x00\x00"
    assert u64(idx, 9) == 1
    code = idx[17]
    fmt, width = {8: ("H", 2), 4: ("i", 4)}[code]
    n, d = u64(idx, 18), u64(idx, 26)
    assert d == n + 1
    at = 34
    lengths = struct.unpack_from(f"<{n}i", idx, at)
    pointers = struct.unpack_from(f"<{n}q", idx, at + 4 * n)
    doc_index = struct.unpack_from(f"<{d}q", idx, at + 12 * n)
    assert len(idx) == at + 12 * n + 8 * d
    assert list(doc_index) == list(range(n + 1))
    binary = open(prefix + ".bin", "rb").read()
    docs = []
    for length, pointer in zip(lengths, pointers):
        docs.append(list(struct.unpack_from(f"<{length}{fmt}", binary, pointer)))
    assert sum(lengths) * width == len(binary)
    return docs, {8: "uint16", 4: "int32"}[code]


def read_llmc_tokens(prefix):
    """llm.c data file (dev/data/data_common.py write_datafile): 256 int32 header, [0] magic
    20240520 (uint16 tokens, version 1) or 20240801 (uint32, version 7), [2] token count."""
    data = open(prefix + ".bin", "rb").read()
    header = struct.unpack_from("<256i", data, 0)
    fmt, width, version = {20240520: ("H", 2, 1), 20240801: ("I", 4, 7)}[header[0]]
    assert header[1] == version
    assert all(h == 0 for h in header[3:])
    count = header[2]
    assert len(data) == 1024 + count * width
    return list(struct.unpack_from(f"<{count}{fmt}", data, 1024))


def split_after(tokens, eos):
    docs, doc = [], []
    for t in tokens:
        doc.append(t)
        if t == eos:
            docs.append(doc)
            doc = []
    assert doc == []
    return docs


def read_npy_array(path):
    """NumPy .npy 1.0/2.0: magic, version, header length, a dict literal; C-order 1-D data."""
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY"
    if data[6] == 1:
        length, start = struct.unpack_from("<H", data, 8)[0], 10
    else:
        length, start = struct.unpack_from("<I", data, 8)[0], 12
    header = eval(data[start:start + length].decode("latin1"))  # a Python literal by definition
    assert header["fortran_order"] is False and len(header["shape"]) == 1
    fmt = {"<u2": "H", "<i4": "i", "<u4": "I", "<i8": "q"}[header["descr"]]
    (count,) = header["shape"]
    return list(struct.unpack_from(f"<{count}{fmt}", data, start + length)), header["descr"]


def read_npy(prefix):
    tokens, descr = read_npy_array(prefix + ".npy")
    offsets, odescr = read_npy_array(prefix + ".idx.npy")
    assert odescr == "<i8" and offsets[0] == 0 and offsets[-1] == len(tokens)
    return [tokens[b:e] for b, e in zip(offsets, offsets[1:])], descr


# --- Fixtures ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "docs.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for i, t in enumerate(TEXTS):
            f.write(json.dumps({"id": i, "text": t}, ensure_ascii=i % 2 == 0) + "\n")
    return str(path)


@pytest.fixture(scope="module")
def tok(tokdir):
    return morpheus.Tokenizer(tokdir)


@pytest.fixture(scope="module")
def cli_ids(tokdir, morpheus_bin, tmp_path_factory):
    """`morpheus encode` of every one-line text, by text."""
    one_line = [t for t in TEXTS if "\n" not in t and "\r" not in t]
    path = tmp_path_factory.mktemp("lines") / "lines.txt"
    path.write_text("".join(t + "\n" for t in one_line), encoding="utf-8")
    out = run_cli(morpheus_bin, "encode", "--model", tokdir, str(path)).decode()
    lines = out.split("\n")[:-1]
    assert len(lines) == len(one_line)
    return {t: [int(x) for x in line.split()] for t, line in zip(one_line, lines)}


def cli_pack(morpheus_bin, tokdir, out, *args):
    run_cli(morpheus_bin, "pack", "--model", tokdir, "--out", str(out), *args)
    return str(out)


def pack_ids(tok, text, eos=True, fmt="megatron"):
    """A document's ids in a pack: its encode ids (+ </s>); an empty document stays empty in
    megatron and npy packs (no lone </s>, as Megatron's preprocess_data.py) and is </s> alone
    in an llmc file (which has no index)."""
    return [] if text == "" and fmt != "llmc" else tok.encode(text, add_eos=eos)


def check_documents(docs, tok, cli_ids, eos=True, fmt="megatron"):
    assert len(docs) == len(TEXTS)
    for text, ids in zip(TEXTS, docs):
        ids = [int(i) for i in ids]
        want = pack_ids(tok, text, eos, fmt)
        assert ids == want, text
        if text in cli_ids and text:
            assert ids == cli_ids[text] + ([tok.eos_id] if eos else []), text
        assert tok.decode(ids) == text


# --- Tests --------------------------------------------------------------------------------------

def test_megatron_files_read_back_to_the_encode_ids(tmp_path, morpheus_bin, tokdir, corpus, tok,
                                                    cli_ids):
    prefix = cli_pack(morpheus_bin, tokdir, tmp_path / "m", "--append-eos", corpus)
    docs, dtype = read_megatron(prefix)
    assert dtype == "uint16"  # 2000 ids
    check_documents(docs, tok, cli_ids)


def test_llmc_file_reads_back_to_the_encode_ids(tmp_path, morpheus_bin, tokdir, corpus, tok,
                                                cli_ids):
    prefix = cli_pack(morpheus_bin, tokdir, tmp_path / "l", "--format", "llmc", "--append-eos",
                      corpus)
    docs = split_after(read_llmc_tokens(prefix), tok.eos_id)
    check_documents(docs, tok, cli_ids, fmt="llmc")


def test_npy_arrays_read_back_to_the_encode_ids(tmp_path, morpheus_bin, tokdir, corpus, tok,
                                                cli_ids):
    prefix = cli_pack(morpheus_bin, tokdir, tmp_path / "n", "--format", "npy", corpus)
    docs, descr = read_npy(prefix)
    assert descr == "<u2"
    check_documents(docs, tok, cli_ids, eos=False)


def test_manifest_describes_the_pack(tmp_path, morpheus_bin, tokdir, corpus, tok):
    prefix = cli_pack(morpheus_bin, tokdir, tmp_path / "m", "--append-eos", corpus)
    m = json.load(open(prefix + ".json"))
    assert m["format"] == "megatron" and m["dtype"] == "uint16"
    assert m["vocab_size"] == tok.vocab_size
    assert m["special_ids"]["eos"] == tok.eos_id
    assert m["documents"] == len(TEXTS)
    assert m["tokens"] == sum(len(pack_ids(tok, t)) for t in TEXTS)
    assert m["characters"] == sum(len(t) for t in TEXTS)
    assert m["inputs"][0]["path"] == corpus
    assert m["inputs"][0]["bytes"] == os.path.getsize(corpus)
    assert m["options"]["append_eos"] is True
    assert sorted(f["name"] for f in m["files"]) == ["m.bin", "m.idx"]


@pytest.mark.parametrize("fmt", ["megatron", "llmc", "npy"])
def test_read_pack_equals_the_independent_readers(tmp_path, morpheus_bin, tokdir, corpus, fmt):
    prefix = cli_pack(morpheus_bin, tokdir, tmp_path / fmt, "--format", fmt, "--append-eos",
                      corpus)
    docs = morpheus.read_pack(prefix)
    if fmt == "megatron":
        want, _ = read_megatron(prefix)
    elif fmt == "llmc":
        want = split_after(read_llmc_tokens(prefix), json.load(open(prefix + ".json"))
                           ["special_ids"]["eos"])
    else:
        want, _ = read_npy(prefix)
    assert [d.tolist() for d in docs] == want
    assert all(d.dtype.itemsize == 2 for d in docs)


def test_python_pack_equals_the_cli_pack_byte_for_byte(tmp_path, morpheus_bin, tokdir, corpus):
    cli = cli_pack(morpheus_bin, tokdir, tmp_path / "cli", "--append-eos", corpus)
    m = morpheus.pack(tokdir, corpus, tmp_path / "py", append_eos=True, workers=2, block_docs=3)
    assert m["documents"] == len(TEXTS)
    for ext in (".bin", ".idx"):
        assert open(cli + ext, "rb").read() == open(str(tmp_path / "py") + ext, "rb").read()


def test_python_shards_merge_to_the_unsharded_pack(tmp_path, tokdir, corpus):
    whole = tmp_path / "whole"
    morpheus.pack(tokdir, [corpus, corpus], whole, format="npy", append_eos=True)
    parts = [morpheus.pack(tokdir, [corpus, corpus], tmp_path / f"s{i}", format="npy",
                           append_eos=True, shard=(i, 3)) for i in range(3)]
    assert sum(p["documents"] for p in parts) == 2 * len(TEXTS)
    merged = morpheus.merge_packs([tmp_path / f"s{i}" for i in (2, 0, 1)], tmp_path / "m")
    assert merged["documents"] == 2 * len(TEXTS)
    for ext in (".npy", ".idx.npy"):
        assert open(str(whole) + ext, "rb").read() == open(str(tmp_path / "m") + ext, "rb").read()


def test_plain_lines_pack_one_document_per_line(tmp_path, tokdir, tok):
    path = tmp_path / "lines.txt"
    path.write_text("bir satır\n\nüç\n", encoding="utf-8")
    morpheus.pack(tokdir, path, tmp_path / "p", plain=True, format="npy")
    docs = morpheus.read_pack(tmp_path / "p")
    assert [d.tolist() for d in docs] == [tok.encode("bir satır"), [], tok.encode("üç")]


def test_python_pack_error_raises_with_the_file_and_line(tmp_path, tokdir):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": "a"}\n{"text": 3}\n', encoding="utf-8")
    with pytest.raises(RuntimeError, match=r"bad.jsonl:2: .*\"text\" is a number"):
        morpheus.pack(tokdir, path, tmp_path / "p")
    assert not os.path.exists(str(tmp_path / "p") + ".json")
    assert sorted(os.listdir(tmp_path)) == ["bad.jsonl"]


def test_skip_invalid_counts_in_the_manifest(tmp_path, tokdir):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"text": "a"}\n{"text": "\xff"}\nnot json\n{"text": "b"}\n')
    m = morpheus.pack(tokdir, path, tmp_path / "p", skip_invalid=True)
    assert (m["documents"], m["skipped_invalid"], m["skipped_documents"]) == (2, 2, [2, 3])


def test_cli_bad_input_exits_1_with_the_line(tmp_path, morpheus_bin, tokdir):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"text": "a"}\n{"text": "b\xc3("}\n')
    done = subprocess.run([morpheus_bin, "pack", "--model", tokdir, "--out", str(tmp_path / "p"),
                           str(path)], capture_output=True, check=False)
    assert done.returncode == 1
    err = done.stderr.decode()
    assert "bad.jsonl:2: " in err and "hint:" in err, err
