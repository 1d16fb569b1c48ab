# SPDX-License-Identifier: MIT
"""morpheus.Embedder against `morpheus embed` on the same tokenizer directory."""
import numpy as np
import pytest

import morpheus
from conftest import run_cli


@pytest.fixture(scope="module")
def embedder(tokdir):
    return morpheus.Embedder(tokdir)


def words_of(dev_lines, n):
    words = []
    for line in dev_lines:
        for w in line.split():
            if w not in words:
                words.append(w)
        if len(words) >= n:
            return words[:n]
    return words


def test_embed_equals_cli_npy(embedder, tokdir, morpheus_bin, dev_lines, tmp_path):
    words = words_of(dev_lines, 300) + ["Kitaplarımızdan", "zqxwvzqxw"]
    (tmp_path / "words.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    out = tmp_path / "e.npy"
    run_cli(morpheus_bin, "embed", "--model", tokdir, "--words", str(tmp_path / "words.txt"),
            "--out", str(out))
    want = np.load(out)
    got = embedder.embed(words)
    assert got.dtype == np.float32
    assert got.shape == want.shape == (len(words), embedder.dim)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)


def test_small_batches_give_the_same_rows(tokdir, embedder, dev_lines):
    words = words_of(dev_lines, 50)
    small = morpheus.Embedder(tokdir, batch_size=7)
    np.testing.assert_allclose(small.embed(words), embedder.embed(words), rtol=0, atol=1e-6)


def test_empty_list_gives_zero_rows(embedder):
    assert embedder.embed([]).shape == (0, embedder.dim)


def test_a_device_other_than_the_cpu_raises_value_error(tokdir):
    for device in ("tpu", "auto", "cuda", "cuda:0"):
        with pytest.raises(ValueError, match="runs on the CPU.*\nhint: .*embed --device cuda"):
            morpheus.Embedder(tokdir, device=device)


def test_rows_do_not_depend_on_threads_or_neighbours(tokdir, embedder, dev_lines):
    words = words_of(dev_lines, 80)
    want = embedder.embed(words)
    two = morpheus.Embedder(tokdir, threads=2, batch_size=13)
    np.testing.assert_array_equal(two.embed(words[::-1])[::-1], want)
    assert embedder.device == "cpu"


def test_missing_directory_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="no morpheus.json"):
        morpheus.Embedder(str(tmp_path / "nothing"))


def test_parts_are_columns_of_the_full_row(embedder, dev_lines):
    words = words_of(dev_lines, 40)
    full = embedder.embed(words)
    names = [p["name"] for p in embedder.parts]
    assert names == ["root", "inflection"] or names == ["full"]
    assert sum(p["dim"] for p in embedder.parts) == embedder.dim
    for p in embedder.parts:
        got = embedder.embed(words, part=p["name"])
        np.testing.assert_array_equal(got, full[:, p["offset"] : p["offset"] + p["dim"]])
    np.testing.assert_array_equal(embedder.embed(words, part="full"), full)


def test_unknown_part_names_the_parts(embedder):
    with pytest.raises(ValueError, match='no embedding part "stem".*\nhint: .*full'):
        embedder.embed(["ev"], part="stem")
