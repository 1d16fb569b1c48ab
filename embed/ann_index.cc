// SPDX-License-Identifier: MIT
// AnnIndex on FAISS (embed/ann_index.h); stubs returning UNIMPLEMENTED without FAISS.
#include "embed/ann_index.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <utility>

#include "core/file_util.h"

#if MORPHEUS_WITH_FAISS
#include <faiss/IVFlib.h>
#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIVFFlat.h>
#include <faiss/impl/FaissException.h>
#include <faiss/impl/io.h>
#include <faiss/index_io.h>
#endif

namespace morpheus::embed {

std::string ann_vocab_path(const std::string& index_path) {
  const std::string ext = ".faiss";
  const bool has_ext = index_path.size() > ext.size() &&
                       index_path.compare(index_path.size() - ext.size(), ext.size(), ext) == 0;
  return (has_ext ? index_path.substr(0, index_path.size() - ext.size()) : index_path) + ".vocab";
}

#if MORPHEUS_WITH_FAISS

namespace {

// Rows scaled to unit L2 norm (zero rows stay zero).
std::vector<float> unit_rows(const std::vector<float>& v, size_t dim) {
  std::vector<float> out(v);
  for (size_t r = 0; dim > 0 && r < out.size() / dim; ++r) {
    float* row = out.data() + r * dim;
    double sum = 0;
    for (size_t j = 0; j < dim; ++j) sum += static_cast<double>(row[j]) * row[j];
    if (sum == 0) continue;
    const auto inv = static_cast<float>(1.0 / std::sqrt(sum));
    for (size_t j = 0; j < dim; ++j) row[j] *= inv;
  }
  return out;
}

// FAISS writes through this into an AtomicFileWriter (the first write error is kept).
struct AtomicIOWriter : faiss::IOWriter {
  AtomicFileWriter* out = nullptr;
  Status status = ok_status();
  size_t operator()(const void* ptr, size_t size, size_t nitems) override {
    if (!status.ok()) return 0;
    status = out->write(std::string_view(static_cast<const char*>(ptr), size * nitems));
    return status.ok() ? nitems : 0;
  }
};

Status faiss_error(const std::string& what, const faiss::FaissException& e) {
  return data_loss(what + ": " + e.msg, "FAISS (libfaiss-dev) refused it; rebuild the index");
}

StatusOr<faiss::Index*> new_index(size_t rows, size_t dim, const AnnBuildOptions& o) {
  const auto d = static_cast<faiss::Index::idx_t>(dim);
  if (o.type == "flat") return new faiss::IndexFlatIP(d);
  if (o.type == "hnsw") {
    if (o.hnsw_m < 2 || o.ef_construction < 1) {
      return invalid_argument("--m must be >= 2 and --ef-construction >= 1");
    }
    auto* index = new faiss::IndexHNSWFlat(d, o.hnsw_m, faiss::METRIC_INNER_PRODUCT);
    index->hnsw.efConstruction = o.ef_construction;
    return index;
  }
  if (o.type == "ivf") {
    size_t nlist =
        o.nlist > 0
            ? o.nlist
            : std::max<size_t>(1, static_cast<size_t>(4 * std::sqrt(static_cast<double>(rows))));
    nlist = std::min(nlist, std::max<size_t>(1, rows / 39));  // FAISS wants >= 39 per list
    auto* quantizer = new faiss::IndexFlatIP(d);
    auto* index = new faiss::IndexIVFFlat(quantizer, d, nlist, faiss::METRIC_INNER_PRODUCT);
    index->own_fields = true;
    return index;
  }
  return invalid_argument("unknown index type \"" + o.type + "\"", "use flat, hnsw or ivf");
}

}  // namespace

struct AnnIndex::Impl {
  std::unique_ptr<faiss::Index> index;
  // Held while a search writes nprobe into the index itself: only for an IVF index inside a
  // wrapper (a FAISS file `index build` did not write), which takes no per-call parameters.
  std::mutex wrapped_ivf;
};

AnnIndex::AnnIndex() : impl_(std::make_unique<Impl>()) {}
AnnIndex::~AnnIndex() = default;

bool ann_available() { return true; }

StatusOr<std::unique_ptr<AnnIndex>> AnnIndex::build(const std::vector<float>& vectors, size_t rows,
                                                    size_t dim, const AnnBuildOptions& options) {
  if (rows == 0 || dim == 0 || vectors.size() != rows * dim) {
    return invalid_argument(
        "cannot index " + std::to_string(rows) + " x " + std::to_string(dim) + " vectors",
        "give a non-empty embeddings file");
  }
  MORPHEUS_ASSIGN_OR_RETURN(faiss::Index * raw, new_index(rows, dim, options));
  std::unique_ptr<AnnIndex> ann(new AnnIndex());
  ann->impl_->index.reset(raw);
  const std::vector<float> unit = unit_rows(vectors, dim);
  const auto n = static_cast<faiss::Index::idx_t>(rows);
  try {
    if (!raw->is_trained) raw->train(n, unit.data());
    raw->add(n, unit.data());
    if (faiss::IndexIVF* ivf = faiss::ivflib::try_extract_index_ivf(raw)) ivf->make_direct_map();
  } catch (const faiss::FaissException& e) {
    return faiss_error("building the " + options.type + " index", e);
  }
  return ann;
}

StatusOr<std::unique_ptr<AnnIndex>> AnnIndex::load(const std::string& path) {
  MORPHEUS_RETURN_IF_ERROR(check_readable_file(path));
  std::unique_ptr<AnnIndex> ann(new AnnIndex());
  try {
    ann->impl_->index.reset(faiss::read_index(path.c_str()));
    if (faiss::IndexIVF* ivf = faiss::ivflib::try_extract_index_ivf(ann->impl_->index.get())) {
      ivf->make_direct_map();
    }
  } catch (const faiss::FaissException& e) {
    return data_loss(path + ": not a readable FAISS index (" + e.msg + ")",
                     "build it with morpheus index build --embeddings F.npy --out " + path);
  }
  const std::string vocab = ann_vocab_path(path);
  MORPHEUS_ASSIGN_OR_RETURN(std::string text, read_file(vocab));
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    ann->words_.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  if (ann->words_.size() != ann->rows()) {
    return data_loss(vocab + " has " + std::to_string(ann->words_.size()) + " words but " + path +
                         " holds " + std::to_string(ann->rows()) + " vectors",
                     "the two files were written by different index builds; rebuild the index");
  }
  return ann;
}

Status AnnIndex::save(const std::string& path, const std::vector<std::string>& words) const {
  if (ann_vocab_path(path) == path + ".vocab") {
    return invalid_argument("index file " + path + " must end in .faiss",
                            "its words go to the .vocab file beside it");
  }
  AtomicFileWriter out;
  MORPHEUS_RETURN_IF_ERROR(out.open(path));
  AtomicIOWriter writer;
  writer.out = &out;
  try {
    faiss::write_index(impl_->index.get(), &writer);
  } catch (const faiss::FaissException& e) {
    MORPHEUS_RETURN_IF_ERROR(writer.status);
    return faiss_error("writing " + path, e);
  }
  MORPHEUS_RETURN_IF_ERROR(writer.status);
  std::string vocab;
  for (const std::string& w : words) vocab += w + "\n";
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(ann_vocab_path(path), vocab));
  return out.commit();
}

