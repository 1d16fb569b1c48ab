# SPDX-License-Identifier: MIT
"""morpheus.Tokenizer against the `morpheus` command line on the same tokenizer directory."""
import os

import pytest

import morpheus
from conftest import run_cli


@pytest.fixture(scope="module")
def tok(tokdir):
    return morpheus.Tokenizer(tokdir)


def test_encode_equals_cli_ids_and_decodes_back(tok, tokdir, morpheus_bin, dev_lines):
    cli = run_cli(morpheus_bin, "encode", "--model", tokdir, os.environ["MORPHEUS_DEV_SENTENCES"])
    cli_ids = [[int(x) for x in line.split()] for line in cli.decode().splitlines()]
    assert len(cli_ids) == len(dev_lines) > 1000
    for line, want in zip(dev_lines, cli_ids):
        ids = tok.encode(line)
        assert ids == want, line
        assert tok.decode(ids) == line


def test_encode_batch_two_threads_equals_sequential(tok, dev_lines):
    sequential = [tok.encode(line) for line in dev_lines]
    assert tok.encode_batch(dev_lines, threads=2) == sequential
    assert tok.encode_batch(dev_lines) == sequential


def test_new_words_go_to_the_engine_in_process(tokdir):
    fresh = morpheus.Tokenizer(tokdir)
    text = "Zqxwvzqxwlarımızdan kuşkulandık"
    assert fresh.decode(fresh.encode(text)) == text
    assert fresh.model_runs >= 1


def test_new_words_cut_as_the_cli_cuts_them_at_any_thread_count(tokdir, morpheus_bin):
    words = ["zqxwvzqxwlarımızdan", "qwxzvyqlerimizde", "xqzvwyların", "kuşkulandıklarımız"]
    cli = run_cli(morpheus_bin, "segment", "--model", tokdir, "-",
                  stdin="\n".join(words).encode() + b"\n")
    want = [line.split("\t")[1].split(" ") for line in cli.decode().splitlines()]
    for threads in (1, 2, 3):
        tok = morpheus.Tokenizer(tokdir, threads=threads)
        tok.encode_batch(words[::-1])  # the model sees the words in another order and batch
        assert [tok.segment(w) for w in words] == want, threads


def test_a_device_other_than_the_cpu_raises_value_error(tokdir):
    with pytest.raises(ValueError, match="runs on the CPU.*\nhint: .*--device cuda"):
        morpheus.Tokenizer(tokdir, device="cuda")


def test_segment_equals_cli(tok, tokdir, morpheus_bin):
    words = ["Kitaplarımızdan", "evlerimizde", "İstanbul'da", "gelemeyeceklermiş"]
    cli = run_cli(morpheus_bin, "segment", "--model", tokdir, "-",
                  stdin="\n".join(words).encode() + b"\n")
    for word, line in zip(words, cli.decode().splitlines()):
        cli_word, pieces = line.split("\t")
        assert cli_word == word
        assert tok.segment(word) == pieces.split(" ")


def test_segment_text_pieces_concatenate_to_the_text(tok):
    text = 'Ev  "a b" Kitaplarımızdan 2024\'te.'
    pieces = tok.segment_text(text)
    assert "".join(pieces) == text
    assert pieces[:3] == ["Ev", "  ", '"']


def test_pieces_and_ids_map_both_ways(tok):
    assert tok.vocab_size > 259  # byte tokens, 3 case tokens, pieces
    assert tok.id_to_piece(256) == "<cap>"
    assert tok.id_to_piece(0x41) == "<0x41>"
    for i in range(259, tok.vocab_size, 7):
        assert tok.piece_to_id(tok.id_to_piece(i)) == i
    assert tok.piece_to_id("no such piece") == -1


def test_invalid_utf8_raises_with_byte_offset_unless_allowed(tok):
    with pytest.raises(ValueError, match="invalid UTF-8 at byte 3"):
        tok.encode(b"abc\xff")
    ids = tok.encode(b"abc\xff", allow_invalid=True)
    assert tok.decode_bytes(ids) == b"abc\xff"
    with pytest.raises(ValueError, match="decode_bytes"):
        tok.decode(ids)


