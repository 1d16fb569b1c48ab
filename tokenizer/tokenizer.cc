// SPDX-License-Identifier: MIT
// The tokenizer's stages (tokenizer.h): loading and checking the directory, stage 3 (segment
// table, cache file, model) and stage 4 (root snap) of each letter run, the model's creation
// with its self-test, and the prefetch of the runs the model must segment.
#include "tokenizer/tokenizer.h"

#include <algorithm>
#include <atomic>
#include <iterator>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "core/file_util.h"
#include "core/flat_string_map.h"
#include "core/hash.h"
#include "core/json_config.h"
#include "core/utf8.h"
#include "morph/root_lexicon.h"
#include "morph/root_snap.h"
#include "tokenizer/case_fold.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/segment_cache.h"

namespace morpheus::tokenizer {
namespace {

using nlohmann::json;

// Reads dir/relative into *content and checks it against its checksum in `config`.
Status read_verified(const std::string& dir, const json& config, const std::string& relative,
                     std::string* content) {
  const std::string path = path_join(dir, relative);
  const json& files = config.value("files", json::object());
  if (!files.is_object() || !files.contains(relative) || !files[relative].is_string()) {
    return data_loss(tokenizer_config_path(dir) + ": no checksum for " + relative,
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

// Stage 4's lexicon when the directory was exported with --root-snap (else null): the rule must
// be this build's, since the segment table holds that rule's segmentations.
StatusOr<std::shared_ptr<const morph::RootLexicon>> load_root_snap(const std::string& dir,
                                                                   const json& config) {
  if (!config.value("root_snap", false)) return std::shared_ptr<const morph::RootLexicon>();
  const int rule = config.value("root_snap_rule", 1);
  if (rule != morph::kRootSnapRule) {
    return failed_precondition(
        dir + " was exported with root-snap rule " + std::to_string(rule) +
            "; this build applies rule " + std::to_string(morph::kRootSnapRule),
        "re-run morpheus export with --root-snap (the table must come from the same rule)");
  }
  std::string roots;
  std::string suffixes;
  MORPHEUS_RETURN_IF_ERROR(read_verified(dir, config, kRootSnapRoots, &roots));
  MORPHEUS_RETURN_IF_ERROR(read_verified(dir, config, kRootSnapSuffixes, &suffixes));
  MORPHEUS_ASSIGN_OR_RETURN(
      morph::RootLexicon lexicon,
      morph::RootLexicon::parse(roots, suffixes, path_join(dir, kRootSnapRoots),
                                path_join(dir, kRootSnapSuffixes)));
  return std::shared_ptr<const morph::RootLexicon>(
      std::make_shared<morph::RootLexicon>(std::move(lexicon)));
}

// The model self-test of the config: the stored runs, through the model and the root snap,
// must give the pieces stored at export.
Status model_self_test(const std::string& dir, const json& config, Segmenter* model,
                       const morph::RootLexicon* root_snap) {
  std::vector<std::string> runs;
  std::vector<std::vector<std::string>> want;
  try {
    for (const json& sample : config.value("model_self_test", json::array())) {
      runs.push_back(sample.at("run").get<std::string>());
      want.push_back(sample.at("pieces").get<std::vector<std::string>>());
    }
  } catch (const json::exception&) {
    return data_loss(tokenizer_config_path(dir) + ": malformed model_self_test",
                     "re-run morpheus export");
  }
  if (runs.empty()) return ok_status();
  MORPHEUS_ASSIGN_OR_RETURN(Segmentation got, model->segment(runs));
  for (size_t i = 0; i < runs.size(); ++i) {
    if (root_snap != nullptr) got[i] = morph::snap_pieces(*root_snap, std::move(got[i]));
    if (got[i] != want[i]) {
      std::string g;
      for (const std::string& p : got[i]) g += (g.empty() ? "" : " ") + p;
      return data_loss(dir + ": model self-test run " + std::to_string(i) + " (\"" +
                           runs[i].substr(0, 60) + "\") segments as \"" + g.substr(0, 80) +
                           "\", not as at export",
                       "the weights (model/) were swapped or damaged; re-run morpheus export");
    }
  }
  return ok_status();
}

}  // namespace

std::string directory_segmenter(const json& config) {
  const json& entry = config.value("segmenter", json::object());
  return entry.is_object() ? entry.value("name", std::string(kModelSegmenter)) : kModelSegmenter;
}

StatusOr<json> spec_directory_config(const SegmenterSpec& spec) {
  if (spec.directory_config != nullptr) return *spec.directory_config;
  return load_json_file(tokenizer_config_path(spec.path));
}

std::string tokenizer_config_path(const std::string& dir) {
  const std::string current = path_join(dir, kTokenizerConfigFile);
  if (file_exists(current)) return current;
  const std::string old = path_join(dir, kOldTokenizerConfigFile);
  return file_exists(old) ? old : current;
}

struct Tokenizer::State {
  std::mutex mutex;
  std::unique_ptr<Segmenter> model;                     // null until created, or after a failure
  std::shared_ptr<const morph::RootLexicon> root_snap;  // stage 4, loaded with the model
  std::unordered_map<std::string, std::vector<std::string>> resolved;  // model answers, snapped
  std::atomic<uint64_t> table_hits{0};
  std::atomic<uint64_t> model_runs{0};
  std::unique_ptr<SegmentCache> disk;  // --cache-file, when attached
  uint64_t lookups = 0;                // runs segment_run looked up outside the table (mutex)
  uint64_t disk_hits = 0;              // of those, answered by the cache file (mutex)
  uint64_t sync_runs = 0;              // runs sent to the model one by one, unprefetched (mutex)
  // The adaptive prefetch (prefetch_begin): whether the last scanned block had no miss, the
  // sync_runs count then, and the blocks skipped since.
  bool scan_idle = false;
  uint64_t sync_runs_at_idle = 0;
  size_t skipped_scans = 0;
  FlatStringMap<uint8_t> known;        // runs prefetch has resolved or sent to the model
  std::vector<std::string> in_flight;  // runs sent to the model, answers not read yet

  // Every failure is the failing call's own: it is returned to that call and nothing of it is
  // kept. A failed creation leaves no model, and a model that failed a request is dropped (a
  // co-process may have died), so the next call that needs the model creates it anew.

  // Creates the model of `tok` when there is none, with the root snap's lexicon, and runs the
  // model self-test (mutex held by the caller).
  Status ensure(const Tokenizer& tok) {
    if (model != nullptr) return ok_status();
    const Status s = create(tok);
    if (!s.ok()) drop_model();
    return s;
  }
  Status create(const Tokenizer& tok) {
    SegmenterSpec at_dir = tok.model_;
    const std::string own = directory_segmenter(tok.config_);
    if (own != kModelSegmenter) at_dir = SegmenterSpec(own, "");
    if (at_dir.name.empty()) {
      return failed_precondition("no model segmenter for letter runs outside the table");
    }
    at_dir.path = tok.dir_;
    at_dir.directory_config = std::make_shared<const json>(tok.config_);
    MORPHEUS_ASSIGN_OR_RETURN(model, create_segmenter(at_dir));
    MORPHEUS_ASSIGN_OR_RETURN(root_snap, load_root_snap(tok.dir_, tok.config_));
    return model_self_test(tok.dir_, tok.config_, model.get(), root_snap.get());
  }
  // Forgets the model and the request in flight (mutex held).
  void drop_model() {
    model.reset();
    in_flight.clear();
  }
  // Returns `s` after dropping the model when it is an error (mutex held).
  Status failed_if(Status s) {
    if (!s.ok()) drop_model();
    return s;
  }
  // Starts `runs` through the model (mutex held); finish() stores the answers. An unfinished
  // earlier request is finished first; its failure only drops the model (its runs were a
  // prefetch: the calls that need them ask again).
  Status start(const Tokenizer& tok, std::vector<std::string> runs) {
    static_cast<void>(finish());
    MORPHEUS_RETURN_IF_ERROR(ensure(tok));
    MORPHEUS_RETURN_IF_ERROR(failed_if(model->send(runs)));
    in_flight = std::move(runs);
    return ok_status();
  }
  // Stores the answers of the request in flight, if any, after stage 4 (mutex held).
  Status finish() {
    if (in_flight.empty()) return ok_status();
    std::vector<std::string> runs = std::move(in_flight);
    in_flight.clear();
    StatusOr<Segmentation> pieces = model->receive();
    if (!pieces.ok()) return failed_if(pieces.status());
    if (pieces->size() != runs.size()) {
      return failed_if(internal_error("model segmenter returned " + std::to_string(pieces->size()) +
                                      " answers for " + std::to_string(runs.size()) + " runs"));
    }
    model_runs += runs.size();
    if (root_snap != nullptr) {
      for (std::vector<std::string>& p : *pieces) p = morph::snap_pieces(*root_snap, std::move(p));
    }
    if (disk) MORPHEUS_RETURN_IF_ERROR(disk->append(runs, *pieces));
    for (size_t i = 0; i < runs.size(); ++i) resolved[runs[i]] = std::move((*pieces)[i]);
    return ok_status();
  }
  // Runs `runs` through the model and stores the answers (mutex held).
  Status run(const Tokenizer& tok, std::vector<std::string> runs) {
    MORPHEUS_RETURN_IF_ERROR(start(tok, std::move(runs)));
    return finish();
  }
};

Tokenizer::Tokenizer() = default;
Tokenizer::~Tokenizer() = default;

// The codec's segmenter: stages 3 and 4 of each folded letter run (Tokenizer::segment_run).
class Tokenizer::Stages : public Segmenter {
 public:
  explicit Stages(const Tokenizer* tok) : tok_(tok) {}
  StatusOr<Segmentation> segment(const std::vector<std::string>& folded) const override {
    Segmentation out;
    for (const std::string& run : folded) {
      MORPHEUS_ASSIGN_OR_RETURN(std::vector<std::string> pieces, tok_->segment_run(run));
      out.push_back(std::move(pieces));
    }
    return out;
  }
  StatusOr<std::vector<std::string>> segment_word(std::string_view folded) const override {
    return tok_->segment_run(folded);
  }
  std::string name() const override { return "morpheus-tokenizer"; }

 private:
  const Tokenizer* tok_;
};

Status verify_tokenizer_file(const std::string& dir, const json& config,
                             const std::string& relative) {
  std::string content;
  return read_verified(dir, config, relative, &content);
}

StatusOr<std::vector<std::string>> Tokenizer::segment_run(std::string_view folded) const {
  // Stage 3, the first source that knows the run: the segment table, the cache file, the model.
  // Stage 4 (the root snap) is in the pieces of all three: export and the cache file stored
  // snapped pieces, and State::finish snaps the model's answers before keeping or caching them.
  std::vector<std::string> pieces;
  if (table_.lookup(folded, &pieces)) {
    ++state_->table_hits;
    return pieces;
  }
  std::lock_guard<std::mutex> lock(state_->mutex);
  ++state_->lookups;
  const std::string key(folded);
  if (state_->disk && state_->disk->lookup(key, &pieces)) {
    ++state_->disk_hits;
    return pieces;
  }
  auto it = state_->resolved.find(key);
  if (it == state_->resolved.end() && !state_->in_flight.empty()) {
    // Another call's prefetch: its failure is not this call's (the run is asked for below).
    static_cast<void>(state_->finish());
    it = state_->resolved.find(key);
  }
  if (it == state_->resolved.end()) {
    ++state_->sync_runs;
    MORPHEUS_RETURN_IF_ERROR(state_->run(*this, {key}));
    it = state_->resolved.find(key);
  }
  pieces = it->second;
  if (state_->resolved.size() > (1u << 20)) state_->resolved.clear();
  return pieces;
}

namespace {

// The config must name its kind and this build's format version.
Status check_config(const std::string& dir, const json& config) {
  const std::string config_path = tokenizer_config_path(dir);
  if (!config.is_object() || config.value("kind", "") != kTokenizerKind ||
      !config.contains("format_version") || !config["format_version"].is_number_integer()) {
    return data_loss(config_path + ": not a Morpheus tokenizer config (kind/format_version)",
                     "re-run morpheus export");
  }
  const int version = config["format_version"].get<int>();
  if (version < kTokenizerOldestFormatVersion || version > kTokenizerFormatVersion) {
    return invalid_argument(
        config_path + ": format_version " + std::to_string(version) +
            " is not supported (this build reads " + std::to_string(kTokenizerOldestFormatVersion) +
            " to " + std::to_string(kTokenizerFormatVersion) + ")",
        "re-export the tokenizer with this build: morpheus export --checkpoint <run>/final "
        "--data <prepared dir> --out " +
            dir);
  }
  return ok_status();
}

// Collects the strings of the top-level "pieces" array of a JSON document and nothing else:
// pieces.json also holds the counts, and a full parse would build a value for every one.
class PiecesSax : public json::json_sax_t {
 public:
  std::vector<std::string> pieces;
  bool found = false;
  std::string error;

  bool null() override { return other(); }
  bool boolean(bool) override { return other(); }
  bool number_integer(number_integer_t) override { return other(); }
  bool number_unsigned(number_unsigned_t) override { return other(); }
  bool number_float(number_float_t, const string_t&) override { return other(); }
  bool binary(binary_t&) override { return other(); }
  bool string(string_t& s) override {
    if (!in_pieces()) return other();
    pieces.push_back(std::move(s));
    return true;
  }
  bool start_object(std::size_t) override { return open(); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override {
    if (depth_ == 1 && key_is_pieces_) found = true;
    return open();
  }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    if (depth_ == 1) key_is_pieces_ = k == "pieces";
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    error = e.what();
    return false;
  }

 private:
  bool in_pieces() const { return depth_ == 2 && key_is_pieces_; }
  // A value other than a string: inside the pieces array it is an error.
  bool other() {
    if (!in_pieces()) return true;
    error = "a piece is not a string";
    return false;
  }
  bool open() {
    if (in_pieces()) return other();
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }
  int depth_ = 0;
  bool key_is_pieces_ = false;
};

// The "pieces" of pieces.json (checksummed).
StatusOr<std::vector<std::string>> read_pieces(const std::string& dir, const json& config) {
  std::string text;
  MORPHEUS_RETURN_IF_ERROR(read_verified(dir, config, kPiecesFile, &text));
  PiecesSax sax;
  if (!json::sax_parse(text, &sax) || !sax.found) {
    return data_loss(path_join(dir, kPiecesFile) + ": no \"pieces\" string array" +
                         (sax.error.empty() ? "" : " (" + sax.error + ")"),
                     "re-run morpheus export");
  }
  return std::move(sax.pieces);
}

}  // namespace

StatusOr<std::unique_ptr<Tokenizer>> Tokenizer::load(const std::string& dir, bool self_test,
                                                     SegmenterSpec model) {
  const std::string config_path = tokenizer_config_path(dir);
  if (!file_exists(config_path)) {
    return not_found("no " + std::string(kTokenizerConfigFile) + " in " + dir,
                     "--model takes a directory written by morpheus export");
  }
  MORPHEUS_ASSIGN_OR_RETURN(std::string config_bytes, read_file(config_path));
  MORPHEUS_ASSIGN_OR_RETURN(json config, parse_json(config_bytes, config_path));
  return create(dir, std::move(config), fnv1a64(config_bytes), self_test, std::move(model));
}

StatusOr<std::unique_ptr<Tokenizer>> Tokenizer::from_config(const std::string& dir,
                                                            nlohmann::json config, bool self_test,
                                                            SegmenterSpec model) {
  const uint64_t id = fnv1a64(config.dump());
  return create(dir, std::move(config), id, self_test, std::move(model));
}

StatusOr<std::unique_ptr<Tokenizer>> Tokenizer::create(const std::string& dir,
                                                       nlohmann::json json_config, uint64_t id,
                                                       bool self_test, SegmenterSpec model) {
  const std::string config_path = tokenizer_config_path(dir);
  std::unique_ptr<Tokenizer> tok(new Tokenizer());
  tok->dir_ = dir;
  tok->model_ = std::move(model);
  tok->state_ = std::make_unique<State>();
  tok->id_ = id;
  tok->config_ = std::move(json_config);
  const json& config = tok->config_;
  MORPHEUS_RETURN_IF_ERROR(check_config(dir, config));
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<std::string> pieces, read_pieces(dir, config));
  std::string image;
  MORPHEUS_RETURN_IF_ERROR(read_verified(dir, config, kSegmentTableFile, &image));
  MORPHEUS_ASSIGN_OR_RETURN(
      tok->table_, SegmentTable::parse(std::move(image), path_join(dir, kSegmentTableFile)));
  PieceCodecOptions codec_options;
  codec_options.turkish_case = config.value("turkish_case", true);
  codec_options.vocabulary_backoff = true;
  codec_options.turkish_apostrophe = config.value("turkish_apostrophe", false);
  const std::string pieces_path = path_join(dir, kPiecesFile);
  StatusOr<PieceCodec> codec =
      PieceCodec::create(std::move(pieces), std::make_shared<Stages>(tok.get()), codec_options);
  if (!codec.ok()) {
    return data_loss(pieces_path + ": " + codec.status().message(), "re-run morpheus export");
  }
  tok->codec_ = std::make_unique<PieceCodec>(std::move(*codec));
  MORPHEUS_RETURN_IF_ERROR(tok->load_symbols());
  const int64_t vocab_size = config.value("vocab_size", int64_t{-1});
  if (vocab_size != tok->vocab_size()) {
    return data_loss(config_path + " says vocab_size " + std::to_string(vocab_size) + " but " +
                         pieces_path + " and the special tokens give " +
                         std::to_string(tok->vocab_size()),
                     "the vocabulary does not belong to this tokenizer; re-run morpheus export");
  }
  if (self_test) MORPHEUS_RETURN_IF_ERROR(tok->self_test());
  return tok;
}

Status Tokenizer::self_test() const {
  const json& samples = config_.value("self_test", json::array());
  for (size_t i = 0; i < samples.size(); ++i) {
    std::string text;
    std::vector<int32_t> want;
    try {
      text = samples[i].at("text").get<std::string>();
      want = samples[i].at("ids").get<std::vector<int32_t>>();
    } catch (const json::exception&) {
      return data_loss(
          tokenizer_config_path(dir_) + ": malformed self_test sample " + std::to_string(i),
          "re-run morpheus export");
    }
    std::vector<int32_t> got;
    const Status s = encode(text, &got, false);
    if (!s.ok() || got != want) {
      return data_loss(dir_ + ": self-test sample " + std::to_string(i) + " (\"" +
                           text.substr(0, 60) + "\") no longer encodes to the ids stored at export",
                       "the vocabulary (pieces.json) or the segment table (" +
                           std::string(kSegmentTableFile) +
                           ") were swapped or damaged; re-run morpheus export");
    }
    std::string back;
    if (!decode(want, &back).ok() || back != text) {
      return data_loss(dir_ + ": self-test sample " + std::to_string(i) + " does not decode back",
                       "re-run morpheus export");
    }
  }
  if (config_.value("format_version", 0) < 3) return ok_status();
  return special_self_test();
}

Status Tokenizer::special_self_test() const {
  const auto broken = [this](const std::string& what) {
    return data_loss(tokenizer_config_path(dir_) + ": special_self_test " + what,
                     "special_tokens or user_symbols were edited; re-run morpheus export");
  };
  const json& sample = config_.value("special_self_test", json());
  EncodeOptions options;
  std::string text;
  std::string decoded;
  std::vector<int32_t> want;
  try {
    text = sample.at("text").get<std::string>();
    decoded = sample.at("decoded").get<std::string>();
    want = sample.at("ids").get<std::vector<int32_t>>();
    options.add_bos = sample.at("add_bos").get<bool>();
    options.add_eos = sample.at("add_eos").get<bool>();
  } catch (const json::exception&) {
    return broken("is missing or malformed");
  }
  std::vector<int32_t> got(want);
  got.resize(std::min(want.size(), special_tokens_.size()));
  if (!encode(text, options, &got).ok() || got != want) return broken("encodes differently");
  std::string kept;
  std::string dropped;
  if (!decode(want, &kept, true).ok() || kept != decoded || !decode(want, &dropped).ok() ||
      dropped != text) {
    return broken("decodes differently");
  }
  return ok_status();
}

StatusOr<json> make_special_self_test(const Tokenizer& tok) {
  // The user symbols only: the special token strings would be letter runs the table may lack.
  std::string text;
  for (const std::string& s : tok.user_symbols()) text += (text.empty() ? "" : " ") + s;
  EncodeOptions options;
  options.add_bos = tok.bos_id() >= 0;
  options.add_eos = tok.eos_id() >= 0;
  std::vector<int32_t> ids;
  for (size_t i = 0; i < tok.special_tokens().size(); ++i) {
    ids.push_back(tok.piece_to_id(tok.special_tokens()[i]));
  }
  MORPHEUS_RETURN_IF_ERROR(tok.encode(text, options, &ids));
  std::string decoded;
  MORPHEUS_RETURN_IF_ERROR(tok.decode(ids, &decoded, true));
  return json{{"text", text},
              {"add_bos", options.add_bos},
              {"add_eos", options.add_eos},
              {"ids", ids},
              {"decoded", decoded}};
}

std::vector<std::string> default_special_tokens() { return {"<pad>", "<s>", "</s>", "<mask>"}; }

Status check_special_tokens(const std::vector<std::string>& special_tokens,
                            const std::vector<std::string>& user_symbols) {
  std::vector<std::string> seen;
  for (const auto* list : {&special_tokens, &user_symbols}) {
    const std::string kind = list == &special_tokens ? "special token" : "user symbol";
    for (const std::string& s : *list) {
      const std::string named = kind + " \"" + s + "\"";
      if (s.empty()) return invalid_argument("an empty " + kind, "drop the empty entry");
      if (!utf8::is_valid(s)) return invalid_argument(kind + " is not valid UTF-8");
      if (s.find_first_of(" \t\r\n") != std::string::npos) {
        return invalid_argument(named + " contains white space",
                                "special tokens and user symbols are single words");
      }
      if (std::find(seen.begin(), seen.end(), s) != seen.end()) {
        return invalid_argument(named + " is given twice",
                                "each string may be one special token or one user symbol");
      }
      seen.push_back(s);
    }
  }
  return ok_status();
}

Status Tokenizer::load_symbols() {
  const std::string config_path = tokenizer_config_path(dir_);
  if (config_.value("format_version", 0) >= 3) {
    try {
      special_tokens_ = config_.at("special_tokens").get<std::vector<std::string>>();
      user_symbols_ = config_.at("user_symbols").get<std::vector<std::string>>();
    } catch (const json::exception&) {
      return data_loss(config_path + ": no special_tokens/user_symbols string arrays",
                       "re-run morpheus export");
    }
    const Status s = check_special_tokens(special_tokens_, user_symbols_);
    if (!s.ok()) return data_loss(config_path + ": " + s.message(), "re-run morpheus export");
    if (config_.value("first_special_id", -1) != codec_->vocab_size()) {
      return data_loss(config_path + ": first_special_id is not " +
                           std::to_string(codec_->vocab_size()) + " (after the pieces)",
                       "re-run morpheus export");
    }
  }
  symbols_ = special_tokens_;
  symbols_.insert(symbols_.end(), user_symbols_.begin(), user_symbols_.end());
  for (size_t i = 0; i < symbols_.size(); ++i) {
    const int32_t id = codec_->vocab_size() + static_cast<int32_t>(i);
    symbol_ids_.insert(symbols_[i], id);
    if (i >= special_tokens_.size()) {
      longest_user_symbol_ = std::max(longest_user_symbol_, symbols_[i].size());
      symbol_first_bytes_.set(static_cast<unsigned char>(symbols_[i][0]));
      continue;
    }
    const std::string& s = symbols_[i];
    int32_t* role = s == "<pad>" || s == "[PAD]"     ? &pad_id_
                    : s == "<s>" || s == "[CLS]"     ? &bos_id_
                    : s == "</s>" || s == "[SEP]"    ? &eos_id_
                    : s == "<mask>" || s == "[MASK]" ? &mask_id_
                                                     : nullptr;
    if (role != nullptr && *role < 0) *role = id;
  }
  return ok_status();
}

namespace {

// The distinct folded letter runs of `texts` (valid UTF-8 only: encode reports the others), in
// order of first occurrence, without the runs the codec keeps whole (`turkish_apostrophe`: they
// never reach the segmenter).
std::vector<std::string> distinct_folded_runs(const std::vector<std::string>& texts,
                                              bool turkish_apostrophe) {
  std::vector<std::string> runs;
  thread_local FlatStringMap<uint8_t> seen;  // cleared per call, its capacity kept
  seen.clear();
  std::vector<Span> spans;
  std::string folded;
  for (const std::string& text : texts) {
    if (!utf8::is_valid(text)) continue;
    spans.clear();
    pretokenize_into(text, spans);
    for (size_t k = 0; k < spans.size(); ++k) {
      if (spans[k].kind != SpanKind::kLetter) continue;
      if (turkish_apostrophe && apostrophe_role(spans, k) != ApostropheRole::kNone) continue;
      fold_run_into(spans[k].text(text), &folded);
      if (seen.insert(folded, 1).second) runs.push_back(folded);
    }
  }
  return runs;
}

}  // namespace

bool Tokenizer::skip_scan() const {
  constexpr size_t kRescanEvery = 16;
  std::lock_guard<std::mutex> lock(state_->mutex);
  State& st = *state_;
  if (st.scan_idle && st.sync_runs == st.sync_runs_at_idle && ++st.skipped_scans < kRescanEvery) {
    return true;
  }
  st.skipped_scans = 0;
  return false;
}

Status Tokenizer::prefetch_begin(const std::vector<std::string>& texts) const {
  constexpr size_t kMaxKnown = size_t{1} << 21;
  if (skip_scan()) return ok_status();
  // The block's runs without the lock, so encode can run on other threads meanwhile.
  const std::vector<std::string> runs =
      distinct_folded_runs(texts, codec_->options().turkish_apostrophe);
  std::vector<std::string> missing;
  std::vector<std::string> pieces;
  std::lock_guard<std::mutex> lock(state_->mutex);
  static_cast<void>(
      state_->finish());  // an earlier prefetch's runs are asked for again when needed
  FlatStringMap<uint8_t>& known = state_->known;
  for (const std::string& folded : runs) {
    if (known.find(folded) != nullptr) continue;  // each distinct run looked up once per input
    if (known.size() >= kMaxKnown) known.clear();
    known.insert(folded, 1);
    if (!table_.contains(folded) && !(state_->disk && state_->disk->lookup(folded, &pieces)) &&
        state_->resolved.count(folded) == 0) {
      missing.push_back(folded);
    }
  }
  state_->scan_idle = missing.empty();
  state_->sync_runs_at_idle = state_->sync_runs;
  if (missing.empty()) return ok_status();
  return state_->start(*this, std::move(missing));
}

Status Tokenizer::prefetch_end() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->finish();
}

Status Tokenizer::prefetch(const std::vector<std::string>& texts) const {
  MORPHEUS_RETURN_IF_ERROR(prefetch_begin(texts));
  return prefetch_end();
}

Status Tokenizer::attach_cache(const std::string& path) {
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<SegmentCache> cache, SegmentCache::open(path, id_));
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->disk = std::move(cache);
  return ok_status();
}

Tokenizer::RunStats Tokenizer::run_stats() const {
  RunStats stats;
  stats.words = codec_->letter_runs();
  stats.table = state_->table_hits.load();
  std::lock_guard<std::mutex> lock(state_->mutex);
  stats.runs = stats.table + state_->lookups;
  stats.cache = state_->disk_hits;
  return stats;
}

Status Tokenizer::encode(std::string_view text, std::vector<int32_t>* ids,
                         bool allow_invalid) const {
  EncodeOptions options;
  options.allow_invalid = allow_invalid;
  return encode(text, options, ids);
}

namespace {

// Character spans of byte spans of `text`: a character is a code point, or one invalid byte.
void char_spans(std::string_view text, const TextSpan* bytes, size_t count,
                std::vector<TextSpan>* chars) {
  thread_local std::vector<size_t> char_of;  // per byte, the index of its character
  char_of.resize(text.size() + 1);
  size_t k = 0;
  for (size_t pos = 0; pos < text.size(); ++k) {
    const size_t length = utf8::decode_one(text, pos).length;
    for (size_t b = pos; b < pos + length; ++b) char_of[b] = k;
    pos += length;
  }
  char_of[text.size()] = k;
  for (size_t i = 0; i < count; ++i) {
    const TextSpan& b = bytes[i];
    const size_t begin = char_of[b.begin];
    chars->push_back({begin, b.end == b.begin ? begin : char_of[b.end - 1] + 1});
  }
}

}  // namespace

Status Tokenizer::encode_plain(std::string_view text, TextSpan part, bool allow_invalid,
                               std::vector<int32_t>* ids, std::vector<TextSpan>* offsets) const {
  const size_t first = offsets == nullptr ? 0 : offsets->size();
  MORPHEUS_RETURN_IF_ERROR(codec_->encode(text.substr(part.begin, part.end - part.begin), ids,
                                          nullptr, allow_invalid, offsets));
  if (offsets != nullptr && part.begin > 0) {
    for (size_t i = first; i < offsets->size(); ++i) {
      (*offsets)[i].begin += part.begin;
      (*offsets)[i].end += part.begin;
    }
  }
  return ok_status();
}

template <typename Plain, typename Symbol>
Status Tokenizer::split_user_symbols(std::string_view text, Plain plain, Symbol symbol) const {
  size_t start = 0;  // start of the text since the last user symbol
  for (size_t pos = 0; longest_user_symbol_ > 0 && pos < text.size();) {
    size_t length = 0;
    int32_t id = -1;  // the longest user symbol at pos
    if (symbol_first_bytes_.test(static_cast<unsigned char>(text[pos]))) {
      for (size_t n = std::min(longest_user_symbol_, text.size() - pos); n > 0 && id < 0; --n) {
        const int32_t* found = symbol_ids_.find(text.substr(pos, n));
        if (found != nullptr && !is_special(*found)) {
          id = *found;
          length = n;
        }
      }
    }
    if (id < 0) {
      ++pos;
      continue;
    }
    if (pos > start) MORPHEUS_RETURN_IF_ERROR(plain(TextSpan{start, pos}));
    MORPHEUS_RETURN_IF_ERROR(symbol(id, TextSpan{pos, pos + length}));
    pos += length;
    start = pos;
  }
  if (text.size() > start) MORPHEUS_RETURN_IF_ERROR(plain(TextSpan{start, text.size()}));
  return ok_status();
}

Status Tokenizer::encode(std::string_view text, const EncodeOptions& options,
                         std::vector<int32_t>* ids, Offsets* offsets) const {
  for (const auto& [wanted, id, name] : {std::make_tuple(options.add_bos, bos_id_, "<s>"),
                                         std::make_tuple(options.add_eos, eos_id_, "</s>")}) {
    if (wanted && id < 0) {
      return failed_precondition(dir_ + " has no " + name + " special token",
                                 "export with --special-tokens including it");
    }
  }
  if (!options.allow_invalid) MORPHEUS_RETURN_IF_ERROR(utf8::validate(text));
  std::vector<TextSpan>* bytes = offsets == nullptr ? nullptr : &offsets->bytes;
  const size_t first = bytes == nullptr ? 0 : bytes->size();
  const auto add = [ids, bytes](int32_t id, TextSpan span) {
    ids->push_back(id);
    if (bytes != nullptr) bytes->push_back(span);
  };
  if (options.add_bos) add(bos_id_, {0, 0});
  MORPHEUS_RETURN_IF_ERROR(split_user_symbols(
      text, [&](TextSpan part) { return encode_plain(text, part, true, ids, bytes); },
      [&](int32_t id, TextSpan span) {
        add(id, span);
        return ok_status();
      }));
  if (options.add_eos) add(eos_id_, {text.size(), text.size()});
  if (offsets != nullptr) {
    char_spans(text, bytes->data() + first, bytes->size() - first, &offsets->chars);
  }
  return ok_status();
}

Status Tokenizer::decode(const std::vector<int32_t>& ids, std::string* text,
                         bool keep_special) const {
  if (symbols_.empty()) return codec_->decode(ids, text);
  const int32_t codec_size = codec_->vocab_size();
  size_t start = 0;  // first id of the codec ids since the last symbol
  const auto flush = [&](size_t end) -> Status {
    if (end == start) return ok_status();
    if (ids[end - 1] >= PieceCodec::kNumBytes && ids[end - 1] < PieceCodec::kFirstPieceId) {
      return invalid_argument("case token at position " + std::to_string(end - 1) +
                              " is not followed by a word piece");
    }
    const Status s =
        codec_->decode(std::vector<int32_t>(&ids[start], &ids[start] + (end - start)), text);
    if (s.ok()) return s;
    return Status(s.code(), "ids from position " + std::to_string(start) + ": " + s.message(),
                  s.hint());
  };
  for (size_t i = 0; i < ids.size(); ++i) {
    const int32_t id = ids[i];
    if (id < 0 || id >= vocab_size()) {
      return invalid_argument("id " + std::to_string(id) + " at position " + std::to_string(i) +
                                  " is outside [0, " + std::to_string(vocab_size()) + ")",
                              "decode ids produced by the same model");
    }
    if (id < codec_size) continue;
    MORPHEUS_RETURN_IF_ERROR(flush(i));
    if (keep_special || !is_special(id)) {
      text->append(symbols_[static_cast<size_t>(id - codec_size)]);
    }
    start = i + 1;
  }
  return flush(ids.size());
}

std::string Tokenizer::id_to_piece(int32_t id) const {
  if (id >= codec_->vocab_size() && id < vocab_size()) {
    return symbols_[static_cast<size_t>(id - codec_->vocab_size())];
  }
  return codec_->id_to_string(id);
}

int32_t Tokenizer::piece_to_id(std::string_view piece) const {
  const int32_t* id = symbol_ids_.find(piece);
  return id != nullptr ? *id : codec_->piece_id(piece);
}

StatusOr<std::vector<std::string>> Tokenizer::segment(std::string_view word) const {
  // With user symbols the codec sees parts of the word: check it whole, so an error gives the
  // byte offset in the word (without, the codec's own check does).
  if (longest_user_symbol_ > 0) MORPHEUS_RETURN_IF_ERROR(utf8::validate(word));
  std::vector<std::string> pieces;
  MORPHEUS_RETURN_IF_ERROR(split_user_symbols(
      word,
      [&](TextSpan part) -> Status {
        MORPHEUS_ASSIGN_OR_RETURN(
            std::vector<std::string> cut,
            codec_->segment_word(word.substr(part.begin, part.end - part.begin)));
        pieces.insert(pieces.end(), std::make_move_iterator(cut.begin()),
                      std::make_move_iterator(cut.end()));
        return ok_status();
      },
      [&](int32_t, TextSpan span) {
        pieces.emplace_back(word.substr(span.begin, span.end - span.begin));
        return ok_status();
      }));
  return pieces;
}

StatusOr<Segmenter*> Tokenizer::model() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  MORPHEUS_RETURN_IF_ERROR(state_->ensure(*this));
  return state_->model.get();
}

bool Tokenizer::model_created() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->model != nullptr;
}

uint64_t Tokenizer::table_hits() const { return state_->table_hits.load(); }
uint64_t Tokenizer::model_runs() const { return state_->model_runs.load(); }

}  // namespace morpheus::tokenizer
