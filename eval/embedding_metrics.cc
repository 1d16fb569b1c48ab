// SPDX-License-Identifier: MIT
// Embedding readers and embedding metrics (retrieval, ROC-AUC, probes, PCA).
#include "eval/embedding_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>
#include <random>

#include "core/file_util.h"
#include "eval/gold_data.h"

namespace morpheus::eval {
namespace {

double dot(const float* a, const float* b, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += static_cast<double>(a[i]) * static_cast<double>(b[i]);
  return s;
}

void build_index(Embeddings& e) {
  e.index.clear();
  for (size_t i = 0; i < e.words.size(); ++i) e.index.emplace(e.words[i], i);
}

bool parse_float(const std::string& s, float* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtof(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(*out);
}

std::vector<std::string> split_spaces(const std::string& line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

long Embeddings::find(const std::string& word) const {
  auto it = index.find(word);
  return it == index.end() ? -1 : static_cast<long>(it->second);
}

StatusOr<Embeddings> load_vec(const std::string& path) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path));
  Embeddings e;
  std::string line;
  bool first = true;
  while (reader.next(&line)) {
    std::vector<std::string> f = split_spaces(line);
    if (f.empty()) continue;
    if (first) {
      first = false;
      if (f.size() == 2 && f[0].find_first_not_of("0123456789") == std::string::npos &&
          f[1].find_first_not_of("0123456789") == std::string::npos) {
        continue;  // "count dim" header
      }
    }
    const size_t dim = f.size() - 1;
    if (dim == 0) {
      return data_loss(path + ": line " + std::to_string(reader.line_number()) +
                       ": a word without a vector");
    }
    if (e.vectors.cols == 0) e.vectors.cols = dim;
    if (dim != e.vectors.cols) {
      return data_loss(path + ": line " + std::to_string(reader.line_number()) + ": " +
                           std::to_string(dim) + " values, expected " +
                           std::to_string(e.vectors.cols),
                       "word2vec text: one word and dim floats per line");
    }
    e.words.push_back(f[0]);
    for (size_t i = 1; i < f.size(); ++i) {
      float v = 0;
      if (!parse_float(f[i], &v)) {
        return data_loss(path + ": line " + std::to_string(reader.line_number()) +
                         ": not a finite number: '" + f[i] + "'");
      }
      e.vectors.data.push_back(v);
    }
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  if (e.words.empty()) return data_loss(path + ": no vectors");
  e.vectors.rows = e.words.size();
  build_index(e);
  return e;
}

StatusOr<Embeddings> load_npy(const std::string& npy_path, const std::string& vocab_path) {
  MORPHEUS_ASSIGN_OR_RETURN(std::string bytes, read_file(npy_path));
  const auto bad = [&](const std::string& what) {
    return data_loss(npy_path + ": " + what, "expected a 2-D little-endian float32 (<f4) .npy");
  };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) return bad("not a .npy file");
  const auto major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) |
                 static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8;
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return bad("truncated header");
    for (size_t i = 0; i < 4; ++i) {
      header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    }
    offset = 12;
  } else {
    return bad("unsupported .npy version " + std::to_string(major));
  }
  if (offset + header_len > bytes.size()) return bad("truncated header");
  const std::string header = bytes.substr(offset, header_len);
  if (header.find("'<f4'") == std::string::npos) return bad("dtype is not '<f4'");
  if (header.find("'fortran_order': False") == std::string::npos) return bad("not C order");
  const size_t lp = header.find("'shape': (");
  if (lp == std::string::npos) return bad("no shape");
  size_t rows = 0, cols = 0;
  if (std::sscanf(header.c_str() + lp + 10, "%zu, %zu)", &rows, &cols) != 2) {
    return bad("shape is not 2-D");
  }
  const size_t data_off = offset + header_len;
  if (bytes.size() - data_off != rows * cols * 4) {
    return bad("data holds " + std::to_string(bytes.size() - data_off) + " bytes, shape needs " +
               std::to_string(rows * cols * 4));
  }
  Embeddings e;
  e.vectors.rows = rows;
  e.vectors.cols = cols;
  e.vectors.data.resize(rows * cols);
  std::memcpy(e.vectors.data.data(), bytes.data() + data_off, rows * cols * 4);
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(vocab_path));
  std::string line;
  while (reader.next(&line)) e.words.push_back(split_fields(line, '\t')[0]);
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  if (e.words.size() != rows) {
    return data_loss(vocab_path + ": " + std::to_string(e.words.size()) + " words for " +
                         std::to_string(rows) + " rows of " + npy_path,
                     "the .vocab file needs one word per matrix row");
  }
  build_index(e);
  return e;
}

