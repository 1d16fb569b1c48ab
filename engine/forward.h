// SPDX-License-Identifier: MIT
// The float forward pass of the engine over a block of words, and the decision rule.
//
// A block is a list of words (WordIds, engine/model.h) whose positions are stacked as rows: word i
// holds rows [offset_i, offset_i + T_i) of every [R, ·] buffer, R = Σ T_i. Position-wise stages
// (projection, convolution, qkv, proj, FFN, gap scorer) are matrix products over all rows of the
// block (kernels::gemm_nt_row_stable: a row's bits do not depend on the other rows); attention runs
// per word and head. Stages, the same as
// model::Morpheus in eval mode:
//   char ⊕ case embedding → embed_proj  (a lookup in Model::projected)          [R,D]
//   → LayerNorm(x + GELU(conv(x)))  (the multi-scale CNN, padding = the word's ends)  [R,D]
//   → encoder_layers × (LayerNorm(x + proj(attn(qkv(x)))), x + FFN(LayerNorm(x)))  [R,D]
//   → final LayerNorm  = the encoder output                                        [R,D]
//   → detector_layers × (the same two sublayers)                                   [R,D]
//   → the last layer's gap scorer: Linear(2D,D), GELU, Linear(D,1) on (h_g, h_g+1) [G] = Σ (T_i−1)
//   embeddings: hard boundaries, membership-weighted attention pooling of the encoder output
//   into segments, then LayerNorm(x + FFN(x)) of their mean [N,D], or of the root segment and of
//   the mean encoder rows of the suffixes and of the last suffix [N,3D] (embedding_layout.h)
//
// The decision rule (engine/README.md): a gap is cut when its logit exceeds the threshold's
// logit. When the float logit lies within kCloseCallMargin of it, the word is computed again in
// double precision (engine/reference.h) and that value decides, so the cut of a gap never depends
// on float rounding, hence never on the batch, the thread count or the machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/embedding_layout.h"
#include "engine/model.h"

namespace morpheus::engine {

// Logit distance from the threshold below which a gap is decided in double precision. The float
// path's logits lie within about 1e-6 (relative to the largest logit) of LibTorch's at the tiny
// and paper configurations (tests/infer/engine_parity_test.cc), and within 1e-4 of the double
// path's even on random models at three times the initial weight scale, whose layers amplify
// rounding (tests/engine/forward_test.cc): the margin is ten times the worst of these.
inline constexpr double kCloseCallMargin = 1e-3;

// log(p / (1 − p)).
double logit_of(double probability);

// The outputs of every stage of one block, for tests: name and [rows, cols] row-major values.
// Stage names: "embed_proj", "cnn", "encoder.<l>", "final_norm", "detector.<l>" ([R,D]),
// "logits" ([G,1]), "embeddings" (the raw vectors: [N,D] or [N,3D]).
struct Trace {
  struct Stage {
    std::string name;
    size_t rows = 0, cols = 0;
    std::vector<float> values;
  };
  std::vector<Stage> stages;
  const Stage* find(const std::string& name) const;
};

// Cut flags of gaps [first, last) of `word` from its float gap logits [T−1]: cuts[g] = 1 when the
// logit exceeds logit_threshold; if any of these gaps lies within kCloseCallMargin, the word's
// double-precision logits decide those gaps. Returns whether the word was recomputed.
bool decide_gaps(const Model& model, const WordIds& word, const float* logits, size_t first,
                 size_t last, double logit_threshold, uint8_t* cuts);

// The forward pass with its buffers (grown on demand, reused across calls). One per thread.
class Forward {
 public:
  explicit Forward(const Model& model);

  // Final-layer gap logits of every word: word i's T_i − 1 logits at logits[Σ_{j<i} (T_j − 1)].
  void gap_logits(const std::vector<const WordIds*>& words, std::vector<float>* logits,
                  Trace* trace = nullptr);
  // Raw word vectors into out (row i for word i; engine/embedding_layout.h): [N,D] for mean,
  // [N,3D] = [fuse(s_0) | fuse(r) | fuse(l)] for root-inflection (r, l: the plain means of the
  // encoder rows of the suffixes' and of the last suffix's positions), unnormalised.
  // Boundaries at every gap (BOS and EOS gaps included) where the logit exceeds logit_threshold,
  // by decide_gaps. A word's row is the same whatever words share the call.
  // Returns how many words were recomputed in double precision.
  size_t embeddings(const std::vector<const WordIds*>& words, double logit_threshold,
                    EmbeddingPooling pooling, float* out, Trace* trace = nullptr);

 private:
  void layout(const std::vector<const WordIds*>& words);
  void encode(const std::vector<const WordIds*>& words, Trace* trace);
  void convolution();
  void attention_layer(const AttentionWeights& w);
  void ffn_layer(const FfnWeights& w);
  void detect(Trace* trace);
  void score_gaps(std::vector<float>* logits);
  // Membership-weighted pooling of word i's encoder rows under `cuts` [T_i − 1]: the segments
  // with mass, in order, into segments [K+1, D]; returns K+1.
  size_t pool_segments(size_t i, const uint8_t* cuts, float* segments);
  // Word i's pooled vector before the fusion: [D] (mean) or [3D] (root-inflection: s_0, the mean
  // of the rows outside segment 0, the mean of the rows of the last segment).
  void pool_word(size_t i, const uint8_t* cuts, EmbeddingPooling pooling, float* out);
  // out[n,D] = LayerNorm(x + FFN(x)) with the pooling's weights, x [n,D].
  void fuse(size_t n, float* x, float* out);

  const Model& model_;
  std::vector<size_t> offsets_;  // [N+1] row offsets
  size_t rows_ = 0, gaps_ = 0;
  std::vector<float> h_, encoded_, qkv_, heads_, tmp_, wide_, col_, scratch_, segments_;
};

}  // namespace morpheus::engine
