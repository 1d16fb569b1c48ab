// SPDX-License-Identifier: MIT
#include "pack/merge.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <utility>

#include "core/progress.h"
#include "pack/reader.h"
#include "pack/writer.h"

namespace morpheus::pack {
namespace {

struct Part {
  std::string prefix;
  Manifest manifest;
  std::unique_ptr<PackReader> reader;
};

Status differs(const Part& a, const Part& b, const std::string& what) {
  return failed_precondition(b.prefix + " and " + a.prefix + " differ in " + what,
                             "merge parts packed with one tokenizer, format and options");
}

// Whether `b` may be merged with `a` (the first part).
Status check_compatible(const Part& a, const Part& b) {
  const Manifest& x = a.manifest;
  const Manifest& y = b.manifest;
  if (x.format != y.format) return differs(a, b, "format");
  if (x.dtype != y.dtype) return differs(a, b, "token type");
  if (x.vocab_size != y.vocab_size || x.tokenizer_id != y.tokenizer_id) {
    return differs(a, b, "tokenizer");
  }
  const ContentOptions& o = x.options;
  const ContentOptions& p = y.options;
  if (o.plain != p.plain || o.jsonl_key != p.jsonl_key || o.append_eos != p.append_eos ||
      o.prepend_bos != p.prepend_bos || o.skip_invalid != p.skip_invalid) {
    return differs(a, b,
                   "options (input, --jsonl-key, --append-eos, --prepend-bos, "
                   "--skip-invalid)");
  }
  if (x.shard_count != y.shard_count) return differs(a, b, "shard count");
  if (x.shard_count > 1) {
    if (x.inputs.size() != y.inputs.size()) return differs(a, b, "inputs");
    for (size_t i = 0; i < x.inputs.size(); ++i) {
      if (x.inputs[i].checksum != y.inputs[i].checksum) {
        return differs(a, b, "inputs (" + y.inputs[i].path + ")");
      }
    }
  }
  return ok_status();
}

// Documents that shard `index` of `count` holds among k = 1..total.
uint64_t shard_share(uint64_t total, uint64_t index, uint64_t count) {
  return total > index ? (total - index + count - 1) / count : 0;
}

// Sorts shards by index and checks that each index 0..n-1 is there once and that their
// document counts come from one corpus.
Status order_shards(std::vector<Part>* parts, uint64_t* total) {
  std::sort(parts->begin(), parts->end(), [](const Part& a, const Part& b) {
    return a.manifest.shard_index < b.manifest.shard_index;
  });
  const uint64_t n = parts->front().manifest.shard_count;
  *total = 0;
  for (size_t i = 0; i < parts->size(); ++i) {
    if ((*parts)[i].manifest.shard_index != i || parts->size() != n) {
      return failed_precondition("the parts are not shards 0.." + std::to_string(n - 1) + "/" +
                                     std::to_string(n) + ", each once",
                                 "give every shard of the pack exactly once");
    }
    *total += (*parts)[i].manifest.documents_seen;
  }
  for (const Part& p : *parts) {
    if (p.manifest.documents_seen != shard_share(*total, p.manifest.shard_index, n)) {
      return failed_precondition(p.prefix + " holds " + std::to_string(p.manifest.documents_seen) +
                                     " documents, not its share of " + std::to_string(*total),
                                 "the shards come from different inputs or an old run");
    }
  }
  return ok_status();
}

StatusOr<bool> next_of(Part& part, std::vector<int32_t>* ids) {
  StatusOr<bool> more = part.reader->next(ids);
  if (more.ok() && !*more) {
    return data_loss(part.prefix + " ends before the documents its manifest counts",
                     "the part is damaged: re-create it");
  }
  return more;
}

Status interleave(std::vector<Part>& parts, uint64_t total, TokenWriter& writer, ProgressBar* bar) {
  const uint64_t n = parts.size();
  std::vector<size_t> skip_at(parts.size(), 0);
  std::vector<int32_t> ids;
  for (uint64_t k = 1; k <= total; ++k) {
    Part& part = parts[(k - 1) % n];
    const std::vector<uint64_t>& skipped = part.manifest.skipped_documents;
    size_t& s = skip_at[(k - 1) % n];
    if (s < skipped.size() && skipped[s] == k) {
      ++s;
      continue;
    }
    MORPHEUS_RETURN_IF_ERROR(next_of(part, &ids).status());
    MORPHEUS_RETURN_IF_ERROR(writer.add(ids));
    if (bar != nullptr && k % 4096 == 0) bar->set(k);
  }
  return ok_status();
}

Status concatenate(std::vector<Part>& parts, TokenWriter& writer, ProgressBar* bar) {
  std::vector<int32_t> ids;
  for (Part& part : parts) {
    for (uint64_t d = 0; d < part.manifest.documents; ++d) {
      MORPHEUS_RETURN_IF_ERROR(next_of(part, &ids).status());
      MORPHEUS_RETURN_IF_ERROR(writer.add(ids));
      if (bar != nullptr) bar->add(1);
    }
  }
  return ok_status();
}

// Every part must be read to its end.
Status check_ends(std::vector<Part>& parts) {
  std::vector<int32_t> ids;
  for (Part& part : parts) {
    MORPHEUS_ASSIGN_OR_RETURN(const bool more, part.reader->next(&ids));
    if (more) {
      return data_loss(part.prefix + " holds more documents than its manifest counts",
                       "the part is damaged: re-create it");
    }
  }
  return ok_status();
}

// The manifest of the merged pack: the first part's, with the sums of all.
Manifest merged_manifest(const std::vector<Part>& parts, bool shards, const TokenWriter& writer) {
  Manifest m = parts.front().manifest;
  m.merged_from.clear();
  m.documents = writer.documents();
  m.tokens = writer.tokens();
  m.characters = 0;
  m.documents_seen = 0;
  m.skipped_documents.clear();
  if (!shards) m.inputs.clear();
  for (const Part& p : parts) {
    m.characters += p.manifest.characters;
    for (const uint64_t k : p.manifest.skipped_documents) {
      m.skipped_documents.push_back(shards ? k : m.documents_seen + k);
    }
    m.documents_seen += p.manifest.documents_seen;
    if (!shards)
      m.inputs.insert(m.inputs.end(), p.manifest.inputs.begin(), p.manifest.inputs.end());
    m.merged_from.push_back(p.prefix);
  }
  std::sort(m.skipped_documents.begin(), m.skipped_documents.end());
  m.shard_index = 0;
  m.shard_count = 1;
  m.files = writer.files();
  return m;
}

Status open_parts(const std::vector<std::string>& prefixes, const std::string& out,
                  std::vector<Part>* parts) {
  if (prefixes.empty()) return invalid_argument("no parts to merge");
  parts->resize(prefixes.size());
  for (size_t i = 0; i < prefixes.size(); ++i) {
    if (prefixes[i] == out) {
      return invalid_argument("--out " + out + " is one of the parts",
                              "write the merged pack under another prefix");
    }
    Part& part = (*parts)[i];
    part.prefix = prefixes[i];
    MORPHEUS_ASSIGN_OR_RETURN(part.manifest, read_manifest(part.prefix));
    MORPHEUS_RETURN_IF_ERROR(check_compatible(parts->front(), part));
  }
  for (Part& part : *parts) {
    MORPHEUS_ASSIGN_OR_RETURN(part.reader, open_pack_reader(part.prefix, part.manifest));
  }
  return ok_status();
}

}  // namespace

StatusOr<Manifest> merge_packs(const std::vector<std::string>& prefixes, const std::string& out,
                               bool progress) {
  std::vector<Part> parts;
  MORPHEUS_RETURN_IF_ERROR(open_parts(prefixes, out, &parts));
  const bool shards = parts.front().manifest.shard_count > 1;
  uint64_t total = 0;
  if (shards) MORPHEUS_RETURN_IF_ERROR(order_shards(&parts, &total));
  const Manifest& first = parts.front().manifest;
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<TokenWriter> writer,
                            make_writer(first.format, first.dtype, out));
  std::unique_ptr<ProgressBar> bar;
  if (progress) bar = std::make_unique<ProgressBar>("merge", 0, "docs");
  MORPHEUS_RETURN_IF_ERROR(shards ? interleave(parts, total, *writer, bar.get())
                                  : concatenate(parts, *writer, bar.get()));
  MORPHEUS_RETURN_IF_ERROR(check_ends(parts));
  if (bar) bar->finish();
  MORPHEUS_RETURN_IF_ERROR(writer->finish());
  Manifest m = merged_manifest(parts, shards, *writer);
  std::remove(manifest_path(out).c_str());
  MORPHEUS_RETURN_IF_ERROR(writer->commit());
  MORPHEUS_RETURN_IF_ERROR(write_manifest(out, m));
  return m;
}

}  // namespace morpheus::pack
