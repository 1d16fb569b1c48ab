// SPDX-License-Identifier: MIT
// Gold file loaders and the derived gold sets (root families, probe items).
#include "eval/gold_data.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <unordered_set>

#include "core/file_util.h"
#include "core/json_config.h"
#include "core/unicode.h"
#include "core/utf8.h"

namespace morpheus::eval {
namespace {

std::string strip_cr(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

Status line_error(const std::string& path, uint64_t line, const std::string& what,
                  const std::string& hint = {}) {
  return data_loss(path + ": line " + std::to_string(line) + ": " + what,
                   hint.empty() ? "see ../shared/data/README.md for the format" : hint);
}

// Calls fn(fields, line_number) for every non-empty line after `skip_header` lines.
template <typename Fn>
Status for_each_row(const std::string& path, char sep, bool skip_header, Fn fn) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path));
  std::string line;
  bool first = true;
  while (reader.next(&line)) {
    line = strip_cr(line);
    if (first && skip_header) {
      first = false;
      continue;
    }
    first = false;
    if (line.empty()) continue;
    MORPHEUS_RETURN_IF_ERROR(fn(split_fields(line, sep), reader.line_number()));
  }
  return reader.status();
}

Pieces split_pieces(const std::string& text, char sep) {
  Pieces out;
  for (std::string& p : split_fields(text, sep)) {
    if (!p.empty()) out.push_back(std::move(p));
  }
  return out;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && s[b] == ' ') ++b;
  while (e > b && s[e - 1] == ' ') --e;
  return s.substr(b, e - b);
}

std::string concat(const Pieces& pieces) {
  std::string out;
  for (const std::string& p : pieces) out += p;
  return out;
}

bool has_digit_or_space(const std::string& word) {
  auto cps = utf8::decode(word);
  if (!cps.ok()) return true;
  for (char32_t c : *cps) {
    if (unicode::is_digit(c) || unicode::is_space(c)) return true;
  }
  return false;
}

// The reference's MorphScore filters (§4.1) applied to raw (word, pieces) rows, in order.
std::vector<MorphScoreItem> morphscore_filter(
    const std::vector<std::pair<std::string, Pieces>>& rows) {
  std::vector<MorphScoreItem> items;
  std::unordered_map<std::string, size_t> index;
  for (const auto& [word, pieces] : rows) {
    if (word.empty() || has_digit_or_space(word)) continue;
    const size_t len = utf8::length(word);
    if (len < 2 || len > 30) continue;
    auto it = index.find(word);
    if (it != index.end()) {
      items[it->second].freq += 1;
      continue;
    }
    index.emplace(word, items.size());
    items.push_back({word, pieces, 1});
  }
  // Skipped at scoring time in the reference; dropped here so every item is scorable.
  items.erase(std::remove_if(items.begin(), items.end(),
                             [](const MorphScoreItem& it) {
                               return it.gold.size() < 2 || concat(it.gold) != it.word;
                             }),
              items.end());
  return items;
}

}  // namespace

std::vector<std::string> split_fields(const std::string& line, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t pos = line.find(sep, start);
    if (pos == std::string::npos) {
      out.push_back(line.substr(start));
      return out;
    }
    out.push_back(line.substr(start, pos - start));
    start = pos + 1;
  }
}

bool is_letter_word(const std::string& word) {
  auto cps = utf8::decode(word);
  if (!cps.ok() || cps->empty()) return false;
  if (!unicode::is_letter((*cps)[0])) return false;
  for (char32_t c : *cps) {
    if (!unicode::is_letter(c) && !unicode::is_mark(c)) return false;
  }
  return true;
}

