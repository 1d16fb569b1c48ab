// SPDX-License-Identifier: MIT
// merge_packs: one pack from several (`morpheus pack merge --out PREFIX PART...`), in the format
// of the parts, written as pack_corpus writes (temporary names, PREFIX.json last).
//   * shards: parts i/n (each index 0..n-1 once, any order) of one pack of the same inputs: the
//     documents are re-interleaved by their number k over the inputs (shard (k - 1) mod n, the
//     skipped ones left out), so the token files equal those of the unsharded pack byte for byte;
//   * whole packs (each 0/1): concatenated in the order given.
// Parts must agree on the format, token type, vocabulary size, tokenizer (its id) and the
// options that change the tokens (manifest.h); anything else is FAILED_PRECONDITION naming the
// first part that differs and how.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "pack/manifest.h"

namespace morpheus::pack {

StatusOr<Manifest> merge_packs(const std::vector<std::string>& parts, const std::string& out,
                               bool progress = true);

}  // namespace morpheus::pack
