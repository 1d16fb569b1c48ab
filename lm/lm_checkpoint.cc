// SPDX-License-Identifier: MIT
#include "lm/lm_checkpoint.h"

#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include <cstdio>

#include "core/file_util.h"

namespace morpheus::lm {

namespace {

constexpr const char* kFormat = "morpheus-lm-1";

std::string ivalue_string(torch::serialize::InputArchive& archive, const std::string& key) {
  c10::IValue value;
  archive.read(key, value);
  TORCH_CHECK(value.isString(), "archive entry ", key, " is not a string");
  return value.toStringRef();
}

StatusOr<LmSpec> spec_from_json(const nlohmann::json& j) {
  LmSpec spec;
  try {
    spec.tokenizer_vocab = j.at("tokenizer_vocab");
    spec.gpt.vocab = j.at("vocab");
    spec.gpt.width = j.at("width");
    spec.gpt.layers = j.at("layers");
    spec.gpt.heads = j.at("heads");
    spec.gpt.context = j.at("context");
    spec.gpt.dropout = j.at("dropout");
  } catch (const nlohmann::json::exception& e) {
    return data_loss(std::string("bad spec: ") + e.what());
  }
  const GptOptions& g = spec.gpt;
  if (g.vocab != spec.tokenizer_vocab + 1 || g.width < 1 || g.heads < 1 || g.width % g.heads != 0 ||
      g.layers < 1 || g.context < 1) {
    return data_loss("inconsistent spec " + j.dump());
  }
  return spec;
}

}  // namespace

nlohmann::json spec_json(const LmSpec& s) {
  return {{"tokenizer_vocab", s.tokenizer_vocab},
          {"vocab", s.gpt.vocab},
          {"width", s.gpt.width},
          {"layers", s.gpt.layers},
          {"heads", s.gpt.heads},
          {"context", s.gpt.context},
          {"dropout", s.gpt.dropout}};
}

Status save_lm_checkpoint(const std::string& path, const LmSpec& spec, GptImpl& model,
                          const torch::optim::Optimizer* optimizer, const nlohmann::json& state) {
  const std::string tmp = temp_path_for(path);
  try {
    torch::serialize::OutputArchive archive;
    archive.write("format", c10::IValue(std::string(kFormat)));
    archive.write("spec", c10::IValue(spec_json(spec).dump()));
    archive.write("state", c10::IValue(state.dump()));
    torch::serialize::OutputArchive weights;
    model.save(weights);
    archive.write("model", weights);
    if (optimizer != nullptr) {
      torch::serialize::OutputArchive moments;
      optimizer->save(moments);
      archive.write("optimizer", moments);
    }
    archive.save_to(tmp);
  } catch (const c10::Error& e) {
    std::remove(tmp.c_str());
    return io_error("cannot write " + path + ": " + e.what_without_backtrace());
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return io_error("cannot rename " + tmp + " to " + path);
  }
  return ok_status();
}

StatusOr<LoadedLm> load_lm_checkpoint(const std::string& path, const torch::Device& device) {
  MORPHEUS_RETURN_IF_ERROR(check_readable_file(path));
  const std::string hint = "give a checkpoint written by `morpheus lm train` (final.pt)";
  LoadedLm out;
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(path, device);
    if (ivalue_string(archive, "format") != kFormat) {
      return data_loss(path + " is not a " + kFormat + " checkpoint", hint);
    }
    const nlohmann::json spec = nlohmann::json::parse(ivalue_string(archive, "spec"));
    auto parsed = spec_from_json(spec);
    if (!parsed.ok()) return Status(parsed.status()).prepend(path);
    out.spec = *parsed;
    out.state = nlohmann::json::parse(ivalue_string(archive, "state"));
    out.model = Gpt(out.spec.gpt);
    torch::serialize::InputArchive weights;
    archive.read("model", weights);
    out.model->load(weights);
    out.model->to(device);
  } catch (const c10::Error& e) {
    return data_loss("cannot read " + path + ": " + e.what_without_backtrace(), hint);
  } catch (const nlohmann::json::exception& e) {
    return data_loss("cannot read " + path + ": " + e.what(), hint);
  }
  return out;
}

Status load_lm_optimizer(const std::string& path, torch::optim::Optimizer& optimizer,
                         const torch::Device& device) {
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(path, device);
    torch::serialize::InputArchive moments;
    if (!archive.try_read("optimizer", moments)) {
      return data_loss(path + " holds no optimizer state", "resume from checkpoint.pt");
    }
    optimizer.load(moments);
  } catch (const c10::Error& e) {
    return data_loss(
        "cannot restore the optimizer from " + path + ": " + e.what_without_backtrace(),
        "the checkpoint is damaged; start the run over");
  }
  return ok_status();
}

}  // namespace morpheus::lm