StatusOr<std::vector<GoldSegmentation>> load_mc2010(const std::string& path) {
  std::vector<GoldSegmentation> out;
  MORPHEUS_RETURN_IF_ERROR(for_each_row(
      path, '\t', true, [&](const std::vector<std::string>& f, uint64_t line) -> Status {
        if (f.size() < 2) return line_error(path, line, "expected word<TAB>segmentations");
        GoldSegmentation g{f[0], {}};
        size_t start = 0;
        const std::string& alts = f[1];
        while (start <= alts.size()) {
          size_t pos = alts.find(" , ", start);
          const std::string alt =
              trim(alts.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
          Pieces pieces = split_pieces(alt, ' ');
          if (concat(pieces) != g.word) {
            return line_error(path, line,
                              "alternative '" + alt + "' does not spell the word '" + g.word + "'");
          }
          g.alternatives.push_back(std::move(pieces));
          if (pos == std::string::npos) break;
          start = pos + 3;
        }
        out.push_back(std::move(g));
        return ok_status();
      }));
  return out;
}

StatusOr<std::vector<MorphScoreItem>> load_ud_stem_boundary(const std::string& path) {
  std::vector<std::pair<std::string, Pieces>> rows;
  MORPHEUS_RETURN_IF_ERROR(for_each_row(
      path, '\t', true, [&](const std::vector<std::string>& f, uint64_t line) -> Status {
        if (f.size() < 6) {
          return line_error(path, line,
                            "expected 8 tab-separated fields, got " + std::to_string(f.size()));
        }
        if (f[4] != f[1]) return ok_status();  // the reference keeps stem == lemma only
        Pieces pieces;
        if (!f[4].empty()) pieces.push_back(f[4]);
        if (!f[5].empty()) pieces.push_back(f[5]);
        rows.emplace_back(f[0], std::move(pieces));
        return ok_status();
      }));
  return morphscore_filter(rows);
}

StatusOr<std::vector<MorphScoreItem>> load_morphscore_v1(const std::string& path) {
  std::vector<std::pair<std::string, Pieces>> rows;
  MORPHEUS_RETURN_IF_ERROR(for_each_row(
      path, ',', true, [&](const std::vector<std::string>& f, uint64_t line) -> Status {
        if (f.size() != 4) {
          return line_error(path, line,
                            "expected 4 comma-separated fields (,full_word,pt1,rest), got " +
                                std::to_string(f.size()));
        }
        Pieces pieces;
        if (!f[2].empty()) pieces.push_back(f[2]);
        if (!f[3].empty()) pieces.push_back(f[3]);
        rows.emplace_back(f[1], std::move(pieces));
        return ok_status();
      }));
  return morphscore_filter(rows);
}

StatusOr<std::vector<UdTypeSegmentation>> load_ud_types(const std::string& path) {
  std::vector<UdTypeSegmentation> out;
  MORPHEUS_RETURN_IF_ERROR(for_each_row(
      path, '\t', true, [&](const std::vector<std::string>& f, uint64_t line) -> Status {
        if (f.size() != 5) {
          return line_error(path, line,
                            "expected 5 tab-separated fields, got " + std::to_string(f.size()));
        }
        UdTypeSegmentation t{f[0], f[1], f[2], {}, f[4] == "UNIQUE"};
        if (f[4] != "UNIQUE" && f[4] != "AMBIG") {
          return line_error(path, line, "status must be UNIQUE or AMBIG, got '" + f[4] + "'");
        }
        for (const std::string& alt : split_fields(f[3], ';')) {
          Pieces pieces = split_pieces(trim(alt), '|');
          if (concat(pieces) != t.form) {
            return line_error(
                path, line,
                "segmentation '" + trim(alt) + "' does not spell the form '" + t.form + "'");
          }
          t.alternatives.push_back(std::move(pieces));
        }
        out.push_back(std::move(t));
        return ok_status();
      }));
  return out;
}

std::string PennToken::root() const { return analysis.substr(0, analysis.find('+')); }

StatusOr<std::vector<PennToken>> load_penn(const std::string& path) {
  std::vector<PennToken> out;
  MORPHEUS_RETURN_IF_ERROR(for_each_row(
      path, '\t', true, [&](const std::vector<std::string>& f, uint64_t line) -> Status {
        if (f.size() != 5) {
          return line_error(path, line,
                            "expected 5 tab-separated fields, got " + std::to_string(f.size()));
        }
        if (f[2] != "OK") return ok_status();
        PennToken t{f[0], f[1], split_pieces(f[3], '|')};
        if (concat(t.segmentation) != t.word) {
          return line_error(path, line,
                            "segmentation '" + f[3] + "' does not spell '" + f[0] + "'");
        }
        out.push_back(std::move(t));
        return ok_status();
      }));
  return out;
}

std::vector<GoldSegmentation> penn_types(const std::vector<PennToken>& tokens) {
  std::vector<GoldSegmentation> out;
  std::unordered_map<std::string, size_t> index;
  for (const PennToken& t : tokens) {
    auto [it, fresh] = index.emplace(t.word, out.size());
    if (fresh) out.push_back({t.word, {}});
    auto& alts = out[it->second].alternatives;
    if (std::find(alts.begin(), alts.end(), t.segmentation) == alts.end()) {
      alts.push_back(t.segmentation);
    }
  }
  return out;
}

StatusOr<std::vector<SigmorphonEntry>> load_sigmorphon(const std::string& path) {
  std::vector<SigmorphonEntry> out;
  MORPHEUS_RETURN_IF_ERROR(for_each_row(
      path, '\t', false, [&](const std::vector<std::string>& f, uint64_t line) -> Status {
        if (f.size() != 3) {
          return line_error(
              path, line,
              "expected lemma<TAB>form<TAB>features, got " + std::to_string(f.size()) + " fields");
        }
        out.push_back({f[0], f[1], split_fields(f[2], ';')});
        return ok_status();
      }));
  return out;
}

std::string UdToken::feature(const std::string& name) const {
  for (const std::string& kv : split_fields(feats, '|')) {
    const size_t eq = kv.find('=');
    if (eq != std::string::npos && kv.compare(0, eq, name) == 0 && eq == name.size()) {
      return kv.substr(eq + 1);
    }
  }
  return "";
}

StatusOr<std::vector<UdToken>> load_conllu(const std::string& path) {
  std::vector<UdToken> out;
  MORPHEUS_RETURN_IF_ERROR(for_each_row(
      path, '\t', false, [&](const std::vector<std::string>& f, uint64_t line) -> Status {
        if (f[0].empty() || f[0][0] == '#') return ok_status();
        if (f.size() != 10) {
          return line_error(path, line,
                            "CoNLL-U token lines have 10 fields, got " + std::to_string(f.size()));
        }
        if (f[0].find_first_of("-.") != std::string::npos) return ok_status();
        out.push_back({f[1], f[2], f[3], f[5]});
        return ok_status();
      }));
  return out;
}

StatusOr<std::vector<UdToken>> load_conllu_dir(const std::string& dir) {
  if (!dir_exists(dir)) return not_found("UD directory not found: " + dir);
  std::vector<std::string> files;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == ".conllu") {
      files.push_back(it->path().string());
    }
  }
  if (ec) return io_error("listing " + dir + ": " + ec.message());
  if (files.empty()) return not_found("no .conllu files under " + dir);
  std::sort(files.begin(), files.end());
  std::vector<UdToken> all;
  for (const std::string& f : files) {
    MORPHEUS_ASSIGN_OR_RETURN(std::vector<UdToken> part, load_conllu(f));
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

std::string CuratedWord::word() const { return concat(gold); }

const std::vector<CuratedWord>& curated_surface_words() {
  static const std::vector<CuratedWord> words = [] {
    const std::vector<std::pair<std::string, std::string>> lists = {
        {"rare_root",
         "fonksiyon|lar molekül|ler|in parametre|ler enzim|ler|de izotop|lar katalizör|ler "
         "polimer|ler vektör|ler matris|ler türev|ler integral|ler hipotez|ler nöron|lar|ın "
         "protein|ler bakteri|ler|in virüs|ler algoritma|lar sentaks|ta gradyan|lar kromozom|lar"},
        {"derivation",
         "demir|ci|lik balık|çı|lık orman|cı|lık gözlem|ci|ler renk|siz|lik su|suz|luk "
         "bulut|suz yağmur|lar|dan menzil|ler tuz|suz|du"},
        {"softening", "yaprağ|ın bardağ|ı çiçeğ|in köpeğ|im ekmeğ|i sokağ|a tarağ|ı"},
        {"vowel_drop", "akl|ın burn|u şehr|in ağz|ı boyn|u karn|ı"},
        {"loanword_exc",
         "saat|ler|de rol|ler|de gol|ler|in hal|ler|den harf|ler|le usul|ler|in kalp|ler|in"},
    };
    std::vector<CuratedWord> out;
    for (const auto& [category, text] : lists) {
      for (const std::string& w : split_fields(text, ' '))
        out.push_back({category, split_pieces(w, '|')});
    }
    return out;
  }();
  return words;
}

StatusOr<TurkishLexicon> load_hybrid_lexicon(const std::string& dir) {
  TurkishLexicon lex;
  for (const char* name : {"kokler.json", "ekler.json"}) {
    const std::string path = path_join(dir, name);
    MORPHEUS_ASSIGN_OR_RETURN(nlohmann::json j, load_json_file(path));
    if (!j.is_object()) return data_loss(path + ": expected a JSON object of string → id");
    auto& set = std::string(name) == "kokler.json" ? lex.roots : lex.suffixes;
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& key = it.key();
      if (key.empty() || key[0] == '<' || key.rfind("special_", 0) == 0) continue;
      if (!is_letter_word(key)) continue;
      set.insert(unicode::to_lower(key));
    }
  }
  if (lex.roots.empty() || lex.suffixes.empty()) {
    return data_loss(dir + ": kokler.json or ekler.json holds no letter entries");
  }
  return lex;
}

