// SPDX-License-Identifier: MIT
// The tokenizer directory writer: the word types through the segmenter and the root snap, the
// piece vocabulary, the directory with its self-tests.
#include "exporter/tokenizer_writer.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "core/file_util.h"
#include "core/hash.h"
#include "core/json_config.h"
#include "core/logging.h"
#include "core/progress.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "core/word_counts.h"
#include "exporter/model_card.h"
#include "morph/root_lexicon.h"
#include "morph/root_snap.h"
#include "tokenizer/case_fold.h"
#include "tokenizer/directory_format.h"
#include "tokenizer/hf_files.h"
#include "tokenizer/piece_codec.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/segment_table.h"

namespace morpheus::exporter {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using tokenizer::fold_run;
using tokenizer::kRootSnapImage;
using tokenizer::kRootSnapRoots;
using tokenizer::kRootSnapSuffixes;
using tokenizer::SegmentTable;

// The exported segmentation of folded letter runs: the segmenter's pieces, then the root snap
// when the export has one (stages 3 and 4 of tokenizer/tokenizer.h, as encode applies them to a
// run the table lacks).
struct SnappedSegmenter {
  const RunSegmenter& runs;
  const morph::RootLexicon* root_snap;  // null without root_snap

  StatusOr<tokenizer::Segmentation> segment(const std::vector<std::string>& block) const {
    MORPHEUS_ASSIGN_OR_RETURN(tokenizer::Segmentation pieces, runs.segment(block));
    if (pieces.size() != block.size()) {
      return internal_error(std::to_string(pieces.size()) + " segmentations for " +
                            std::to_string(block.size()) + " runs");
    }
    if (root_snap != nullptr) {
      for (std::vector<std::string>& p : pieces) p = morph::snap_pieces(*root_snap, std::move(p));
    }
    return pieces;
  }
};

// Everything one export computes, stage by stage.
struct ExportState {
  std::vector<std::pair<std::string, uint64_t>> words;  // by count, descending
  std::unordered_map<std::string, uint64_t> run_counts;
  std::unordered_map<std::string, uint64_t> piece_counts;
  std::vector<std::string> runs;  // folded letter runs, sorted
  std::vector<std::pair<std::string, std::vector<std::string>>> table_entries;
  // Whole-morpheme merges: each join of 2 or more adjacent segmenter pieces of a run, by the ids
  // it saves (weight x joins), so a chain of three pieces ranks as twice its count.
  std::unordered_map<std::string, uint64_t> merge_counts;
  // Occurrences of each folded run where a word-initial piece may carry its space, and of the
  // word-initial pieces of digit and other spans (" ,", " 2026").
  std::unordered_map<std::string, uint64_t> lead_counts;
  std::unordered_map<std::string, uint64_t> span_lead_counts;
  std::vector<std::string> pieces;
  std::vector<uint64_t> counts;
  size_t merged_pieces = 0;   // pieces that join whole segmenter pieces
  size_t initial_pieces = 0;  // word-initial pieces
};

// The most segmenter pieces, and code points, one merge candidate joins.
constexpr size_t kMaxMergeParts = 6;
constexpr size_t kMaxMergeChars = 24;

std::string capitalize(const std::string& word) {
  StatusOr<std::u32string> cps = utf8::decode(word);
  if (!cps.ok() || cps->empty()) return word;
  (*cps)[0] = unicode::to_upper((*cps)[0], true);
  return utf8::encode(*cps);
}

// Removes `path` (file or directory tree) if present.
void remove_quietly(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

Status copy_file(const std::string& from, const std::string& to) {
  MORPHEUS_ASSIGN_OR_RETURN(std::string content, read_file(from));
  return write_file_atomic(to, content);
}

// Letter runs far from a decision (model self-test), across the frequency range.
std::vector<std::string> decisive_runs(const RunSegmenter& seg,
                                       const std::vector<std::pair<std::string, uint64_t>>& words) {
  std::vector<std::string> picked;
  const size_t stride = std::max<size_t>(1, words.size() / 400);
  for (size_t i = 0; i < words.size() && picked.size() < 48; i += stride) {
    const std::string& w = words[i].first;
    StatusOr<std::vector<tokenizer::Span>> spans = tokenizer::pretokenize(w);
    if (!spans.ok() || spans->size() != 1 || (*spans)[0].kind != tokenizer::SpanKind::kLetter) {
      continue;
    }
    const std::string folded = fold_run(w);
    if (utf8::length(folded) < 2) continue;
    if (seg.decision_margin(folded) < kSelfTestMargin) continue;
    picked.push_back(folded);
  }
  // A letter run longer than the segmenter's chunks, when its chunks are decisive.
  if (seg.max_chunk_chars() == 0) return picked;
  std::string long_run;
  for (const std::string& w : picked) long_run += w;
  const size_t cap = seg.max_chunk_chars() * 2 + 3;
  StatusOr<std::u32string> cps = utf8::decode(long_run);
  if (cps.ok() && cps->size() > cap) {
    long_run = utf8::encode(cps->substr(0, cap));
    if (seg.decision_margin(long_run) >= kSelfTestMargin) picked.push_back(long_run);
  }
  return picked;
}

// Table self-test texts: sentences of the table's runs (`words`: folded, in the table) with case,
// punctuation, digits and other scripts; a text with a letter run outside the table is dropped
// (the table self-test must not need the segmenter).
std::vector<std::string> self_test_texts(const std::vector<std::string>& words,
                                         const SegmentTable& table) {
  std::vector<std::string> texts;
  const char* tails[] = {", 2026'da!", " — «tamam»", "\t42 😀", "  (x) ", ".", "?"};
  for (size_t start = 0, k = 0; start < words.size(); start += 8, ++k) {
    std::string text;
    for (size_t j = start; j < std::min(words.size(), start + 8); ++j) {
      if (!text.empty()) text += ' ';
      text += j == start ? capitalize(words[j]) : words[j];
    }
    text += tails[k % 6];
    texts.push_back(text);
  }
  texts.push_back("İSTANBUL'da 3,5 °C — Ελλάδα 東京 👩🏽‍💻\r\n");
  std::vector<std::string> kept;
  std::vector<tokenizer::Span> spans;
  std::vector<std::string> scratch;
  for (const std::string& text : texts) {
    spans.clear();
    tokenizer::pretokenize_into(text, spans);
    bool covered = true;
    for (const tokenizer::Span& span : spans) {
      if (span.kind == tokenizer::SpanKind::kLetter &&
          !table.lookup(fold_run(span.text(text)), &scratch)) {
        covered = false;
      }
    }
    if (covered) kept.push_back(text);
  }
  return kept;
}

// With the root snap, the dictionary roots the pieces lack fill the rest of the budget (the snap
// cuts unseen words at such roots, which would otherwise back off to smaller pieces): roots that
// begin more of the exported runs first, then by string. Their count is 0.
void add_lexicon_roots(const morph::RootLexicon& lexicon, const std::vector<std::string>& runs,
                       size_t budget, std::vector<std::string>* pieces,
                       std::vector<uint64_t>* counts, std::unordered_set<std::string>* seen) {
  std::unordered_map<std::u32string, uint64_t> begins;
  for (const std::string& run : runs) {
    StatusOr<std::u32string> cps = utf8::decode(run);
    if (!cps.ok()) continue;
    for (size_t len = 1; len < cps->size(); ++len) {
      const std::u32string prefix = cps->substr(0, len);
      if (lexicon.is_root(prefix)) ++begins[prefix];
    }
  }
  std::vector<std::pair<std::string, uint64_t>> ranked;
  lexicon.for_each_root([&](const std::u32string& root, uint8_t) {
    if (!std::all_of(root.begin(), root.end(), unicode::is_letter)) return;
    std::string piece = utf8::encode(root);
    if (seen->count(piece) > 0) return;
    const auto it = begins.find(root);
    ranked.emplace_back(std::move(piece), it == begins.end() ? 0 : it->second);
  });
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  for (auto& entry : ranked) {
    if (pieces->size() >= budget) break;
    seen->insert(entry.first);
    pieces->push_back(std::move(entry.first));
    counts->push_back(0);
  }
}

// Adds `weight` to the pieces the apostrophe convention keeps whole in `spans` of `text`: a
// proper name before an apostrophe (folded), and the apostrophe with its suffix chain ("'da").
void count_apostrophe_pieces(std::string_view text, const std::vector<tokenizer::Span>& spans,
                             uint64_t weight,
                             std::unordered_map<std::string, uint64_t>* piece_counts) {
  using tokenizer::ApostropheRole;
  for (size_t k = 0; k < spans.size(); ++k) {
    if (tokenizer::apostrophe_role(spans, k) == ApostropheRole::kProperName) {
      (*piece_counts)[fold_run(spans[k].text(text))] += weight;
    } else if (spans[k].kind == tokenizer::SpanKind::kApostrophe &&
               tokenizer::apostrophe_role(spans, k + 1) == ApostropheRole::kSuffixChain) {
      (*piece_counts)[std::string(spans[k].text(text)) + fold_run(spans[k + 1].text(text))] +=
          weight;
    }
  }
}

// Folded letter runs and other spans of the word types, weighted by the word counts, and the
// apostrophe pieces of the word types.
void count_spans(ExportState* state) {
  using tokenizer::SpanKind;
  std::vector<tokenizer::Span> spans;
  for (const auto& [word, count] : state->words) {
    spans.clear();
    tokenizer::pretokenize_into(word, spans);
    for (const tokenizer::Span& span : spans) {
      const std::string_view text = span.text(word);
      if (span.kind == SpanKind::kLetter) {
        state->run_counts[fold_run(text)] += count;
      } else if (span.kind == SpanKind::kDigit || span.kind == SpanKind::kOther) {
        state->piece_counts[std::string(text)] += count;
      }
    }
    count_apostrophe_pieces(word, spans, count, &state->piece_counts);
  }
  state->runs.reserve(state->run_counts.size());
  for (const auto& entry : state->run_counts) state->runs.push_back(entry.first);
  std::sort(state->runs.begin(), state->runs.end());
}

// The apostrophe pieces of running text (WriterOptions::text), one count per occurrence.
Status count_text_apostrophe_pieces(const std::string& path, ExportState* state) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path, true));
  std::vector<tokenizer::Span> spans;
  std::string line;
  while (reader.next(&line)) {
    spans.clear();
    tokenizer::pretokenize_into(line, spans);
    count_apostrophe_pieces(line, spans, 1, &state->piece_counts);
  }
  return reader.status();
}

