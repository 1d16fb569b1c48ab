# SPDX-License-Identifier: MIT
"""morpheus.Tokenizer in training pipelines: special tokens and user symbols, offsets, padded
batches as lists, numpy arrays and torch tensors, and the matching `morpheus encode` formats."""
import json
import os
import shutil
import subprocess
import sys

import pytest

import morpheus
from conftest import run_cli

NASTY = [
    "",
    "Kitaplarımızdan EVLERDE çocuk",
    "e\u0301 cafe\u0301s Ünlü",
    "👩🏽‍💻 ok 😀😀",
    "İSTANBUL ıiIİ İstanbul'da KİTAP",
    "Ankara'da 1990'larda 3,5 °C — «tamam»",
    "<s>kitap</s> <pad> x<sep>y",
    "KiTaP \u212a\t\r",
]


@pytest.fixture(scope="module")
def tok(tokdir):
    return morpheus.Tokenizer(tokdir)


def test_special_tokens_follow_the_pieces_with_their_roles(tok):
    assert tok.special_tokens == ["<pad>", "<s>", "</s>", "<mask>"]
    assert tok.user_symbols == ["<sep>"]
    first = tok.vocab_size - 5
    assert [tok.pad_id, tok.bos_id, tok.eos_id, tok.mask_id] == [first, first + 1, first + 2,
                                                                 first + 3]
    assert tok.piece_to_id("<sep>") == tok.vocab_size - 1
    assert tok.id_to_piece(tok.eos_id) == "</s>"


def test_special_strings_are_characters_and_user_symbols_are_matched(tok):
    text = "<s>kitap</s> <pad> x<sep>y"
    ids = tok.encode(text)
    assert not {tok.pad_id, tok.bos_id, tok.eos_id, tok.mask_id} & set(ids)
    assert ids.count(tok.piece_to_id("<sep>")) == 1
    assert tok.decode(ids) == text


def test_segment_cuts_user_symbols_as_encode_does(tok, tokdir, morpheus_bin):
    seg = tok.segment_text
    text = "Kitaplarımızdan<sep>evlerde x<sep>y"
    pieces = seg(text)
    assert pieces == (seg("Kitaplarımızdan") + ["<sep>"] + seg("evlerde x") + ["<sep>"]
                      + seg("y"))
    assert pieces.count("<sep>") == tok.encode(text).count(tok.piece_to_id("<sep>")) == 2
    cli = run_cli(morpheus_bin, "segment", "--model", tokdir, "--text", "-",
                  stdin=(text + "\n").encode())
    assert json.loads(cli) == pieces
    cli = run_cli(morpheus_bin, "segment", "--model", tokdir, "-", stdin=b"x<sep>y\n")
    assert cli.decode() == "x<sep>y\t" + " ".join(seg("x") + ["<sep>"] + seg("y")) + "\n"
    # Without the symbol the brackets are characters, as before.
    near = "Kitaplarımızdan<se p>evlerde"
    assert "<sep>" not in seg(near) and "".join(seg(near)) == near
    assert seg(near)[:len(seg("Kitaplarımızdan"))] == seg("Kitaplarımızdan")


def test_bos_eos_are_added_and_decode_skips_specials_by_default(tok):
    ids = tok.encode("Evlerde kitap", add_bos=True, add_eos=True)
    assert ids[0] == tok.bos_id and ids[-1] == tok.eos_id
    assert ids[1:-1] == tok.encode("Evlerde kitap")
    assert tok.decode(ids + [tok.pad_id]) == "Evlerde kitap"
    assert tok.decode(ids + [tok.pad_id], skip_special_tokens=False) == "<s>Evlerde kitap</s><pad>"
    assert tok.decode_batch([ids, [tok.mask_id]]) == ["Evlerde kitap", ""]


def check_offsets(tok, text, ids, offsets):
    """The spans tile `text` (byte tokens of one character share its span; case tokens, <s>, </s>
    are empty) and every prefix of the ids that ends a span decodes to the text up to there."""
    assert len(offsets) == len(ids)
    pos = 0
    for i, (begin, end) in enumerate(offsets):
        shared = i > 0 and begin < end and offsets[i - 1] == (begin, end) and ids[i] < 256
        assert begin == pos or shared, (text, i, offsets)
        pos = end
        last_of_span = i + 1 == len(ids) or offsets[i + 1] != (begin, end)
        if begin < end and last_of_span:
            assert tok.decode(ids[: i + 1]) == text[:end], (text, i)
    assert pos == len(text)


