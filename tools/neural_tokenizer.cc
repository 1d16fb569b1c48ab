// SPDX-License-Identifier: MIT
// `morpheus export` (vocabulary distillation) and the tokenizer directory loader with self-test.
#include "tools/neural_tokenizer.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <unordered_set>

#include "core/file_util.h"
#include "core/json_config.h"
#include "core/logging.h"
#include "core/progress.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "model/checkpoint.h"
#include "tokenizer/pretokenizer.h"

namespace morpheus::tools {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kKind = "morpheus-tokenizer";
constexpr float kSelfTestMargin = 0.05f;  // logit distance from the threshold for sample words

std::string fold_letters(std::string_view run) {
  std::string out;
  size_t pos = 0;
  while (pos < run.size()) {
    const utf8::Decoded d = utf8::decode_one(run, pos);
    utf8::append(unicode::to_lower(d.code_point, true), out);
    pos += d.length;
  }
  return out;
}

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

// Self-test texts: words far from the decision threshold, across the frequency range, in
// sentences with case, punctuation, digits, a long letter run (chunked) and other scripts.
std::vector<std::string> self_test_texts(
    const NeuralTokenizer& tok, const std::vector<std::pair<std::string, uint64_t>>& words) {
  std::vector<std::string> picked;
  const size_t stride = std::max<size_t>(1, words.size() / 400);
  for (size_t i = 0; i < words.size() && picked.size() < 48; i += stride) {
    const std::string& w = words[i].first;
    StatusOr<std::vector<tokenizer::Span>> spans = tokenizer::pretokenize(w);
    if (!spans.ok() || spans->size() != 1 || (*spans)[0].kind != tokenizer::SpanKind::kLetter) {
      continue;
    }
    const std::string folded = fold_letters(w);
    if (utf8::length(folded) < 2) continue;
    if (tok.segmenter().decision_margin(folded) < kSelfTestMargin) continue;
    picked.push_back(folded);
  }
  std::vector<std::string> texts;
  const char* tails[] = {", 2026'da!", " — «tamam»", "\t42 😀", "  (x) ", ".", "?"};
  for (size_t start = 0, k = 0; start < picked.size(); start += 8, ++k) {
    std::string text;
    for (size_t j = start; j < std::min(picked.size(), start + 8); ++j) {
      if (!text.empty()) text += ' ';
      text += j == start ? capitalize(picked[j]) : picked[j];
    }
    text += tails[k % 6];
    texts.push_back(text);
  }
  // A letter run longer than the model's words (chunked), when its chunks are decisive.
  std::string long_run;
  for (const std::string& w : picked) long_run += w;
  const size_t cap = static_cast<size_t>(tok.segmenter().max_chunk_chars()) * 2 + 3;
  StatusOr<std::u32string> cps = utf8::decode(long_run);
  if (cps.ok() && cps->size() > cap) {
    long_run = utf8::encode(cps->substr(0, cap));
    if (tok.segmenter().decision_margin(long_run) >= kSelfTestMargin) texts.push_back(long_run);
  }
  texts.push_back("İSTANBUL'da 3,5 °C — Ελλάδα 東京 👩🏽‍💻\r\n");
  return texts;
}

}  // namespace

