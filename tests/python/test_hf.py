# SPDX-License-Identifier: MIT
"""morpheus.hf.MorpheusTokenizer (transformers) against morpheus.Tokenizer and the `morpheus`
CLI on the tiny tokenizer and the shared UD dev sentences, with the pinned transformers and
datasets of python/requirements.txt (run in .venv by venv_python.sh)."""
import json
import os
import pickle
import shutil
import subprocess
import sys

import datasets
import numpy as np
import pytest
from transformers import AutoTokenizer, DataCollatorForLanguageModeling

import morpheus
from morpheus import hf
from conftest import run_cli


@pytest.fixture(scope="module")
def hfdir(tokdir, tmp_path_factory):
    """A copy of the tokenizer directory with the files transformers reads, as `morpheus export`
    wrote them (write_hf_files finds nothing to change: test_hf_files_...)."""
    d = str(tmp_path_factory.mktemp("hf") / "tok")
    shutil.copytree(tokdir, d)
    for name in hf.HF_FILES:
        assert os.path.exists(os.path.join(d, name)), f"morpheus export wrote no {name}"
    return d


@pytest.fixture(scope="module")
def native(hfdir):
    return morpheus.Tokenizer(hfdir)


@pytest.fixture(scope="module")
def tok(hfdir):
    return AutoTokenizer.from_pretrained(hfdir)


@pytest.fixture(scope="module")
def lines(dev_lines):
    return [line for line in dev_lines if line]


def test_hf_files_leave_the_directory_loading_and_are_idempotent(hfdir, native, morpheus_bin,
                                                                lines):
    # The checksummed self-check of the directory passes with the three files in it.
    assert morpheus.Tokenizer(hfdir, self_test=True).encode(lines[0]) == native.encode(lines[0])
    cli = run_cli(morpheus_bin, "encode", "--model", hfdir, "-", stdin=lines[0].encode() + b"\n")
    assert [int(x) for x in cli.split()] == native.encode(lines[0])
    assert hf.write_hf_files(hfdir) == []
    with open(os.path.join(hfdir, hf.TOKENIZER_CONFIG_FILE), encoding="utf-8") as f:
        config = json.load(f)
    assert config["tokenizer_class"] == "MorpheusTokenizer"
    assert config["auto_map"]["AutoTokenizer"][0] == "morpheus_tokenizer.MorpheusTokenizer"


