// SPDX-License-Identifier: MIT
// `morpheus-model-server --model TOKDIR [--cache N] [--threads N] [--device D]`: the model
// co-process of the
// torch-free tokenizer (infer/model_server.h). Not for users: `morpheus encode|segment` and
// morpheus.Tokenizer start it when a letter run misses the segment table. It links the
// runtime only (infer/, model/, morph/, tokenizer/, core/), never train/ or eval/.
#include <torch/utils.h>

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>

#include "core/version.h"
#include "infer/model_server.h"
#include "model/cpu_allocator.h"
#include "model/runtime.h"
#include "tools/cli.h"

int main(int argc, char** argv) {
  morpheus::model::install_caching_cpu_allocator();  // as morpheus-torch: before any tensor
  CLI::App app{
      "morpheus-model-server: the Morpheus model of a tokenizer directory, segmenting the "
      "letter runs the tokenizer's table lacks (protocol: tokenizer/model_client.h)",
      "morpheus-model-server"};
  morpheus::tools::add_global_flags(app);
  app.set_version_flag("--version", "morpheus-model-server " + morpheus::version_string());
  std::string model;
  morpheus::infer::NeuralSegmenterOptions options;
  int threads = 0;
  std::string device = "cpu";
  app.add_option("--model", model, "Tokenizer directory (morpheus export)")->required();
  app.add_option("--device", device, "Where the model runs: auto, cpu, cuda or cuda:N")
      ->capture_default_str();
  app.add_option("--cache", options.cache_capacity, "Words kept in the segmentation cache (LRU)")
      ->capture_default_str();
  app.add_option("--threads", threads, "LibTorch intra-op threads (0: LibTorch's default)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  morpheus::tools::CommandRegistry registry;
  registry.set_before_action([] { morpheus::model::warn_if_slow_blas(); });
  registry.add(&app, [&] {
    if (threads > 0) torch::set_num_threads(threads);
    MORPHEUS_ASSIGN_OR_RETURN(options.device, morpheus::model::resolve_device(device));
    return morpheus::infer::run_model_server(model, options);
  });
  return registry.run(app, argc, argv);
}