namespace {

// form → lemma → attestations (both lower-cased).
using LemmaVotes = std::unordered_map<std::string, std::unordered_map<std::string, size_t>>;

// Counts one attestation of (form, lemma) when both are letter-only words.
void add_vote(const std::string& form, const std::string& lemma, LemmaVotes* votes) {
  if (!is_letter_word(form) || !is_letter_word(lemma)) return;
  ++(*votes)[unicode::to_lower(form)][unicode::to_lower(lemma)];
}

// Each form's most frequent lemma (ties: the smaller lemma), in form order.
std::map<std::string, std::string> resolve_lemmas(const LemmaVotes& votes) {
  std::map<std::string, std::string> lemma_of;
  for (const auto& [form, lemmas] : votes) {
    const std::string* best = nullptr;
    size_t best_count = 0;
    for (const auto& [lemma, count] : lemmas) {
      if (count > best_count || (count == best_count && best != nullptr && lemma < *best)) {
        best = &lemma;
        best_count = count;
      }
    }
    lemma_of.emplace(form, *best);
  }
  return lemma_of;
}

// The items whose label has at least min_class items, order kept.
std::vector<ProbeItem> drop_small_classes(const std::vector<ProbeItem>& items, size_t min_class) {
  std::map<std::string, size_t> class_size;
  for (const ProbeItem& it : items) ++class_size[it.label];
  std::vector<ProbeItem> kept;
  for (const ProbeItem& it : items) {
    if (class_size[it.label] >= min_class) kept.push_back(it);
  }
  return kept;
}

}  // namespace