StatusOr<std::vector<std::pair<std::string, uint64_t>>> read_word_counts(const std::string& path) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path, true));
  std::vector<std::pair<std::string, uint64_t>> out;
  std::string line;
  while (reader.next(&line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const size_t tab = line.find('\t');
    std::string word = line.substr(0, tab);
    uint64_t count = 1;
    if (tab != std::string::npos) {
      const char* b = line.data() + tab + 1;
      const char* e = line.data() + line.size();
      const auto [p, ec] = std::from_chars(b, e, count);
      if (ec != std::errc() || p != e) {
        return invalid_argument(path + ":" + std::to_string(reader.line_number()) +
                                    ": expected word<TAB>count, got \"" + line + "\"",
                                "the words.tsv written by morpheus prepare has this format");
      }
    }
    if (word == "<unk>" || word.empty()) continue;
    out.emplace_back(std::move(word), count);
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  return out;
}

Status export_tokenizer(const ExportOptions& options, ExportSummary* summary) {
  const auto start = std::chrono::steady_clock::now();
  if (options.vocab_size <= static_cast<size_t>(tokenizer::PieceCodec::kFirstPieceId)) {
    return invalid_argument(
        "--vocab-size " + std::to_string(options.vocab_size) + " leaves no room for pieces",
        "256 byte tokens and <cap>/<upper> come first; use e.g. 50000");
  }
  MORPHEUS_ASSIGN_OR_RETURN(model::Morpheus model,
                            model::load_inference_checkpoint(options.checkpoint));
  const std::string chars_path = path_join(options.checkpoint, "char_vocab.json");
  MORPHEUS_ASSIGN_OR_RETURN(train::CharVocab chars, train::CharVocab::load(chars_path));
  if (static_cast<int64_t>(chars.size()) != model->config.char_vocab_size) {
    return invalid_argument(chars_path + " has " + std::to_string(chars.size()) +
                                " symbols but the model was built for " +
                                std::to_string(model->config.char_vocab_size),
                            "use the char_vocab.json the model was trained with");
  }
  MORPHEUS_ASSIGN_OR_RETURN(auto words, read_word_counts(options.words));
  std::stable_sort(words.begin(), words.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });

  // Folded letter runs and other spans of the word types, weighted by the word counts.
  std::unordered_map<std::string, uint64_t> run_counts;
  std::unordered_map<std::string, uint64_t> piece_counts;
  std::vector<tokenizer::Span> spans;
  for (const auto& [word, count] : words) {
    spans.clear();
    tokenizer::pretokenize_into(word, spans);
    for (const tokenizer::Span& span : spans) {
      const std::string_view text = span.text(word);
      if (span.kind == tokenizer::SpanKind::kLetter) {
        run_counts[fold_letters(text)] += count;
      } else if (span.kind == tokenizer::SpanKind::kDigit ||
                 span.kind == tokenizer::SpanKind::kOther) {
        piece_counts[std::string(text)] += count;
      }
    }
  }
  std::vector<std::string> runs;
  runs.reserve(run_counts.size());
  for (const auto& entry : run_counts) runs.push_back(entry.first);
  std::sort(runs.begin(), runs.end());

  {
    NeuralSegmenterOptions seg_options;
    seg_options.cache_capacity = 0;
    NeuralSegmenter segmenter(model, chars, seg_options);
    ProgressBar bar("export: segment", runs.size(), "words");
    constexpr size_t kBlock = 8192;
    for (size_t begin = 0; begin < runs.size(); begin += kBlock) {
      const std::vector<std::string> block(
          runs.begin() + static_cast<std::ptrdiff_t>(begin),
          runs.begin() + static_cast<std::ptrdiff_t>(std::min(runs.size(), begin + kBlock)));
      const std::vector<std::vector<std::string>> pieces = segmenter.segment_many(block);
      for (size_t i = 0; i < block.size(); ++i) {
        const uint64_t count = run_counts[block[i]];
        for (const std::string& p : pieces[i]) piece_counts[p] += count;
      }
      bar.add(block.size());
    }
    bar.finish();
  }

  // Vocabulary: the model's letters first (so no letter falls back to bytes), then the pieces
  // by weighted count (ties by string) down to min_count. Case is folded (no case duplicates);
  // no word-start marker pieces (the codec restores spacing exactly).
  const size_t budget = options.vocab_size - tokenizer::PieceCodec::kFirstPieceId;
  std::vector<std::string> pieces;
  std::vector<uint64_t> counts;
  std::unordered_set<std::string> seen;
  for (uint32_t id = train::CharVocab::kNumSpecials; id < chars.size() && pieces.size() < budget;
       ++id) {
    const char32_t c = chars.char_of(id);
    if (!unicode::is_letter(c)) continue;
    std::string s = utf8::encode(c);
    const auto it = piece_counts.find(s);
    counts.push_back(it == piece_counts.end() ? 0 : it->second);
    seen.insert(s);
    pieces.push_back(std::move(s));
  }
  std::vector<std::pair<std::string, uint64_t>> ranked(piece_counts.begin(), piece_counts.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  for (const auto& [piece, count] : ranked) {
    if (pieces.size() >= budget || count < options.min_count) break;
    if (!seen.insert(piece).second) continue;
    pieces.push_back(piece);
    counts.push_back(count);
  }

  // Write everything into a temporary sibling directory, then rename it into place.
  const std::string out = fs::path(options.out).lexically_normal().string();
  const std::string tmp = out + ".tmp-" + std::to_string(::getpid());
  remove_quietly(tmp);
  MORPHEUS_RETURN_IF_ERROR(make_dirs(tmp));
  Status status = [&]() -> Status {
    MORPHEUS_RETURN_IF_ERROR(model::save_inference_checkpoint(path_join(tmp, "model"), model, {}));
    MORPHEUS_RETURN_IF_ERROR(copy_file(chars_path, path_join(tmp, "char_vocab.json")));
    MORPHEUS_RETURN_IF_ERROR(write_file_atomic(
        path_join(tmp, "pieces.json"), json{{"pieces", pieces}, {"counts", counts}}.dump() + "\n"));
    std::string words_tsv;
    for (const auto& [word, count] : words) {
      words_tsv += word + "\t" + std::to_string(count) + "\n";
    }
    MORPHEUS_RETURN_IF_ERROR(write_file_atomic(path_join(tmp, "words.tsv"), words_tsv));
    json config = {{"format_version", kTokenizerFormatVersion},
                   {"kind", kKind},
                   {"vocab_size", tokenizer::PieceCodec::kFirstPieceId + pieces.size()},
                   {"num_pieces", pieces.size()},
                   {"byte_tokens", tokenizer::PieceCodec::kNumBytes},
                   {"case_tokens", json::array({"<cap>", "<upper>"})},
                   {"first_piece_id", tokenizer::PieceCodec::kFirstPieceId},
                   {"turkish_case", true},
                   {"threshold", model->config.threshold},
                   {"max_word_len", model->config.max_word_len},
                   {"min_count", options.min_count},
                   {"word_types", words.size()},
                   {"self_test", json::array()}};
    const std::string config_path = path_join(tmp, "tokenizer.json");
    MORPHEUS_RETURN_IF_ERROR(write_file_atomic(config_path, config.dump(2) + "\n"));
    // Self-test samples, encoded exactly as load() will re-encode them (fresh tokenizer).
    MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<NeuralTokenizer> tok,
                              NeuralTokenizer::load(tmp, false));
    for (const std::string& text : self_test_texts(*tok, words)) {
      MORPHEUS_ASSIGN_OR_RETURN(std::vector<int32_t> ids, tok->codec().encode(text));
      config["self_test"].push_back(json{{"text", text}, {"ids", ids}});
    }
    return write_file_atomic(config_path, config.dump(2) + "\n");
  }();
  if (!status.ok()) {
    remove_quietly(tmp);
    return status;
  }
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
  if (summary != nullptr) {
    summary->word_types = words.size();
    summary->letter_runs = runs.size();
    summary->pieces = pieces.size();
    summary->seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return ok_status();
}

StatusOr<std::unique_ptr<NeuralTokenizer>> NeuralTokenizer::load(const std::string& dir,
                                                                 bool self_test,
                                                                 NeuralSegmenterOptions options) {
  const std::string config_path = path_join(dir, "tokenizer.json");
  if (!file_exists(config_path)) {
    return not_found("no tokenizer.json in " + dir,
                     "--model takes a directory written by morpheus export");
  }
  MORPHEUS_ASSIGN_OR_RETURN(json config, load_json_file(config_path));
  if (!config.is_object() || config.value("kind", "") != kKind ||
      !config.contains("format_version") || !config["format_version"].is_number_integer()) {
    return data_loss(config_path + ": not a Morpheus tokenizer config (kind/format_version)",
                     "re-run morpheus export");
  }
  if (config["format_version"].get<int>() != kTokenizerFormatVersion) {
    return invalid_argument(
        config_path + ": format_version " + std::to_string(config["format_version"].get<int>()) +
            " is not supported (this build reads " + std::to_string(kTokenizerFormatVersion) + ")",
        "re-run morpheus export with this version");
  }
  const std::string pieces_path = path_join(dir, "pieces.json");
  MORPHEUS_ASSIGN_OR_RETURN(json pieces_json, load_json_file(pieces_path));
  std::vector<std::string> pieces;
  try {
    pieces = pieces_json.at("pieces").get<std::vector<std::string>>();
  } catch (const json::exception& e) {
    return data_loss(pieces_path + ": no \"pieces\" string array (" + e.what() + ")",
                     "re-run morpheus export");
  }
  MORPHEUS_ASSIGN_OR_RETURN(model::Morpheus model,
                            model::load_inference_checkpoint(path_join(dir, "model")));
  const std::string chars_path = path_join(dir, "char_vocab.json");
  MORPHEUS_ASSIGN_OR_RETURN(train::CharVocab chars, train::CharVocab::load(chars_path));
  if (static_cast<int64_t>(chars.size()) != model->config.char_vocab_size) {
    return data_loss(chars_path + " has " + std::to_string(chars.size()) +
                         " symbols but the model in " + path_join(dir, "model") + " expects " +
                         std::to_string(model->config.char_vocab_size),
                     "the character vocabulary does not belong to these weights");
  }
  std::unique_ptr<NeuralTokenizer> tok(new NeuralTokenizer());
  tok->dir_ = dir;
  tok->segmenter_ = std::make_unique<NeuralSegmenter>(std::move(model), std::move(chars), options);
  const NeuralSegmenter* seg = tok->segmenter_.get();
  tokenizer::PieceCodecOptions codec_options;
  codec_options.turkish_case = config.value("turkish_case", true);
  StatusOr<tokenizer::PieceCodec> codec = tokenizer::PieceCodec::create(
      std::move(pieces), [seg](std::string_view word) { return seg->segment(word); },
      codec_options);
  if (!codec.ok()) {
    return data_loss(pieces_path + ": " + codec.status().message(), "re-run morpheus export");
  }
  tok->codec_ = std::make_unique<tokenizer::PieceCodec>(std::move(*codec));
  const int64_t vocab_size = config.value("vocab_size", int64_t{-1});
  if (vocab_size != tok->codec_->vocab_size()) {
    return data_loss(config_path + " says vocab_size " + std::to_string(vocab_size) + " but " +
                         pieces_path + " gives " + std::to_string(tok->codec_->vocab_size()),
                     "the vocabulary does not belong to this tokenizer; re-run morpheus export");
  }
  if (self_test) {
    const json& samples = config.value("self_test", json::array());
    for (size_t i = 0; i < samples.size(); ++i) {
      std::string text;
      std::vector<int32_t> want;
      try {
        text = samples[i].at("text").get<std::string>();
        want = samples[i].at("ids").get<std::vector<int32_t>>();
      } catch (const json::exception&) {
        return data_loss(config_path + ": malformed self_test sample " + std::to_string(i),
                         "re-run morpheus export");
      }
      StatusOr<std::vector<int32_t>> got = tok->codec_->encode(text);
      if (!got.ok() || *got != want) {
        return data_loss(
            dir + ": self-test sample " + std::to_string(i) + " (\"" + text.substr(0, 60) +
                "\") no longer encodes to the ids stored at export",
            "the weights (model/) or the vocabulary (pieces.json) were swapped or damaged; "
            "re-run morpheus export");
      }
      StatusOr<std::string> back = tok->codec_->decode(want);
      if (!back.ok() || *back != text) {
        return data_loss(dir + ": self-test sample " + std::to_string(i) + " does not decode back",
                         "re-run morpheus export");
      }
    }
  }
  return tok;
}

void NeuralTokenizer::prefetch(const std::vector<std::string>& texts) const {
  std::unordered_set<std::string> seen;
  std::vector<std::string> runs;
  std::vector<tokenizer::Span> spans;
  for (const std::string& text : texts) {
    spans.clear();
    tokenizer::pretokenize_into(text, spans);
    for (const tokenizer::Span& span : spans) {
      if (span.kind != tokenizer::SpanKind::kLetter) continue;
      std::string folded = fold_letters(span.text(text));
      if (seen.insert(folded).second) runs.push_back(std::move(folded));
    }
  }
  if (!runs.empty()) segmenter_->segment_many(runs);
}

}  // namespace morpheus::tools
