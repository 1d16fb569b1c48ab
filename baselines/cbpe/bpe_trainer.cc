// SPDX-License-Identifier: MIT
// Constrained BPE trainer (see bpe_trainer.h for the algorithm and its tie-break).
#include "baselines/cbpe/bpe_trainer.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "core/check.h"
#include "core/utf8.h"

namespace morpheus::tokenizer::cbpe {
namespace {

uint64_t trainer_pair_key(int32_t a, int32_t b) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
}

struct PairStats {
  int32_t left;
  int32_t right;
  int64_t count = 0;
  std::vector<uint32_t> positions;  // left nodes; may hold stale entries (validated on use)
};

struct HeapEntry {
  int64_t count;
  uint32_t pair;  // index into the pair table
};

class TrainerState {
 public:
  explicit TrainerState(std::vector<std::string>* tokens) : tokens_(tokens) {}

  std::vector<int32_t> sym;
  std::vector<int32_t> prev;
  std::vector<int32_t> next;
  std::vector<int64_t> freq;
  std::vector<uint8_t> blocked;  // the pair (n, next[n]) may not be merged
  std::vector<uint8_t> deleted;

  uint32_t pair_index(int32_t a, int32_t b) {
    const auto [it, inserted] =
        index_.emplace(trainer_pair_key(a, b), static_cast<uint32_t>(pairs_.size()));
    if (inserted) pairs_.push_back(PairStats{a, b, 0, {}});
    return it->second;
  }
  PairStats& pair(uint32_t index) { return pairs_[index]; }

  void add(int32_t n, int64_t delta) {
    const uint32_t p = pair_index(sym[static_cast<size_t>(n)],
                                  sym[static_cast<size_t>(next[static_cast<size_t>(n)])]);
    pairs_[p].count += delta;
    if (delta > 0) pairs_[p].positions.push_back(static_cast<uint32_t>(n));
    touched_.push_back(p);
  }

  // Pushes the current counts of the pairs touched since the last flush.
  void flush() {
    std::sort(touched_.begin(), touched_.end());
    touched_.erase(std::unique(touched_.begin(), touched_.end()), touched_.end());
    for (const uint32_t p : touched_) {
      if (pairs_[p].count > 0) {
        heap_.push_back(HeapEntry{pairs_[p].count, p});
        std::push_heap(heap_.begin(), heap_.end(), less_);
      }
    }
    touched_.clear();
  }

  // Pops the best valid pair; false when none is left.
  bool pop(uint32_t* best) {
    while (!heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), less_);
      const HeapEntry e = heap_.back();
      heap_.pop_back();
      if (e.count == pairs_[e.pair].count && e.count > 0) {
        *best = e.pair;
        return true;
      }
    }
    return false;
  }

 private:
  struct Less {
    const TrainerState* state;
    // Lower priority: smaller count; on equal counts the larger (left, right) strings.
    bool operator()(const HeapEntry& a, const HeapEntry& b) const {
      if (a.count != b.count) return a.count < b.count;
      const PairStats& pa = state->pairs_[a.pair];
      const PairStats& pb = state->pairs_[b.pair];
      const std::vector<std::string>& tok = *state->tokens_;
      const int c = tok[static_cast<size_t>(pa.left)].compare(tok[static_cast<size_t>(pb.left)]);
      if (c != 0) return c > 0;
      return tok[static_cast<size_t>(pa.right)].compare(tok[static_cast<size_t>(pb.right)]) > 0;
    }
  };

  std::vector<std::string>* tokens_;
  std::unordered_map<uint64_t, uint32_t> index_;
  std::vector<PairStats> pairs_;
  std::vector<HeapEntry> heap_;
  std::vector<uint32_t> touched_;
  Less less_{this};
};

}  // namespace

std::vector<TrainingWord> count_pretokens(const std::vector<std::string>& pretokens) {
  std::vector<TrainingWord> words;
  std::unordered_map<std::string, size_t> index;
  for (const std::string& p : pretokens) {
    const auto [it, inserted] = index.emplace(p, words.size());
    if (inserted) {
      TrainingWord w;
      StatusOr<std::u32string> cps = utf8::decode(p);
      MORPHEUS_CHECK(cps.ok(), "pre-token is not UTF-8: ", p);
      w.text = std::move(cps).value();
      w.count = 0;
      words.push_back(std::move(w));
    }
    ++words[it->second].count;
  }
  return words;
}

