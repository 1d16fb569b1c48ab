// SPDX-License-Identifier: MIT
// A segmentation of one word as its interior cut offsets, and the conversions between cuts and
// pieces. The teacher labels of `morpheus prepare`, the root lexicon's analyses and the root snap
// all speak in cuts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace morpheus::morph {

// Interior cut offsets of one word in code points, ascending, each in [1, length-1]:
// "ev|ler|de" -> {2, 5}. An unsegmented word has no cuts.
using Cuts = std::vector<uint32_t>;

// Cuts of pieces whose concatenation is the word; empty pieces are ignored.
Cuts cuts_from_pieces(const std::vector<std::u32string>& pieces);
// Pieces of `word` cut at `cuts` (cuts must be ascending and inside the word).
std::vector<std::u32string> pieces_from_cuts(const std::u32string& word, const Cuts& cuts);

}  // namespace morpheus::morph
