#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Training-step speed of the reference implementation (PyTorch) on synthetic batches.

    reference_train_bench.py REF_DIR [--steps 5] [--warmup 2] [--shapes FILE]
                             [--word-vocab N] [--root-vocab N] [--set key=value ...]

REF_DIR holds the reference's Python sources (src/model_development/..., src/common/...; a
checkout of github.com/lonewolf-rd/TurkishMorpheus, or the copy dev/gpu_deps.sh makes). The
harness builds the reference's own MorpheusTrainer (model, MLM head, SGNS and contrastive losses,
AdamW parameter groups, LR schedule, TF32 switch, DataLoader with its workers and pinned memory)
from its TrainingConfig defaults, which are the paper configuration, and runs the trainer's own
epoch loop over a synthetic sentence cache written in the reference's layout: B sentences per
micro-batch, each 32 word slots × 32 characters, the real words of each sentence taken from
--shapes (one line per sentence window: the character counts of its words; `device_check
--shapes-out` writes them from a prepared directory) or, without it, 8–32 words of 2–14 letters.
Random characters, case flags, boundary labels, word and root ids: speed does not depend on them.

--set overrides TrainingConfig fields (batch_size=4, char_dim=64, num_workers=0, ...), e.g. for a
quick CPU run with tiny shapes. Prints one JSON line last, {"check": "reference", ...}: real words
per second over the timed steps (after --warmup steps), seconds per step, words per step, the
device and the torch version.
Nothing of the reference is kept in this repository; REF_DIR is read at run time.
"""
import argparse
import dataclasses
import json
import os
import random
import sys
import tempfile
import time
import types

MAX_WORDS = 32  # word slots per sentence (the reference's max_sent_len)
MAX_CHARS = 32  # positions per word incl. BOS and EOS (the reference's max_word_len)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("ref_dir", help="directory holding the reference's src/ package")
    p.add_argument("--steps", type=int, default=5, help="timed optimiser steps")
    p.add_argument("--warmup", type=int, default=2, help="untimed optimiser steps first")
    p.add_argument("--shapes", help="sentence windows: word lengths per line")
    p.add_argument("--word-vocab", type=int, default=120000, help="SGNS table rows")
    p.add_argument("--root-vocab", type=int, default=30000, help="root ids drawn from [1, N)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="TrainingConfig field override (repeatable)")
    p.add_argument("--seed", type=int, default=1)
    return p.parse_args()


def import_reference(ref_dir):
    """Imports the reference trainer. Its dataset module imports morfessor at the top but the
    harness never builds a cache with it, so a missing morfessor becomes an empty module."""
    sys.path.insert(0, os.path.abspath(ref_dir))
    try:
        import morfessor  # noqa: F401
    except ImportError:
        sys.modules["morfessor"] = types.ModuleType("morfessor")
    import torch
    if not hasattr(torch.amp, "GradScaler"):  # torch < 2.3 (a CPU test with an old torch)
        class GradScaler(torch.cuda.amp.GradScaler):
            def __init__(self, device="cuda", **kwargs):
                super().__init__(**kwargs)
        torch.amp.GradScaler = GradScaler
    from src.model_development.training import trainer as ref_trainer
    from src.model_development.model.char_encoder import CharEncoderHelper
    return ref_trainer, CharEncoderHelper


def read_shapes(path):
    shapes = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            lengths = [min(int(x), MAX_CHARS - 2) for x in line.split()][:MAX_WORDS]
            if lengths:
                shapes.append(lengths)
    if not shapes:
        raise SystemExit(f"{path}: no sentence windows")
    return shapes


def default_shapes(rng, n):
    return [[rng.randint(2, 14) for _ in range(rng.randint(8, MAX_WORDS))] for _ in range(n)]


def synthetic_cache(torch, shapes, n_sentences, char_vocab, word_vocab, root_vocab, seed):
    """The reference's sentence cache (training/dataset.py build_sentence_cache layout)."""
    g = torch.Generator().manual_seed(seed)
    char_ids = torch.zeros(n_sentences, MAX_WORDS, MAX_CHARS, dtype=torch.long)
    real_lengths = torch.zeros(n_sentences, MAX_WORDS, dtype=torch.long)
    mask = torch.zeros(n_sentences, MAX_WORDS, dtype=torch.bool)
    for s in range(n_sentences):
        lengths = shapes[s % len(shapes)]
        for w, n in enumerate(lengths):
            char_ids[s, w, 0] = 2  # BOS
            char_ids[s, w, 1:n + 1] = torch.randint(4, char_vocab, (n,), generator=g)
            char_ids[s, w, n + 1] = 3  # EOS
            real_lengths[s, w] = n + 2
            mask[s, w] = True
    positions = torch.arange(MAX_CHARS - 1).view(1, 1, -1)
    interior = (positions >= 1) & (positions < (real_lengths - 2).unsqueeze(-1))
    labels = (torch.rand(n_sentences, MAX_WORDS, MAX_CHARS - 1, generator=g) < 0.25) & interior
    case = (torch.rand(n_sentences, MAX_WORDS, MAX_CHARS, generator=g) < 0.05) & (char_ids >= 4)
    # Roots skewed towards small ids so that a batch holds root families (contrastive positives).
    roots = (torch.rand(n_sentences, MAX_WORDS, generator=g).pow(3) * (root_vocab - 1)).long() + 1
    return {
        "char_ids": char_ids,
        "case_flags": case.long(),
        "real_lengths": real_lengths,
        "morfessor_labels": labels.long(),
        "confidence": mask.float() * 0.9,
        "word_ids": torch.randint(1, word_vocab, (n_sentences, MAX_WORDS), generator=g) * mask,
        "root_ids": roots * mask,
        "attention_mask": mask,
        "word_vocab_size": word_vocab,
        "root_vocab_size": root_vocab,
        "max_word_len": MAX_CHARS,
        "max_sent_len": MAX_WORDS,
    }


