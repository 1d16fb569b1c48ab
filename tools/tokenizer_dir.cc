// SPDX-License-Identifier: MIT
// Segmentation table, checksums and the torch-free tokenizer directory loader (table self-test).
#include "tools/tokenizer_dir.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <unordered_set>

#include "core/file_util.h"
#include "core/json_config.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "tokenizer/pretokenizer.h"
#include "train/cache.h"

namespace morpheus::tools {
namespace {

using nlohmann::json;

constexpr char kTableMagic[8] = {'M', 'S', 'E', 'G', 'T', 'A', 'B', '1'};
constexpr size_t kTableHeader = 24;

uint64_t read_u64(const char* p) {
  uint64_t v = 0;
  std::memcpy(&v, p, 8);
  return v;
}

void append_u64(uint64_t v, std::string* out) {
  char b[8];
  std::memcpy(b, &v, 8);
  out->append(b, 8);
}

// Compares `key` with a record whose pieces are joined by ' ' (the spaces are skipped).
int compare_run(std::string_view key, std::string_view record) {
  size_t i = 0;
  size_t j = 0;
  while (true) {
    while (j < record.size() && record[j] == ' ') ++j;
    if (i == key.size() || j == record.size()) {
      if (i == key.size() && j == record.size()) return 0;
      return i == key.size() ? -1 : 1;
    }
    const unsigned char a = static_cast<unsigned char>(key[i]);
    const unsigned char b = static_cast<unsigned char>(record[j]);
    if (a != b) return a < b ? -1 : 1;
    ++i;
    ++j;
  }
}

std::vector<std::string> split_record(std::string_view record) {
  std::vector<std::string> pieces;
  size_t begin = 0;
  while (begin <= record.size()) {
    size_t end = record.find(' ', begin);
    if (end == std::string_view::npos) end = record.size();
    if (end > begin) pieces.emplace_back(record.substr(begin, end - begin));
    begin = end + 1;
  }
  return pieces;
}

// Index of `run` in `table`, or table.size().
size_t find_run(const SegmentTable& table, std::string_view run) {
  size_t lo = 0;
  size_t hi = table.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const int c = compare_run(run, table.record(mid));
    if (c == 0) return mid;
    if (c < 0) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return table.size();
}

}  // namespace

void fold_run_into(std::string_view run, std::string* out) {
  out->clear();
  size_t pos = 0;
  while (pos < run.size()) {
    const utf8::Decoded d = utf8::decode_one(run, pos);
    utf8::append(unicode::to_lower(d.code_point, true), *out);
    pos += d.length;
  }
}

std::string fold_run(std::string_view run) {
  std::string out;
  out.reserve(run.size());
  fold_run_into(run, &out);
  return out;
}

std::string SegmentTable::serialize(
    std::vector<std::pair<std::string, std::vector<std::string>>> entries) {
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string blob;
  std::vector<uint64_t> offsets;
  offsets.reserve(entries.size() + 1);
  for (const auto& [run, pieces] : entries) {
    offsets.push_back(blob.size());
    for (size_t k = 0; k < pieces.size(); ++k) {
      if (k > 0) blob += ' ';
      blob += pieces[k];
    }
  }
  offsets.push_back(blob.size());
  std::string image(kTableMagic, 8);
  append_u64(entries.size(), &image);
  append_u64(blob.size(), &image);
  for (uint64_t o : offsets) append_u64(o, &image);
  image += blob;
  return image;
}

StatusOr<SegmentTable> SegmentTable::parse(std::string image, const std::string& path) {
  const auto bad = [&path](const std::string& what) {
    return data_loss(path + ": " + what,
                     "the segmentation table is damaged; re-run morpheus export");
  };
  if (image.size() < kTableHeader || std::memcmp(image.data(), kTableMagic, 8) != 0) {
    return bad("not a segmentation table (magic MSEGTAB1)");
  }
  const uint64_t count = read_u64(image.data() + 8);
  const uint64_t blob_bytes = read_u64(image.data() + 16);
  if (count > image.size() / 8 ||
      kTableHeader + (count + 1) * 8 + blob_bytes != static_cast<uint64_t>(image.size())) {
    return bad("size fields do not match the file size " + std::to_string(image.size()));
  }
  SegmentTable table;
  table.count_ = static_cast<size_t>(count);
  const char* offsets = image.data() + kTableHeader;
  uint64_t previous = 0;
  for (size_t i = 0; i <= table.count_; ++i) {
    const uint64_t o = read_u64(offsets + i * 8);
    if (o < previous || o > blob_bytes || (i == 0 && o != 0) ||
        (i == table.count_ && o != blob_bytes)) {
      return bad("record offset " + std::to_string(i) + " is out of order");
    }
    previous = o;
  }
  table.image_ = std::move(image);
  table.blob_ = table.image_.data() + kTableHeader + (table.count_ + 1) * 8;
  return table;
}

std::string_view SegmentTable::record(size_t i) const {
  const char* offsets = image_.data() + kTableHeader;
  const uint64_t begin = read_u64(offsets + i * 8);
  const uint64_t end = read_u64(offsets + (i + 1) * 8);
  return std::string_view(blob_ + begin, static_cast<size_t>(end - begin));
}

bool SegmentTable::lookup(std::string_view run, std::vector<std::string>* pieces) const {
  const size_t i = find_run(*this, run);
  if (i == count_) return false;
  *pieces = split_record(record(i));
  return true;
}

struct TokenizerDir::State {
  std::mutex mutex;
  bool created = false;
  Status error = ok_status();
  std::unique_ptr<RunSegmenter> model;
  std::unordered_map<std::string, std::vector<std::string>> resolved;  // model answers
  std::atomic<uint64_t> table_hits{0};
  std::atomic<uint64_t> model_runs{0};
  std::unique_ptr<SegmentCache> disk;     // --cache-file, when attached
  RunStats stats;                         // mutex held
  std::unordered_set<std::string> known;  // runs prefetch has resolved or sent to the model