RootFamilies build_root_families(const std::vector<UdToken>& ud, const std::vector<PennToken>& penn,
                                 size_t min_forms) {
  LemmaVotes votes;
  for (const UdToken& t : ud) add_vote(t.form, t.lemma, &votes);
  for (const PennToken& t : penn) add_vote(t.word, t.root(), &votes);
  RootFamilies families;
  for (const auto& [form, lemma] : resolve_lemmas(votes)) families[lemma].push_back(form);
  for (auto it = families.begin(); it != families.end();) {
    it = it->second.size() >= min_forms ? std::next(it) : families.erase(it);
  }
  return families;
}

std::vector<LemmaItem> build_lemma_items(const std::vector<UdToken>& ud) {
  LemmaVotes votes;
  for (const UdToken& t : ud) {
    if (t.upos == "PROPN" || t.upos == "PUNCT" || t.upos == "NUM") continue;
    add_vote(t.form, t.lemma, &votes);
  }
  const std::map<std::string, std::string> lemma_of = resolve_lemmas(votes);
  std::unordered_set<std::string> lemmas;
  for (const auto& [form, lemma] : lemma_of) {
    if (form != lemma) lemmas.insert(lemma);
  }
  std::vector<LemmaItem> items;
  for (const auto& [form, lemma] : lemma_of) {
    if (form != lemma && lemmas.count(form) == 0) items.push_back({form, lemma});
  }
  return items;
}

std::vector<ProbeItem> build_probe_items(const std::vector<UdToken>& ud, const std::string& feature,
                                         size_t min_class) {
  std::map<std::string, std::string> label_of;  // "" marks a conflicting form
  for (const UdToken& t : ud) {
    if (t.upos != "NOUN" || !is_letter_word(t.form)) continue;
    const std::string value = t.feature(feature);
    if (value.empty() || value.find(',') != std::string::npos) continue;
    const std::string form = unicode::to_lower(t.form);
    auto [it, fresh] = label_of.emplace(form, value);
    if (!fresh && it->second != value) it->second.clear();
  }
  std::vector<ProbeItem> items;
  for (const auto& [form, label] : label_of) {
    if (!label.empty()) items.push_back({form, label});
  }
  return drop_small_classes(items, min_class);
}

std::vector<ProbeItem> build_inflection_items(const std::vector<UdToken>& ud, size_t min_class) {
  std::unordered_map<std::string, std::string> number_of;
  for (const ProbeItem& it : build_probe_items(ud, "Number", 1)) number_of[it.word] = it.label;
  std::vector<ProbeItem> items;
  for (const ProbeItem& it : build_probe_items(ud, "Case", 1)) {
    auto number = number_of.find(it.word);
    if (number != number_of.end()) items.push_back({it.word, it.label + "|" + number->second});
  }
  return drop_small_classes(items, min_class);
}

}  // namespace morpheus::eval
