// SPDX-License-Identifier: MIT
// Checkpoint directory save/load with atomic directory replacement.
#include "model/checkpoint.h"

#include <torch/serialize.h>
#include <torch/torch.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/config_section.h"
#include "core/file_util.h"
#include "core/hash.h"
#include "core/json_config.h"
#include "core/version.h"

namespace morpheus::model {
namespace {

namespace fs = std::filesystem;

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// FNV-1a 64 of model.pt, kept in meta.json so that a bit-flipped or truncated archive is a clear
// DATA_LOSS instead of silently wrong weights (torch does not check archive CRCs).
std::string archive_checksum(std::string_view bytes) { return hex16(fnv1a64(bytes)); }

// Module::save with every tensor that is not on the CPU copied there first, so the archive never
// names the writer's device (a CUDA-trained model loads on a machine without CUDA). CPU tensors
// are written as they are: the bytes equal Module::save's.
void save_on_cpu(const torch::nn::Module& module, torch::serialize::OutputArchive& archive) {
  auto on_cpu = [](const torch::Tensor& t) {
    return t.device().is_cpu() ? t : t.detach().to(torch::kCPU);
  };
  for (const auto& p : module.named_parameters(/*recurse=*/false)) {
    archive.write(p.key(), on_cpu(p.value()));
  }
  for (const auto& b : module.named_buffers(/*recurse=*/false)) {
    archive.write(b.key(), on_cpu(b.value()), /*is_buffer=*/true);
  }
  for (const auto& child : module.named_children()) {
    if (!child.value()->is_serializable()) continue;
    torch::serialize::OutputArchive child_archive(archive.compilation_unit());
    save_on_cpu(*child.value(), child_archive);
    archive.write(child.key(), child_archive);
  }
}

Status write_checkpoint_dir(const std::string& dir, torch::nn::Module& module,
                            const ModelConfig& config, const std::string& kind,
                            const nlohmann::json& counts, const CheckpointExtras& extras) {
  const fs::path target(dir);
  if (target.empty()) return invalid_argument("checkpoint directory is empty");
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) return io_error("cannot create " + parent.string() + ": " + ec.message());
  const std::string suffix = "." + std::to_string(::getpid());
  const fs::path tmp = fs::path(temp_path_for(target.string()));
  fs::remove_all(tmp, ec);
  fs::create_directory(tmp, ec);
  if (ec) return io_error("cannot create " + tmp.string() + ": " + ec.message());
  auto fail = [&](Status s) {
    std::error_code ignore;
    fs::remove_all(tmp, ignore);
    return s;
  };
  try {
    torch::serialize::OutputArchive archive;
    save_on_cpu(module, archive);
    archive.save_to((tmp / "model.pt").string());
  } catch (const c10::Error& e) {
    return fail(io_error("cannot write " + (tmp / "model.pt").string() + ": " +
                         e.what_without_backtrace()));
  }
  std::string config_text = extras.config_json;
  if (config_text.empty()) {
    nlohmann::json j;
    j["model"] = config;
    config_text = j.dump(2) + "\n";
  }
  Status s = write_file_atomic((tmp / "config.json").string(), config_text);
  if (!s.ok()) return fail(s);
  if (!extras.char_vocab_json.empty()) {
    s = write_file_atomic((tmp / "char_vocab.json").string(), extras.char_vocab_json);
    if (!s.ok()) return fail(s);
  }
  nlohmann::json meta = {{"format_version", kCheckpointFormatVersion},
                         {"kind", kind},
                         {"project_version", std::string(version())},
                         {"git_describe", std::string(git_describe())},
                         {"created", utc_now()},
                         {"parameters", counts}};
  StatusOr<std::string> archive_bytes = read_file((tmp / "model.pt").string());
  if (!archive_bytes.ok()) return fail(archive_bytes.status());
  meta["model_pt_fnv1a64"] = archive_checksum(*archive_bytes);
  s = write_file_atomic((tmp / "meta.json").string(), meta.dump(2) + "\n");
  if (!s.ok()) return fail(s);
  // Swap into place: old -> .old, tmp -> dir, drop .old.
  const fs::path old = fs::path(target.string() + ".old" + suffix);
  const bool had_old = fs::exists(target, ec);
  if (had_old) {
    fs::remove_all(old, ec);
    fs::rename(target, old, ec);
    if (ec) return fail(io_error("cannot move aside " + target.string() + ": " + ec.message()));
  }
  fs::rename(tmp, target, ec);
  if (ec)
    return fail(io_error("cannot rename " + tmp.string() + " to " + dir + ": " + ec.message()));
  if (had_old) fs::remove_all(old, ec);
  return ok_status();
}

struct LoadedMeta {
  ModelConfig config;
  std::string kind;
};

StatusOr<LoadedMeta> read_meta(const std::string& dir) {
  const std::string meta_path = path_join(dir, "meta.json");
  MORPHEUS_ASSIGN_OR_RETURN(nlohmann::json meta, load_json_file(meta_path));
  if (!meta.is_object() || !meta.contains("format_version") ||
      !meta["format_version"].is_number_integer()) {
    return data_loss(meta_path + ": no integer format_version", "is this a Morpheus checkpoint?");
  }
  const int version = meta["format_version"].get<int>();
  if (version != kCheckpointFormatVersion) {
    return invalid_argument(meta_path + ": format_version " + std::to_string(version) +
                                " is not supported (expected " +
                                std::to_string(kCheckpointFormatVersion) + ")",
                            "re-export the checkpoint with this version of morpheus");
  }
  LoadedMeta out;
  out.kind = meta.value("kind", "");
  const std::string config_path = path_join(dir, "config.json");
  MORPHEUS_ASSIGN_OR_RETURN(nlohmann::json cj, load_json_file(config_path));
  MORPHEUS_ASSIGN_OR_RETURN(out.config, section_from_json<ModelConfig>(cj, config_path));
  return out;
}

// Reads model.pt into `module` (on the CPU) with every tensor mapped to the CPU, whatever device
// wrote it.
Status read_archive(const std::string& dir, torch::nn::Module& module) {
  const std::string path = path_join(dir, "model.pt");
  MORPHEUS_RETURN_IF_ERROR(check_readable_file(path));
  MORPHEUS_ASSIGN_OR_RETURN(std::string bytes, read_file(path));
  StatusOr<nlohmann::json> meta = load_json_file(path_join(dir, "meta.json"));
  if (meta.ok() && meta->is_object() && meta->contains("model_pt_fnv1a64") &&
      (*meta)["model_pt_fnv1a64"] != archive_checksum(bytes)) {
    return data_loss(path + ": checksum mismatch with meta.json (the weights file is corrupt)",
                     "restore the checkpoint or re-export it");
  }
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(bytes.data(), bytes.size(), torch::Device(torch::kCPU));
    module.load(archive);
  } catch (const c10::Error& e) {
    return data_loss(path + ": cannot load weights: " + e.what_without_backtrace(),
                     "the file is corrupt or does not match config.json");
  }
  return ok_status();
}

}  // namespace

