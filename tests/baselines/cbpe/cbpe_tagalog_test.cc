// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "baselines/cbpe/tagalog_segmenter.h"
#include "core/file_util.h"
#include "core/utf8.h"
#include "eval/boundary_metrics.h"
#include "tests/support/test_support.h"

namespace morpheus::tokenizer::cbpe {
namespace {

constexpr const char* kItagalog = "/usr/share/ispell/tagalog.mwl.gz";

std::string tables_dir() {
  const std::string f = testing::shared_data_file("cbpe/tables/prefix_table.json");
  return f.empty() ? std::string() : f.substr(0, f.rfind('/'));
}

// Roots of the reference's stub dictionary rows.
TagalogRoots stub_roots() {
  return TagalogRoots::from_words(
      {"kain", "husay", "pangalan", "alan", "sulat", "ganda", "basa", "alis", "bili", "bilis"},
      {"eat", "skill", "name; reputation", "name; reputation", "write", "beauty", "read", "leave",
       "buy", "speed"});
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& p : v) s += (s.empty() ? "" : "|") + p;
  return s;
}

TEST(TagalogSegmenterTest, AffixOrdersMatchTheReference) {
  const std::string dir = tables_dir();
  MORPHEUS_REQUIRE_DATA(dir, "cbpe/tables");
  const TagalogAffixes a = TagalogAffixes::load(dir).value();
  auto spaced = [](const std::vector<std::u32string>& v) {
    std::string s;
    for (const std::u32string& x : v) s += (s.empty() ? "" : " ") + utf8::encode(x);
    return s;
  };
  // The reference's affix orders.
  EXPECT_EQ(spaced(a.prefixes),
            "pagkapagiging pagkakapaging awanhaydro pakikipag kawalang magkaka magpaka makipag "
            "nagkaka pagkaka tagapag ikapag labing kasing mapang nakiki napaka nakaka paging "
            "pakiki pinaka apaka danum dalub ipang magka laban magpa magsi mapag nagka nagpa pagka "
            "panag pampa pinag anti dagi gaga hing ipag kaka maka mang mapa maki naka naki nang "
            "pala paki pang sang sing taga sari tiga git ika ipa isa mag mai may nag pag nka tag "
            "tig ᜈᜅ᜔ di de am ga gi hi in ka ma na pa ni sa um ᜁᜃ ᜇᜒ a i ᜁ ᜃ ᜄ ᜐ");
  EXPECT_EQ(spaced(a.suffixes),
            "asyon eriya siyon nayan enyo ante erya ilyo ismo ista ᜈᜒᜈ᜔ syon ano eño ana ado era ero "
            "han hin ing ita ito nan nin an ay ey in ng oy e i s");
  ASSERT_EQ(a.infixes.size(), 2u);
  EXPECT_EQ(utf8::encode(a.infixes[0]), "in");
  ASSERT_EQ(a.circumfixes.size(), 30u);
  EXPECT_EQ(utf8::encode(a.circumfixes[0].first), "dalub");
  EXPECT_EQ(utf8::encode(a.circumfixes.back().second), "nan");
}

TEST(TagalogSegmenterTest, ReproducesReferenceRowsWithStubRoots) {
  const std::string dir = tables_dir();
  MORPHEUS_REQUIRE_DATA(dir, "cbpe/tables");
  const TagalogSegmenter seg(TagalogAffixes::load(dir).value(), stub_roots());
  EXPECT_EQ(joined(seg.morphemes("pagkain")), "pag|kain");
  EXPECT_EQ(joined(seg.morphemes("kumain")), "um|kain");
  EXPECT_EQ(joined(seg.cut("kumain")), "k|um|ain");
  EXPECT_EQ(joined(seg.cut("kinain")), "k|in|ain");
  EXPECT_EQ(joined(seg.cut("kainan")), "kain|an");
  EXPECT_EQ(joined(seg.cut("pagkainan")), "pag|kain|an");
  EXPECT_EQ(joined(seg.cut("pinakamahusay")), "pinaka|ma|husay");
  EXPECT_EQ(joined(seg.cut("pangalan")), "pangalan");  // frozen: same definition
  EXPECT_EQ(joined(seg.cut("nakapagpapakain")), "naka|pag|pa|pa|kain");
  EXPECT_EQ(joined(seg.cut("umalis")), "um|alis");
  EXPECT_EQ(joined(seg.cut("computer")), "computer");
  EXPECT_EQ(joined(seg.morphemes("basain")), "basa|hin");
  EXPECT_EQ(joined(seg.cut("basain")), "basain");  // fail-safe: never a different word
}

TEST(TagalogPhonologyTest, NasalAssimilationAndSuffixRules) {
  EXPECT_EQ(utf8::encode(TagalogPhonology::assimilate(U"pang", U"bili").first), "pam");
  EXPECT_EQ(utf8::encode(TagalogPhonology::assimilate(U"pang", U"kamay").second), "amay");
  EXPECT_EQ(TagalogPhonology::reverse(U"pan", U"ulat").size(), 3u);
  EXPECT_TRUE(TagalogPhonology::is_nasal_prefix(U"mang"));
  EXPECT_EQ(utf8::encode(TagalogPhonology::surface(U"basa", U"-in")), "hin");
  EXPECT_EQ(utf8::encode(TagalogPhonology::surface(U"kain", U"an")), "an");
  EXPECT_EQ(TagalogPhonology::strip_suffix(U"basahin", U"in").size(), 2u);
}

// Per-word boundary F1 as the reference notebook defines it, over entries that spell the word.
double gold_f1(const TagalogSegmenter& seg, const nlohmann::json& gold, size_t* n) {
  double sum = 0;
  *n = 0;
  for (auto it = gold.begin(); it != gold.end(); ++it) {
    const std::vector<std::string> pieces = it.value().get<std::vector<std::string>>();
    std::string spelled;
    for (const std::string& p : pieces) spelled += p;
    if (spelled != it.key()) continue;
    const std::vector<size_t> g = eval::boundaries_of(pieces);
    const std::vector<size_t> p = eval::boundaries_of(seg.cut(it.key()));
    double f = 0;
    if (g.empty() && p.empty()) {
      f = 1;
    } else if (!g.empty() && !p.empty()) {
      size_t hits = 0;
      for (size_t b : p) hits += std::count(g.begin(), g.end(), b) > 0 ? 1 : 0;
      const double pr = static_cast<double>(hits) / static_cast<double>(p.size());
      const double rc = static_cast<double>(hits) / static_cast<double>(g.size());
      f = hits == 0 ? 0 : 2 * pr * rc / (pr + rc);
    }
    sum += f;
    ++*n;
  }
  return *n == 0 ? 0 : sum / static_cast<double>(*n);
}

TEST(TagalogSegmenterTest, GoldBoundaryF1WithItagalogRoots) {
  const std::string dir = tables_dir();
  MORPHEUS_REQUIRE_DATA(dir, "cbpe/tables");
  const std::string gold_path = testing::shared_data_file("cbpe/gold_standard_199.json");
  MORPHEUS_REQUIRE_DATA(gold_path, "cbpe/gold_standard_199.json");
  const std::string roots_path = file_exists(kItagalog) ? kItagalog : "";
  MORPHEUS_REQUIRE_DATA(roots_path, "Debian package itagalog");
  const nlohmann::json gold = nlohmann::json::parse(read_file(gold_path).value());
  StatusOr<TagalogRoots> loaded = TagalogRoots::load(roots_path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  const TagalogRoots roots = std::move(loaded).value();
  EXPECT_GT(roots.size(), 18000u);
  size_t n = 0;
  const double f1_itagalog =
      gold_f1(TagalogSegmenter(TagalogAffixes::load(dir).value(), roots), gold, &n);
  // Oracle comparison: the gold entries' own pieces of >= 4 letters as the root list (what the
  // reference's stub dictionary did).
  std::vector<std::string> oracle;
  for (auto it = gold.begin(); it != gold.end(); ++it) {
    for (const std::string& p : it.value().get<std::vector<std::string>>()) {
      if (utf8::length(p) >= 4) oracle.push_back(p);
    }
  }
  size_t n2 = 0;
  const double f1_oracle =
      gold_f1(TagalogSegmenter(TagalogAffixes::load(dir).value(), TagalogRoots::from_words(oracle)),
              gold, &n2);
  size_t n3 = 0;
  const double f1_none = gold_f1(
      TagalogSegmenter(TagalogAffixes::load(dir).value(), TagalogRoots::from_words({})), gold, &n3);
  std::printf(
      "[ tagalog  ] surface-spelling gold words: %zu; boundary F1 (per-word mean): "
      "itagalog roots %.3f, gold-derived roots %.3f, no roots %.3f\n",
      n, f1_itagalog, f1_oracle, f1_none);
  EXPECT_EQ(n, 129u);
  EXPECT_GT(f1_itagalog, 0.3);
  EXPECT_GT(f1_oracle, f1_itagalog);
}

}  // namespace
}  // namespace morpheus::tokenizer::cbpe