StatusOr<Embeddings> load_embeddings(const std::string& path) {
  if (path.size() > 4 && path.compare(path.size() - 4, 4, ".npy") == 0) {
    return load_npy(path, path.substr(0, path.size() - 4) + ".vocab");
  }
  return load_vec(path);
}

Status write_npy(const std::string& path, const Matrix& m) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" +
                       std::to_string(m.rows) + ", " + std::to_string(m.cols) + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char*>(m.data.data()), m.data.size() * sizeof(float));
  return write_file_atomic(path, out);
}

Matrix l2_normalized(const Matrix& m) {
  Matrix out = m;
  for (size_t i = 0; i < m.rows; ++i) {
    const double n = std::sqrt(dot(m.row(i), m.row(i), m.cols));
    if (n == 0) continue;
    for (size_t j = 0; j < m.cols; ++j) out.row(i)[j] = static_cast<float>(m.row(i)[j] / n);
  }
  return out;
}

RetrievalResult family_retrieval(const Matrix& vectors, const std::vector<int>& labels,
                                 bool include_query) {
  const Matrix x = l2_normalized(vectors);
  RetrievalResult r;
  r.words = x.rows;
  std::map<int, size_t> family_size;
  for (int l : labels) ++family_size[l];
  r.families = family_size.size();
  double sum_ap = 0, sum_rr = 0, sum_r1 = 0, sum_r5 = 0, sum_r10 = 0, sum_pr = 0;
  std::vector<std::pair<double, size_t>> ranked;
  for (size_t q = 0; q < x.rows; ++q) {
    const size_t n_rel = family_size[labels[q]] - (include_query ? 0 : 1);
    if (family_size[labels[q]] < 2) continue;
    ranked.clear();
    for (size_t j = 0; j < x.rows; ++j) {
      if (j != q) ranked.emplace_back(-dot(x.row(q), x.row(j), x.cols), j);
    }
    std::sort(ranked.begin(), ranked.end());
    if (include_query) ranked.emplace_back(0.0, q);  // the reference's −∞ diagonal: last rank
    size_t hits = 0, first = 0, in1 = 0, in5 = 0, in10 = 0, in_r = 0;
    double ap = 0;
    for (size_t k = 0; k < ranked.size(); ++k) {
      if (labels[ranked[k].second] != labels[q]) continue;
      ++hits;
      ap += static_cast<double>(hits) / static_cast<double>(k + 1);
      if (first == 0) first = k + 1;
      in1 += k < 1;
      in5 += k < 5;
      in10 += k < 10;
      in_r += k < n_rel;
    }
    const auto nr = static_cast<double>(n_rel);
    sum_ap += ap / nr;
    sum_rr += 1.0 / static_cast<double>(first);
    sum_r1 += static_cast<double>(in1) / std::min(1.0, nr);
    sum_r5 += static_cast<double>(in5) / std::min(5.0, nr);
    sum_r10 += static_cast<double>(in10) / std::min(10.0, nr);
    sum_pr += static_cast<double>(in_r) / nr;
    ++r.queries;
  }
  if (r.queries > 0) {
    const auto n = static_cast<double>(r.queries);
    r.map = sum_ap / n;
    r.mrr = sum_rr / n;
    r.recall_at_1 = sum_r1 / n;
    r.recall_at_5 = sum_r5 / n;
    r.recall_at_10 = sum_r10 / n;
    r.precision_at_r = sum_pr / n;
  }
  return r;
}

