// SPDX-License-Identifier: MIT
// Case folding of letter runs (stage 2).
#include "tokenizer/case_fold.h"

#include "core/unicode.h"
#include "core/utf8.h"

namespace morpheus::tokenizer {

void fold_run_into(std::string_view run, std::string* out, bool turkish) {
  out->clear();
  size_t pos = 0;
  while (pos < run.size()) {
    const utf8::Decoded d = utf8::decode_one(run, pos);
    utf8::append(unicode::to_lower(d.code_point, turkish), *out);
    pos += d.length;
  }
}

std::string fold_run(std::string_view run, bool turkish) {
  std::string out;
  out.reserve(run.size());
  fold_run_into(run, &out, turkish);
  return out;
}

}  // namespace morpheus::tokenizer