// Adds `weight` times its joins to every join of 2..kMaxMergeParts adjacent pieces of `pieces`
// (one run's cut).
void count_merge_candidates(const std::vector<std::string>& pieces, uint64_t weight,
                            std::unordered_map<std::string, uint64_t>* merge_counts) {
  for (size_t i = 0; i + 1 < pieces.size(); ++i) {
    std::string joined = pieces[i];
    size_t chars = utf8::length(joined);
    for (size_t j = i + 1; j < pieces.size() && j - i < kMaxMergeParts; ++j) {
      joined += pieces[j];
      chars += utf8::length(pieces[j]);
      if (chars > kMaxMergeChars) break;
      (*merge_counts)[joined] += weight * (j - i);  // ids it saves where it is used
    }
  }
}

// Whether the letter run spans[k] of `line` may take a word-initial piece: after a single space
// that does not start the line, or at the start of the line (the implicit space).
bool has_lead(std::string_view line, const std::vector<tokenizer::Span>& spans, size_t k) {
  using tokenizer::SpanKind;
  const SpanKind kind = spans[k].kind;
  if (kind != SpanKind::kLetter && kind != SpanKind::kDigit && kind != SpanKind::kOther) {
    return false;
  }
  if (spans[k].begin == 0 || line[spans[k].begin - 1] == '\n') return true;
  if (k == 0 || spans[k - 1].kind != SpanKind::kSpace || spans[k - 1].size() != 1) return false;
  const size_t space = spans[k - 1].begin;
  return line[space] == ' ' && space > 0 && line[space - 1] != '\n';
}