def config_overrides(config_cls, sets):
    fields = {f.name: f for f in dataclasses.fields(config_cls)}
    out = {}
    for item in sets:
        key, sep, value = item.partition("=")
        if not sep or key not in fields:
            raise SystemExit(f"--set {item}: expected KEY=VALUE with a TrainingConfig field")
        default = fields[key].default
        if isinstance(default, bool):
            out[key] = value.lower() in ("1", "true", "yes")
        elif isinstance(default, (int, float, str)):
            out[key] = type(default)(value)
        else:
            raise SystemExit(f"--set {key}: not a scalar field")
    return out


def main():
    args = parse_args()
    ref_trainer, helper_cls = import_reference(args.ref_dir)
    import torch

    rng = random.Random(args.seed)
    shapes = read_shapes(args.shapes) if args.shapes else default_shapes(rng, 4096)
    rng.shuffle(shapes)
    overrides = config_overrides(ref_trainer.TrainingConfig, args.set)
    base = ref_trainer.TrainingConfig(**overrides)
    micro = base.batch_size
    accum = base.grad_accum_steps
    steps = args.warmup + args.steps
    n_sentences = steps * micro * accum  # one epoch of exactly `steps` steps (drop_last)
    char_vocab = helper_cls().char_vocab_size

    with tempfile.TemporaryDirectory(prefix="ref_bench_") as tmp:
        cache = synthetic_cache(torch, shapes, n_sentences, char_vocab, args.word_vocab,
                                args.root_vocab, args.seed)
        words_total = int(cache["attention_mask"].sum())
        train_path = os.path.join(tmp, "train.pt")
        val_path = os.path.join(tmp, "val.pt")
        torch.save(cache, train_path)
        small = {k: (v[:micro] if torch.is_tensor(v) else v) for k, v in cache.items()}
        torch.save(small, val_path)
        del cache, small
        config = dataclasses.replace(
            base, train_cache_path=train_path, val_cache_path=val_path,
            word_vocab_path=os.path.join(tmp, "no_word_vocab.pt"),
            checkpoint_dir=os.path.join(tmp, "checkpoints"), n_epochs=1)

        ends = []

        class StepTimer(ref_trainer.Callback):
            def on_step_end(self, trainer, step, metrics):
                if trainer.device.type == "cuda":
                    torch.cuda.synchronize()
                ends.append(time.perf_counter())

        trainer = ref_trainer.MorpheusTrainer(config, use_wandb=False, callbacks=[StepTimer()])
        if trainer.device.type == "cuda":
            torch.cuda.reset_peak_memory_stats()
        loader = trainer._get_loader(trainer.train_dataset, shuffle=True)
        trainer.model.train()
        if trainer.mlm_head is not None:
            trainer.mlm_head.train()
        trainer._run_epoch(loader)
        peak_gib = (torch.cuda.max_memory_allocated() / 2**30
                    if trainer.device.type == "cuda" else None)

    if len(ends) != steps:
        raise SystemExit(f"ran {len(ends)} steps, expected {steps}")
    words_per_step = words_total / steps  # the timed steps' share (batches are shuffled)
    if args.warmup > 0:
        seconds = ends[-1] - ends[args.warmup - 1]
    else:
        raise SystemExit("--warmup must be >= 1 (the first step pays the start-up)")
    print(json.dumps({
        "check": "reference",
        "reference_words_per_s": round(words_per_step * args.steps / seconds, 1),
        "s_per_step": round(seconds / args.steps, 4),
        "words_per_step": round(words_per_step, 1),
        "sentences_per_micro_batch": micro,
        "grad_accum": accum,
        "word_slots_per_micro_batch": micro * MAX_WORDS,
        "timed_steps": args.steps,
        "word_vocab": args.word_vocab,
        "device": str(trainer.device),
        "peak_gpu_gib": round(peak_gib, 2) if peak_gib is not None else None,
        "torch": torch.__version__,
    }))


if __name__ == "__main__":
    main()