  // Creates the model once (mutex held by the caller).
  Status ensure(const TokenizerDir& dir, const RunSegmenterFactory& factory) {
    if (!created) {
      created = true;
      if (!factory) {
        error = failed_precondition("no model segmenter for letter runs outside the table");
      } else {
        StatusOr<std::unique_ptr<RunSegmenter>> m = factory(dir);
        if (m.ok()) {
          model = std::move(*m);
        } else {
          error = m.status();
        }
      }
    }
    return error;
  }
  // Starts `runs` through the model (mutex held); finish() stores the answers.
  Status start(const TokenizerDir& dir, const RunSegmenterFactory& factory,
               std::vector<std::string> runs) {
    MORPHEUS_RETURN_IF_ERROR(finish());
    MORPHEUS_RETURN_IF_ERROR(ensure(dir, factory));
    const Status s = model->send(runs);
    if (!s.ok()) {
      error = s;
      return error;
    }
    in_flight = std::move(runs);
    return ok_status();
  }
  // Stores the answers of the request in flight, if any (mutex held).
  Status finish() {
    if (in_flight.empty()) return error;
    std::vector<std::string> runs = std::move(in_flight);
    in_flight.clear();
    StatusOr<std::vector<std::vector<std::string>>> pieces = model->receive();
    if (!pieces.ok()) {
      error = pieces.status();
      return error;
    }
    if (pieces->size() != runs.size()) {
      error = internal_error("model segmenter returned " + std::to_string(pieces->size()) +
                             " answers for " + std::to_string(runs.size()) + " runs");
      return error;
    }
    model_runs += runs.size();
    if (disk) {
      const Status s = disk->append(runs, *pieces);
      if (!s.ok()) {
        error = s;
        return error;
      }
    }
    for (size_t i = 0; i < runs.size(); ++i) resolved[runs[i]] = std::move((*pieces)[i]);
    return ok_status();
  }
  // Runs `runs` through the model and stores the answers (mutex held).
  Status run(const TokenizerDir& dir, const RunSegmenterFactory& factory,
             std::vector<std::string> runs) {
    MORPHEUS_RETURN_IF_ERROR(start(dir, factory, std::move(runs)));
    return finish();
  }
  std::vector<std::string> in_flight;  // runs sent to the model, answers not read yet
};

TokenizerDir::TokenizerDir() = default;
TokenizerDir::~TokenizerDir() = default;

namespace {

// Reads dir/relative into *content and checks it against its checksum in `config`.
Status read_verified(const std::string& dir, const json& config, const std::string& relative,
                     std::string* content) {
  const std::string path = path_join(dir, relative);
  const json& files = config.value("files", json::object());
  if (!files.is_object() || !files.contains(relative) || !files[relative].is_string()) {
    return data_loss(path_join(dir, "tokenizer.json") + ": no checksum for " + relative,
                     "re-run morpheus export");
  }
  MORPHEUS_ASSIGN_OR_RETURN(*content, read_file(path));
  const std::string buf = checksum_tag(*content);
  const std::string want = files[relative].get<std::string>();
  if (want != buf) {
    return data_loss(
        path + " does not match the checksum stored at export (" + buf + " vs " + want + ")",
        "the file was swapped or damaged; re-run morpheus export");
  }
  return ok_status();
}

}  // namespace

Status TokenizerDir::verify_file(const std::string& relative) const {
  std::string content;
  return read_verified(dir_, config_, relative, &content);
}

std::vector<std::string> TokenizerDir::segment_run(std::string_view folded) const {
  std::vector<std::string> pieces;
  if (table_.lookup(folded, &pieces)) {
    ++state_->table_hits;
    return pieces;
  }
  std::lock_guard<std::mutex> lock(state_->mutex);
  const std::string key(folded);
  if (state_->disk && state_->disk->lookup(key, &pieces)) return pieces;
  auto it = state_->resolved.find(key);
  if (it == state_->resolved.end() && !state_->in_flight.empty()) {
    if (!state_->finish().ok()) return {};  // whole run; encode() reports the error
    it = state_->resolved.find(key);
  }
  if (it == state_->resolved.end()) {
    if (!state_->run(*this, factory_, {key}).ok())
      return {};  // whole run; encode() reports the error
    it = state_->resolved.find(key);
  }
  pieces = it->second;
  if (state_->resolved.size() > (1u << 20)) state_->resolved.clear();
  return pieces;
}

StatusOr<std::unique_ptr<TokenizerDir>> TokenizerDir::load(const std::string& dir, bool self_test,
                                                           RunSegmenterFactory model) {
  const std::string config_path = path_join(dir, "tokenizer.json");
  if (!file_exists(config_path)) {
    return not_found("no tokenizer.json in " + dir,
                     "--model takes a directory written by morpheus export");
  }
  std::unique_ptr<TokenizerDir> tok(new TokenizerDir());
  tok->dir_ = dir;
  tok->factory_ = std::move(model);
  tok->state_ = std::make_unique<State>();
  MORPHEUS_ASSIGN_OR_RETURN(std::string config_bytes, read_file(config_path));
  tok->id_ = fnv1a64(config_bytes);
  MORPHEUS_ASSIGN_OR_RETURN(tok->config_, load_json_file(config_path));
  const json& config = tok->config_;
  if (!config.is_object() || config.value("kind", "") != kTokenizerKind ||
      !config.contains("format_version") || !config["format_version"].is_number_integer()) {
    return data_loss(config_path + ": not a Morpheus tokenizer config (kind/format_version)",
                     "re-run morpheus export");
  }
  const int version = config["format_version"].get<int>();
  if (version != kTokenizerFormatVersion) {
    return invalid_argument(
        config_path + ": format_version " + std::to_string(version) +
            " is not supported (this build reads " + std::to_string(kTokenizerFormatVersion) + ")",
        "re-export the tokenizer with this build: morpheus export --checkpoint <run>/final "
        "--data <prepared dir> --out " +
            dir);
  }
  std::string pieces_text;
  MORPHEUS_RETURN_IF_ERROR(read_verified(dir, config, "pieces.json", &pieces_text));
  std::string image;
  MORPHEUS_RETURN_IF_ERROR(read_verified(dir, config, kSegmentTableFile, &image));
  const std::string pieces_path = path_join(dir, "pieces.json");
  std::vector<std::string> pieces;
  try {
    pieces = json::parse(pieces_text).at("pieces").get<std::vector<std::string>>();
  } catch (const json::exception& e) {
    return data_loss(pieces_path + ": no \"pieces\" string array (" + e.what() + ")",
                     "re-run morpheus export");
  }
  const std::string table_path = path_join(dir, kSegmentTableFile);
  MORPHEUS_ASSIGN_OR_RETURN(tok->table_, SegmentTable::parse(std::move(image), table_path));

  const TokenizerDir* self = tok.get();
  tokenizer::PieceCodecOptions codec_options;
  codec_options.turkish_case = config.value("turkish_case", true);
  codec_options.vocabulary_backoff = true;
  StatusOr<tokenizer::PieceCodec> codec = tokenizer::PieceCodec::create(
      std::move(pieces), [self](std::string_view word) { return self->segment_run(word); },
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
  if (!self_test) return tok;
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
    std::vector<int32_t> got;
    const Status s = tok->encode(text, &got, false);
    if (!s.ok() || got != want) {
      return data_loss(dir + ": self-test sample " + std::to_string(i) + " (\"" +
                           text.substr(0, 60) + "\") no longer encodes to the ids stored at export",
                       "the vocabulary (pieces.json) or the segmentation table (" +
                           std::string(kSegmentTableFile) +
                           ") were swapped or damaged; re-run morpheus export");
    }
    StatusOr<std::string> back = tok->codec_->decode(want);
    if (!back.ok() || *back != text) {
      return data_loss(dir + ": self-test sample " + std::to_string(i) + " does not decode back",
                       "re-run morpheus export");
    }
  }
  return tok;
}

Status TokenizerDir::prefetch_begin(const std::vector<std::string>& texts) const {
  constexpr size_t kMaxKnown = size_t{1} << 21;
  std::vector<std::string> missing;
  std::vector<tokenizer::Span> spans;
  std::vector<std::string> pieces;
  std::string folded;
  std::lock_guard<std::mutex> lock(state_->mutex);
  MORPHEUS_RETURN_IF_ERROR(state_->finish());
  RunStats& stats = state_->stats;
  std::unordered_set<std::string>& known = state_->known;
  for (const std::string& text : texts) {
    if (!utf8::is_valid(text)) continue;  // encode reports it (or uses byte tokens)
    spans.clear();
    tokenizer::pretokenize_into(text, spans);
    for (const tokenizer::Span& span : spans) {
      if (span.kind != tokenizer::SpanKind::kLetter) continue;
      ++stats.words;
      fold_run_into(span.text(text), &folded);
      if (known.count(folded) != 0) continue;  // each distinct run looked up once per input
      if (known.size() >= kMaxKnown) known.clear();
      known.insert(folded);
      ++stats.runs;
      if (find_run(table_, folded) != table_.size()) {
        ++stats.table;
      } else if (state_->disk && state_->disk->lookup(folded, &pieces)) {
        ++stats.cache;
      } else if (state_->resolved.count(folded) == 0) {
        missing.push_back(folded);
      }
    }
  }
  if (missing.empty()) return ok_status();
  return state_->start(*this, factory_, std::move(missing));
}

Status TokenizerDir::prefetch_end() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->finish();
}

