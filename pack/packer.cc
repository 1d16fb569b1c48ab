// SPDX-License-Identifier: MIT
#include "pack/packer.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <thread>
#include <utility>

#include "core/file_util.h"
#include "core/hash.h"
#include "core/logging.h"
#include "core/progress.h"
#include "core/utf8.h"
#include "core/version.h"
#include "pack/input.h"
#include "pack/writer.h"
#include "tokenizer/directory_format.h"

namespace morpheus::pack {
namespace {

// Where a document came from.
struct Origin {
  size_t input = 0;
  uint64_t line = 0;
  uint64_t number = 0;  // k, counted from 1 over all inputs
};

// A block of documents: their texts ("" for an invalid one), origins and parse errors.
struct Block {
  std::vector<std::string> texts;
  std::vector<Origin> origins;
  std::vector<Status> errors;
  size_t bytes = 0;

  void clear() {
    texts.clear();
    origins.clear();
    errors.clear();
    bytes = 0;
  }
  bool empty() const { return texts.empty(); }
};

// The documents of every input in order, those of one shard kept.
class DocumentStream {
 public:
  explicit DocumentStream(const PackOptions& options) : options_(options) {}

  // Reads the next block of this shard's lines (not yet parsed) into block->texts.
  Status read(Block* block) {
    block->clear();
    std::string line;
    while (block->texts.size() < options_.block_docs && block->bytes < options_.block_bytes) {
      if (!current_) MORPHEUS_RETURN_IF_ERROR(open_next());
      if (!current_) return ok_status();
      if (!current_->next(&line)) {
        MORPHEUS_RETURN_IF_ERROR(close_current());
        continue;
      }
      ++number_;
      if ((number_ - 1) % options_.shard_count != options_.shard_index) continue;
      block->bytes += line.size();
      block->origins.push_back({input_, current_->line_number(), number_});
      block->texts.push_back(std::move(line));
    }
    return ok_status();
  }

  const std::vector<InputInfo>& inputs() const { return inputs_; }
  const std::string& path(size_t input) const { return options_.inputs[input]; }

 private:
  Status open_next() {
    if (next_input_ >= options_.inputs.size()) return ok_status();
    input_ = next_input_++;
    current_ = std::make_unique<LineInput>();
    return current_->open(options_.inputs[input_]);
  }
  Status close_current() {
    MORPHEUS_RETURN_IF_ERROR(current_->status());
    inputs_.push_back({current_->path(), current_->checksum(), current_->file_bytes()});
    current_.reset();
    return ok_status();
  }

  const PackOptions& options_;
  std::unique_ptr<LineInput> current_;
  size_t next_input_ = 0;
  size_t input_ = 0;
  uint64_t number_ = 0;
  std::vector<InputInfo> inputs_;
};

// Replaces each raw line of `block` by its document's text (errors kept per document).
void parse_block(const DocumentFormat& format, Block* block) {
  block->errors.assign(block->texts.size(), ok_status());
  std::string text;
  for (size_t i = 0; i < block->texts.size(); ++i) {
    Status s = document_text(block->texts[i], format, &text);
    if (!s.ok()) {
      block->errors[i] = std::move(s);
      text.clear();
    }
    std::swap(block->texts[i], text);
  }
}

// The ids of a contiguous slice of a block's documents.
struct Slice {
  std::vector<int32_t> ids;
  std::vector<size_t> ends;  // per document, the end of its ids in `ids`
  uint64_t characters = 0;
  Status error;
  size_t failed = 0;  // the document of `error`
};

// bare_empty: an empty document stays empty, without <s> or </s> (megatron, npy: their index
// keeps it, a zero-length sequence): Megatron-LM's preprocess_data.py stores no sequence for
// it, and a lone </s> would put two in a row in the token stream. In an llmc file, which has no
// index, the lone </s> (or <s>) is what keeps the document.
void encode_slice(const tokenizer::Tokenizer& tok, const tokenizer::EncodeOptions& options,
                  bool bare_empty, const Block& block, size_t begin, size_t end, Slice* slice) {
  for (size_t i = begin; i < end; ++i) {
    if (block.errors[i].ok() && !(bare_empty && block.texts[i].empty())) {
      Status s = tok.encode(block.texts[i], options, &slice->ids);
      if (!s.ok()) {
        slice->error = std::move(s);
        slice->failed = i;
        return;
      }
      slice->characters += utf8::length(block.texts[i]);
    }
    slice->ends.push_back(slice->ids.size());
  }
}

class Packer {
 public:
  Packer(const tokenizer::Tokenizer& tok, const PackOptions& options)
      : tok_(tok), options_(options), stream_(options) {
    format_.plain = options.content.plain;
    format_.jsonl_key = options.content.jsonl_key;
    encode_.add_bos = options.content.prepend_bos;
    encode_.add_eos = options.content.append_eos;
  }

