// SPDX-License-Identifier: MIT
// Stage 2 of the tokenizer (tokenizer.h): a letter run folded to lower case, code point by code
// point, with Turkish rules (I -> ı, İ -> i) unless told otherwise. The folded run is the key of
// the segment table, the cache file and the model; the piece codec restores the case.
//   fold_run("KİTAPLAR") == "kitaplar";  fold_run("IRMAK") == "ırmak"
#pragma once

#include <string>
#include <string_view>

namespace morpheus::tokenizer {

// Lower-cases a valid UTF-8 letter run (Turkish rules unless turkish = false).
std::string fold_run(std::string_view run, bool turkish = true);
// The same into *out (its buffer reused).
void fold_run_into(std::string_view run, std::string* out, bool turkish = true);

}  // namespace morpheus::tokenizer
