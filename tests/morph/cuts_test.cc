// SPDX-License-Identifier: MIT
// Cuts (morph/cuts.h): code-point offsets after each piece, and back.
#include "morph/cuts.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace morpheus::morph {
namespace {

TEST(CutsTest, CutsAreCodePointOffsetsAfterEachPiece) {
  EXPECT_EQ(cuts_from_pieces({U"ev", U"ler", U"de"}), (Cuts{2, 5}));
  EXPECT_EQ(cuts_from_pieces({U"çiçek"}), Cuts{});
  EXPECT_EQ(cuts_from_pieces({U"", U"ağaç", U"", U"lar"}), (Cuts{4}));
  EXPECT_EQ(pieces_from_cuts(U"evlerde", {2, 5}),
            (std::vector<std::u32string>{U"ev", U"ler", U"de"}));
}

}  // namespace
}  // namespace morpheus::morph