def test_offsets_tile_the_held_apart_sentences(tok, dev_lines):
    for line in dev_lines:
        ids = tok.encode(line)
        check_offsets(tok, line, ids, tok.offsets(line))


def test_offsets_tile_nasty_texts(tok):
    for text in NASTY:
        for ends in (False, True):
            ids = tok.encode(text, add_bos=ends, add_eos=ends)
            offsets = tok.offsets(text, add_bos=ends, add_eos=ends)
            check_offsets(tok, text, ids, offsets)
    raw = b"a\xff b\xe2\x82 c"
    offsets = tok.offsets(raw, allow_invalid=True)
    assert offsets[-1][1] == len(raw.decode("utf-8", "surrogateescape"))


def test_encode_batch_keeps_returning_lists_by_default(tok):
    texts = NASTY[1:4]
    assert tok.encode_batch(texts) == [tok.encode(t) for t in texts]
    assert tok.encode_batch(texts, 2, add_bos=True) == [tok.encode(t, add_bos=True) for t in texts]


def test_encode_batch_returns_a_mask_of_ones_with_unpadded_ids(tok):
    texts = NASTY[1:4] + [""]
    batch = tok.encode_batch(texts, add_eos=True, return_attention_mask=True)
    assert sorted(batch) == ["attention_mask", "input_ids"]
    assert batch["input_ids"] == [tok.encode(t, add_eos=True) for t in texts]
    assert batch["attention_mask"] == [[1] * len(ids) for ids in batch["input_ids"]]
    batch["attention_mask"][0].append(0)  # every row is a list of its own
    assert batch["attention_mask"][1] == [1] * len(batch["input_ids"][1])


def test_encode_batch_pads_to_the_longest_with_a_mask(tok):
    texts = ["Kitap", "Evlerimizde kitaplarımızdan okuduk.", ""]
    batch = tok.encode_batch(texts, padding=True, add_bos=True, add_eos=True, return_offsets=True)
    ids, mask, offsets = batch["input_ids"], batch["attention_mask"], batch["offsets"]
    plain = [tok.encode(t, add_bos=True, add_eos=True) for t in texts]
    longest = max(len(p) for p in plain)
    for row, m, off, want, text in zip(ids, mask, offsets, plain, texts):
        assert len(row) == len(m) == len(off) == longest
        assert row[: len(want)] == want and set(row[len(want):]) <= {tok.pad_id}
        assert m == [1] * len(want) + [0] * (longest - len(want))
        assert off[: len(want)] == tok.offsets(text, add_bos=True, add_eos=True)
        assert set(off[len(want):]) <= {(0, 0)}
    assert tok.decode_batch(ids) == texts


def test_encode_batch_truncates_and_pads_to_max_length(tok, dev_lines):
    texts = dev_lines[:20]
    batch = tok.encode_batch(texts, padding="max_length", max_length=12, truncation=True,
                             add_bos=True, add_eos=True)
    for row, m, text in zip(batch["input_ids"], batch["attention_mask"], texts):
        assert len(row) == len(m) == 12
        n = sum(m)
        want = tok.encode(text, add_bos=True)
        assert row[: n - 1] == want[: n - 1] and row[n - 1] == tok.eos_id
        assert n == min(12, len(want) + 1)


def test_return_tensors_np_and_pt(tok, dev_lines):
    import numpy as np
    import torch

    texts = dev_lines[:8]
    arrays = tok.encode_batch(texts, padding=True, return_tensors="np", return_offsets=True)
    lists = tok.encode_batch(texts, padding=True, return_offsets=True)
    assert arrays["input_ids"].dtype == np.int64
    assert arrays["input_ids"].tolist() == lists["input_ids"]
    assert arrays["attention_mask"].tolist() == lists["attention_mask"]
    assert arrays["offsets"].shape == (8, len(lists["input_ids"][0]), 2)
    assert [[tuple(s) for s in row] for row in arrays["offsets"].tolist()] == lists["offsets"]
    tensors = tok.encode_batch(texts, padding=True, return_tensors="pt")
    assert isinstance(tensors["input_ids"], torch.Tensor)
    assert tensors["input_ids"].dtype == torch.int64
    assert tensors["input_ids"].tolist() == lists["input_ids"]
    assert tok.decode(tensors["input_ids"][0]) == texts[0]  # tensors and arrays decode as lists
    assert tok.decode_batch(tensors["input_ids"]) == texts
    assert tok.decode_batch(arrays["input_ids"]) == texts