// Adds `weight` to the lead count of span `span` of `text`: a letter run's folded run, or the
// word-initial piece of a digit or other span (" " + the span).
void count_lead(std::string_view text, const tokenizer::Span& span, uint64_t weight,
                ExportState* state) {
  if (span.kind == tokenizer::SpanKind::kLetter) {
    state->lead_counts[fold_run(span.text(text))] += weight;
  } else {
    state->span_lead_counts[" " + std::string(span.text(text))] += weight;
  }
}

// The spans that may take a word-initial piece, counted in the running text (one per
// occurrence), or else the first span of each word type (weighted by its count: a word follows
// a space or starts a line).
Status count_leads(const WriterOptions& options, ExportState* state) {
  std::vector<tokenizer::Span> spans;
  if (options.text.empty()) {
    for (const auto& [word, count] : state->words) {
      spans.clear();
      tokenizer::pretokenize_into(word, spans);
      if (!spans.empty() && has_lead(word, spans, 0)) count_lead(word, spans[0], count, state);
    }
    return ok_status();
  }
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(options.text, true));
  std::string line;
  while (reader.next(&line)) {
    spans.clear();
    tokenizer::pretokenize_into(line, spans);
    for (size_t k = 0; k < spans.size(); ++k) {
      if (has_lead(line, spans, k)) count_lead(line, spans[k], 1, state);
    }
  }
  return reader.status();
}

