// SPDX-License-Identifier: MIT
// ann_bench: FAISS HNSW (embed/ann_index.h, as `morpheus index build --type hnsw` builds it)
// against the exact flat index (the peer, same run): build seconds, recall@10 of HNSW against the
// exact top 10 and queries/s of both, on the vectors of a `morpheus embed` .npy and on synthetic
// clustered vectors. Queries are rows of the data (left out of their own answers).
//   ann_bench [--npy F.npy] [--synthetic ROWS] [--dim D] [--queries N] [--m M]
//             [--ef-construction E] [--ef-search 16,64,128]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "embed/ann_index.h"
#include "eval/embedding_metrics.h"

namespace {

using morpheus::embed::AnnBuildOptions;
using morpheus::embed::AnnIndex;
using morpheus::embed::AnnSearchOptions;
using morpheus::embed::Neighbor;
using Clock = std::chrono::steady_clock;

struct BenchArgs {
  std::string npy;
  size_t synthetic = 0;
  size_t dim = 64;
  size_t queries = 1000;
  int m = 32;
  int ef_construction = 40;
  std::vector<int> ef_search = {16, 64, 128};
};

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// rows × dim vectors around rows/100 Gaussian centres (σ 0.35 around unit-variance centres).
std::vector<float> clustered(size_t rows, size_t dim) {
  std::mt19937_64 rng(7);
  std::normal_distribution<float> normal(0.f, 1.f);
  const size_t centres = std::max<size_t>(1, rows / 100);
  std::vector<float> c(centres * dim);
  for (float& x : c) x = normal(rng);
  std::vector<float> v(rows * dim);
  std::uniform_int_distribution<size_t> pick(0, centres - 1);
  for (size_t r = 0; r < rows; ++r) {
    const float* centre = c.data() + pick(rng) * dim;
    for (size_t j = 0; j < dim; ++j) v[r * dim + j] = centre[j] + 0.35f * normal(rng);
  }
  return v;
}

struct Timed {
  std::vector<std::vector<Neighbor>> found;
  double seconds = 0;
};

Timed search(const AnnIndex& index, const std::vector<float>& q, size_t k, int ef,
             const std::vector<std::vector<int64_t>>& exclude) {
  AnnSearchOptions options;
  options.ef_search = ef;
  const auto t = Clock::now();
  auto found = index.search(q, k, options, exclude);
  Timed out;
  out.seconds = seconds_since(t);
  if (!found.ok()) {
    std::fprintf(stderr, "ann_bench: %s\n", found.status().message().c_str());
    std::exit(1);
  }
  out.found = std::move(*found);
  return out;
}

double recall(const Timed& got, const Timed& exact) {
  double hits = 0;
  double total = 0;
  for (size_t q = 0; q < exact.found.size(); ++q) {
    std::set<int64_t> want;
    for (const Neighbor& n : exact.found[q]) want.insert(n.row);
    for (const Neighbor& n : got.found[q]) hits += static_cast<double>(want.count(n.row));
    total += static_cast<double>(want.size());
  }
  return total > 0 ? hits / total : 0;
}

std::unique_ptr<AnnIndex> build(const std::vector<float>& v, size_t rows, size_t dim,
                                const std::string& type, const BenchArgs& args, double* secs) {
  AnnBuildOptions options;
  options.type = type;
  options.hnsw_m = args.m;
  options.ef_construction = args.ef_construction;
  const auto t = Clock::now();
  auto index = AnnIndex::build(v, rows, dim, options);
  *secs = seconds_since(t);
  if (!index.ok()) {
    std::fprintf(stderr, "ann_bench: %s\n", index.status().message().c_str());
    std::exit(1);
  }
  return std::move(*index);
}

void run(const std::string& name, const std::vector<float>& v, size_t rows, size_t dim,
         const BenchArgs& args) {
  const size_t nq = std::min(args.queries, rows);
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<size_t> pick(0, rows - 1);
  std::vector<float> q(nq * dim);
  std::vector<std::vector<int64_t>> exclude(nq);
  for (size_t i = 0; i < nq; ++i) {
    const size_t r = pick(rng);
    std::copy(v.begin() + static_cast<std::ptrdiff_t>(r * dim),
              v.begin() + static_cast<std::ptrdiff_t>((r + 1) * dim), q.begin() + i * dim);
    exclude[i] = {static_cast<int64_t>(r)};
  }
  double flat_build = 0;
  double hnsw_build = 0;
  const auto flat = build(v, rows, dim, "flat", args, &flat_build);
  const Timed exact = search(*flat, q, 10, 0, exclude);
  const auto hnsw = build(v, rows, dim, "hnsw", args, &hnsw_build);
  std::printf("%s: %zu x %zu, %zu queries, k=10; HNSW M=%d efConstruction=%d built in %.1f s\n",
              name.c_str(), rows, dim, nq, args.m, args.ef_construction, hnsw_build);
  const double exact_qps = static_cast<double>(nq) / exact.seconds;
  std::printf("  exact (flat)   : %9.0f queries/s\n", exact_qps);
  for (int ef : args.ef_search) {
    const Timed got = search(*hnsw, q, 10, ef, exclude);
    const double qps = static_cast<double>(nq) / got.seconds;
    std::printf("  hnsw efSearch %3d: %9.0f queries/s (%.1fx exact), recall@10 %.4f\n", ef, qps,
                qps / exact_qps, recall(got, exact));
  }
  std::fflush(stdout);
}

std::vector<int> parse_list(const std::string& s) {
  std::vector<int> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(std::atoi(item.c_str()));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  BenchArgs args;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--npy") args.npy = value;
    if (flag == "--synthetic") args.synthetic = std::strtoull(value.c_str(), nullptr, 10);
    if (flag == "--dim") args.dim = std::strtoull(value.c_str(), nullptr, 10);
    if (flag == "--queries") args.queries = std::strtoull(value.c_str(), nullptr, 10);
    if (flag == "--m") args.m = std::atoi(value.c_str());
    if (flag == "--ef-construction") args.ef_construction = std::atoi(value.c_str());
    if (flag == "--ef-search") args.ef_search = parse_list(value);
  }
  if (!morpheus::embed::ann_available()) {
    std::fprintf(stderr, "ann_bench: this build has no FAISS\n");
    return 1;
  }
  if (!args.npy.empty()) {
    auto e = morpheus::eval::load_embeddings(args.npy);
    if (!e.ok()) {
      std::fprintf(stderr, "ann_bench: %s\n", e.status().message().c_str());
      return 1;
    }
    run(args.npy, e->vectors.data, e->vectors.rows, e->vectors.cols, args);
  }
  if (args.synthetic > 0) {
    const std::vector<float> v = clustered(args.synthetic, args.dim);
    run("synthetic clustered", v, args.synthetic, args.dim, args);
  }
  return 0;
}
