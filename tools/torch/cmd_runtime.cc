// SPDX-License-Identifier: MIT
// `morpheus device [--device auto]`: prints the resolved device and the BLAS library as JSON.
#include <torch/cuda.h>
#include <torch/utils.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "model/runtime.h"
#include "tools/commands.h"

namespace morpheus::tools {

void register_runtime_commands(CLI::App& app, CommandRegistry& registry) {
  auto device = std::make_shared<std::string>("auto");
  CLI::App* cmd = app.add_subcommand(
      "device", "Show the device --device resolves to, the thread count and the BLAS library");
  cmd->add_option("--device", *device, "auto, cpu or cuda[:N]")->capture_default_str();
  registry.add(cmd, [device]() -> Status {
    MORPHEUS_ASSIGN_OR_RETURN(torch::Device d, model::resolve_device(*device));
    const model::BlasInfo blas = model::detect_blas();
    nlohmann::json j = {{"device", d.str()},
                        {"cuda_available", torch::cuda::is_available()},
                        {"cuda_devices", torch::cuda::device_count()},
                        {"threads", torch::get_num_threads()},
                        {"blas", blas.library},
                        {"blas_optimized", blas.optimized}};
    std::printf("%s\n", j.dump(2).c_str());
    return ok_status();
  });
}

}  // namespace morpheus::tools