double roc_auc(const std::vector<double>& scores, const std::vector<bool>& positive) {
  std::vector<size_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] < scores[b]; });
  double rank_sum = 0;  // sum of (1-based, tie-averaged) ranks of positives
  size_t pos = 0;
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j < order.size() && scores[order[j]] == scores[order[i]]) ++j;
    const double avg_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (size_t k = i; k < j; ++k) {
      if (positive[order[k]]) {
        rank_sum += avg_rank;
        ++pos;
      }
    }
    i = j;
  }
  const size_t neg = scores.size() - pos;
  if (pos == 0 || neg == 0) return 0.0;
  const auto p = static_cast<double>(pos);
  return (rank_sum - p * (p + 1) / 2.0) / (p * static_cast<double>(neg));
}

PairAucResult same_root_auc(const Matrix& vectors, const std::vector<int>& labels, size_t max_pairs,
                            uint64_t seed) {
  const Matrix x = l2_normalized(vectors);
  std::map<int, std::vector<size_t>> members;
  for (size_t i = 0; i < labels.size(); ++i) members[labels[i]].push_back(i);
  std::vector<std::pair<size_t, size_t>> pos_pairs;
  for (const auto& [label, idx] : members) {
    for (size_t a = 0; a < idx.size(); ++a) {
      for (size_t b = a + 1; b < idx.size(); ++b) pos_pairs.emplace_back(idx[a], idx[b]);
    }
  }
  std::mt19937_64 rng(seed);
  if (pos_pairs.size() > max_pairs) {
    std::shuffle(pos_pairs.begin(), pos_pairs.end(), rng);
    pos_pairs.resize(max_pairs);
  }
  PairAucResult r;
  if (pos_pairs.empty() || members.size() < 2) return r;
  std::vector<double> scores;
  std::vector<bool> positive;
  for (const auto& [a, b] : pos_pairs) {
    scores.push_back(dot(x.row(a), x.row(b), x.cols));
    positive.push_back(true);
  }
  std::uniform_int_distribution<size_t> pick(0, x.rows - 1);
  while (scores.size() < 2 * pos_pairs.size()) {
    const size_t a = pick(rng), b = pick(rng);
    if (labels[a] == labels[b]) continue;
    scores.push_back(dot(x.row(a), x.row(b), x.cols));
    positive.push_back(false);
  }
  r.positives = pos_pairs.size();
  r.negatives = pos_pairs.size();
  r.auc = roc_auc(scores, positive);
  return r;
}

namespace {

// 1-based rank of candidate `gold` among the rows of `c` by dot product with `q` (both unit
// rows); ties: lower index first.
size_t rank_of(const float* q, const Matrix& c, size_t gold) {
  const double target = dot(q, c.row(gold), c.cols);
  size_t rank = 1;
  for (size_t j = 0; j < c.rows; ++j) {
    const double s = dot(q, c.row(j), c.cols);
    rank += s > target || (s == target && j < gold);
  }
  return rank;
}

void add_hit(size_t rank, LemmaAccuracy* a) {
  a->at_1 += rank <= 1;
  a->at_10 += rank <= 10;
  ++a->queries;
}

void finish(LemmaAccuracy* a) {
  if (a->queries == 0) return;
  a->at_1 /= static_cast<double>(a->queries);
  a->at_10 /= static_cast<double>(a->queries);
}

// Share of the k nearest other rows of row q (unit rows, ties: lower index first) with its label.
double precision_at_k(const Matrix& x, const std::vector<int>& labels, size_t q, size_t k,
                      std::vector<std::pair<double, size_t>>* ranked) {
  ranked->clear();
  for (size_t j = 0; j < x.rows; ++j) {
    if (j != q) ranked->emplace_back(-dot(x.row(q), x.row(j), x.cols), j);
  }
  std::nth_element(ranked->begin(), ranked->begin() + static_cast<long>(k - 1), ranked->end());
  size_t hits = 0;
  for (size_t i = 0; i < k; ++i) hits += labels[(*ranked)[i].second] == labels[q];
  return static_cast<double>(hits) / static_cast<double>(k);
}

}  // namespace

