// SPDX-License-Identifier: MIT
// Stages 3 and 4 of a letter run (run_resolver.h): the segment table, the cache file, the model
// with its self-test and the root snap, and the prefetch of the runs the model must segment.
#include "tokenizer/run_resolver.h"

#include <atomic>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "core/file_util.h"
#include "core/flat_string_map.h"
#include "morph/root_lexicon.h"
#include "morph/root_snap.h"
#include "tokenizer/directory_format.h"

namespace morpheus::tokenizer {
namespace {

using nlohmann::json;

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
  if (lists_file(config, kRootSnapImage)) {
    MORPHEUS_ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> image,
                              map_tokenizer_file(dir, config, kRootSnapImage));
    // The texts it was built from must still be the exported ones (every file is checked).
    for (const char* f : {kRootSnapRoots, kRootSnapSuffixes}) {
      MORPHEUS_RETURN_IF_ERROR(verify_tokenizer_file(dir, config, f));
    }
    const std::string_view bytes = image->bytes();
    MORPHEUS_ASSIGN_OR_RETURN(
        morph::RootLexicon lexicon,
        morph::RootLexicon::view(bytes, std::move(image), path_join(dir, kRootSnapImage)));
    return std::shared_ptr<const morph::RootLexicon>(
        std::make_shared<morph::RootLexicon>(std::move(lexicon)));
  }
  std::string roots;  // an older export: the two text files
  std::string suffixes;
  MORPHEUS_RETURN_IF_ERROR(read_tokenizer_file(dir, config, kRootSnapRoots, &roots));
  MORPHEUS_RETURN_IF_ERROR(read_tokenizer_file(dir, config, kRootSnapSuffixes, &suffixes));
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

struct RunResolver::State {
  std::mutex mutex;
  std::unique_ptr<Segmenter> model;                     // null until created, or after a failure
  std::shared_ptr<const morph::RootLexicon> root_snap;  // stage 4, loaded with the model
  std::unordered_map<std::string, std::vector<std::string>> resolved;  // model answers, snapped
  std::atomic<uint64_t> table_hits{0};
  std::atomic<uint64_t> model_runs{0};
  std::unique_ptr<SegmentCache> disk;  // --cache-file, when attached
  uint64_t lookups = 0;                // runs segment_word looked up outside the table (mutex)
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

  // Creates the model of the directory when there is none, with the root snap's lexicon, and runs
  // the model self-test (mutex held by the caller).
  Status ensure(const RunResolver& tok) {
    if (model != nullptr) return ok_status();
    const Status s = create(tok);
    if (!s.ok()) drop_model();
    return s;
  }
  Status create(const RunResolver& tok) {
    SegmenterSpec at_dir = tok.model_;
    const std::string own = directory_segmenter(*tok.config_);
    if (own != kModelSegmenter) at_dir = SegmenterSpec(own, "");
    if (at_dir.name.empty()) {
      return failed_precondition("no model segmenter for letter runs outside the table");
    }
    at_dir.path = tok.dir_;
    at_dir.directory_config = tok.config_;
    MORPHEUS_ASSIGN_OR_RETURN(model, create_segmenter(at_dir));
    MORPHEUS_ASSIGN_OR_RETURN(root_snap, load_root_snap(tok.dir_, *tok.config_));
    return model_self_test(tok.dir_, *tok.config_, model.get(), root_snap.get());
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
  Status start(const RunResolver& tok, std::vector<std::string> runs) {
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
  Status run(const RunResolver& tok, std::vector<std::string> runs) {
    MORPHEUS_RETURN_IF_ERROR(start(tok, std::move(runs)));
    return finish();
  }
};

RunResolver::RunResolver(std::string dir, std::shared_ptr<const nlohmann::json> config,
                         SegmentTable table, SegmenterSpec model)
    : dir_(std::move(dir)),
      config_(std::move(config)),
      table_(std::move(table)),
      model_(std::move(model)),
      state_(std::make_unique<State>()) {}

RunResolver::~RunResolver() = default;

StatusOr<Segmentation> RunResolver::segment(const std::vector<std::string>& folded) const {
  Segmentation out;
  for (const std::string& run : folded) {
    MORPHEUS_ASSIGN_OR_RETURN(std::vector<std::string> pieces, segment_word(run));
    out.push_back(std::move(pieces));
  }
  return out;
}

StatusOr<std::vector<std::string>> RunResolver::segment_word(std::string_view folded) const {
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

bool RunResolver::skip_scan() const {
  constexpr size_t kRescanEvery = 16;
  std::lock_guard<std::mutex> lock(state_->mutex);
  State& st = *state_;
  if (st.scan_idle && st.sync_runs == st.sync_runs_at_idle && ++st.skipped_scans < kRescanEvery) {
    return true;
  }
  st.skipped_scans = 0;
  return false;
}

Status RunResolver::prefetch_begin(const std::vector<std::string>& runs) const {
  constexpr size_t kMaxKnown = size_t{1} << 21;
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

Status RunResolver::prefetch_end() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->finish();
}

void RunResolver::attach_cache(std::unique_ptr<SegmentCache> cache) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->disk = std::move(cache);
}

uint64_t RunResolver::table_hits() const { return state_->table_hits.load(); }
uint64_t RunResolver::model_runs() const { return state_->model_runs.load(); }

RunResolver::Counts RunResolver::counts() const {
  Counts c;
  c.table = state_->table_hits.load();
  std::lock_guard<std::mutex> lock(state_->mutex);
  c.lookups = state_->lookups;
  c.cache = state_->disk_hits;
  c.model = state_->model_runs.load();
  return c;
}

StatusOr<Segmenter*> RunResolver::model() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  MORPHEUS_RETURN_IF_ERROR(state_->ensure(*this));
  return state_->model.get();
}

bool RunResolver::model_created() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->model != nullptr;
}

}  // namespace morpheus::tokenizer