// The segmenter's pieces of every run: the segment table, and the piece counts.
Status segment_runs(const SnappedSegmenter& segmenter, bool count_merges, ExportState* state) {
  const std::vector<std::string>& runs = state->runs;
  state->table_entries.reserve(runs.size());
  ProgressBar bar("export: segment", runs.size(), "words");
  constexpr size_t kBlock = 8192;
  for (size_t begin = 0; begin < runs.size(); begin += kBlock) {
    const std::vector<std::string> block(
        runs.begin() + static_cast<std::ptrdiff_t>(begin),
        runs.begin() + static_cast<std::ptrdiff_t>(std::min(runs.size(), begin + kBlock)));
    MORPHEUS_ASSIGN_OR_RETURN(tokenizer::Segmentation pieces, segmenter.segment(block));
    for (size_t i = 0; i < block.size(); ++i) {
      const uint64_t count = state->run_counts[block[i]];
      for (const std::string& p : pieces[i]) state->piece_counts[p] += count;
      if (count_merges) count_merge_candidates(pieces[i], count, &state->merge_counts);
      state->table_entries.emplace_back(block[i], std::move(pieces[i]));
    }
    bar.add(block.size());
  }
  bar.finish();
  return ok_status();
}

// The vocabulary as it is chosen: pieces in id order, each once, up to a budget.
struct Picker {
  std::vector<std::string>* pieces;
  std::vector<uint64_t>* counts;
  std::unordered_set<std::string> seen;
  size_t budget = 0;

  bool full() const { return pieces->size() >= budget; }
  bool add(const std::string& piece, uint64_t count) {
    if (full() || !seen.insert(piece).second) return false;
    pieces->push_back(piece);
    counts->push_back(count);
    return true;
  }
};

// A candidate piece by weighted count; `merged`: a join of whole segmenter pieces.
struct Candidate {
  std::string piece;
  uint64_t count;
  bool merged;
};

// The counted pieces and merge candidates of at least min_count, by count (ties by string).
std::vector<Candidate> ranked_candidates(const WriterOptions& options, const ExportState& state) {
  std::vector<Candidate> ranked;
  for (const auto& [piece, count] : state.piece_counts) {
    if (count >= options.min_count) ranked.push_back({piece, count, false});
  }
  for (const auto& [piece, count] : state.merge_counts) {
    if (count >= options.min_count && state.piece_counts.count(piece) == 0) {
      ranked.push_back({piece, count, true});
    }
  }
  std::sort(ranked.begin(), ranked.end(), [](const Candidate& a, const Candidate& b) {
    return a.count != b.count ? a.count > b.count : a.piece < b.piece;
  });
  return ranked;
}

// A Segmenter answering from the export's table (a run it lacks is one piece).
class ExportTableSegmenter : public tokenizer::WordSegmenter {
 public:
  explicit ExportTableSegmenter(const ExportState& state) {
    for (const auto& [run, pieces] : state.table_entries) table_.emplace(run, &pieces);
  }
  std::string name() const override { return "export-table"; }
  std::vector<std::string> cut(std::string_view word) const override {
    const auto it = table_.find(std::string(word));
    return it == table_.end() ? std::vector<std::string>{std::string(word)} : *it->second;
  }

 private:
  std::unordered_map<std::string, const std::vector<std::string>*> table_;
};