LemmaRetrievalResult lemma_retrieval(const Matrix& queries, const Matrix& candidates,
                                     const std::vector<int>& gold, const std::vector<bool>& seen) {
  const Matrix q = l2_normalized(queries), c = l2_normalized(candidates);
  LemmaRetrievalResult r;
  r.candidates = c.rows;
  for (size_t i = 0; i < q.rows; ++i) {
    const size_t rank = rank_of(q.row(i), c, static_cast<size_t>(gold[i]));
    add_hit(rank, &r.all);
    if (!seen.empty()) add_hit(rank, seen[i] ? &r.seen : &r.unseen);
  }
  for (LemmaAccuracy* a : {&r.all, &r.seen, &r.unseen}) finish(a);
  return r;
}

NeighbourResult same_label_retrieval(const Matrix& vectors, const std::vector<int>& labels,
                                     size_t k) {
  NeighbourResult r;
  r.items = vectors.rows;
  std::map<int, size_t> class_size;
  for (int l : labels) ++class_size[l];
  r.classes = class_size.size();
  if (r.items < 2 || k == 0) return r;
  for (const auto& [label, n] : class_size) {
    const double p = static_cast<double>(n) / static_cast<double>(r.items);
    r.chance += p * p;
  }
  r.k = std::min(k, r.items - 1);
  const Matrix x = l2_normalized(vectors);
  std::vector<std::pair<double, size_t>> ranked;
  double sum = 0;
  for (size_t q = 0; q < x.rows; ++q) sum += precision_at_k(x, labels, q, r.k, &ranked);
  r.precision_at_k = sum / static_cast<double>(r.items);
  r.map = family_retrieval(vectors, labels, false).map;
  return r;
}

namespace {

// Trains softmax regression on rows `train` and returns held-out accuracy on rows `test`.
double train_and_score(const Matrix& x, const std::vector<int>& labels, size_t classes,
                       const std::vector<size_t>& train, const std::vector<size_t>& test, double c,
                       size_t iterations) {
  const size_t d = x.cols;
  std::vector<double> mean(d, 0), inv_std(d, 0);
  for (size_t i : train)
    for (size_t j = 0; j < d; ++j) mean[j] += x.row(i)[j];
  const auto n = static_cast<double>(train.size());
  for (double& m : mean) m /= n;
  for (size_t i : train) {
    for (size_t j = 0; j < d; ++j) {
      const double v = x.row(i)[j] - mean[j];
      inv_std[j] += v * v;
    }
  }
  for (double& s : inv_std) s = s > 0 ? 1.0 / std::sqrt(s / n) : 0.0;
  auto feat = [&](size_t i, size_t j) { return (x.row(i)[j] - mean[j]) * inv_std[j]; };
  std::vector<double> z(train.size() * d);
  for (size_t r = 0; r < train.size(); ++r)
    for (size_t j = 0; j < d; ++j) z[r * d + j] = feat(train[r], j);
  std::vector<double> w(classes * d, 0), b(classes, 0), gw(classes * d), gb(classes);
  std::vector<double> p(classes);
  const double lambda = 1.0 / (c * n);
  const double lr = 0.5;
  for (size_t it = 0; it < iterations; ++it) {
    std::fill(gw.begin(), gw.end(), 0.0);
    std::fill(gb.begin(), gb.end(), 0.0);
    for (size_t r = 0; r < train.size(); ++r) {
      const double* zr = &z[r * d];
      double mx = -1e300;
      for (size_t k = 0; k < classes; ++k) {
        double s = b[k];
        for (size_t j = 0; j < d; ++j) s += w[k * d + j] * zr[j];
        p[k] = s;
        mx = std::max(mx, s);
      }
      double sum = 0;
      for (size_t k = 0; k < classes; ++k) sum += (p[k] = std::exp(p[k] - mx));
      for (size_t k = 0; k < classes; ++k) {
        const double g = p[k] / sum - (static_cast<int>(k) == labels[train[r]] ? 1.0 : 0.0);
        gb[k] += g;
        for (size_t j = 0; j < d; ++j) gw[k * d + j] += g * zr[j];
      }
    }
    for (size_t k = 0; k < classes * d; ++k) w[k] -= lr * (gw[k] / n + lambda * w[k]);
    for (size_t k = 0; k < classes; ++k) b[k] -= lr * gb[k] / n;
  }
  size_t correct = 0;
  for (size_t i : test) {
    size_t best = 0;
    double best_s = -1e300;
    for (size_t k = 0; k < classes; ++k) {
      double s = b[k];
      for (size_t j = 0; j < d; ++j) s += w[k * d + j] * feat(i, j);
      if (s > best_s) {
        best_s = s;
        best = k;
      }
    }
    correct += static_cast<int>(best) == labels[i];
  }
  return test.empty() ? 0.0 : static_cast<double>(correct) / static_cast<double>(test.size());
}

}  // namespace

