# SPDX-License-Identifier: MIT
"""Speed peers: Morpheus next to Hugging Face ``tokenizers`` (BPE and Unigram trained here on the
same training text), ``tiktoken`` (an Encoding made from that BPE's merges) and SentencePiece
(``morpheus-spm``), on the same inputs, in one process per thread count.

    peers_bench.py train --corpus TXT --work DIR [--sizes 50000,32000]
    peers_bench.py run --work DIR --threads N --input NAME=FILE:TOKDIR[:morpheus] ... --out F.json
    peers_bench.py table F.json ...

``train`` trains the ``tokenizers`` models once (kept in DIR). ``run`` times, per input (Morpheus
with TOKDIR; ``:morpheus``: Morpheus only), for every system: the first call on a freshly loaded object (cold: the BPE's word cache and Morpheus's run
cache empty; Morpheus's letter runs outside the segment table go through its engine) and the
median of REPS further calls on that object (warm); MB/s (UTF-8 bytes of the input) and tokens/s
(its own tokens). Batch calls: ``tokenizers`` ``encode_batch`` (its thread pool: RAYON_NUM_THREADS
must be set before the process starts, which is why a run is one thread count),
``tiktoken`` ``encode_ordinary_batch(num_threads=N)``, ``morpheus.Tokenizer.encode_batch(threads=N)``
and the transformers class ``morpheus.hf.MorpheusTokenizer`` (the ratio to the raw
``encode_batch`` is its overhead; padded, in batches of 64 texts as a DataLoader's, against
``encode_batch(padding=True)``, with a profile of where that time goes). SentencePiece is the
``morpheus-spm encode`` process on the input file (one thread; process start and file output
included, so it understates its speed slightly). ``table`` prints the Markdown table.
"""
import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import time


