#!/usr/bin/env bash
# export_card.sh MORPHEUS PREPARE_DIR CONFIG
# The provenance and model card of `morpheus export` (infer/model_card.h): a tiny model (2 steps)
# exported with --card-eval REPORT.md records the version, the checksums of words.tsv, the
# corpus and the report, the checkpoint's training options and the export options (the special
# tokens and user symbols among them) in morpheus.json, and its README.md carries the report; a
# missing report is exit 1 naming it, before anything is segmented.
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }
tiny_model_test export_card.sh "$@"
printf '# Tiny report\n\n| system | boundary F1 |\n|---|---|\n| tiny | 0.4321 |\n' \
  > "$dir/REPORT.md"
"$m" -q export --checkpoint "$dir/run/final" --data "$dir/data" --out "$dir/tok" \
  --vocab-size 2000 --min-count 1 --special-tokens "<pad>,<s>,</s>" --user-symbols "<sep>,@@" \
  --card-eval "$dir/REPORT.md" || fail export
card=$dir/tok/README.md
grep -q "^## Tiny report" "$card" || fail "README.md lacks the report: $(cat "$card")"
grep -q "| tiny | 0.4321 |" "$card" || fail "README.md lacks the report's scores"
grep -q "^MIT" "$card" || fail "README.md names no licence"
version=$("$m" --version)
/usr/bin/python3 - "$dir" "$version" <<'PY' || fail "provenance of morpheus.json"
import json, sys
d, version = sys.argv[1], sys.argv[2]
config = json.load(open(f"{d}/tok/morpheus.json"))
p = config["provenance"]
assert p["version"] in version and p["git_describe"] in version, (p, version)
assert p["inputs"]["words"]["path"] == f"{d}/data/words.tsv", p["inputs"]
assert set(p["inputs"]) == {"words", "text", "eval_report"}, p["inputs"]


def fnv1a64(path):
    h = 0xCBF29CE484222325
    for b in open(path, "rb").read():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"fnv1a64:{h:016x}"


for role, path in [("words", "data/words.tsv"), ("text", "data/corpus.txt"),
                   ("eval_report", "REPORT.md")]:
    assert p["inputs"][role]["checksum"] == fnv1a64(f"{d}/{path}"), (role, p["inputs"][role])
assert p["train"]["config"]["train"]["max_steps"] == 2
assert p["export"]["vocab_size"] == 2000 and p["export"]["min_count"] == 1
assert p["export"]["special_tokens"] == ["<pad>", "<s>", "</s>"], p["export"]
assert p["export"]["user_symbols"] == ["<sep>", "@@"], p["export"]
assert f"{config['vocab_size']} ids" in open(f"{d}/tok/README.md").read()
PY
"$m" -q export --checkpoint "$dir/run/final" --data "$dir/data" --out "$dir/tok2" \
  --card-eval "$dir/missing.md" > "$dir/err" 2>&1
code=$?
[ $code = 1 ] || fail "a missing --card-eval exits $code, want 1"
grep -q "missing.md" "$dir/err" || fail "the error does not name the report: $(cat "$dir/err")"
[ ! -e "$dir/tok2" ] || fail "a failed export left $dir/tok2"
echo ok