def test_torch_is_imported_only_for_pt(tokdir):
    code = (
        "import sys, morpheus\n"
        f"t = morpheus.Tokenizer({tokdir!r})\n"
        "t.encode_batch(['Kitap', 'Evlerde'], padding=True, return_tensors='np')\n"
        "print('torch' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    assert done.stdout.decode().strip() == "False"


def test_bad_batch_arguments_raise_value_error(tok):
    with pytest.raises(ValueError, match="padding"):
        tok.encode_batch(["a"], padding="both")
    with pytest.raises(ValueError, match="return_tensors"):
        tok.encode_batch(["a"], padding=True, return_tensors="tf")
    with pytest.raises(ValueError, match="needs max_length"):
        tok.encode_batch(["a"], truncation=True)
    with pytest.raises(ValueError, match="hint: pass padding=True"):
        tok.encode_batch(["a", "Evlerimizde kitaplar"], return_tensors="np")


def test_padding_without_a_pad_token_raises_with_a_hint(tokdir, tmp_path):
    copy = tmp_path / "nopad"
    shutil.copytree(tokdir, copy)
    with open(copy / "morpheus.json", encoding="utf-8") as f:
        config = json.load(f)
    config["special_tokens"] = ["<s>", "</s>", "<mask>", "<cls>"]
    with open(copy / "morpheus.json", "w", encoding="utf-8") as f:
        json.dump(config, f)
    with pytest.raises(RuntimeError, match="special_self_test"):
        morpheus.Tokenizer(copy)
    nopad = morpheus.Tokenizer(copy, self_test=False)
    assert nopad.pad_id == -1 and nopad.bos_id >= 0
    with pytest.raises(ValueError, match="no <pad>.*\nhint: export with --special-tokens"):
        nopad.encode_batch(["Kitap", "Evlerde"], padding=True)


def test_cli_json_and_piece_formats_match_python(tok, tokdir, morpheus_bin, dev_lines):
    path = os.environ["MORPHEUS_DEV_SENTENCES"]
    rows = run_cli(morpheus_bin, "encode", "--model", tokdir, "--output-format", "json",
                   "--add-bos", "--add-eos", path).decode().splitlines()
    pieces = run_cli(morpheus_bin, "encode", "--model", tokdir, "--output-format", "piece",
                     path).decode().splitlines()
    assert len(rows) == len(pieces) == len(dev_lines)
    for line, row, piece_line in zip(dev_lines[:300], rows, pieces):
        row = json.loads(row)
        assert row["ids"] == tok.encode(line, add_bos=True, add_eos=True)
        assert [tuple(o) for o in row["offsets"]] == tok.offsets(line, add_bos=True, add_eos=True)
        assert row["pieces"] == [tok.id_to_piece(i) for i in row["ids"]]
        escaped = [p.replace("\\", "\\\\").replace(" ", "\\s") for p in row["pieces"][1:-1]]
        assert piece_line.split(" ") == escaped


def test_cli_decode_keep_special_and_tokenizer_info(tok, tokdir, morpheus_bin):
    ids = tok.encode("Kitap", add_bos=True, add_eos=True)
    line = (" ".join(map(str, ids)) + "\n").encode()
    assert run_cli(morpheus_bin, "decode", "--model", tokdir, "-", stdin=line) == b"Kitap\n"
    kept = run_cli(morpheus_bin, "decode", "--model", tokdir, "--keep-special", "-", stdin=line)
    assert kept == b"<s>Kitap</s>\n"
    info = json.loads(run_cli(morpheus_bin, "tokenizer-info", "--model", tokdir))
    assert info["vocab_size"] == tok.vocab_size and info["format_version"] == 4
    assert [info["pad_id"], info["bos_id"], info["eos_id"], info["mask_id"]] == [
        tok.pad_id, tok.bos_id, tok.eos_id, tok.mask_id]
    assert info["user_symbols"] == ["<sep>"]


def test_cli_rejects_a_bad_output_format(tokdir, morpheus_bin):
    done = subprocess.run([morpheus_bin, "encode", "--model", tokdir, "--output-format", "xml",
                           "-"], input=b"kitap\n", capture_output=True, check=False)
    assert done.returncode == 2
    assert b"output-format" in done.stderr