StatusOr<std::vector<std::vector<Neighbor>>> AnnIndex::search(
    const std::vector<float>& queries, size_t k, const AnnSearchOptions& options,
    const std::vector<std::vector<int64_t>>& exclude) const {
  // efSearch / nprobe go to FAISS as per-call SearchParameters, never into the index, so a search
  // writes nothing of the index and concurrent searches are safe (FAISS documents its CPU
  // indexes as thread-safe for concurrent searches; writing the fields per call was a race).
  const faiss::Index* index = impl_->index.get();
  faiss::SearchParametersHNSW hnsw_params;
  faiss::SearchParametersIVF ivf_params;
  const faiss::SearchParameters* params = nullptr;
  std::unique_lock<std::mutex> lock(impl_->wrapped_ivf, std::defer_lock);
  if (dynamic_cast<const faiss::IndexHNSW*>(index) != nullptr) {
    hnsw_params.efSearch = std::max(options.ef_search, static_cast<int>(k));
    params = &hnsw_params;
  } else if (dynamic_cast<const faiss::IndexIVF*>(index) != nullptr) {
    ivf_params.nprobe = std::max<size_t>(1, options.nprobe);
    params = &ivf_params;
  } else if (faiss::IndexIVF* nested = faiss::ivflib::try_extract_index_ivf(impl_->index.get())) {
    lock.lock();
    nested->nprobe = std::max<size_t>(1, options.nprobe);
  }
  const size_t d = dim();
  const size_t nq = d > 0 ? queries.size() / d : 0;
  size_t extra = 0;
  for (const auto& e : exclude) extra = std::max(extra, e.size());
  const size_t want = std::min(rows(), k + extra);
  const std::vector<float> unit = unit_rows(queries, d);
  std::vector<float> scores(nq * want);
  std::vector<faiss::Index::idx_t> ids(nq * want);
  try {
    index->search(static_cast<faiss::Index::idx_t>(nq), unit.data(),
                  static_cast<faiss::Index::idx_t>(want), scores.data(), ids.data(), params);
  } catch (const faiss::FaissException& e) {
    return faiss_error("searching the index", e);
  }
  std::vector<std::vector<Neighbor>> out(nq);
  for (size_t q = 0; q < nq; ++q) {
    const std::vector<int64_t> none;
    const std::vector<int64_t>& skip = q < exclude.size() ? exclude[q] : none;
    for (size_t j = 0; j < want && out[q].size() < k; ++j) {
      const int64_t row = ids[q * want + j];
      if (row < 0 || std::find(skip.begin(), skip.end(), row) != skip.end()) continue;
      out[q].push_back({row, scores[q * want + j]});
    }
  }
  return out;
}