def test_bad_ids_raise_value_error_with_message_and_hint(tok):
    message = rf"id 999999 at position 1 is outside \[0, {tok.vocab_size}\)"
    with pytest.raises(ValueError, match=message):
        tok.decode([300, 999999])
    with pytest.raises(ValueError, match="hint: decode ids produced by the same model"):
        tok.decode([-1])
    with pytest.raises(ValueError, match="outside"):
        tok.id_to_piece(tok.vocab_size)


def test_missing_directory_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="no morpheus.json in .*\nhint: --model takes"):
        morpheus.Tokenizer(tmp_path / "nothing")


def test_directory_with_the_older_config_name_loads(tok, tokdir, tmp_path, dev_lines):
    import shutil

    copy = tmp_path / "older"
    shutil.copytree(tokdir, copy)
    os.rename(copy / "morpheus.json", copy / "tokenizer.json")
    older = morpheus.Tokenizer(copy)
    for line in dev_lines[:200]:
        assert older.encode(line) == tok.encode(line), line


def test_damaged_table_raises_data_loss(tokdir, tmp_path):
    import shutil

    copy = tmp_path / "tok"
    shutil.copytree(tokdir, copy)
    with open(copy / "segments.bin", "r+b") as f:
        f.seek(40)
        byte = f.read(1)
        f.seek(40)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(RuntimeError, match="does not match the checksum"):
        morpheus.Tokenizer(copy)


def test_directory_without_engine_weights_raises_with_the_upgrade_hint(tokdir, tmp_path):
    import json
    import shutil

    copy = tmp_path / "older"
    shutil.copytree(tokdir, copy)
    config = json.load(open(copy / "morpheus.json"))
    del config["files"]["model.weights"]
    json.dump(config, open(copy / "morpheus.json", "w"))
    os.remove(copy / "model.weights")
    tok = morpheus.Tokenizer(copy)  # loads: its self-test needs the table only
    word = open(copy / "words.tsv", encoding="utf-8").readline().split("\t")[0]
    assert tok.decode(tok.encode(word)) == word and tok.model_runs == 0  # a table word
    with pytest.raises(RuntimeError, match="no model.weights.*\nhint: .*morpheus upgrade"):
        tok.encode("zqxwvzqxw")


NEW_WORDS = ["Zqxwvzqxwlarımızdan kuşkulandık.", "Qwxzvyqlerimizde ve Xqzvwyların evi"]


def test_cache_file_is_written_and_serves_a_second_tokenizer(tokdir, morpheus_bin, tmp_path):
    cache = tmp_path / "runs.cache"
    first = morpheus.Tokenizer(tokdir, cache_file=cache)
    assert first.cache_file == str(cache)
    want = first.encode_batch(NEW_WORDS)
    assert first.model_runs >= 2
    with pytest.raises(RuntimeError, match="being written by another process"):
        morpheus.Tokenizer(tokdir, cache_file=cache)  # the file is locked while `first` lives
    del first  # closes (and unlocks) the file
    dump = run_cli(morpheus_bin, "cache", "dump", str(cache)).decode().splitlines()
    runs = {line.split("\t")[0] for line in dump}
    assert {"zqxwvzqxwlarımızdan", "qwxzvyqlerimizde"} <= runs
    size = cache.stat().st_size
    # The cache file answers before the model is asked.
    second = morpheus.Tokenizer(tokdir, cache_file=cache)
    assert second.encode_batch(NEW_WORDS) == want
    assert [second.encode(text) for text in NEW_WORDS] == want
    assert second.model_runs == 0 and second.cache_file_hits >= 2
    del second
    assert cache.stat().st_size == size  # nothing new to append


def test_cache_file_of_the_cli_serves_the_python_tokenizer(tokdir, morpheus_bin, tmp_path):
    cache = tmp_path / "cli.cache"
    cli = run_cli(morpheus_bin, "encode", "--model", tokdir, "--cache-file", str(cache), "-",
                  stdin="\n".join(NEW_WORDS).encode() + b"\n")
    cli_ids = [[int(x) for x in line.split()] for line in cli.decode().splitlines()]
    tok = morpheus.Tokenizer(tokdir, cache_file=cache)
    assert [tok.encode(text) for text in NEW_WORDS] == cli_ids
    assert tok.model_runs == 0


def test_cache_file_in_a_missing_directory_raises_os_error(tokdir, tmp_path):
    with pytest.raises(OSError, match="cannot open the cache file"):
        morpheus.Tokenizer(tokdir, cache_file=tmp_path / "no" / "such.cache")
