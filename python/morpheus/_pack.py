# SPDX-License-Identifier: MIT
"""``morpheus.pack`` and ``morpheus.read_pack``: corpora to the token files LM trainers read
(``morpheus pack``), and those files back to one NumPy array of ids per document.

``pack`` runs the ``morpheus`` binary of this copy of the package (``morpheus.binary``) with the
options of ``morpheus pack`` and returns the manifest it wrote (PREFIX.json) as a dict; a failure
raises RuntimeError with the command's message and hint. ``merge_packs`` runs ``morpheus pack
merge``. ``read_pack`` reads the files of the format the manifest names:

* megatron: PREFIX.idx ("MMIDIDX\\x00\\x00", version, dtype code, counts, int32 lengths, int64
  byte pointers, int64 document indices) over the tokens of PREFIX.bin;
* llmc: PREFIX.bin (256 int32 header: magic, version, token count; then the tokens), cut after
  each </s> (packed with append_eos) or before each <s> (prepend_bos);
* npy: PREFIX.npy (the tokens) and PREFIX.idx.npy (N + 1 int64 offsets).
"""
import json as _json
import os as _os
import subprocess as _subprocess

_MEGATRON_DTYPES = {4: "<i4", 8: "<u2"}
_LLMC_DTYPES = {20240520: "<u2", 20240801: "<u4"}


def _flag_args(options):
    args = []
    for name, value in options:
        flag = "--" + name.replace("_", "-")
        if value is True:
            args.append(flag)
        elif value is not None and value is not False:
            args += [flag, str(value)]
    return args


def _run(args):
    from . import binary

    exe = binary("morpheus")
    if not exe:
        raise RuntimeError("the morpheus binary of this package is missing\n"
                           "hint: build the project (scripts/build.sh) or reinstall the package")
    done = _subprocess.run([exe, "-q", *args], capture_output=True, check=False)
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError(message or f"morpheus {args[0]} failed with exit code {done.returncode}")


def _manifest(prefix):
    with open(_os.fspath(prefix) + ".json", encoding="utf-8") as f:
        return _json.load(f)


def pack(model, inputs, out, format="megatron", jsonl_key="text", plain=False, append_eos=False,
         prepend_bos=False, workers=1, shard=None, cache_file=None, skip_invalid=False,
         block_docs=None, model_threads=None, device=None):
    """Packs ``inputs`` (a path or a list of paths: JSONL, or text lines with ``plain=True``; .gz
    and .zst are decompressed) with the tokenizer directory ``model`` into the token files at
    prefix ``out``, as ``morpheus pack`` does with the same options (``shard``: "i/n" or a pair
    (i, n)). Returns the manifest (PREFIX.json) as a dict."""
    if isinstance(inputs, (str, bytes, _os.PathLike)):
        inputs = [inputs]
    if isinstance(shard, (tuple, list)):
        shard = f"{shard[0]}/{shard[1]}"
    options = [("model", _os.fspath(model)), ("out", _os.fspath(out)), ("format", format),
               ("jsonl_key", None if plain else jsonl_key), ("plain", plain),
               ("append_eos", append_eos), ("prepend_bos", prepend_bos), ("workers", workers),
               ("shard", shard), ("cache_file", cache_file), ("skip_invalid", skip_invalid),
               ("block_docs", block_docs), ("model_threads", model_threads), ("device", device)]
    _run(["pack", *_flag_args(options), "--", *[_os.fspath(i) for i in inputs]])
    return _manifest(out)


def merge_packs(parts, out):
    """Joins packs as ``morpheus pack merge --out OUT PART...``: shards i/n into the unsharded
    pack, whole packs concatenated in order. Returns the merged manifest as a dict."""
    _run(["pack", "merge", "--out", _os.fspath(out), "--", *[_os.fspath(p) for p in parts]])
    return _manifest(out)


def _megatron(prefix, np):
    idx = np.fromfile(prefix + ".idx", dtype=np.uint8)
    if bytes(idx[:9]) != b"MMIDIDX\x00\x00":
        raise ValueError(f"{prefix}.idx is not a Megatron index (no MMIDIDX header)")
    version = int(idx[9:17].view("<u8")[0])
    code = int(idx[17])
    if version != 1 or code not in _MEGATRON_DTYPES:
        raise ValueError(f"{prefix}.idx: version {version}, dtype code {code} not read here")
    sequences = int(idx[18:26].view("<u8")[0])
    at = 34
    lengths = idx[at:at + 4 * sequences].view("<i4")
    at += 4 * sequences
    pointers = idx[at:at + 8 * sequences].view("<i8")
    tokens = np.fromfile(prefix + ".bin", dtype=_MEGATRON_DTYPES[code])
    width = tokens.dtype.itemsize
    return [tokens[p // width:p // width + n] for p, n in zip(pointers.tolist(), lengths.tolist())]


def _llmc(prefix, np, manifest):
    header = np.fromfile(prefix + ".bin", dtype="<i4", count=256)
    magic, count = int(header[0]), int(header[2])
    if magic not in _LLMC_DTYPES:
        raise ValueError(f"{prefix}.bin: magic {magic} is not an llm.c data file")
    tokens = np.fromfile(prefix + ".bin", dtype=_LLMC_DTYPES[magic], offset=1024)
    if len(tokens) != count:
        raise ValueError(f"{prefix}.bin holds {len(tokens)} tokens, its header says {count}")
    options, ids = manifest["options"], manifest["special_ids"]
    if options["append_eos"]:
        cuts = np.flatnonzero(tokens == ids["eos"]) + 1
    else:
        cuts = np.flatnonzero(tokens == ids["bos"])
        cuts = cuts[cuts > 0]
    docs = np.split(tokens, cuts)
    return docs[:-1] if options["append_eos"] else docs if len(tokens) else []


def _npy(prefix, np):
    tokens = np.load(prefix + ".npy", mmap_mode="r")
    offsets = np.load(prefix + ".idx.npy")
    return [tokens[b:e] for b, e in zip(offsets[:-1].tolist(), offsets[1:].tolist())]


def read_pack(prefix):
    """The documents of the pack at ``prefix`` (written by ``morpheus pack``, described by
    PREFIX.json), in order: one 1-D NumPy array of ids per document (the pack's token type)."""
    import numpy as np

    prefix = _os.fspath(prefix)
    manifest = _manifest(prefix)
    fmt = manifest["format"]
    if fmt == "megatron":
        docs = _megatron(prefix, np)
    elif fmt == "llmc":
        docs = _llmc(prefix, np, manifest)
    elif fmt == "npy":
        docs = _npy(prefix, np)
    else:
        raise ValueError(f"{prefix}.json: unknown format {fmt!r}")
    if len(docs) != manifest["documents"]:
        raise ValueError(f"{prefix}: {len(docs)} documents read, the manifest counts "
                         f"{manifest['documents']}")
    return docs