// Word-initial candidates: " " + the first piece each lead run encodes to with the vocabulary
// chosen so far (its merges and back-off), weighted by the run's lead count, and " " + each
// digit or other span with a lead; by count.
StatusOr<std::vector<Candidate>> word_initial_candidates(const WriterOptions& options,
                                                         const ExportState& state) {
  tokenizer::PieceCodecOptions codec_options;
  codec_options.vocabulary_backoff = true;
  codec_options.merge_pieces = options.stream.merge_share > 0;
  codec_options.cache_capacity = 0;
  MORPHEUS_ASSIGN_OR_RETURN(
      tokenizer::PieceCodec codec,
      tokenizer::PieceCodec::create(state.pieces, std::make_shared<ExportTableSegmenter>(state),
                                    codec_options));
  std::unordered_map<std::string, uint64_t> counts = state.span_lead_counts;
  std::vector<int32_t> ids;
  for (const auto& [run, count] : state.lead_counts) {
    ids.clear();
    MORPHEUS_RETURN_IF_ERROR(codec.encode(run, &ids));
    if (!ids.empty() && ids[0] >= tokenizer::PieceCodec::kFirstPieceId) {
      counts[" " + codec.id_to_string(ids[0])] += count;
    }
  }
  std::vector<Candidate> ranked;
  for (const auto& [piece, count] : counts) {
    if (count >= options.min_count) ranked.push_back({piece, count, false});
  }
  std::sort(ranked.begin(), ranked.end(), [](const Candidate& a, const Candidate& b) {
    return a.count != b.count ? a.count > b.count : a.piece < b.piece;
  });
  return ranked;
}

// Vocabulary: the segmenter's letters first (so no letter falls back to bytes), then the pieces
// (and, with merges, joins of whole segmenter pieces, at most merge_share of the budget) by
// weighted count down to min_count, then (with the root snap) dictionary roots, then the
// segmenter's spare pieces, all within the budget less the word-initial share; then the
// word-initial pieces of the most frequent first pieces up to the whole budget, and what they
// leave goes on with the ranked pieces, roots and spares. Case is folded (no case duplicates).
Status distil_vocabulary(const WriterOptions& options, const RunSegmenter& segmenter,
                         const morph::RootLexicon* root_snap, ExportState* state) {
  const size_t budget = options.vocab_size - reserved_ids(options);
  const StreamOptions& stream = options.stream;
  const size_t initial_budget =
      stream.word_initial
          ? static_cast<size_t>(static_cast<double>(budget) * stream.word_initial_share)
          : 0;
  const size_t merge_budget = static_cast<size_t>(static_cast<double>(budget) * stream.merge_share);
  Picker pick{&state->pieces, &state->counts, {}, budget - initial_budget};
  for (const std::string& letter : segmenter.letters()) {
    const auto it = state->piece_counts.find(letter);
    pick.add(letter, it == state->piece_counts.end() ? 0 : it->second);
  }
  const std::vector<Candidate> ranked = ranked_candidates(options, *state);
  size_t next = 0;
  size_t& merges = state->merged_pieces;
  const auto fill = [&] {
    for (; next < ranked.size() && !pick.full(); ++next) {
      const Candidate& c = ranked[next];
      if (c.merged && merges >= merge_budget) continue;
      if (pick.add(c.piece, c.count) && c.merged) ++merges;
    }
    if (next < ranked.size()) return;
    if (root_snap != nullptr) {
      add_lexicon_roots(*root_snap, state->runs, pick.budget, &state->pieces, &state->counts,
                        &pick.seen);
    }
    for (const std::string& piece : segmenter.spare_pieces()) pick.add(piece, 0);
  };
  fill();
  pick.budget = budget;
  if (initial_budget > 0) {
    MORPHEUS_ASSIGN_OR_RETURN(const std::vector<Candidate> initial,
                              word_initial_candidates(options, *state));
    for (const Candidate& c : initial) {
      if (pick.add(c.piece, c.count)) ++state->initial_pieces;
    }
  }
  fill();
  return ok_status();
}

}  // namespace

json stream_config(const StreamOptions& stream) {
  return {{"word_initial", stream.word_initial},
          {"line_start_prefix", stream.word_initial},
          {"merge_pieces", stream.merge_share > 0},
          {"word_initial_share", stream.word_initial ? stream.word_initial_share : 0.0},
          {"merge_share", stream.merge_share}};
}

