// SPDX-License-Identifier: MIT
// Persistent segmentation cache: checked reading, locked appending, merging.
#include "tokenizer/segment_cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/file_util.h"
#include "core/hash.h"
#include "core/logging.h"
#include "core/utf8.h"

namespace morpheus::tokenizer {
namespace {

constexpr char kCacheMagic[8] = {'M', 'S', 'E', 'G', 'C', 'A', 'C', '1'};
constexpr size_t kCacheHeader = 32;
constexpr size_t kRecordHead = 12;  // u32 length + u64 checksum
constexpr uint32_t kMaxPayload = 1u << 20;

uint64_t cache_u64(const char* p) {
  uint64_t v = 0;
  std::memcpy(&v, p, 8);
  return v;
}

void cache_put(const void* v, size_t n, std::string* out) {
  out->append(static_cast<const char*>(v), n);
}

std::string cache_header(uint64_t id) {
  std::string h(kCacheMagic, 8);
  const uint64_t zero = 0;
  cache_put(&id, 8, &h);
  cache_put(&zero, 8, &h);
  const uint64_t sum = fnv1a64(h);
  cache_put(&sum, 8, &h);
  return h;
}

uint64_t record_sum(uint32_t n, std::string_view payload) {
  return fnv1a64(payload, fnv1a64(&n, 4));
}

void append_record(const std::string& run, const std::string& joined, std::string* out) {
  const std::string payload = run + "\t" + joined;
  const uint32_t n = static_cast<uint32_t>(payload.size());
  const uint64_t sum = record_sum(n, payload);
  cache_put(&n, 4, out);
  cache_put(&sum, 8, out);
  out->append(payload);
}

// True when `payload` is run '\t' pieces whose concatenation is the run (valid UTF-8).
bool split_payload(std::string_view payload, std::string_view* run, std::string_view* joined) {
  const size_t tab = payload.find('\t');
  if (tab == std::string_view::npos || tab == 0 || tab + 1 == payload.size()) return false;
  *run = payload.substr(0, tab);
  *joined = payload.substr(tab + 1);
  if (!utf8::is_valid(*run) || joined->find('\t') != std::string_view::npos) return false;
  if (joined->front() == ' ' || joined->back() == ' ' ||
      joined->find("  ") != std::string_view::npos) {
    return false;
  }
  std::string concat;
  concat.reserve(run->size());
  for (char c : *joined) {
    if (c != ' ') concat.push_back(c);
  }
  return concat == *run;
}

std::vector<std::string> split_pieces(std::string_view joined) {
  std::vector<std::string> pieces;
  size_t begin = 0;
  while (begin < joined.size()) {
    size_t end = joined.find(' ', begin);
    if (end == std::string_view::npos) end = joined.size();
    pieces.emplace_back(joined.substr(begin, end - begin));
    begin = end + 1;
  }
  return pieces;
}

Status damaged(const std::string& path, const std::string& what) {
  return data_loss(path + ": " + what,
                   "the segmentation cache is damaged; delete it (it only saves model time) or "
                   "rebuild it with the same command");
}

Status check_header(const std::string& path, std::string_view image, uint64_t expect_id,
                    uint64_t* id) {
  if (image.size() < kCacheHeader || std::memcmp(image.data(), kCacheMagic, 8) != 0) {
    return damaged(path, "not a segmentation cache (magic MSEGCAC1, 32-byte header)");
  }
  if (cache_u64(image.data() + 24) != fnv1a64(image.substr(0, 24))) {
    return damaged(path, "header checksum mismatch");
  }
  *id = cache_u64(image.data() + 8);
  if (expect_id != 0 && *id != expect_id) {
    return failed_precondition(
        path + " is the segmentation cache of another tokenizer (config fnv1a64:" + hex16(*id) +
            ", this one fnv1a64:" + hex16(expect_id) + ")",
        "a cache is tied to the tokenizer that wrote it; give a new --cache-file path");
  }
  return ok_status();
}

}  // namespace

Status read_cache_file(const std::string& path, uint64_t expect_id, CacheRecords* records,
                       CacheFileInfo* info) {
  MORPHEUS_ASSIGN_OR_RETURN(std::string image, read_file(path));
  *info = CacheFileInfo{};
  MORPHEUS_RETURN_IF_ERROR(check_header(path, image, expect_id, &info->tokenizer_id));
  size_t pos = kCacheHeader;
  while (pos < image.size()) {
    uint32_t n = 0;
    if (image.size() - pos >= 4) std::memcpy(&n, image.data() + pos, 4);
    if (image.size() - pos < kRecordHead || image.size() - pos - kRecordHead < n) {
      if (n > kMaxPayload) break;  // an impossible length: damage, not a torn append
      info->torn_tail = true;
      MORPHEUS_LOG(kWarning, path, ": dropped a last record cut short at byte ", pos,
                   " (a run killed while appending)");
      break;
    }
    const std::string_view payload(image.data() + pos + kRecordHead, n);
    std::string_view run;
    std::string_view joined;
    if (n > kMaxPayload || cache_u64(image.data() + pos + 4) != record_sum(n, payload) ||
        !split_payload(payload, &run, &joined)) {
      return damaged(path, "record at byte " + std::to_string(pos) + " fails its checksum");
    }
    records->emplace(std::string(run), std::string(joined));
    ++info->records;
    pos += kRecordHead + n;
  }
  if (pos < image.size() && !info->torn_tail) {
    return damaged(path, "record at byte " + std::to_string(pos) + " has an impossible length");
  }
  info->valid_bytes = pos;
  return ok_status();
}

std::string cache_image(uint64_t id, const CacheRecords& records) {
  std::vector<const std::pair<const std::string, std::string>*> sorted;
  sorted.reserve(records.size());
  for (const auto& r : records) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });
  std::string image = cache_header(id);
  for (const auto* r : sorted) append_record(r->first, r->second, &image);
  return image;
}

