// SPDX-License-Identifier: MIT
// A hand-made root lexicon for the tests of the root lexicon, the root snap and the root
// correction: roots kitap, ev, göz, gözlük, ağaç, a; suffix chains lar, ı, lerde, de, ler, lü, çı.
#pragma once

#include "morph/root_lexicon.h"

namespace morpheus::testing {

inline morph::RootLexicon small_lexicon() {
  morph::RootLexicon lex;
  for (const char32_t* r : {U"kitap", U"ev", U"göz", U"gözlük", U"ağaç", U"a"}) lex.add_root(r);
  for (const char32_t* s : {U"lar", U"ı", U"lerde", U"de", U"ler", U"lü", U"çı"}) {
    lex.add_suffix_chain(s);
  }
  return lex;
}

}  // namespace morpheus::testing
