// SPDX-License-Identifier: MIT
// SegmentTable: the sorted file image and its binary search; TableSegmenter.
#include "tokenizer/segment_table.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>
#include <utility>

#include "core/unicode.h"
#include "core/utf8.h"
#include "tokenizer/case_fold.h"

namespace morpheus::tokenizer {
namespace {

constexpr char kTableMagic[8] = {'M', 'S', 'E', 'G', 'T', 'A', 'B', '1'};
constexpr size_t kTableHeader = 24;

uint64_t read_u64(const char* p) {
  uint64_t v = 0;
  std::memcpy(&v, p, 8);
  return v;
}

void append_u64(uint64_t v, std::string* out) {
  char b[8];
  std::memcpy(b, &v, 8);
  out->append(b, 8);
}

// Compares `key` with a record whose pieces are joined by ' ' (the spaces are skipped).
int compare_run(std::string_view key, std::string_view record) {
  size_t i = 0;
  size_t j = 0;
  while (true) {
    while (j < record.size() && record[j] == ' ') ++j;
    if (i == key.size() || j == record.size()) {
      if (i == key.size() && j == record.size()) return 0;
      return i == key.size() ? -1 : 1;
    }
    const unsigned char a = static_cast<unsigned char>(key[i]);
    const unsigned char b = static_cast<unsigned char>(record[j]);
    if (a != b) return a < b ? -1 : 1;
    ++i;
    ++j;
  }
}

std::vector<std::string> split_record(std::string_view record) {
  std::vector<std::string> pieces;
  size_t begin = 0;
  while (begin <= record.size()) {
    size_t end = record.find(' ', begin);
    if (end == std::string_view::npos) end = record.size();
    if (end > begin) pieces.emplace_back(record.substr(begin, end - begin));
    begin = end + 1;
  }
  return pieces;
}

// Index of `run` in `table`, or table.size().
size_t find_run(const SegmentTable& table, std::string_view run) {
  size_t lo = 0;
  size_t hi = table.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const int c = compare_run(run, table.record(mid));
    if (c == 0) return mid;
    if (c < 0) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return table.size();
}

}  // namespace

std::string SegmentTable::serialize(
    std::vector<std::pair<std::string, std::vector<std::string>>> entries) {
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string blob;
  std::vector<uint64_t> offsets;
  offsets.reserve(entries.size() + 1);
  for (const auto& [run, pieces] : entries) {
    offsets.push_back(blob.size());
    for (size_t k = 0; k < pieces.size(); ++k) {
      if (k > 0) blob += ' ';
      blob += pieces[k];
    }
  }
  offsets.push_back(blob.size());
  std::string image(kTableMagic, 8);
  append_u64(entries.size(), &image);
  append_u64(blob.size(), &image);
  for (uint64_t o : offsets) append_u64(o, &image);
  image += blob;
  return image;
}

StatusOr<SegmentTable> SegmentTable::parse(std::string image, const std::string& path) {
  const auto bad = [&path](const std::string& what) {
    return data_loss(path + ": " + what, "the segment table is damaged; re-run morpheus export");
  };
  if (image.size() < kTableHeader || std::memcmp(image.data(), kTableMagic, 8) != 0) {
    return bad("not a segment table (magic MSEGTAB1)");
  }
  const uint64_t count = read_u64(image.data() + 8);
  const uint64_t blob_bytes = read_u64(image.data() + 16);
  if (count > image.size() / 8 ||
      kTableHeader + (count + 1) * 8 + blob_bytes != static_cast<uint64_t>(image.size())) {
    return bad("size fields do not match the file size " + std::to_string(image.size()));
  }
  SegmentTable table;
  table.count_ = static_cast<size_t>(count);
  const char* offsets = image.data() + kTableHeader;
  uint64_t previous = 0;
  for (size_t i = 0; i <= table.count_; ++i) {
    const uint64_t o = read_u64(offsets + i * 8);
    if (o < previous || o > blob_bytes || (i == 0 && o != 0) ||
        (i == table.count_ && o != blob_bytes)) {
      return bad("record offset " + std::to_string(i) + " is out of order");
    }
    previous = o;
  }
  table.image_ = std::move(image);
  table.blob_ = table.image_.data() + kTableHeader + (table.count_ + 1) * 8;
  return table;
}

std::string_view SegmentTable::record(size_t i) const {
  const char* offsets = image_.data() + kTableHeader;
  const uint64_t begin = read_u64(offsets + i * 8);
  const uint64_t end = read_u64(offsets + (i + 1) * 8);
  return std::string_view(blob_ + begin, static_cast<size_t>(end - begin));
}

std::vector<SegmentedWord> SegmentTable::entries() const {
  std::vector<SegmentedWord> out(count_);
  for (size_t i = 0; i < count_; ++i) {
    out[i].pieces = split_record(record(i));
    for (const std::string& p : out[i].pieces) out[i].word += p;
  }
  return out;
}

bool SegmentTable::contains(std::string_view run) const { return find_run(*this, run) != count_; }

bool SegmentTable::lookup(std::string_view run, std::vector<std::string>* pieces) const {
  const size_t i = find_run(*this, run);
  if (i == count_) return false;
  *pieces = split_record(record(i));
  return true;
}

TableSegmenter::TableSegmenter(const std::vector<SegmentedWord>& words, bool turkish_case) {
  std::vector<std::pair<std::string, std::vector<std::string>>> entries;
  std::unordered_set<std::string> seen;
  for (const SegmentedWord& w : words) {
    std::string word = fold_run(w.word, turkish_case);
    std::vector<std::string> pieces;
    std::string spelled;
    for (const std::string& p : w.pieces) {
      pieces.push_back(fold_run(p, turkish_case));
      spelled += pieces.back();
    }
    if (spelled != word || !seen.insert(word).second) continue;  // folding changed a length
    entries.emplace_back(std::move(word), std::move(pieces));
  }
  table_ = SegmentTable::parse(SegmentTable::serialize(std::move(entries)), "").value();
}

StatusOr<std::unique_ptr<TableSegmenter>> TableSegmenter::load(const std::string& path,
                                                               bool turkish_case) {
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<SegmentedWord> words, read_segment_file(path));
  return std::make_unique<TableSegmenter>(words, turkish_case);
}

std::vector<std::string> TableSegmenter::cut(std::string_view word) const {
  std::vector<std::string> pieces;
  if (!table_.lookup(word, &pieces)) pieces.assign(1, std::string(word));
  return pieces;
}

}  // namespace morpheus::tokenizer
