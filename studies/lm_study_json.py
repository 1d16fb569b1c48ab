#!/usr/bin/env python3
# study.json of the language-model study (studies/lm_study.sh; read by `morpheus lm report`):
# the setup and notes of the report, its scales, and the paragraph attributing the gap between
# Morpheus and off-the-shelf SentencePiece to case handling and to segmentation, computed from
# the finished runs (mean BPC over each scale's seeds).
# Usage: lm_study_json.py OUT CORPUS DEV SCALES SEEDS SEEDS_LARGER REFERENCE DEVICE JOBS SECONDS
import glob
import json
import os
import sys

out, corpus, dev, scales, seeds, seeds_larger, ref, device, jobs, seconds = sys.argv[1:]
scales = scales.split()
K = ref.split("-")[-1]


def load(path, default=None):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return default


def mean_bpc(system, scale, key):
    """Mean over the seeds of a run value: "valid" (in-distribution) or an OOD slice."""
    values = []
    base = f"{out}/systems/{system}/{scale}"
    if not os.path.isdir(base):
        return None
    for seed_dir in sorted(os.listdir(base)):
        if key == "valid":
            r = load(f"{base}/{seed_dir}/result.json")
            v = None if r is None else r.get("valid_bpc")
        else:
            r = load(f"{base}/{seed_dir}/eval_ood.json")
            v = None if r is None else (r["bpc"] if key == "ood" else r["slices"][key]["bpc"])
        if v is not None:
            values.append(v)
    return sum(values) / len(values) if values else None


def attribution(scale):
    """One paragraph: the gap to off-the-shelf SentencePiece BPE, and how much is left against
    the case-matched BPE control, in distribution and out of domain."""
    lines = []
    for view, label in (("valid", "in-distribution"), ("ood", "out-of-domain")):
        m = mean_bpc(ref, scale, view)
        spm = mean_bpc(f"spm-bpe-{K}", scale, view)
        bpe = mean_bpc(f"bpe-{K}", scale, view)
        uni = mean_bpc(f"unigram-{K}", scale, view)
        if None in (m, spm, bpe):
            continue
        gap, seg = spm - m, bpe - m
        case = gap - seg
        share = f" ({100 * case / gap:.0f} % of it)" if gap > 0 else ""
        text = (f"{label}: Morpheus {m:.3f} BPC, off-the-shelf SentencePiece BPE {spm:.3f} "
                f"(gap {gap:+.3f}); the case-matched BPE control {bpe:.3f}, so segmentation "
                f"accounts for {seg:+.3f} and the case layer and pre-tokenizer for "
                f"{case:+.3f}{share}")
        if uni is not None:
            text += f"; against the case-matched Unigram control ({uni:.3f}) {uni - m:+.3f}"
        lines.append(text + ".")
    if not lines:
        return []
    return [f"- **{scale}**: " + " ".join(lines)]


def run_cpu_seconds(run_dir):
    """User + system seconds of a finished training run from its times.txt (one line "wall user
    sys" per start), or None when a start has no line (a killed start is not recorded: train.log
    counts the starts)."""
    try:
        rows = [line.split() for line in open(f"{run_dir}/times.txt") if line.strip()]
        starts = sum(1 for line in open(f"{run_dir}/train.log")
                     if line.startswith("lm train: vocabulary"))
    except OSError:
        return None
    if not rows or len(rows) != starts or not os.path.exists(f"{run_dir}/result.json"):
        return None
    return sum(float(r[1]) + float(r[2]) for r in rows)


def cpu_time_lines():
    """The measured CPU time of the training runs per scale, and what the whole study costs at
    that rate with the runs two at a time on two cores."""
    parts, total_runs, total_mean, total_fastest = [], 0, 0.0, 0.0
    for i, s in enumerate(scales):
        runs = sorted(glob.glob(f"{out}/systems/*/{s}/seed-*"))
        measured = [v for v in (run_cpu_seconds(r) for r in runs) if v is not None]
        if not runs or not measured:
            continue
        mean, fastest = sum(measured) / len(measured), min(measured)
        total_runs += len(runs)
        total_mean += mean * len(runs)
        total_fastest += fastest * len(runs)
        parts.append(f"{s}: {len(runs)} runs, {mean / 60:.1f} CPU-min per run on average, "
                     f"{fastest / 60:.1f} the fastest ({len(measured)} runs with a complete "
                     "record)")
    if not parts:
        return []
    return [f"- Cost of the training runs (one core each; `times.txt` in each run directory: "
            "wall, user and system seconds of each start): " + "; ".join(parts) + f". All "
            f"{total_runs} runs two at a time on 2 cores: {total_fastest / 2 / 3600:.1f} h at the "
            f"fastest run's rate, {total_mean / 2 / 3600:.1f} h at the mean rate (runs sharing "
            "the machine with other jobs are slower per CPU-second), plus the tokenizer, ids and "
            "gate stage and the study's Morpheus model."]


