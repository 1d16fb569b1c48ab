// SPDX-License-Identifier: MIT
// Approximate (and exact) nearest-neighbour indexes on FAISS (Debian libfaiss-dev) for
// `morpheus index build` and `morpheus neighbors --faiss`. An index file F.faiss holds the
// L2-normalised vectors (inner product = cosine) in a FAISS index of type flat (exact), hnsw
// (IndexHNSWFlat) or ivf (IndexIVFFlat); F.vocab beside it holds the word of each row, one per
// line. Both are written atomically. Python reads F.faiss with faiss.read_index (python3-faiss).
// Without FAISS in the build every function returns UNIMPLEMENTED.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace morpheus::embed {

struct Neighbor {
  int64_t row = 0;
  float score = 0;  // cosine
};

struct AnnBuildOptions {
  std::string type = "hnsw";  // flat | hnsw | ivf
  int hnsw_m = 32;            // HNSW: neighbours per node
  int ef_construction = 40;   // HNSW: candidate list while building
  size_t nlist = 0;           // IVF: lists (0: 4·sqrt(rows)); at most rows/39 (FAISS's minimum)
};

struct AnnSearchOptions {
  int ef_search = 64;  // HNSW: candidate list while searching (>= k)
  size_t nprobe = 16;  // IVF: lists visited per query
};

// Whether this build has FAISS.
bool ann_available();

// The .vocab path of an index path F.faiss (F.vocab).
std::string ann_vocab_path(const std::string& index_path);

class AnnIndex {
 public:
  // An index over the rows of `vectors` (rows × dim, row-major; normalised here), kept in memory.
  static StatusOr<std::unique_ptr<AnnIndex>> build(const std::vector<float>& vectors, size_t rows,
                                                   size_t dim, const AnnBuildOptions& options);
  // Reads F.faiss and its F.vocab (row counts must agree).
  static StatusOr<std::unique_ptr<AnnIndex>> load(const std::string& path);
  ~AnnIndex();
  AnnIndex(const AnnIndex&) = delete;
  AnnIndex& operator=(const AnnIndex&) = delete;

  // Writes the index to `path` (must end in .faiss) and `words` to its .vocab, atomically.
  Status save(const std::string& path, const std::vector<std::string>& words) const;

  // The k best rows for each of nq queries (nq × dim, normalised here), best first, leaving out
  // the rows in exclude[q] (exclude may be empty). Thread-safe: `options` apply to this call
  // only (FAISS SearchParameters), so threads may search one index at once with any options.
  StatusOr<std::vector<std::vector<Neighbor>>> search(
      const std::vector<float>& queries, size_t k, const AnnSearchOptions& options,
      const std::vector<std::vector<int64_t>>& exclude = {}) const;

  size_t rows() const;
  size_t dim() const;
  const std::vector<std::string>& words() const { return words_; }
  // The stored (normalised) vector of `row`.
  std::vector<float> vector(size_t row) const;

 private:
  struct Impl;
  AnnIndex();
  std::unique_ptr<Impl> impl_;
  std::vector<std::string> words_;
};

}  // namespace morpheus::embed