StatusOr<std::unique_ptr<SegmentCache>> SegmentCache::open(const std::string& path, uint64_t id) {
  std::unique_ptr<SegmentCache> cache(new SegmentCache());
  cache->path_ = path;
  cache->fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (cache->fd_ < 0) {
    return io_error("cannot open the cache file " + path + ": " + std::strerror(errno),
                    "check that its directory exists and is writable");
  }
  if (::flock(cache->fd_, LOCK_EX | LOCK_NB) != 0) {
    return failed_precondition(path +
                                   " is being written by another process (or by another open "
                                   "tokenizer of this one)",
                               "give each shard its own --cache-file and join them afterwards "
                               "with morpheus cache merge");
  }
  const off_t size = ::lseek(cache->fd_, 0, SEEK_END);
  size_t keep = 0;
  if (size == 0) {
    const std::string header = cache_header(id);
    if (::write(cache->fd_, header.data(), header.size()) != static_cast<ssize_t>(header.size())) {
      return io_error("cannot write " + path + ": " + std::strerror(errno));
    }
    keep = header.size();
  } else {
    CacheFileInfo info;
    MORPHEUS_RETURN_IF_ERROR(read_cache_file(path, id, &cache->records_, &info));
    keep = info.valid_bytes;
  }
  if (::ftruncate(cache->fd_, static_cast<off_t>(keep)) != 0 ||
      ::lseek(cache->fd_, static_cast<off_t>(keep), SEEK_SET) < 0) {
    return io_error("cannot cut " + path + " to its complete records: " + std::strerror(errno));
  }
  return cache;
}

SegmentCache::~SegmentCache() {
  if (fd_ >= 0) {
    ::fdatasync(fd_);
    ::close(fd_);
  }
}

bool SegmentCache::lookup(const std::string& run, std::vector<std::string>* pieces) const {
  const auto it = records_.find(run);
  if (it == records_.end()) return false;
  *pieces = split_pieces(it->second);
  return true;
}

Status SegmentCache::append(const std::vector<std::string>& runs,
                            const std::vector<std::vector<std::string>>& pieces) {
  std::string buf;
  for (size_t i = 0; i < runs.size() && i < pieces.size(); ++i) {
    if (runs[i].empty() || runs[i].size() > kMaxCachedRunBytes || records_.count(runs[i])) {
      continue;
    }
    std::string joined;
    for (const std::string& p : pieces[i]) joined += (joined.empty() ? "" : " ") + p;
    std::string_view r;
    std::string_view j;
    const std::string payload = runs[i] + "\t" + joined;
    if (!split_payload(payload, &r, &j)) continue;  // not a clean segmentation: never cached
    append_record(runs[i], joined, &buf);
    records_.emplace(runs[i], std::move(joined));
  }
  size_t done = 0;
  while (done < buf.size()) {
    const ssize_t n = ::write(fd_, buf.data() + done, buf.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return io_error("cannot append to the cache file " + path_ + ": " + std::strerror(errno),
                      "check the free disk space");
    }
    done += static_cast<size_t>(n);
  }
  return ok_status();
}

Status merge_cache_files(const std::vector<std::string>& inputs, uint64_t id,
                         const std::string& out, MergeSummary* summary) {
  *summary = MergeSummary{};
  CacheRecords merged;
  for (const std::string& path : inputs) {
    CacheRecords records;
    CacheFileInfo info;
    MORPHEUS_RETURN_IF_ERROR(read_cache_file(path, id, &records, &info));
    for (auto& [run, joined] : records) {
      const auto [it, fresh] = merged.emplace(run, joined);
      if (!fresh && it->second != joined) ++summary->conflicts;
    }
    ++summary->files;
  }
  summary->records = merged.size();
  return write_file_atomic(out, cache_image(id, merged));
}

}  // namespace morpheus::tokenizer