json writer_settings(const WriterOptions& options) {
  return {{"words", options.words},
          {"text", options.text},
          {"vocab_size", options.vocab_size},
          {"special_tokens", options.special_tokens},
          {"user_symbols", options.user_symbols},
          {"min_count", options.min_count},
          {"stream", stream_config(options.stream)}};
}

namespace {

// The config (morpheus.json) without its self-tests; `files` holds the checksums of the written
// files.
json tokenizer_config(const WriterOptions& options, const RunSegmenter& segmenter,
                      const ExportState& state, json files) {
  json config = {{"format_version", tokenizer::kTokenizerFormatVersion},
                 {"kind", tokenizer::kTokenizerKind},
                 {"vocab_size", reserved_ids(options) + state.pieces.size()},
                 {"num_pieces", state.pieces.size()},
                 {"byte_tokens", tokenizer::PieceCodec::kNumBytes},
                 {"case_tokens", json::array({"<cap>", "<upper>", "<upper_word>"})},
                 {"first_piece_id", tokenizer::PieceCodec::kFirstPieceId},
                 {"first_special_id", tokenizer::PieceCodec::kFirstPieceId + state.pieces.size()},
                 {"special_tokens", options.special_tokens},
                 {"user_symbols", options.user_symbols},
                 {"turkish_case", true},
                 {"vocabulary_backoff", "fewest pieces inside each segmenter piece"},
                 {"turkish_apostrophe", true},
                 {"stream", stream_config(options.stream)},
                 {"root_snap", options.root_snap},
                 {"root_snap_rule", morph::kRootSnapRule},
                 {"min_count", options.min_count},
                 {"word_types", state.words.size()},
                 {"table_runs", state.runs.size()}};
  config["stream"]["word_initial_pieces"] = state.initial_pieces;
  config["stream"]["merged_pieces"] = state.merged_pieces;
  config.update(segmenter.config());
  config["files"] = std::move(files);
  config["self_test"] = json::array();
  config["model_self_test"] = json::array();
  return config;
}

// The segmenter's files, vocabularies, table and words of the tokenizer directory `dir`; returns
// the checksums of the files load() verifies.
StatusOr<json> write_files(const std::string& dir, const WriterOptions& options,
                           const RunSegmenter& segmenter, ExportState* state) {
  std::vector<std::string> checked = {tokenizer::kPiecesFile, tokenizer::kSegmentTableFile};
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<std::string> own, segmenter.write_files(dir));
  checked.insert(checked.end(), own.begin(), own.end());
  if (options.root_snap) {
    MORPHEUS_RETURN_IF_ERROR(make_dirs(path_join(dir, "root_snap")));
    MORPHEUS_RETURN_IF_ERROR(copy_file(options.root_lexicon, path_join(dir, kRootSnapRoots)));
    MORPHEUS_RETURN_IF_ERROR(copy_file(options.suffix_lexicon, path_join(dir, kRootSnapSuffixes)));
    checked.insert(checked.end(), {kRootSnapRoots, kRootSnapSuffixes});
  }
  MORPHEUS_RETURN_IF_ERROR(
      write_file_atomic(path_join(dir, tokenizer::kPiecesFile),
                        json{{"pieces", state->pieces}, {"counts", state->counts}}.dump() + "\n"));
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<std::string> images,
                            write_directory_images(dir, options.root_snap));
  checked.insert(checked.end(), images.begin(), images.end());
  MORPHEUS_RETURN_IF_ERROR(
      write_file_atomic(path_join(dir, tokenizer::kSegmentTableFile),
                        SegmentTable::serialize(std::move(state->table_entries))));
  std::string words_tsv;
  for (const auto& [word, count] : state->words) {
    words_tsv += word + "\t" + std::to_string(count) + "\n";
  }
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(path_join(dir, tokenizer::kWordsFile), words_tsv));
  json files = json::object();
  for (const std::string& f : checked) {
    MORPHEUS_ASSIGN_OR_RETURN(std::string sum,
                              tokenizer::tokenizer_file_checksum(path_join(dir, f)));
    files[f] = sum;
  }
  return files;
}