size_t AnnIndex::rows() const { return static_cast<size_t>(impl_->index->ntotal); }
size_t AnnIndex::dim() const { return static_cast<size_t>(impl_->index->d); }

std::vector<float> AnnIndex::vector(size_t row) const {
  std::vector<float> v(dim());
  impl_->index->reconstruct(static_cast<faiss::Index::idx_t>(row), v.data());
  return v;
}

#else  // !MORPHEUS_WITH_FAISS

namespace {
Status no_faiss() {
  return Status(StatusCode::kUnimplemented, "this build has no FAISS",
                "install libfaiss-dev (scripts/setup.sh) and rebuild");
}
}  // namespace

struct AnnIndex::Impl {};
AnnIndex::AnnIndex() = default;
AnnIndex::~AnnIndex() = default;
bool ann_available() { return false; }
StatusOr<std::unique_ptr<AnnIndex>> AnnIndex::build(const std::vector<float>&, size_t, size_t,
                                                    const AnnBuildOptions&) {
  return no_faiss();
}
StatusOr<std::unique_ptr<AnnIndex>> AnnIndex::load(const std::string&) { return no_faiss(); }
Status AnnIndex::save(const std::string&, const std::vector<std::string>&) const {
  return no_faiss();
}
StatusOr<std::vector<std::vector<Neighbor>>> AnnIndex::search(
    const std::vector<float>&, size_t, const AnnSearchOptions&,
    const std::vector<std::vector<int64_t>>&) const {
  return no_faiss();
}
size_t AnnIndex::rows() const { return 0; }
size_t AnnIndex::dim() const { return 0; }
std::vector<float> AnnIndex::vector(size_t) const { return {}; }

#endif

}  // namespace morpheus::embed
