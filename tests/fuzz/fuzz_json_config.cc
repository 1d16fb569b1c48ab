// SPDX-License-Identifier: MIT
// Fuzz target: the config loader either merges a patch or returns a Status; it never throws or
// crashes, and a successful merge keeps every default key.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/check.h"
#include "core/json_config.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json defaults = {
      {"model", {{"dim", 320}, {"dropout", 0.1}, {"name", "paper"}, {"kernels", {2, 3, 4}}}},
      {"train", {{"steps", 1000}, {"lr", 3e-4}, {"resume", false}}}};
  auto patch = morpheus::parse_json(text, "fuzz");
  if (patch.ok()) {
    nlohmann::json cfg = defaults;
    if (morpheus::merge_config(cfg, *patch, "fuzz").ok()) {
      MORPHEUS_CHECK(cfg["model"].size() == defaults["model"].size(), "keys added");
      MORPHEUS_CHECK(cfg["train"]["steps"].is_number_integer(), "type changed");
    }
  }
  nlohmann::json cfg = defaults;
  (void)morpheus::apply_set(cfg, text);
  MORPHEUS_CHECK(cfg.size() == defaults.size(), "--set added keys");
  return 0;
}