Status TokenizerDir::prefetch(const std::vector<std::string>& texts) const {
  MORPHEUS_RETURN_IF_ERROR(prefetch_begin(texts));
  return prefetch_end();
}

Status TokenizerDir::attach_cache(const std::string& path) {
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<SegmentCache> cache, SegmentCache::open(path, id_));
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->disk = std::move(cache);
  return ok_status();
}

TokenizerDir::RunStats TokenizerDir::run_stats() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->stats;
}

Status TokenizerDir::encode(std::string_view text, std::vector<int32_t>* ids,
                            bool allow_invalid) const {
  MORPHEUS_RETURN_IF_ERROR(codec_->encode(text, ids, nullptr, allow_invalid));
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->error;
}

StatusOr<std::vector<std::string>> TokenizerDir::segment_word(std::string_view word) const {
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<std::string> pieces, codec_->segment_word(word));
  std::lock_guard<std::mutex> lock(state_->mutex);
  MORPHEUS_RETURN_IF_ERROR(state_->error);
  return pieces;
}

StatusOr<RunSegmenter*> TokenizerDir::model() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  MORPHEUS_RETURN_IF_ERROR(state_->ensure(*this, factory_));
  return state_->model.get();
}

bool TokenizerDir::model_created() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->created;
}

uint64_t TokenizerDir::table_hits() const { return state_->table_hits.load(); }
uint64_t TokenizerDir::model_runs() const { return state_->model_runs.load(); }

}  // namespace morpheus::tools
