// SPDX-License-Identifier: MIT
// MorphScore, SIGMORPHON, surface fidelity and lexicon (fertility, %TR, %Pure) metrics.
#include "eval/morph_metrics.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_set>

#include "core/unicode.h"
#include "core/utf8.h"

namespace morpheus::eval {
namespace {

double ratio(double num, double den) { return den > 0 ? num / den : 0.0; }
double ratio(size_t num, size_t den) {
  return ratio(static_cast<double>(num), static_cast<double>(den));
}

std::string lower(const std::string& s) { return unicode::to_lower(s); }

size_t cp_length(const Pieces& pieces) {
  size_t n = 0;
  for (const std::string& p : pieces) n += utf8::length(p);
  return n;
}

size_t count_hits(const std::vector<size_t>& gold, const std::vector<size_t>& pred) {
  size_t hits = 0;
  for (size_t b : pred) {
    if (std::find(gold.begin(), gold.end(), b) != gold.end()) ++hits;
  }
  return hits;
}

// Whether `s` (code points) is a concatenation of ≥ min_parts lexicon suffixes.
bool is_suffix_chain(const std::u32string& s, const TurkishLexicon& lex, size_t min_parts) {
  const size_t n = s.size();
  // best[i]: s[i..n) is a suffix chain (SIZE_MAX when not); most[i]: its longest chain length.
  std::vector<size_t> best(n + 1, SIZE_MAX);
  std::vector<size_t> most(n + 1, 0);
  best[n] = 0;
  for (size_t i = n; i-- > 0;) {
    for (size_t j = i + 1; j <= n; ++j) {
      if (best[j] == SIZE_MAX) continue;
      if (!lex.suffixes.count(utf8::encode(s.substr(i, j - i)))) continue;
      best[i] = std::min(best[i], best[j] + 1);
      most[i] = std::max(most[i], most[j] + 1);
    }
  }
  return n > 0 && best[0] != SIZE_MAX && most[0] >= min_parts;
}

}  // namespace

MorphScoreResult morphscore(const std::vector<MorphScoreItem>& gold,
                            const SegmentationLookup& seg) {
  MorphScoreResult r;
  double sum_r = 0, sum_p = 0, fw_r = 0, fw_p = 0, fw_total = 0;
  size_t hits = 0, pred_total = 0, gold_total = 0, single = 0, mismatch = 0;
  for (const MorphScoreItem& item : gold) {
    const Pieces* pred = seg(item.word);
    if (pred == nullptr) {
      ++r.missing;
      continue;
    }
    ++r.words;
    const std::vector<size_t> g = boundaries_of(item.gold);
    gold_total += g.size();
    fw_total += item.freq;
    if (cp_length(*pred) != utf8::length(item.word)) ++mismatch;
    if (pred->size() <= 1) {
      ++single;
      continue;
    }
    const std::vector<size_t> p = boundaries_of(*pred);
    const size_t h = count_hits(g, p);
    hits += h;
    pred_total += p.size();
    const double rec = ratio(h, g.size());
    const double prec = ratio(h, p.size());
    sum_r += rec;
    sum_p += prec;
    fw_r += item.freq * rec;
    fw_p += item.freq * prec;
  }
  const double n = static_cast<double>(r.words);
  r.mean_recall = ratio(sum_r, n);
  r.mean_precision = ratio(sum_p, n);
  r.macro_f1 = f1_score(r.mean_precision, r.mean_recall);
  r.micro_precision = ratio(hits, pred_total);
  r.micro_recall = ratio(hits, gold_total);
  r.micro_f1 = f1_score(r.micro_precision, r.micro_recall);
  r.fw_recall = ratio(fw_r, fw_total);
  r.fw_precision = ratio(fw_p, fw_total);
  r.single_token_rate = ratio(single, r.words);
  r.length_mismatch_rate = ratio(mismatch, r.words);
  return r;
}

std::string sigmorphon_canon(const std::string& s) {
  auto cps = utf8::decode(unicode::to_lower(s));
  if (!cps.ok()) return s;
  std::u32string t = *cps;
  if (!t.empty()) {
    char32_t& last = t.back();
    switch (last) {
      case U'b':
        last = U'p';
        break;
      case U'c':
        last = U'ç';
        break;
      case U'd':
        last = U't';
        break;
      case U'g':
      case U'ğ':
        last = U'k';
        break;
      default:
        break;
    }
  }
  return utf8::encode(t);
}

std::vector<SigmorphonItem> sigmorphon_items(const std::vector<SigmorphonEntry>& entries) {
  static const std::unordered_set<std::string> kNotSuffix = {
      "V",    "N",   "ADJ", "ADV",      "PRO",      "DECL",     "IND",
      "INTR", "POS", "NEG", "LGSPEC01", "LGSPEC02", "LGSPEC03", "LGSPEC04"};
  std::vector<SigmorphonItem> items;
  for (const SigmorphonEntry& e : entries) {
    if (e.lemma.find(' ') != std::string::npos || e.form.find(' ') != std::string::npos) continue;
    const size_t len = utf8::length(e.form);
    if (len < 3 || len > 30) continue;
    SigmorphonItem item{e.form, e.lemma, e.features.empty() ? "" : e.features[0], 0};
    if (item.pos == "V" && utf8::length(e.lemma) > 4) {
      const std::string tail = e.lemma.substr(e.lemma.size() - 3);
      if (tail == "mak" || tail == "mek") item.root = e.lemma.substr(0, e.lemma.size() - 3);
    }
    for (const std::string& f : e.features) {
      if (!kNotSuffix.count(f)) ++item.expected_suffixes;
    }
    items.push_back(std::move(item));
  }
  return items;
}

SigmorphonResult sigmorphon(const std::vector<SigmorphonItem>& items,
                            const SegmentationLookup& seg) {
  SigmorphonResult r;
  size_t lp = 0, ris = 0, first = 0, exact = 0, verb_lp = 0, noun_lp = 0;
  double diff = 0, abs_diff = 0;
  for (const SigmorphonItem& item : items) {
    const Pieces* pred = seg(item.form);
    if (pred == nullptr || pred->empty()) {
      ++r.missing;
      continue;
    }
    ++r.words;
    const std::string root = sigmorphon_canon(item.root);
    const size_t root_len = utf8::length(item.root);
    bool prefix_ok = false;
    std::string prefix;
    for (const std::string& p : *pred) {
      prefix += p;
      if (sigmorphon_canon(prefix) == root) {
        prefix_ok = true;
        break;
      }
      if (utf8::length(prefix) > root_len) break;
    }
    bool in_segments = false;
    for (const std::string& p : *pred) in_segments = in_segments || sigmorphon_canon(p) == root;
    lp += prefix_ok;
    ris += in_segments;
    first += sigmorphon_canon(pred->front()) == root;
    const double d =
        static_cast<double>(pred->size()) - 1.0 - static_cast<double>(item.expected_suffixes);
    exact += d == 0.0;
    diff += d;
    abs_diff += std::fabs(d);
    if (item.pos == "V") {
      ++r.verbs;
      verb_lp += prefix_ok;
    } else if (item.pos == "N") {
      ++r.nouns;
      noun_lp += prefix_ok;
    }
  }
  r.lemma_prefix = ratio(lp, r.words);
  r.root_in_segments = ratio(ris, r.words);
  r.first_segment = ratio(first, r.words);
  r.exact_suffix_count = ratio(exact, r.words);
  r.mean_diff = ratio(diff, static_cast<double>(r.words));
  r.mean_abs_diff = ratio(abs_diff, static_cast<double>(r.words));
  r.verb_lemma_prefix = ratio(verb_lp, r.verbs);
  r.noun_lemma_prefix = ratio(noun_lp, r.nouns);
  return r;
}

SurfaceFidelityResult surface_fidelity(const std::vector<CuratedWord>& words,
                                       const SegmentationLookup& seg) {
  SurfaceFidelityResult r;
  size_t root = 0, count = 0, len = 0, exact = 0;
  for (const CuratedWord& w : words) {
    const Pieces* pred = seg(w.word());
    if (pred == nullptr || pred->empty()) {
      ++r.missing;
      continue;
    }
    ++r.words;
    root += lower(pred->front()) == lower(w.gold.front());
    count += pred->size() == w.gold.size();
    bool same_len = pred->size() == w.gold.size();
    bool same = same_len;
    for (size_t i = 0; same_len && i < pred->size(); ++i) {
      same_len = utf8::length((*pred)[i]) == utf8::length(w.gold[i]);
      same = same && lower((*pred)[i]) == lower(w.gold[i]);
    }
    len += same_len;
    exact += same && same_len;
  }
  r.root_pct = 100.0 * ratio(root, r.words);
  r.count_pct = 100.0 * ratio(count, r.words);
  r.len_pct = 100.0 * ratio(len, r.words);
  r.exact_pct = 100.0 * ratio(exact, r.words);
  return r;
}

TokenValidity classify_token(const std::string& token, const TurkishLexicon& lexicon) {
  TokenValidity v;
  const std::string t = lower(token);
  v.pure = lexicon.roots.count(t) > 0 || lexicon.suffixes.count(t) > 0;
  if (v.pure) {
    v.turkish = true;
    return v;
  }
  auto cps = utf8::decode(t);
  if (!cps.ok()) return v;
  const std::u32string& s = *cps;
  for (size_t cut = s.size() < 2 ? 0 : s.size() - 1; cut >= 1; --cut) {  // longest root first
    if (lexicon.roots.count(utf8::encode(s.substr(0, cut))) &&
        is_suffix_chain(s.substr(cut), lexicon, 1)) {
      v.turkish = true;
      return v;
    }
    if (cut == 1) break;
  }
  v.turkish = is_suffix_chain(s, lexicon, 2);
  return v;
}

LexiconResult lexicon_metrics(const std::unordered_map<std::string, size_t>& word_counts,
                              const SegmentationLookup& seg, const TurkishLexicon& lexicon) {
  LexiconResult r;
  std::unordered_map<std::string, size_t> token_counts;
  size_t chars = 0;
  for (const auto& [word, count] : word_counts) {
    const Pieces* pred = seg(word);
    if (pred == nullptr) {
      ++r.missing;
      continue;
    }
    ++r.distinct_words;
    r.word_occurrences += count;
    chars += count * utf8::length(word);
    for (const std::string& p : *pred) {
      if (p.empty()) continue;
      token_counts[lower(p)] += count;
      r.tokens += count;
    }
  }
  size_t tr = 0, pure = 0, tr_fw = 0, pure_fw = 0;
  for (const auto& [token, count] : token_counts) {
    const TokenValidity v = classify_token(token, lexicon);
    tr += v.turkish;
    pure += v.pure;
    if (v.turkish) tr_fw += count;
    if (v.pure) pure_fw += count;
  }
  r.distinct_tokens = token_counts.size();
  r.fertility = ratio(r.tokens, r.word_occurrences);
  r.chars_per_token = ratio(chars, r.tokens);
  r.tr_pct = 100.0 * ratio(tr, r.distinct_tokens);
  r.pure_pct = 100.0 * ratio(pure, r.distinct_tokens);
  r.tr_pct_fw = 100.0 * ratio(tr_fw, r.tokens);
  r.pure_pct_fw = 100.0 * ratio(pure_fw, r.tokens);
  return r;
}

BoundaryScores boundary_scores(const std::vector<GoldSegmentation>& gold,
                               const SegmentationLookup& seg, size_t* missing) {
  BoundaryScorer scorer;
  size_t miss = 0;
  for (const GoldSegmentation& g : gold) {
    const Pieces* pred = seg(g.word);
    if (pred == nullptr) {
      ++miss;
      continue;
    }
    scorer.add(*pred, g.alternatives);
  }
  if (missing != nullptr) *missing = miss;
  return scorer.scores();
}

}  // namespace morpheus::eval