def scale_systems(scale):
    """The systems that ran at `scale`, in the study's row order."""
    names = [os.path.basename(os.path.dirname(d)) for d in glob.glob(f"{out}/systems/*/{scale}")]
    order = {n: load(f"{out}/systems/{n}/system.json", {}).get("order", 0) for n in names}
    return sorted(names, key=lambda n: (order[n], n))


split = load(f"{out}/data/split.json", {})
ood = load(f"{out}/data/ood_split.json", {})
scale_entries = []
for i, s in enumerate(scales):
    scale_entries.append({"name": s, "config": f"configs/lm_{s}.json",
                          "info": load(f"{out}/data/info-{s}.json", {}),
                          "seeds": [int(x) for x in (seeds if i == 0 else seeds_larger).split()]})


def count(d, key):
    """d[key], or d[part][field] for a key "part_field" (split.json nests them)."""
    v = d.get(key)
    if v is None and "_" in key:
        part, field = key.split("_", 1)
        v = d.get(part, {}).get(field) if isinstance(d.get(part), dict) else None
    return f"{v:,}" if isinstance(v, int) else "?"


setup = [
    f"- Training text: the main job's `{corpus}` less the held-out lines: "
    f"{count(split, 'train_lines')} lines, {count(split, 'train_characters')} characters. Every "
    "tokenizer and language model learns from it only, the study's Morpheus model too (its own "
    "prepare and training).",
    f"- In-distribution validation: {count(split, 'valid_lines')} lines "
    f"({count(split, 'valid_characters')} characters) of the same text, held out by a hash of "
    "the line before anything was trained (`morpheus lm split`).",
    f"- Out-of-domain view: the UD dev sentences (`{dev}`) less the lines the training text "
    f"holds: {count(ood, 'valid_lines')} lines, {count(ood, 'valid_characters')} characters; "
    "BPC also per slice: lines with no lower-case letter (all upper case) and the others.",
    "- Groups: *morpheus* (the reference), *control* (plain BPE and Unigram through Morpheus's "
    "pre-tokenizer, case layer and vocabulary distillation, and CBPE: only the segmentation "
    "differs), *off-the-shelf* (SentencePiece on the raw text, dummy prefix on: what a user "
    "gets), *secondary* (other vocabularies: characters, the hybrid tokenizer).",
    f"- Scales: " + "; ".join(
        f"{e['name']} (`{e['config']}`: {e['info'].get('parameter_budget', 0):,.0f} "
        f"parameters, {e['info'].get('steps', 0):,} steps of "
        f"{e['info'].get('tokens_per_step', 0):,} tokens, seeds "
        f"{', '.join(map(str, e['seeds']))})" for e in scale_entries) + ". Systems: " + "; ".join(
        f"{e['name']}: {', '.join(scale_systems(e['name']))}" for e in scale_entries) + ".",
    "- Seeds are paired: seed s gives every system the same initialisation seed and the same "
    "order of training lines.",
    f"- Device `{device}`, {os.cpu_count()} CPU cores, {jobs} training runs at a time (training "
    f"tokens/s are measured so); generation alone. The last invocation took "
    f"{int(seconds) // 60} min.",
] + cpu_time_lines()

notes = [
    "**Reading the tables.** Δ is the paired difference to the reference over the seeds both "
    "ran, with a 95 % Student-t interval; *resolved* means the interval excludes 0. BPC = Σ "
    "−log₂ p over every token and end-of-line id ÷ (code points + line ends of the raw text), "
    "scored in non-overlapping windows of the context length. A system gets a BPC only when "
    "decode(encode(line)) == line on every training, validation and out-of-domain line.",
    "**Compute.** Every system of a scale trains the same architecture with its parameters "
    "equalized (width solved per vocabulary) for the same steps and target tokens per step.",
]
attr = []
for s in scales:
    attr += attribution(s)
study = {"title": "Does a language model learn Turkish better on Morpheus ids?",
         "reference": ref, "setup": setup, "notes": notes, "scales": scale_entries}
if attr:
    study["attribution"] = [
        "**Where the gap comes from** (mean BPC over the seeds; the paired intervals are in the "
        "tables):"] + attr
json.dump(study, open(f"{out}/study.json", "w"), indent=2, ensure_ascii=False)
