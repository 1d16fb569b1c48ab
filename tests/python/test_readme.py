# SPDX-License-Identifier: MIT
"""The Python example of README.md, run as it stands: the tokenizer directory it names becomes
the test tokenizer, and its corpus.txt the held-apart sentences; what it computes is checked
against encode, one text at a time."""
import pathlib

import pytest

import morpheus

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"
TOKDIR_IN_README = '"runs/main/tokenizer"'


def readme_example():
    text = README.read_text(encoding="utf-8")
    python = text[text.index("\n## Python\n"):]
    begin = python.index("```python\n") + len("```python\n")
    return python[begin:python.index("```", begin)]


@pytest.fixture(scope="module")
def example(tokdir, dev_lines, tmp_path_factory):
    """The namespace the example leaves behind, and the texts of its corpus.txt."""
    code = readme_example()
    assert TOKDIR_IN_README in code and '"corpus.txt"' in code, "README's example changed shape"
    texts = dev_lines[:150]
    work = tmp_path_factory.mktemp("readme")
    (work / "corpus.txt").write_text("\n".join(texts) + "\n", encoding="utf-8")
    namespace = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(work)
        exec(compile(code.replace(TOKDIR_IN_README, repr(tokdir)), str(README), "exec"), namespace)
    return namespace, texts


def expected_row(tok, text, max_length):
    """<s> + encode(text) + </s>, cut to max_length with </s> kept last."""
    ids = [tok.bos_id] + tok.encode(text) + [tok.eos_id]
    return ids if len(ids) <= max_length else ids[:max_length - 1] + [tok.eos_id]


def test_readme_example_round_trips_and_embeds(example):
    namespace, _ = example
    assert namespace["tok"].decode(namespace["ids"]) == "Kitaplarımızdan birini Ankara'da okudum."
    assert "".join(namespace["pieces"]) == "kitaplarımızdan"
    dim = morpheus.Embedder(namespace["tok"].path).dim
    assert namespace["vectors"].shape == (2, dim) and str(namespace["vectors"].dtype) == "float32"


def test_readme_batches_are_encode_under_the_mask(example):
    namespace, texts = example
    tok, torch, loader_batches = namespace["tok"], namespace["torch"], []
    loader = torch.utils.data.DataLoader(texts, batch_size=32, num_workers=2,
                                         collate_fn=namespace["collate"])
    for batch in loader:
        ids, mask = batch["input_ids"], batch["attention_mask"]
        assert ids.dtype == torch.int64 and ids.shape == mask.shape and ids.shape[1] <= 128
        loader_batches.append(batch)
        for row, row_mask in zip(ids.tolist(), mask.tolist()):
            n = sum(row_mask)
            assert row_mask == [1] * n + [0] * (len(row) - n)
            assert row[n:] == [tok.pad_id] * (len(row) - n)
    rows = [row[:sum(m)] for b in loader_batches
            for row, m in zip(b["input_ids"].tolist(), b["attention_mask"].tolist())]
    assert rows == [expected_row(tok, text, 128) for text in texts]
    assert len(loader_batches) == (len(texts) + 31) // 32


def test_readme_decode_batch_gives_back_the_last_texts(example):
    namespace, texts = example
    tok, last = namespace["tok"], namespace["batch"]
    assert len(namespace["texts"]) == last["input_ids"].shape[0] == (len(texts) % 32 or 32)
    tail = texts[-len(namespace["texts"]):]
    for text, decoded in zip(tail, namespace["texts"]):
        if len(expected_row(tok, text, 10**9)) <= 128:  # not truncated
            assert decoded == text
