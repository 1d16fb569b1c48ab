// SPDX-License-Identifier: MIT
// The Unigram segmenter: pieces.json, the piece trie and the Viterbi cut.
#include "baselines/plain/unigram_segmenter.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>
#include <unordered_map>
#include <utility>

#include "core/file_util.h"
#include "core/utf8.h"

namespace morpheus::tokenizer {
namespace {

using nlohmann::json;

constexpr size_t kUnreached = SIZE_MAX;

// The best cut of word[0, end): its score and where its last piece starts.
struct BestEnd {
  float score = 0.0f;
  size_t start = kUnreached;
};

// Keeps the candidate when it is the first to reach its end or scores strictly more, so that of
// equal scores the one tried first (the earliest start) stays.
void relax(BestEnd& best, float score, size_t start) {
  if (best.start == kUnreached || score > best.score) best = {score, start};
}

unsigned char byte_at(const std::string& s, size_t i) { return static_cast<unsigned char>(s[i]); }

Status check_model(const UnigramPieces& model) {
  if (model.pieces.empty()) return invalid_argument("no pieces");
  if (model.pieces.size() != model.log_probs.size()) {
    return invalid_argument(std::to_string(model.pieces.size()) + " pieces but " +
                            std::to_string(model.log_probs.size()) + " log_probs");
  }
  std::unordered_map<std::string_view, size_t> seen;
  for (size_t i = 0; i < model.pieces.size(); ++i) {
    const std::string& p = model.pieces[i];
    const std::string where = "piece " + std::to_string(i);
    if (p.empty()) return invalid_argument(where + " is empty");
    if (!utf8::is_valid(p)) return utf8::validate(p).prepend(where);
    const auto [it, inserted] = seen.emplace(p, i);
    if (!inserted) {
      return invalid_argument(where + " \"" + p + "\" repeats piece " + std::to_string(it->second));
    }
    if (!std::isfinite(model.log_probs[i])) {
      return invalid_argument("log_prob " + std::to_string(i) + " is not a finite number");
    }
  }
  return ok_status();
}

// The strings of `value` (an array of strings), or an error naming `key`.
StatusOr<std::vector<std::string>> string_array(const json& root, const char* key) {
  const auto it = root.find(key);
  if (it == root.end() || !it->is_array()) {
    return invalid_argument(std::string("\"") + key + "\" is not an array");
  }
  std::vector<std::string> out;
  out.reserve(it->size());
  for (const json& v : *it) {
    if (!v.is_string()) {
      return invalid_argument(std::string(key) + "[" + std::to_string(out.size()) +
                              "] is not a string");
    }
    out.push_back(v.get<std::string>());
  }
  return out;
}

StatusOr<std::vector<float>> number_array(const json& root, const char* key) {
  const auto it = root.find(key);
  if (it == root.end() || !it->is_array()) {
    return invalid_argument(std::string("\"") + key + "\" is not an array");
  }
  std::vector<float> out;
  out.reserve(it->size());
  for (const json& v : *it) {
    if (!v.is_number()) {
      return invalid_argument(std::string(key) + "[" + std::to_string(out.size()) +
                              "] is not a number");
    }
    out.push_back(static_cast<float>(v.get<double>()));
  }
  return out;
}

uint64_t count_field(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
}

// The model of a parsed pieces.json.
StatusOr<UnigramPieces> parse_model(const json& root) {
  if (!root.is_object() || root.value("format_version", 0) != kUnigramPiecesFormatVersion ||
      root.value("kind", std::string()) != kUnigramPiecesKind) {
    return invalid_argument(std::string("not a format_version ") +
                            std::to_string(kUnigramPiecesFormatVersion) + " \"" +
                            kUnigramPiecesKind + "\" file");
  }
  UnigramPieces model;
  MORPHEUS_ASSIGN_OR_RETURN(model.pieces, string_array(root, "pieces"));
  MORPHEUS_ASSIGN_OR_RETURN(model.log_probs, number_array(root, "log_probs"));
  const auto trained_on = root.find("trained_on");
  if (trained_on != root.end() && trained_on->is_object()) {
    model.trained_on_types = count_field(*trained_on, "types");
    model.trained_on_tokens = count_field(*trained_on, "tokens");
  }
  const auto vocab_size = root.find("vocab_size");
  if (vocab_size != root.end() && vocab_size->is_number_integer()) {
    model.vocab_size = vocab_size->get<int64_t>();
  }
  return model;
}

}  // namespace

std::string unigram_pieces_json(const UnigramPieces& model) {
  json log_probs = json::array();
  for (const float p : model.log_probs) log_probs.push_back(static_cast<double>(p));
  const json root = {
      {"format_version", kUnigramPiecesFormatVersion},
      {"kind", kUnigramPiecesKind},
      {"pieces", model.pieces},
      {"log_probs", std::move(log_probs)},
      {"trained_on", {{"types", model.trained_on_types}, {"tokens", model.trained_on_tokens}}},
      {"vocab_size", model.vocab_size}};
  return root.dump(1) + "\n";
}

void PieceTrie::build(const std::vector<std::string>& keys) {
  nodes_.assign(1, Node{});
  edge_bytes_.clear();
  edge_targets_.clear();
  std::vector<uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(),
            [&keys](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  // Breadth first: a node owns the sorted keys [lo, hi) that share its `depth` first bytes.
  struct Pending {
    uint32_t node;
    size_t lo, hi, depth;
  };
  std::vector<Pending> queue = {{kRoot, 0, order.size(), 0}};
  for (size_t q = 0; q < queue.size(); ++q) {
    const Pending p = queue[q];
    size_t lo = p.lo;
    if (lo < p.hi && keys[order[lo]].size() == p.depth)
      nodes_[p.node].key = static_cast<int32_t>(order[lo++]);
    nodes_[p.node].first_edge = static_cast<uint32_t>(edge_bytes_.size());
    while (lo < p.hi) {
      const unsigned char byte = byte_at(keys[order[lo]], p.depth);
      size_t end = lo + 1;
      while (end < p.hi && byte_at(keys[order[end]], p.depth) == byte) ++end;
      const auto child = static_cast<uint32_t>(nodes_.size());
      nodes_.emplace_back();
      edge_bytes_.push_back(byte);
      edge_targets_.push_back(child);
      queue.push_back({child, lo, end, p.depth + 1});
      lo = end;
    }
    nodes_[p.node].num_edges =
        static_cast<uint32_t>(edge_bytes_.size()) - nodes_[p.node].first_edge;
  }
}

uint32_t PieceTrie::step(uint32_t node, unsigned char byte) const {
  const Node& n = nodes_[node];
  const auto first = edge_bytes_.begin() + n.first_edge;
  const auto last = first + n.num_edges;
  const auto it = std::lower_bound(first, last, byte);
  if (it == last || *it != byte) return kNone;
  return edge_targets_[static_cast<size_t>(it - edge_bytes_.begin())];
}

UnigramSegmenter::UnigramSegmenter(UnigramPieces model) : model_(std::move(model)) {
  trie_.build(model_.pieces);
  unknown_log_prob_ =
      *std::min_element(model_.log_probs.begin(), model_.log_probs.end()) - kUnigramUnknownPenalty;
}

StatusOr<std::shared_ptr<const UnigramSegmenter>> UnigramSegmenter::create(UnigramPieces model) {
  MORPHEUS_RETURN_IF_ERROR(check_model(model));
  return std::shared_ptr<const UnigramSegmenter>(new UnigramSegmenter(std::move(model)));
}

StatusOr<std::shared_ptr<const UnigramSegmenter>> UnigramSegmenter::load(
    const std::string& pieces_json) {
  MORPHEUS_ASSIGN_OR_RETURN(std::string text, read_file(pieces_json));
  const json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  const std::string hint = "write it with: morpheus-spm unigram-pieces --out " + pieces_json;
  if (root.is_discarded()) return data_loss(pieces_json + ": not valid JSON", hint);
  StatusOr<UnigramPieces> model = parse_model(root);
  if (!model.ok()) return data_loss(pieces_json + ": " + model.status().message(), hint);
  StatusOr<std::shared_ptr<const UnigramSegmenter>> made = create(std::move(model).value());
  if (!made.ok()) return data_loss(pieces_json + ": " + made.status().message(), hint);
  return made;
}

std::vector<std::string> UnigramSegmenter::cut(std::string_view word) const {
  const size_t n = word.size();
  std::vector<BestEnd> best(n + 1);
  best[0].start = 0;
  for (size_t start = 0; start < n;) {
    const size_t length = utf8::decode_one(word, start).length;
    const float prefix = best[start].score;
    bool has_single = false;
    uint32_t node = PieceTrie::kRoot;
    for (size_t end = start; end < n;) {
      node = trie_.step(node, static_cast<unsigned char>(word[end++]));
      if (node == PieceTrie::kNone) break;
      const int32_t key = trie_.key(node);
      if (key < 0) continue;
      relax(best[end], model_.log_probs[static_cast<size_t>(key)] + prefix, start);
      has_single = has_single || end - start == length;
    }
    if (!has_single) relax(best[start + length], unknown_log_prob_ + prefix, start);
    start += length;
  }
  std::vector<std::string> pieces;
  for (size_t end = n; end > 0; end = best[end].start) {
    pieces.emplace_back(word.substr(best[end].start, end - best[end].start));
  }
  std::reverse(pieces.begin(), pieces.end());
  return pieces;
}

}  // namespace morpheus::tokenizer