  StatusOr<Manifest> run() {
    MORPHEUS_RETURN_IF_ERROR(check());
    const DType dtype = dtype_for(options_.format, tok_.vocab_size());
    MORPHEUS_ASSIGN_OR_RETURN(writer_, make_writer(options_.format, dtype, options_.out));
    if (options_.progress) bar_ = std::make_unique<ProgressBar>("pack", 0, "docs");
    MORPHEUS_RETURN_IF_ERROR(loop());
    if (bar_) bar_->finish();
    MORPHEUS_RETURN_IF_ERROR(writer_->finish());
    Manifest m = manifest(dtype);
    MORPHEUS_RETURN_IF_ERROR(commit(m));
    if (m.format == Format::kLlmc) warn_llmc(m);
    return m;
  }

 private:
  Status check() const {
    if (options_.inputs.empty()) {
      return invalid_argument("no input", "morpheus pack --model TOKDIR --out PREFIX FILE...");
    }
    for (const std::string& in : options_.inputs) MORPHEUS_RETURN_IF_ERROR(check_readable_file(in));
    if (options_.content.append_eos && tok_.eos_id() < 0) {
      return failed_precondition("--append-eos: the tokenizer has no </s>",
                                 "export it with --special-tokens including </s>");
    }
    if (options_.content.prepend_bos && tok_.bos_id() < 0) {
      return failed_precondition("--prepend-bos: the tokenizer has no <s>",
                                 "export it with --special-tokens including <s>");
    }
    if (options_.format == Format::kLlmc && !options_.content.append_eos &&
        !options_.content.prepend_bos) {
      return invalid_argument(
          "llmc needs --append-eos (or --prepend-bos)",
          "an llm.c file has no index: documents are told apart by </s> or <s>");
    }
    const size_t slash = options_.out.find_last_of('/');
    if (slash != std::string::npos && slash > 0) {
      MORPHEUS_RETURN_IF_ERROR(make_dirs(options_.out.substr(0, slash)));
    }
    return ok_status();
  }

  Status begin_prefetch(Block* block) {
    parse_block(format_, block);
    if (block->empty()) return ok_status();
    return tok_.prefetch_begin(block->texts);
  }
  Status end_prefetch(const Block& block) {
    return block.empty() ? ok_status() : tok_.prefetch_end();
  }

  Status loop() {
    Block block;
    Block next;
    MORPHEUS_RETURN_IF_ERROR(stream_.read(&block));
    MORPHEUS_RETURN_IF_ERROR(begin_prefetch(&block));
    MORPHEUS_RETURN_IF_ERROR(end_prefetch(block));
    while (!block.empty()) {
      MORPHEUS_RETURN_IF_ERROR(stream_.read(&next));
      std::vector<Slice> slices;
      if (options_.workers > 1) {
        // The next block is parsed and its new words handed to the model beside the workers.
        Status prefetched;
        std::thread ahead([&] { prefetched = begin_prefetch(&next); });
        encode_block(block, &slices);
        ahead.join();
        MORPHEUS_RETURN_IF_ERROR(prefetched);
      } else {
        MORPHEUS_RETURN_IF_ERROR(begin_prefetch(&next));
        encode_block(block, &slices);
      }
      MORPHEUS_RETURN_IF_ERROR(write_block(block, slices));
      MORPHEUS_RETURN_IF_ERROR(end_prefetch(next));
      std::swap(block, next);
    }
    return ok_status();
  }

  void encode_block(const Block& block, std::vector<Slice>* slices) {
    const size_t n = block.texts.size();
    const size_t parts = std::max<size_t>(1, std::min(options_.workers, n));
    slices->assign(parts, Slice{});
    const auto run = [&](size_t p) {
      encode_slice(tok_, encode_, options_.format != Format::kLlmc, block, n * p / parts,
                   n * (p + 1) / parts, &(*slices)[p]);
    };
    std::vector<std::thread> threads;
    for (size_t p = 1; p < parts; ++p) threads.emplace_back(run, p);
    run(0);
    for (std::thread& t : threads) t.join();
  }

  std::string where(const Origin& o) const {
    return stream_.path(o.input) + ":" + std::to_string(o.line) + ": ";
  }