def test_module_command_writes_the_files(tokdir, tmp_path):
    d = str(tmp_path / "tok")
    shutil.copytree(tokdir, d, ignore=shutil.ignore_patterns(*hf.HF_FILES))
    done = subprocess.run([sys.executable, "-m", "morpheus", "hf-files", d], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert all(os.path.exists(os.path.join(d, name)) for name in hf.HF_FILES)
    assert AutoTokenizer.from_pretrained(d)("kitap")["input_ids"] == \
        morpheus.Tokenizer(d).encode("kitap")


def test_autotokenizer_ids_equal_morpheus_encode_on_the_dev_sentences(tok, native, lines):
    assert isinstance(tok, hf.MorpheusTokenizer)
    want = [native.encode(line) for line in lines]
    assert len(lines) > 1000
    assert tok(lines)["input_ids"] == want
    assert [tok(line)["input_ids"] for line in lines[:200]] == want[:200]
    assert tok.batch_decode(want) == lines
    for line, ids in zip(lines, want):
        assert tok.decode(ids) == line
    assert tok.encode(lines[0]) == want[0]


def test_plain_calls_equal_the_library_path(tok, hfdir, lines):
    # tok(texts) without truncation or pairs skips prepare_for_model; with truncation that cuts
    # nothing (only_second: a single text is never cut) it takes it: the same result.
    for t in (tok, AutoTokenizer.from_pretrained(hfdir, add_eos_token=True)):
        fast = t(lines[:300], return_offsets_mapping=t is tok)
        slow = t(lines[:300], truncation=True, max_length=10**6,
                 return_offsets_mapping=t is tok)
        assert dict(fast) == dict(slow)
        assert t(lines[0]) == t(lines[0], truncation=True, max_length=10**6)
        for padding in (dict(padding=True), dict(padding="max_length", max_length=400),
                        dict(padding=True, padding_side="left", pad_to_multiple_of=8)):
            kwargs = dict(return_offsets_mapping=t is tok, return_tensors="np", **padding)
            fast = t(lines[:50], **kwargs)
            slow = t(lines[:50], truncation="only_second", **kwargs)
            assert sorted(fast) == sorted(slow)
            assert all((fast[k] == slow[k]).all() for k in fast)
        assert t(lines[:3], add_special_tokens=False)["input_ids"] == \
            t(lines[:3], add_special_tokens=False, truncation=True, max_length=10**6)["input_ids"]


def test_autotokenizer_ids_equal_the_cli_ids(tok, hfdir, morpheus_bin, dev_lines):
    cli = run_cli(morpheus_bin, "encode", "--model", hfdir, os.environ["MORPHEUS_DEV_SENTENCES"])
    cli_ids = [[int(x) for x in line.split()] for line in cli.decode().splitlines()]
    assert tok(dev_lines)["input_ids"] == cli_ids


def test_save_pretrained_loads_back_with_the_same_ids(tok, native, lines, tmp_path):
    saved = tok.save_pretrained(str(tmp_path / "saved"))
    assert any(p.endswith("tokenizer_config.json") for p in saved)
    back = AutoTokenizer.from_pretrained(str(tmp_path / "saved"))
    assert isinstance(back, hf.MorpheusTokenizer)
    assert back(lines)["input_ids"] == tok(lines)["input_ids"]
    assert back.special_tokens_map == tok.special_tokens_map
    # The copy is a tokenizer directory in its own right (checksums and self-test).
    assert morpheus.Tokenizer(str(tmp_path / "saved")).encode(lines[3]) == native.encode(lines[3])
    with open(tmp_path / "saved" / "tokenizer_config.json", encoding="utf-8") as f:
        assert json.load(f)["auto_map"]["AutoTokenizer"][0] == \
            "morpheus_tokenizer.MorpheusTokenizer"


def test_remote_code_loads_without_importing_morpheus(hfdir, native, lines, tmp_path):
    # A fresh interpreter that never imports morpheus itself: trust_remote_code=True imports the
    # directory's morpheus_tokenizer.py; without it transformers refuses the custom code.
    script = f"""
import json, sys
from transformers import AutoTokenizer
assert "morpheus" not in sys.modules
try:
    AutoTokenizer.from_pretrained({hfdir!r})
    refused = False
except ValueError as e:
    refused = "trust_remote_code" in str(e)
tok = AutoTokenizer.from_pretrained({hfdir!r}, trust_remote_code=True)
tok.save_pretrained({str(tmp_path / "remote_saved")!r})
again = AutoTokenizer.from_pretrained({str(tmp_path / "remote_saved")!r}, trust_remote_code=True)
print("\\n" + json.dumps({{"refused": refused, "class": type(tok).__name__,
                   "ids": tok({lines[:20]!r})["input_ids"],
                   "again": again({lines[:20]!r})["input_ids"]}}))
"""
    env = dict(os.environ, HF_MODULES_CACHE=str(tmp_path / "modules"))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=False, env=env, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    want = [native.encode(line) for line in lines[:20]]
    assert out["refused"]
    assert out["class"] == "MorpheusTokenizer"
    assert out["ids"] == want
    assert out["again"] == want


def test_special_tokens_are_the_directory_s(tok, native):
    assert (tok.pad_token, tok.bos_token, tok.eos_token, tok.mask_token) == \
        ("<pad>", "<s>", "</s>", "<mask>")
    assert (tok.pad_token_id, tok.bos_token_id, tok.eos_token_id, tok.mask_token_id) == \
        (native.pad_id, native.bos_id, native.eos_id, native.mask_id)
    assert tok.unk_token is None and tok.unk_token_id is None
    assert sorted(tok.all_special_ids) == sorted(native.piece_to_id(s) if native.piece_to_id(s)
                                                  >= 0 else tok.convert_tokens_to_ids(s)
                                                  for s in native.special_tokens)


def test_vocabulary_lookups(tok, native, lines):
    assert len(tok) == tok.vocab_size == native.vocab_size
    vocab = tok.get_vocab()
    assert len(vocab) == native.vocab_size
    assert all(vocab[native.id_to_piece(i)] == i for i in range(native.vocab_size))
    ids = native.encode(lines[5])
    tokens = tok.convert_ids_to_tokens(ids)
    assert tokens == [native.id_to_piece(i) for i in ids]
    assert tok.tokenize(lines[5]) == tokens
    assert tok.convert_tokens_to_ids(tokens) == ids
    assert tok.convert_tokens_to_string(tokens) == lines[5]
    assert tok.convert_ids_to_tokens(ids[0]) == native.id_to_piece(ids[0])


def test_tokens_outside_the_vocabulary_are_refused(hfdir):
    fresh = AutoTokenizer.from_pretrained(hfdir)
    with pytest.raises(ValueError, match="not in the vocabulary"):
        fresh.add_tokens(["<not-in-the-vocabulary>"])
    assert fresh.add_special_tokens({"pad_token": "<pad>"}) == 0


def test_padding_truncation_and_masks_are_the_library_s(tok, native, lines):
    texts = lines[:16]
    ids = [native.encode(t) for t in texts]
    out = tok(texts, padding=True, truncation=True, max_length=12, return_tensors="np")
    longest = min(12, max(len(i) for i in ids))
    assert out["input_ids"].shape == out["attention_mask"].shape == (16, longest)
    for row, mask, want in zip(out["input_ids"], out["attention_mask"], ids):
        n = min(len(want), 12)
        assert row[:n].tolist() == want[:n]
        assert (row[n:] == native.pad_id).all()
        assert mask.tolist() == [1] * n + [0] * (longest - n)
    left = tok(texts, padding="max_length", max_length=64, padding_side="left")
    for row, mask, want in zip(left["input_ids"], left["attention_mask"], ids):
        assert len(row) == max(64, len(want))
        assert row[len(row) - len(want):] == want
        assert mask == [0] * (len(row) - len(want)) + [1] * len(want)
    multiple = tok(texts[:3], padding=True, pad_to_multiple_of=8, return_tensors="np")
    assert multiple["input_ids"].shape[1] % 8 == 0
    no_mask = tok(texts[:3], padding=True, return_attention_mask=False)
    assert "attention_mask" not in no_mask


def test_pad_is_the_library_s(tok, native, lines):
    features = [{"input_ids": native.encode(t)} for t in lines[:5]]
    out = tok.pad(features, return_tensors="np")
    longest = max(len(f["input_ids"]) for f in features)
    assert out["input_ids"].shape == (5, longest)
    assert out["attention_mask"].sum() == sum(len(f["input_ids"]) for f in features)


def test_a_tokenizer_without_pad_raises_at_padding(hfdir, lines):
    no_pad = AutoTokenizer.from_pretrained(hfdir)
    no_pad.pad_token = None
    assert no_pad.pad_token is None and no_pad.pad_token_id is None
    assert no_pad(lines[:2])["input_ids"]
    with pytest.raises(ValueError, match="padding token"):
        no_pad(lines[:2], padding=True)


def test_bos_eos_truncation_stride_and_overflow(hfdir, native, lines):
    t = AutoTokenizer.from_pretrained(hfdir, add_bos_token=True, add_eos_token=True)
    text = max(lines[:200], key=len)
    full = native.encode(text, add_bos=True, add_eos=True)
    assert t(text)["input_ids"] == full
    assert t.decode(full, skip_special_tokens=True) == text
    assert t.decode(full) == "<s>" + text + "</s>"
    cut = t(text, truncation=True, max_length=10)["input_ids"]
    assert cut == full[:9] + [native.eos_id]  # the library keeps </s> last
    plain = native.encode(text)
    over = t(text, truncation=True, max_length=10, stride=3, return_overflowing_tokens=True)
    assert over["input_ids"] == [native.bos_id] + plain[:8] + [native.eos_id]
    assert over["overflowing_tokens"] == plain[8 - 3:]
    # The setting is saved and loaded back.
    assert t.init_kwargs["add_eos_token"] is True
    assert t.num_special_tokens_to_add() == 2


def test_pairs_and_token_type_ids(tok, native, lines):
    a, b = lines[10], lines[11]
    out = tok(a, b, return_token_type_ids=True, return_special_tokens_mask=True)
    assert out["input_ids"] == native.encode(a) + native.encode(b)
    assert out["token_type_ids"] == [0] * len(native.encode(a)) + [1] * len(native.encode(b))
    batch = tok([(a, b), (b, a)], padding=True, truncation="only_second", max_length=20)
    assert batch["input_ids"][0][:min(20, len(native.encode(a)))] == native.encode(a)[:20]
    assert all(len(row) == len(batch["input_ids"][0]) for row in batch["input_ids"])


def test_offsets_index_the_text(tok, native, lines):
    texts = lines[:300]
    out = tok(texts, return_offsets_mapping=True)
    for text, ids, offsets in zip(texts, out["input_ids"], out["offset_mapping"]):
        assert ids == native.encode(text)
        assert offsets == native.offsets(text)
        assert all(0 <= b <= e <= len(text) for b, e in offsets)
        # The pieces' spans cover the text in order (case tokens are empty; a character cut
        # into byte tokens is covered by each of them).
        covered = "".join(text[b:e] for i, (b, e) in enumerate(offsets)
                          if e > b and (i == 0 or offsets[i - 1] != (b, e)))
        assert covered == text
    padded = tok(texts[:8], return_offsets_mapping=True, padding=True, truncation=True,
                 max_length=10, padding_side="left", return_tensors="np")
    assert padded["offset_mapping"].shape == padded["input_ids"].shape + (2,)
    for text, row, mask in zip(texts[:8], padded["offset_mapping"], padded["attention_mask"]):
        n = int(mask.sum())
        assert row[:len(row) - n].tolist() == [[0, 0]] * (len(row) - n)
        assert [tuple(x) for x in row[len(row) - n:].tolist()] == native.offsets(text)[:n]
    a, b = texts[0], texts[1]
    pair = tok(a, b, return_offsets_mapping=True)
    assert pair["offset_mapping"] == native.offsets(a) + native.offsets(b)


def test_split_into_words(tok, native):
    words = ["Kitaplarımızdan", "birini", "okudum."]
    out = tok(words, is_split_into_words=True, return_offsets_mapping=True)
    assert out["input_ids"] == [i for w in words for i in native.encode(w)]
    assert out["offset_mapping"] == [o for w in words for o in native.offsets(w)]


def test_data_collator_for_causal_lm(tok, native, lines):
    collator = DataCollatorForLanguageModeling(tok, mlm=False, return_tensors="np")
    features = [tok(t) for t in lines[:8]]
    batch = collator(features)
    longest = max(len(native.encode(t)) for t in lines[:8])
    assert batch["input_ids"].shape == batch["labels"].shape == (8, longest)
    for row, labels, text in zip(batch["input_ids"], batch["labels"], lines[:8]):
        n = len(native.encode(text))
        assert row[:n].tolist() == native.encode(text)
        assert labels[:n].tolist() == native.encode(text)
        assert (labels[n:] == -100).all()


def _pid_batch(batch):
    return {"pid": [os.getpid()] * len(batch["text"])}


def test_datasets_map_in_two_processes(tok, native, lines):
    ds = datasets.Dataset.from_dict({"text": lines[:400]})
    out = ds.map(lambda b: tok(b["text"]), batched=True, batch_size=50, num_proc=2,
                 remove_columns=["text"])
    assert out["input_ids"] == [native.encode(t) for t in lines[:400]]
    pids = ds.map(_pid_batch, batched=True, batch_size=50, num_proc=2)["pid"]
    assert len(set(pids)) == 2 and os.getpid() not in pids


def test_pickles_and_opens_again(tok, lines):
    back = pickle.loads(pickle.dumps(tok))
    assert back is not tok
    assert back(lines[:50])["input_ids"] == tok(lines[:50])["input_ids"]
    assert back.decode(back(lines[0])["input_ids"]) == lines[0]


def test_numpy_ids_decode(tok, native, lines):
    ids = np.array(native.encode(lines[2]), dtype=np.int64)
    assert tok.decode(ids) == lines[2]


def test_readme_example_runs(hfdir, native, lines, tmp_path, monkeypatch):
    # README.md's transformers example as it stands, on the test tokenizer and dev sentences.
    import pathlib

    text = (pathlib.Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = text[text.index("\n### Hugging Face transformers\n"):]
    begin = section.index("```python\n") + len("```python\n")
    code = section[begin:section.index("```", begin)]
    assert '"runs/main/tokenizer"' in code and '"corpus.txt"' in code
    (tmp_path / "corpus.txt").write_text("\n".join(lines[:40]) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    namespace = {}
    exec(compile(code.replace('"runs/main/tokenizer"', repr(hfdir)), "README.md", "exec"),
         namespace)
    batch = namespace["batch"]
    assert batch["input_ids"].shape[0] == 32
    for row, labels, text in zip(batch["input_ids"], batch["labels"], lines[:32]):
        want = native.encode(text, add_eos=True)[:1024]
        assert row[:len(want)].tolist() == want
        assert (labels[len(want):] == -100).all()


def test_user_symbols_and_threads(hfdir, native, lines):
    two = AutoTokenizer.from_pretrained(hfdir, threads=2)
    assert two(lines)["input_ids"] == [native.encode(t) for t in lines]
    text = "kitap <sep> ev <s>"  # a user symbol is matched, a special token string is text
    assert two(text)["input_ids"] == native.encode(text)
    assert two.convert_tokens_to_ids("<sep>") in two(text)["input_ids"]
    assert two.decode(two(text)["input_ids"]) == text