def train(args):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    os.makedirs(args.work, exist_ok=True)
    for size in [int(s) for s in args.sizes.split(",")]:
        for kind in ("bpe", "unigram"):
            path = os.path.join(args.work, f"hf-{kind}-{size}.json")
            if os.path.exists(path):
                continue
            start = time.perf_counter()
            if kind == "bpe":
                # GPT-2's byte-level BPE: every byte in the alphabet, so every text has ids.
                tok = Tokenizer(models.BPE())
                tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
                tok.decoder = decoders.ByteLevel()
                trainer = trainers.BpeTrainer(
                    vocab_size=size, show_progress=False,
                    initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
            else:
                # SentencePiece-style Unigram (Metaspace: ▁ for spaces).
                tok = Tokenizer(models.Unigram())
                tok.pre_tokenizer = pre_tokenizers.Metaspace()
                tok.decoder = decoders.Metaspace()
                trainer = trainers.UnigramTrainer(vocab_size=size, show_progress=False,
                                                  unk_token="<unk>",
                                                  special_tokens=["<unk>"])
            tok.train([args.corpus], trainer)
            tok.save(path)
            print(f"trained {path}: {tok.get_vocab_size()} ids, "
                  f"{time.perf_counter() - start:.1f} s", flush=True)


def gpt2_byte_decoder():
    """GPT-2's printable-character stand-ins for the 256 bytes (ByteLevel), inverted."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


# GPT-2's pre-tokenizer pattern, the one tokenizers' ByteLevel(use_regex=True) applies.
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def tiktoken_from_bpe(path):
    """A tiktoken Encoding with the merges of the byte-level BPE at `path`: rank of a token =
    the order in which the BPE made it (the 256 bytes first)."""
    import tiktoken

    with open(path, encoding="utf-8") as f:
        model = json.load(f)["model"]
    decode = gpt2_byte_decoder()
    to_bytes = lambda s: bytes(decode[c] for c in s)
    ranks = {bytes([b]): b for b in range(256)}
    for merge in model["merges"]:
        a, b = merge if isinstance(merge, list) else merge.split(" ")
        token = to_bytes(a) + to_bytes(b)
        if token not in ranks:
            ranks[token] = len(ranks)
    return tiktoken.Encoding(name=os.path.basename(path), pat_str=GPT2_PATTERN,
                             mergeable_ranks=ranks, special_tokens={})


def timed(fn, reps):
    """(seconds of the first call, median seconds of `reps` more, last result)."""
    start = time.perf_counter()
    out = fn()
    first = time.perf_counter() - start
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return first, statistics.median(times) if times else first, out


def alternate(raw, other, pairs):
    """Ratios raw seconds / other seconds of `pairs` alternating calls, and other's seconds."""
    ratios, times = [], []
    for _ in range(pairs):
        start = time.perf_counter()
        raw()
        middle = time.perf_counter()
        other()
        end = time.perf_counter()
        ratios.append((middle - start) / (end - middle))
        times.append(end - middle)
    return ratios, times


def run(args):
    import tiktoken  # noqa: F401  (imported before timing)
    from tokenizers import Tokenizer as HfTokenizer

    sys.path.insert(0, args.pythonpath)
    import morpheus
    from morpheus.hf import MorpheusTokenizer

    threads = args.threads
    results = {"threads": threads, "load": os.getloadavg(), "rows": [], "profiles": {}}
    for spec in args.input:
        name, rest = spec.split("=", 1)
        path, tokdir, *only = rest.split(":")
        peers = only != ["morpheus"]
        with open(path, "rb") as f:
            data = f.read()
        lines = data.decode("utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        mb = len(data) / 1e6

        def row(system, first, warm, tokens, note=""):
            results["rows"].append({"input": name, "system": system, "threads": threads,
                                    "mb": mb, "cold_s": first, "warm_s": warm,
                                    "tokens": tokens, "note": note})
            print(f"{name:9s} {system:26s} t={threads} cold {mb / first:7.2f} MB/s  warm "
                  f"{mb / warm:7.2f} MB/s  {tokens / warm / 1e6:6.2f} Mtok/s {note}", flush=True)

        for size in [int(s) for s in args.sizes.split(",")] if peers else []:
            for kind in ("bpe", "unigram"):
                hf = HfTokenizer.from_file(os.path.join(args.work, f"hf-{kind}-{size}.json"))
                first, warm, out = timed(lambda: hf.encode_batch(lines, add_special_tokens=False),
                                         args.reps)
                row(f"tokenizers {kind} {size // 1000}K", first, warm, sum(len(e.ids) for e in out))
            enc = tiktoken_from_bpe(os.path.join(args.work, f"hf-bpe-{size}.json"))
            first, warm, out = timed(lambda: enc.encode_ordinary_batch(lines, num_threads=threads),
                                     args.reps)
            hf = HfTokenizer.from_file(os.path.join(args.work, f"hf-bpe-{size}.json"))
            decode = gpt2_byte_decoder()
            same = sum([enc.decode_single_token_bytes(t) for t in a] ==
                       [bytes(decode[c] for c in piece) for piece in b.tokens]
                       for a, b in zip(out, hf.encode_batch(lines[:2000],
                                                            add_special_tokens=False)))
            row(f"tiktoken (BPE {size // 1000}K merges)", first, warm, sum(map(len, out)),
                f"the BPE's tokens on {same}/{min(2000, len(lines))} lines")
        if threads == 1 and args.spm and peers:
            for spm in args.spm.split(","):
                times = []
                for _ in range(args.reps + 1):
                    start = time.perf_counter()
                    done = subprocess.run([args.spm_bin, "encode", "--model", spm, path],
                                          stdout=subprocess.PIPE, check=True)
                    times.append(time.perf_counter() - start)
                tokens = len(done.stdout.split())
                row(f"SentencePiece {os.path.basename(spm)}", times[0],
                    statistics.median(times[1:]), tokens, "morpheus-spm encode process")
        # Morpheus: a fresh object is cold (the engine for runs outside the table).
        tok = morpheus.Tokenizer(tokdir)
        first, warm, out = timed(lambda: tok.encode_batch(lines, threads=threads), args.reps)
        row("Morpheus encode_batch", first, warm, sum(map(len, out)), f"{tok.vocab_size} ids")
        # morpheus.hf against the raw encode_batch: alternating calls (a load that changes while
        # the bench runs changes both), the median of the pairs' ratios.
        htok = MorpheusTokenizer(path=tokdir, threads=threads)
        pairs = args.reps * 2 + 1
        first, _, hout = timed(lambda: htok(lines)["input_ids"], 0)
        assert hout == out, "morpheus.hf gave other ids than encode_batch"
        ratios, hf_times = alternate(lambda: tok.encode_batch(lines, threads=threads),
                                     lambda: htok(lines), pairs)
        row("Morpheus via morpheus.hf", first, statistics.median(hf_times), sum(map(len, hout)),
            f"{statistics.median(ratios):.2f}x the raw encode_batch ({pairs} alternating pairs)")
        # Padded to the longest text, batches of 64 texts (as a DataLoader's), the first 6,400.
        batches = [lines[i:i + 64] for i in range(0, min(len(lines), 6400), 64)]
        sub_mb = sum(len(t.encode("utf-8")) + 1 for b in batches for t in b) / 1e6
        first, _, _ = timed(lambda: [htok(b, padding=True, return_tensors="np") for b in batches],
                            0)
        ratios, hf_times = alternate(
            lambda: [tok.encode_batch(b, threads=threads, padding=True, return_tensors="np")
                     for b in batches],
            lambda: [htok(b, padding=True, return_tensors="np") for b in batches], pairs)
        results["rows"].append({
            "input": name, "system": "Morpheus via morpheus.hf, padded", "threads": threads,
            "mb": sub_mb, "cold_s": first, "warm_s": statistics.median(hf_times),
            "tokens": sum(len(i) for i in out[:len(batches) * 64]),
            "note": f"{statistics.median(ratios):.2f}x encode_batch(padding=True) "
                    f"({pairs} alternating pairs), batches of 64 (the library's pad())"})
        print(f"{name:9s} morpheus.hf padded t={threads} "
              f"{sub_mb / statistics.median(hf_times):7.2f} MB/s, "
              f"{statistics.median(ratios):.2f}x the raw padded encode_batch", flush=True)
        profile = cProfile.Profile()
        profile.runcall(lambda: [htok(b, padding=True, return_tensors="np") for b in batches])
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(8)
        results["profiles"][name] = text.getvalue()
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)


def table(args):
    runs = []
    for path in args.results:
        with open(path, encoding="utf-8") as f:
            runs.append(json.load(f))
    rows = [r for run in runs for r in run["rows"]]
    by = {}
    for r in rows:
        by.setdefault((r["input"], r["system"]), {})[r["threads"]] = r
    threads = sorted({r["threads"] for r in rows})
    head = ["input", "system", "tokens", "cold MB/s (1 thread)", "warm MB/s (1 thread)",
            "warm Mtokens/s (1 thread)"] + [f"warm MB/s ({t} threads)" for t in threads if t > 1]
    print("| " + " | ".join(head + ["note"]) + " |")
    print("|---|---|" + "---:|" * (len(head) - 2) + "---|")
    for (name, system), per in by.items():
        one = per.get(1) or next(iter(per.values()))
        cells = [name, system, f"{one['tokens']:,}", f"{one['mb'] / one['cold_s']:.2f}",
                 f"{one['mb'] / one['warm_s']:.2f}",
                 f"{one['tokens'] / one['warm_s'] / 1e6:.2f}"]
        cells += [f"{per[t]['mb'] / per[t]['warm_s']:.2f}" if t in per else "—"
                  for t in threads if t > 1]
        print("| " + " | ".join(cells + [one["note"]]) + " |")
    for run in runs:
        print(f"\nthreads {run['threads']}: load average at start "
              f"{' '.join(f'{x:.2f}' for x in run['load'])}")
    if args.profiles:
        for run in runs:
            for name, text in run["profiles"].items():
                print(f"\nmorpheus.hf profile, padded, {name}, threads {run['threads']}:\n{text}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("train")
    p.add_argument("--corpus", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--sizes", default="50000,32000")
    p = sub.add_parser("run")
    p.add_argument("--work", required=True)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--input", action="append", required=True)
    p.add_argument("--sizes", default="50000,32000")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--spm", default="")
    p.add_argument("--spm-bin", default="build/dev/tools/morpheus-spm")
    p.add_argument("--pythonpath", default="build/dev/python")
    p.add_argument("--out", required=True)
    p = sub.add_parser("table")
    p.add_argument("results", nargs="+")
    p.add_argument("--profiles", action="store_true")
    args = parser.parse_args()
    {"train": train, "run": run, "table": table}[args.command](args)


if __name__ == "__main__":
    main()
