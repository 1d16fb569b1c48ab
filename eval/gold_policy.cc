// SPDX-License-Identifier: MIT
#include "eval/gold_policy.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "core/file_util.h"
#include "core/hash.h"
#include "core/unicode.h"
#include "tokenizer/pretokenizer.h"

namespace morpheus::eval {

std::string scoring_form(std::string_view word) { return unicode::to_lower(word); }

std::vector<GoldSegmentation> fold_case(const std::vector<GoldSegmentation>& gold) {
  std::vector<GoldSegmentation> out;
  std::unordered_map<std::string, size_t> index;
  for (const GoldSegmentation& g : gold) {
    const std::string word = scoring_form(g.word);
    auto [it, fresh] = index.emplace(word, out.size());
    if (fresh) out.push_back({word, {}});
    std::vector<Pieces>& alts = out[it->second].alternatives;
    for (const Pieces& alt : g.alternatives) {
      Pieces folded;
      for (const std::string& p : alt) folded.push_back(scoring_form(p));
      if (std::find(alts.begin(), alts.end(), folded) == alts.end()) alts.push_back(folded);
    }
  }
  return out;
}

std::vector<MorphScoreItem> fold_case(const std::vector<MorphScoreItem>& gold) {
  std::vector<MorphScoreItem> out;
  std::unordered_map<std::string, size_t> index;
  for (const MorphScoreItem& item : gold) {
    const std::string word = scoring_form(item.word);
    auto [it, fresh] = index.emplace(word, out.size());
    if (!fresh) {
      out[it->second].freq += item.freq;
      continue;
    }
    Pieces folded;
    for (const std::string& p : item.gold) folded.push_back(scoring_form(p));
    out.push_back({word, std::move(folded), item.freq});
  }
  return out;
}

StatusOr<GoldPart> parse_gold_part(std::string_view name) {
  if (name == "tune") return GoldPart::kTune;
  if (name == "report") return GoldPart::kReport;
  if (name == "all") return GoldPart::kAll;
  return invalid_argument("unknown gold part '" + std::string(name) + "'",
                          "use tune, report or all");
}

const char* gold_part_name(GoldPart part) {
  switch (part) {
    case GoldPart::kTune:
      return "tune";
    case GoldPart::kReport:
      return "report";
    case GoldPart::kAll:
      break;
  }
  return "all";
}

const std::vector<std::string>& gold_set_names() {
  static const std::vector<std::string> kNames = {
      "mc2010",     "ud_types", "penn",     "ud_stem_boundary", "morphscore_v1",
      "sigmorphon", "curated",  "families", "lemmas",           "probes"};
  return kNames;
}

StatusOr<double> tune_fraction(std::string_view gold_set) {
  const std::vector<std::string>& names = gold_set_names();
  if (std::find(names.begin(), names.end(), gold_set) == names.end()) {
    std::string known;
    for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
    return invalid_argument("unknown gold set '" + std::string(gold_set) + "'",
                            "known gold sets: " + known);
  }
  return gold_set == "mc2010" ? 0.5 : 0.1;
}

bool is_tune(std::string_view key, double tune_fraction) {
  const uint64_t h = fnv1a64(scoring_form(key), fnv1a64("morpheus-split-v1:"));
  return static_cast<double>(h % 10000) < tune_fraction * 10000.0;
}

bool in_part(std::string_view key, double tune_fraction, GoldPart part) {
  if (part == GoldPart::kAll) return true;
  return is_tune(key, tune_fraction) == (part == GoldPart::kTune);
}

StatusOr<std::string> gold_file_part(const std::string& path, std::string_view gold_set,
                                     GoldPart part) {
  MORPHEUS_ASSIGN_OR_RETURN(const double fraction, tune_fraction(gold_set));
  // Where the item's key is: (separator, field index, header line).
  char sep = '\t';
  size_t field = 0;
  bool header = true;
  if (gold_set == "morphscore_v1") {
    sep = ',';
    field = 1;
  } else if (gold_set == "sigmorphon") {
    field = 1;
    header = false;
  } else if (gold_set == "curated" || gold_set == "families" || gold_set == "lemmas" ||
             gold_set == "probes") {
    return invalid_argument("gold set '" + std::string(gold_set) + "' has no file to split",
                            "file sets: mc2010, ud_types, penn, ud_stem_boundary, "
                            "morphscore_v1, sigmorphon");
  }
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path));
  std::string line, out;
  while (reader.next(&line)) {
    if (header && reader.line_number() == 1) {
      out += line + "\n";
      continue;
    }
    const std::vector<std::string> fields = split_fields(line, sep);
    if (line.empty()) continue;
    if (fields.size() <= field) {
      return invalid_argument(path + ": line " + std::to_string(reader.line_number()) +
                              ": expected at least " + std::to_string(field + 1) + " fields");
    }
    if (in_part(fields[field], fraction, part)) out += line + "\n";
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  return out;
}

Status SeenWords::add_text_file(const std::string& path) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path));
  std::string line;
  std::vector<tokenizer::Span> spans;
  while (reader.next(&line)) {
    spans.clear();
    tokenizer::pretokenize_into(line, spans);
    for (const tokenizer::Span& sp : spans) {
      if (sp.kind == tokenizer::SpanKind::kLetter) add_word(sp.text(line));
    }
  }
  return reader.status();
}

}  // namespace morpheus::eval