// Self-test samples, encoded exactly as load() will re-encode them (fresh tokenizer of `config`,
// table only: no segmenter), added to `config`.
Status add_self_tests(const std::string& dir, const SnappedSegmenter& segmenter,
                      const ExportState& state, json* config) {
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<tokenizer::Tokenizer> tok,
                            tokenizer::Tokenizer::from_config(dir, *config, false, {}));
  const std::vector<std::string> decisive = decisive_runs(segmenter.runs, state.words);
  MORPHEUS_ASSIGN_OR_RETURN(const tokenizer::Segmentation decisive_pieces,
                            segmenter.segment(decisive));
  for (size_t i = 0; i < decisive.size(); ++i) {
    (*config)["model_self_test"].push_back(
        json{{"run", decisive[i]}, {"pieces", decisive_pieces[i]}});
  }
  for (const std::string& text : self_test_texts(decisive, tok->table())) {
    std::vector<int32_t> ids;
    MORPHEUS_RETURN_IF_ERROR(tok->encode(text, &ids, false));
    (*config)["self_test"].push_back(json{{"text", text}, {"ids", ids}});
  }
  MORPHEUS_ASSIGN_OR_RETURN((*config)["special_self_test"],
                            tokenizer::make_special_self_test(*tok));
  return ok_status();
}

// Writes the whole directory into `tmp`; morpheus.json last, with its self-tests, then the
// transformers files and the model card.
Status write_dir(const std::string& tmp, const WriterOptions& options,
                 const SnappedSegmenter& segmenter, ExportState* state) {
  MORPHEUS_RETURN_IF_ERROR(make_dirs(tmp));
  MORPHEUS_ASSIGN_OR_RETURN(json files, write_files(tmp, options, segmenter.runs, state));
  json config = tokenizer_config(options, segmenter.runs, *state, std::move(files));
  config["provenance"] = options.provenance;
  MORPHEUS_RETURN_IF_ERROR(add_self_tests(tmp, segmenter, *state, &config));
  MORPHEUS_RETURN_IF_ERROR(
      write_file_atomic(path_join(tmp, tokenizer::kTokenizerConfigFile), config.dump(2) + "\n"));
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<tokenizer::Tokenizer> tok,
                            tokenizer::Tokenizer::from_config(tmp, config, false, {}));
  MORPHEUS_RETURN_IF_ERROR(tokenizer::write_hf_files(tmp, *tok));  // for AutoTokenizer
  std::string report;
  if (!options.card_eval.empty()) {
    MORPHEUS_ASSIGN_OR_RETURN(report, read_file(options.card_eval));
  }
  return write_file_atomic(path_join(tmp, tokenizer::kModelCardFile), model_card(config, report));
}

// Moves the finished directory `tmp` into place at `out`, replacing what was there (so no
// tokenizer.json of an older export is left beside the new morpheus.json).
Status replace_dir(const std::string& tmp, const std::string& out) {
  const std::string old = out + ".old-" + std::to_string(::getpid());
  std::error_code ec;
  if (fs::exists(out, ec)) fs::rename(out, old, ec);
  if (!ec) fs::rename(tmp, out, ec);
  if (ec) {
    remove_quietly(tmp);
    return io_error("cannot move the tokenizer into " + out + ": " + ec.message(),
                    "check that the parent directory is writable");
  }
  remove_quietly(old);
  return ok_status();
}

// The word types by count (descending), their spans counted; the root snap's lexicon, if any.
Status read_inputs(const WriterOptions& options, ExportState* state,
                   std::unique_ptr<morph::RootLexicon>* root_snap) {
  MORPHEUS_ASSIGN_OR_RETURN(state->words, read_word_counts(options.words));
  std::stable_sort(state->words.begin(), state->words.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  count_spans(state);
  if (!options.text.empty()) {
    MORPHEUS_RETURN_IF_ERROR(count_text_apostrophe_pieces(options.text, state));
  }
  if (options.stream.word_initial) MORPHEUS_RETURN_IF_ERROR(count_leads(options, state));
  if (options.root_snap) {
    MORPHEUS_ASSIGN_OR_RETURN(
        morph::RootLexicon lexicon,
        morph::RootLexicon::load(options.root_lexicon, options.suffix_lexicon));
    *root_snap = std::make_unique<morph::RootLexicon>(std::move(lexicon));
  }
  return ok_status();
}

}  // namespace

