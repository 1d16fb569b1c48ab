// SPDX-License-Identifier: MIT
// Word-embedding files (word2vec text .vec; .npy float32 row-major + .vocab) and the metrics on
// them: root-family retrieval (MAP, MRR, R@k, P@R) with the query excluded — or included, to
// reproduce the reference's definition (§4.9, §7.5 item 22) —, same-root ROC-AUC, lemma
// retrieval (form → its lemma among all lemmas), same-label neighbours (P@k, MAP, chance), a
// multinomial logistic-regression probe with stratified k-fold cross-validation, and a 2-D PCA
// projection.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/status.h"

namespace morpheus::eval {

// A dense row-major float matrix: rows × cols.
struct Matrix {
  size_t rows = 0, cols = 0;
  std::vector<float> data;
  float* row(size_t i) { return data.data() + i * cols; }
  const float* row(size_t i) const { return data.data() + i * cols; }
};

// Words with one vector each (rows of `vectors`, in `words` order).
struct Embeddings {
  std::vector<std::string> words;
  Matrix vectors;
  std::unordered_map<std::string, size_t> index;  // word → row (first occurrence wins)
  // Row of `word`, or -1 when absent.
  long find(const std::string& word) const;
};

// word2vec text format: an optional "count dim" header line, then "word v1 … vdim" lines.
// Errors name the file and line (wrong arity, non-numeric value).
StatusOr<Embeddings> load_vec(const std::string& path);
// NumPy .npy (version 1/2, little-endian '<f4', C order, 2-D) plus a vocabulary file with one
// word per line (the first tab-separated field), as many lines as rows.
StatusOr<Embeddings> load_npy(const std::string& npy_path, const std::string& vocab_path);
// Dispatches on the extension: .npy (vocabulary = same path with .vocab) or word2vec text.
StatusOr<Embeddings> load_embeddings(const std::string& path);
// Writes a .npy float32 matrix (used by tests and the fastText helper).
Status write_npy(const std::string& path, const Matrix& m);

// Rows of `m` scaled to unit L2 norm (zero rows stay zero).
Matrix l2_normalized(const Matrix& m);

struct RetrievalResult {
  double map = 0, mrr = 0, recall_at_1 = 0, recall_at_5 = 0, recall_at_10 = 0;
  double precision_at_r = 0;
  size_t queries = 0;  // words with ≥ 1 relevant other word
  size_t words = 0, families = 0;
};
// Ranks all other words by cosine for each word; relevant = same label. With include_query, the
// query re-enters at the last rank and counts as relevant (the reference's code: n_rel includes
// the query, so perfect retrieval of a 6-word family in 48 words gives MAP 0.8542). Without it
// (our definition) the query is excluded. AP = Σ_k P@k·rel_k / n_rel; MRR = 1/rank of the first
// relevant; R@k = Σ rel[:k] / min(k, n_rel); P@R = Σ rel[:n_rel] / n_rel. Ties: lower index first.
RetrievalResult family_retrieval(const Matrix& vectors, const std::vector<int>& labels,
                                 bool include_query);

// Mann–Whitney ROC-AUC of scores (ties count ½); positives have label true.
double roc_auc(const std::vector<double>& scores, const std::vector<bool>& positive);

struct PairAucResult {
  double auc = 0;
  size_t positives = 0, negatives = 0;
};
// Same-root ROC-AUC: cosine of within-family pairs (positives, at most max_pairs sampled) vs as
// many random cross-family pairs, seeded.
PairAucResult same_root_auc(const Matrix& vectors, const std::vector<int>& labels, size_t max_pairs,
                            uint64_t seed);

// Lemma retrieval on one group of queries (all, seen or unseen).
struct LemmaAccuracy {
  double at_1 = 0, at_10 = 0;  // share of queries whose lemma ranks first / within the first 10
  size_t queries = 0;
};
struct LemmaRetrievalResult {
  LemmaAccuracy all, seen, unseen;  // seen + unseen = all; both empty without seen flags
  size_t candidates = 0;
};
// queries: one row per form; candidates: one row per lemma; gold[i] = the candidate row of query
// i's lemma. Every candidate is ranked by cosine to each query (ties: lower index first) and the
// rank of gold[i] is scored. seen: one flag per query (seen = a training type), or empty for no
// seen/unseen split.
LemmaRetrievalResult lemma_retrieval(const Matrix& queries, const Matrix& candidates,
                                     const std::vector<int>& gold, const std::vector<bool>& seen);

struct NeighbourResult {
  double precision_at_k = 0;  // mean share of a row's k nearest other rows with its label
  double chance = 0;          // Σ_c p_c² (p_c = share of class c): P@k of a random ranking
  double map = 0;             // family_retrieval(vectors, labels, false).map
  size_t items = 0, classes = 0;
  size_t k = 0;  // min(k, items − 1)
};
// Same-label retrieval: every row queries all other rows by cosine (ties: lower index first);
// relevant = same label. Every row is a query of P@k (a singleton class scores 0); all zero
// with fewer than two rows.
NeighbourResult same_label_retrieval(const Matrix& vectors, const std::vector<int>& labels,
                                     size_t k = 10);

struct ProbeResult {
  double accuracy = 0;  // mean held-out accuracy over folds
  double majority = 0;  // majority-class accuracy on the same items
  size_t items = 0, classes = 0, folds = 0;
};
// Multinomial logistic regression (softmax, L2 with strength 1/(C·n) like sklearn's C, features
// standardised on the training fold, full-batch gradient descent) with stratified k-fold
// cross-validation (per-class shuffle with `seed`, round-robin fold assignment).
ProbeResult logistic_probe(const Matrix& x, const std::vector<int>& labels, size_t folds,
                           uint64_t seed, double c = 1.0, size_t iterations = 200);

// The first two principal components of the rows (power iteration, seeded): rows × 2.
Matrix pca_2d(const Matrix& x, uint64_t seed);

}  // namespace morpheus::eval