  // Appends the block's documents in order; an invalid one is the error, or skipped.
  Status write_block(const Block& block, const std::vector<Slice>& slices) {
    const size_t n = block.texts.size();
    size_t i = 0;
    for (size_t p = 0; p < slices.size(); ++p) {
      const Slice& s = slices[p];
      size_t begin = 0;
      for (size_t d = 0; d < s.ends.size(); ++d, ++i) {
        if (!block.errors[i].ok()) {
          MORPHEUS_RETURN_IF_ERROR(skip(block.origins[i], block.errors[i]));
        } else {
          MORPHEUS_RETURN_IF_ERROR(writer_->add(s.ids.data() + begin, s.ends[d] - begin));
        }
        begin = s.ends[d];
      }
      if (!s.error.ok()) {
        return Status(s.error.code(), where(block.origins[s.failed]) + s.error.message(),
                      s.error.hint());
      }
      characters_ += s.characters;
    }
    seen_ += n;
    if (bar_) {
      bar_->add(n);
      bar_->set_note(std::to_string(writer_->tokens()) + " tokens");
    }
    return ok_status();
  }

  Status skip(const Origin& origin, const Status& error) {
    if (!options_.content.skip_invalid) {
      return Status(error.code(), where(origin) + error.message(), error.hint());
    }
    if (skipped_.size() < 3)
      MORPHEUS_LOG(kWarning, "pack: skipped ", where(origin), error.message());
    skipped_.push_back(origin.number);
    return ok_status();
  }

  Manifest manifest(DType dtype) const {
    Manifest m;
    m.format = options_.format;
    m.dtype = dtype;
    m.vocab_size = tok_.vocab_size();
    m.pad_id = tok_.pad_id();
    m.bos_id = tok_.bos_id();
    m.eos_id = tok_.eos_id();
    m.mask_id = tok_.mask_id();
    m.documents = writer_->documents();
    m.tokens = writer_->tokens();
    m.characters = characters_;
    m.documents_seen = seen_;
    m.skipped_documents = skipped_;
    m.files = writer_->files();
    m.tokenizer_dir = tok_.dir();
    m.tokenizer_id = hex16(tok_.id());
    StatusOr<std::string> sum = file_checksum(tokenizer::tokenizer_config_path(tok_.dir()));
    m.tokenizer_checksum = sum.ok() ? *sum : "";
    m.version = version_string();
    m.inputs = stream_.inputs();
    m.options = options_.content;
    m.shard_index = options_.shard_index;
    m.shard_count = options_.shard_count;
    return m;
  }

  // What llm.c's own loader (llmc/dataloader.h) makes of the file: it reads only uint16 files
  // (magic 20240520), and it aborts on a file with no token or fewer than one batch.
  void warn_llmc(const Manifest& m) const {
    const std::string file = options_.out + ".bin";
    if (m.dtype == DType::kUint32) {
      MORPHEUS_LOG(kWarning, "pack: ", file, " holds uint32 tokens (", m.vocab_size,
                   " ids) under llm.c's writer convention for them (magic ", kLlmcMagicUint32,
                   ", version ", kLlmcVersionUint32, ", as dev/data/data_common.py writes); ",
                   "llm.c's C DataLoader (llmc/dataloader.h) reads only uint16 files (magic ",
                   kLlmcMagicUint16, ") and refuses it; hint: a vocabulary under ",
                   kUint16VocabLimit, " ids gives uint16 files, or use --format megatron|npy");
    }
    if (m.tokens < kLlmcMinTokens) {
      MORPHEUS_LOG(kWarning, "pack: ", file, " holds ", m.tokens, " tokens",
                   m.tokens == 0 ? " (no document in this shard)" : "",
                   "; llm.c's DataLoader aborts on a file with fewer than B*T*processes+1 tokens ",
                   "(", kLlmcMinTokens, " for its default B=4, T=1024 on one process) and on an ",
                   "empty one; hint: fewer shards, or join shards with morpheus pack merge");
    }
  }

  // The previous manifest goes first, the new one last: files under the final names without a
  // manifest are never taken for a pack.
  Status commit(const Manifest& m) {
    std::remove(manifest_path(options_.out).c_str());
    MORPHEUS_RETURN_IF_ERROR(writer_->commit());
    return write_manifest(options_.out, m);
  }

  const tokenizer::Tokenizer& tok_;
  const PackOptions& options_;
  DocumentFormat format_;
  tokenizer::EncodeOptions encode_;
  DocumentStream stream_;
  std::unique_ptr<TokenWriter> writer_;
  std::unique_ptr<ProgressBar> bar_;
  uint64_t characters_ = 0;
  uint64_t seen_ = 0;
  std::vector<uint64_t> skipped_;
};

}  // namespace

StatusOr<Manifest> pack_corpus(const tokenizer::Tokenizer& tok, const PackOptions& options) {
  if (options.shard_count == 0 || options.shard_index >= options.shard_count) {
    return invalid_argument("bad shard " + std::to_string(options.shard_index) + "/" +
                            std::to_string(options.shard_count));
  }
  Packer packer(tok, options);
  return packer.run();
}

}  // namespace morpheus::pack