StatusOr<BpeModel> train_bpe(const std::vector<TrainingWord>& words, const TrainerOptions& options,
                             TrainerStats* stats) {
  // Base vocabulary: specials, then every base character in code point order.
  std::set<char32_t> chars;
  if (options.printable_ascii) {
    for (char32_t c = 32; c <= 126; ++c) chars.insert(c);
  }
  if (options.marker_symbol) chars.insert(kMarker);
  for (const TrainingWord& w : words) chars.insert(w.text.begin(), w.text.end());
  std::vector<std::string> tokens = {"<pad>", "<unk>", "<s>", "</s>"};
  std::unordered_map<char32_t, int32_t> char_id;
  for (const char32_t c : chars) {
    char_id[c] = static_cast<int32_t>(tokens.size());
    tokens.push_back(utf8::encode(c));
  }
  const size_t base_size = tokens.size();
  if (options.vocab_size < base_size) {
    return invalid_argument("vocab size " + std::to_string(options.vocab_size) +
                                " is smaller than the base vocabulary (" +
                                std::to_string(base_size) + " specials and characters)",
                            "choose --vocab-size >= " + std::to_string(base_size));
  }
  const int32_t marker_id = options.marker_symbol ? char_id[kMarker] : -1;

  TrainerState st(&tokens);
  for (const TrainingWord& w : words) {
    if (w.text.size() < 2 || w.count == 0) continue;
    const int32_t first = static_cast<int32_t>(st.sym.size());
    size_t cut = 0;
    for (size_t i = 0; i < w.text.size(); ++i) {
      const int32_t id = char_id[w.text[i]];
      const int32_t n = static_cast<int32_t>(st.sym.size());
      st.sym.push_back(id);
      st.prev.push_back(i == 0 ? -1 : n - 1);
      st.next.push_back(i + 1 == w.text.size() ? -1 : n + 1);
      st.freq.push_back(static_cast<int64_t>(w.count));
      st.deleted.push_back(0);
      while (cut < w.cuts.size() && w.cuts[cut] <= i) ++cut;
      bool block = i + 1 == w.text.size() || (cut < w.cuts.size() && w.cuts[cut] == i + 1);
      if (marker_id >= 0 &&
          (id == marker_id || (i + 1 < w.text.size() && char_id[w.text[i + 1]] == marker_id))) {
        block = true;
      }
      st.blocked.push_back(block ? 1 : 0);
    }
    MORPHEUS_CHECK(w.cuts.empty() || w.cuts.back() < w.text.size(), "cut out of range");
    for (int32_t n = first; n < static_cast<int32_t>(st.sym.size()); ++n) {
      if (!st.blocked[static_cast<size_t>(n)]) st.add(n, st.freq[static_cast<size_t>(n)]);
    }
  }
  st.flush();

  std::vector<Merge> merges;
  std::unordered_map<std::string, int32_t> token_ids;
  for (size_t i = 0; i < tokens.size(); ++i) token_ids[tokens[i]] = static_cast<int32_t>(i);
  bool exhausted = false;
  std::vector<uint32_t> snapshot;
  while (tokens.size() < options.vocab_size) {
    uint32_t best = 0;
    if (!st.pop(&best)) {
      exhausted = true;
      break;
    }
    const int32_t x = st.pair(best).left;
    const int32_t y = st.pair(best).right;
    std::string merged = tokens[static_cast<size_t>(x)] + tokens[static_cast<size_t>(y)];
    merges.emplace_back(tokens[static_cast<size_t>(x)], tokens[static_cast<size_t>(y)]);
    int32_t z = 0;
    const auto found = token_ids.find(merged);
    if (found != token_ids.end()) {
      z = found->second;  // guard: reuse the id of an existing token (the reference overwrites)
    } else {
      z = static_cast<int32_t>(tokens.size());
      token_ids.emplace(merged, z);
      tokens.push_back(std::move(merged));
    }
    snapshot.swap(st.pair(best).positions);
    st.pair(best).positions.clear();
    std::sort(snapshot.begin(), snapshot.end());
    snapshot.erase(std::unique(snapshot.begin(), snapshot.end()), snapshot.end());
    for (const uint32_t un : snapshot) {
      const int32_t n = static_cast<int32_t>(un);
      const size_t ni = un;
      if (st.deleted[ni] || st.blocked[ni]) continue;
      const int32_t m = st.next[ni];
      if (m < 0 || st.deleted[static_cast<size_t>(m)]) continue;
      const size_t mi = static_cast<size_t>(m);
      if (st.sym[ni] != x || st.sym[mi] != y) continue;
      const int64_t f = st.freq[ni];
      const int32_t p = st.prev[ni];
      const int32_t q = st.next[mi];
      if (p >= 0 && !st.blocked[static_cast<size_t>(p)]) st.add(p, -f);
      st.add(n, -f);
      if (q >= 0 && !st.blocked[mi]) st.add(m, -f);
      st.sym[ni] = z;
      st.deleted[mi] = 1;
      st.blocked[ni] = st.blocked[mi];
      st.next[ni] = q;
      if (q >= 0) st.prev[static_cast<size_t>(q)] = n;
      if (p >= 0 && !st.blocked[static_cast<size_t>(p)]) st.add(p, f);
      if (q >= 0 && !st.blocked[ni]) st.add(n, f);
    }
    snapshot.clear();
    st.flush();
  }
  if (stats != nullptr) {
    stats->base_size = base_size;
    stats->merges = merges.size();
    stats->exhausted = exhausted;
  }
  return BpeModel::create(std::move(tokens), std::move(merges));
}

}  // namespace morpheus::tokenizer::cbpe