ProbeResult logistic_probe(const Matrix& x, const std::vector<int>& labels, size_t folds,
                           uint64_t seed, double c, size_t iterations) {
  ProbeResult r;
  r.items = x.rows;
  r.folds = folds;
  std::map<int, std::vector<size_t>> by_class;
  for (size_t i = 0; i < labels.size(); ++i) by_class[labels[i]].push_back(i);
  r.classes = by_class.size();
  if (x.rows == 0 || folds < 2 || r.classes < 2) return r;
  size_t largest = 0;
  int max_label = 0;
  for (const auto& [label, idx] : by_class) {
    largest = std::max(largest, idx.size());
    max_label = std::max(max_label, label);
  }
  r.majority = static_cast<double>(largest) / static_cast<double>(x.rows);
  std::vector<size_t> fold_of(x.rows);
  std::mt19937_64 rng(seed);
  size_t next = 0;
  for (auto& [label, idx] : by_class) {
    std::shuffle(idx.begin(), idx.end(), rng);
    for (size_t i : idx) fold_of[i] = next++ % folds;
  }
  double sum = 0;
  for (size_t f = 0; f < folds; ++f) {
    std::vector<size_t> train, test;
    for (size_t i = 0; i < x.rows; ++i) (fold_of[i] == f ? test : train).push_back(i);
    sum +=
        train_and_score(x, labels, static_cast<size_t>(max_label) + 1, train, test, c, iterations);
  }
  r.accuracy = sum / static_cast<double>(folds);
  return r;
}

Matrix pca_2d(const Matrix& x, uint64_t seed) {
  const size_t n = x.rows, d = x.cols;
  std::vector<double> mean(d, 0);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < d; ++j) mean[j] += x.row(i)[j];
  for (double& m : mean) m /= std::max<double>(1.0, static_cast<double>(n));
  std::vector<double> c(n * d);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < d; ++j) c[i * d + j] = x.row(i)[j] - mean[j];
  Matrix out;
  out.rows = n;
  out.cols = 2;
  out.data.assign(n * 2, 0.0f);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::vector<std::vector<double>> comps;
  for (size_t comp = 0; comp < 2 && d > 0; ++comp) {
    std::vector<double> v(d), xv(n), nv(d);
    for (double& e : v) e = normal(rng);
    for (size_t it = 0; it < 100; ++it) {
      for (const auto& prev : comps) {  // deflate
        double proj = 0;
        for (size_t j = 0; j < d; ++j) proj += v[j] * prev[j];
        for (size_t j = 0; j < d; ++j) v[j] -= proj * prev[j];
      }
      for (size_t i = 0; i < n; ++i) {
        double s = 0;
        for (size_t j = 0; j < d; ++j) s += c[i * d + j] * v[j];
        xv[i] = s;
      }
      std::fill(nv.begin(), nv.end(), 0.0);
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < d; ++j) nv[j] += c[i * d + j] * xv[i];
      double norm = 0;
      for (double e : nv) norm += e * e;
      norm = std::sqrt(norm);
      if (norm == 0) break;
      for (size_t j = 0; j < d; ++j) v[j] = nv[j] / norm;
    }
    for (size_t i = 0; i < n; ++i) {
      double s = 0;
      for (size_t j = 0; j < d; ++j) s += c[i * d + j] * v[j];
      out.row(i)[comp] = static_cast<float>(s);
    }
    comps.push_back(v);
  }
  return out;
}

}  // namespace morpheus::eval