size_t reserved_ids(const WriterOptions& options) {
  return tokenizer::PieceCodec::kFirstPieceId + options.special_tokens.size() +
         options.user_symbols.size();
}

Status check_writer_options(const WriterOptions& options) {
  if (options.vocab_size <= reserved_ids(options)) {
    return invalid_argument(
        "--vocab-size " + std::to_string(options.vocab_size) + " leaves no room for pieces",
        "256 byte tokens, <cap>/<upper>/<upper_word>, the special tokens and the user symbols "
        "take ids too; use e.g. 50000");
  }
  const StreamOptions& stream = options.stream;
  if (stream.word_initial_share < 0 || stream.merge_share < 0 ||
      (stream.word_initial ? stream.word_initial_share : 0.0) + stream.merge_share >= 1) {
    return invalid_argument(
        "--word-initial-share and --merge-share must be at least 0 and "
        "leave part of the piece budget to the segmenter's pieces",
        "e.g. --word-initial-share 0.25 --merge-share 0.1");
  }
  MORPHEUS_RETURN_IF_ERROR(
      tokenizer::check_special_tokens(options.special_tokens, options.user_symbols));
  if (!options.card_eval.empty()) MORPHEUS_RETURN_IF_ERROR(check_readable_file(options.card_eval));
  return ok_status();
}

StatusOr<std::vector<std::string>> write_directory_images(const std::string& dir, bool root_snap) {
  MORPHEUS_ASSIGN_OR_RETURN(const json pieces_json,
                            load_json_file(path_join(dir, tokenizer::kPiecesFile)));
  std::vector<std::string> pieces;
  try {
    pieces = pieces_json.at("pieces").get<std::vector<std::string>>();
  } catch (const json::exception& e) {
    return data_loss(path_join(dir, tokenizer::kPiecesFile) + ": " + e.what(),
                     "re-run morpheus export");
  }
  MORPHEUS_ASSIGN_OR_RETURN(tokenizer::PieceCodec codec,
                            tokenizer::PieceCodec::create(std::move(pieces), nullptr));
  MORPHEUS_RETURN_IF_ERROR(
      write_file_atomic(path_join(dir, tokenizer::kPiecesImageFile), codec.image()));
  std::vector<std::string> written = {tokenizer::kPiecesImageFile};
  if (root_snap) {
    MORPHEUS_ASSIGN_OR_RETURN(morph::RootLexicon lexicon,
                              morph::RootLexicon::load(path_join(dir, kRootSnapRoots),
                                                       path_join(dir, kRootSnapSuffixes)));
    MORPHEUS_RETURN_IF_ERROR(write_file_atomic(path_join(dir, kRootSnapImage), lexicon.image()));
    written.push_back(kRootSnapImage);
  }
  return written;
}

Status write_tokenizer_dir(const WriterOptions& options, const RunSegmenter& segmenter,
                           WriterSummary* summary) {
  const auto start = std::chrono::steady_clock::now();
  MORPHEUS_RETURN_IF_ERROR(check_writer_options(options));
  ExportState state;
  std::unique_ptr<morph::RootLexicon> root_snap;
  MORPHEUS_RETURN_IF_ERROR(read_inputs(options, &state, &root_snap));
  const SnappedSegmenter snapped{segmenter, root_snap.get()};
  MORPHEUS_RETURN_IF_ERROR(segment_runs(snapped, options.stream.merge_share > 0, &state));
  MORPHEUS_RETURN_IF_ERROR(distil_vocabulary(options, segmenter, root_snap.get(), &state));

  // Everything goes into a temporary sibling directory, then is renamed into place.
  const std::string out = fs::path(options.out).lexically_normal().string();
  const std::string tmp = temp_path_for(out);
  remove_quietly(tmp);
  const Status status = write_dir(tmp, options, snapped, &state);
  if (!status.ok()) {
    remove_quietly(tmp);
    return status;
  }
  MORPHEUS_RETURN_IF_ERROR(replace_dir(tmp, out));
  if (summary != nullptr) {
    summary->word_types = state.words.size();
    summary->letter_runs = state.runs.size();
    summary->pieces = state.pieces.size();
    summary->seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return ok_status();
}

}  // namespace morpheus::exporter