Status save_checkpoint(const std::string& dir, MorpheusWithHeads& module,
                       const CheckpointExtras& extras) {
  nlohmann::json counts = {{"inference_total", count_parameters(*module->model)},
                           {"sgns", count_parameters(*module->sgns)},
                           {"total", count_parameters(*module)}};
  return write_checkpoint_dir(dir, *module, module->config, "training", counts, extras);
}

Status save_inference_checkpoint(const std::string& dir, Morpheus& model,
                                 const CheckpointExtras& extras) {
  nlohmann::json counts = {{"inference_total", count_parameters(*model)}};
  return write_checkpoint_dir(dir, *model, model->config, "inference", counts, extras);
}

StatusOr<MorpheusWithHeads> load_checkpoint(const std::string& dir, const torch::Device& device) {
  MORPHEUS_ASSIGN_OR_RETURN(LoadedMeta meta, read_meta(dir));
  if (meta.kind != "training") {
    return invalid_argument(dir + " is a '" + meta.kind + "' checkpoint, not a training one",
                            "use load_inference_checkpoint for inference exports");
  }
  MorpheusWithHeads module(meta.config);
  MORPHEUS_RETURN_IF_ERROR(read_archive(dir, *module));
  module->to(device);
  return module;
}

StatusOr<Morpheus> load_inference_checkpoint(const std::string& dir, const torch::Device& device) {
  MORPHEUS_ASSIGN_OR_RETURN(LoadedMeta meta, read_meta(dir));
  Morpheus model{nullptr};
  if (meta.kind == "training") {
    MorpheusWithHeads module(meta.config);
    MORPHEUS_RETURN_IF_ERROR(read_archive(dir, *module));
    model = module->model;
  } else {
    model = Morpheus(meta.config);
    MORPHEUS_RETURN_IF_ERROR(read_archive(dir, *model));
  }
  model->to(device);
  return model;
}

}  // namespace morpheus::model
