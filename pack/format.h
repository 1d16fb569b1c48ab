// SPDX-License-Identifier: MIT
// The token file formats `morpheus pack` writes and the token type each stores, chosen from the
// vocabulary size (ids 0 .. vocab_size - 1, special tokens included):
//
//   megatron  Megatron-LM's indexed dataset (megatron/core/datasets/indexed_dataset.py):
//             PREFIX.bin, the tokens of every document one after another, and PREFIX.idx,
//               "MMIDIDX\x00\x00"  9 bytes
//               version           uint64 = 1
//               dtype code        uint8: 8 (uint16) or 4 (int32)
//               sequence count    uint64 = N (one sequence per document)
//               document count    uint64 = N + 1 (entries of the document index array)
//               lengths           int32 × N, tokens per sequence
//               pointers          int64 × N, byte offset of each sequence in PREFIX.bin
//               document indices  int64 × (N + 1) = 0, 1, ..., N
//   llmc      llm.c's data file PREFIX.bin (dev/data/data_common.py, write_datafile): 256 int32,
//             [0] magic 20240520 (uint16 tokens) or 20240801 (uint32), [1] version 1 or 7, [2]
//             the token count, the rest 0; then the tokens. Documents are delimited by their
//             </s> (--append-eos) or <s> (--prepend-bos): the file has no index. uint32 files
//             follow llm.c's writer (data_common.py) that llm.c's C DataLoader does not read (it
//             takes magic 20240520 only); pack warns when it writes one.
//   npy       PREFIX.npy, a 1-D NumPy array of every token (<u2 or <i4), and PREFIX.idx.npy, a 1-D
//             <i8 array of N + 1 token offsets: document d is tokens [idx[d], idx[d + 1]).
//
// Every integer is little-endian. Token type: uint16 when the vocabulary has fewer than 65,500
// ids (Megatron's rule, DType.optimal_dtype), else int32 (megatron, npy) or uint32 (llmc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace morpheus::pack {

enum class Format { kMegatron, kLlmc, kNpy };
enum class DType { kUint16, kInt32, kUint32 };

// Vocabularies below this size store uint16 tokens.
constexpr int64_t kUint16VocabLimit = 65500;

// "megatron", "llmc", "npy" and back; INVALID_ARGUMENT naming the formats for anything else.
const char* format_name(Format format);
StatusOr<Format> parse_format(const std::string& name);

// "uint16", "int32", "uint32" and back.
const char* dtype_name(DType dtype);
StatusOr<DType> parse_dtype(const std::string& name);
size_t dtype_bytes(DType dtype);
// The largest id the type stores.
int64_t dtype_max(DType dtype);

// The token type of `format` for a vocabulary of `vocab_size` ids (see above).
DType dtype_for(Format format, int64_t vocab_size);

// The files of a pack at `prefix`, data file first; PREFIX.json (the manifest) is not among them.
std::vector<std::string> format_files(Format format, const std::string& prefix);

// Megatron's dtype codes (DType in indexed_dataset.py).
constexpr uint8_t kMegatronCodeInt32 = 4;
constexpr uint8_t kMegatronCodeUint16 = 8;
// llm.c's header words.
constexpr int32_t kLlmcMagicUint16 = 20240520;
constexpr int32_t kLlmcVersionUint16 = 1;
constexpr int32_t kLlmcMagicUint32 = 20240801;
constexpr int32_t kLlmcVersionUint32 = 7;
// llm.c's DataLoader (llmc/dataloader.h) needs at least one batch of B*T tokens + 1 per file:
// B=4, T=1024 (train_gpt2's defaults) on one process. pack warns under it.
constexpr uint64_t kLlmcMinTokens = 4 * 1024 + 1;
constexpr size_t kLlmcHeaderInts = 256;
// Bytes of Megatron's .idx header: magic 9, version 8, dtype code 1, two counts 8 each.
constexpr size_t kMegatronIdxHeaderBytes = 34;
constexpr char kMegatronMagic[] = "MMIDIDX\x00\x00";  // 9 bytes, the terminator not included
// Bytes reserved for an npy header (magic, version, length, the dict padded with spaces): the
// shape is filled in when the count is known.
constexpr size_t kNpyHeaderBytes = 128;

// The npy header (version 1.0, kNpyHeaderBytes long) of a 1-D array of `count` items of
// `descr` ("<u2", "<i4", "<u4", "<i8").
std::string npy_header(const std::string& descr, uint64_t count);
// The numpy descr of a token type.
const char* npy_descr(DType dtype);

}  // namespace morpheus::pack
