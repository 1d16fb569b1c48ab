// SPDX-License-Identifier: MIT
// `morpheus lm …`: the language-model comparison of tokenizers (lm/README.md).
//   lm train     a GPT on one tokenizer's ids (lm/lm_trainer.h), resumable
//   lm eval      BPC of a checkpoint on a text; with -o also per slice (all-upper lines, others)
//   lm generate  sampling with a KV cache; tokens/s at a batch size
//   lm check     the reversibility gate: decode(encode(line)) == line and every id < vocab
//   lm heldout   the dev lines that do not occur in the training text
//   lm split     a text's training and validation parts by a hash of each line
//   lm chars     train|encode|decode: the reversible character-level tokenizer
//   lm vocab-size, lm info, lm report: tokenizer vocabularies, widths, the study report
#include <array>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/config_section.h"
#include "core/file_util.h"
#include "core/logging.h"
#include "lm/generate.h"
#include "lm/lm_checkpoint.h"
#include "lm/lm_trainer.h"
#include "lm_data/char_codec.h"
#include "lm_data/study_report.h"
#include "lm_data/text_data.h"
#include "lm_data/tokenizer_vocab.h"
#include "model/morpheus.h"
#include "model/runtime.h"
#include "tools/codec_io.h"
#include "tools/commands.h"

namespace morpheus::tools {
namespace {

using nlohmann::json;

// Writes `j` to `path` atomically, or to stdout when `path` is empty.
Status emit_lm_json(const json& j, const std::string& path) {
  return write_output(path.empty() ? "-" : path, j.dump(2) + "\n");
}

struct LmTrainArgs {
  lm::LmTrainOptions options;
  std::vector<std::string> configs, sets;
};

Status run_lm_train(LmTrainArgs& args) {
  MORPHEUS_ASSIGN_OR_RETURN(args.options.config,
                            load_section<lm::LmConfig>(args.configs, args.sets));
  MORPHEUS_ASSIGN_OR_RETURN(lm::LmTrainSummary summary, lm::train_lm(args.options));
  MORPHEUS_LOG(kInfo, "lm train: ", summary.steps, " steps, validation BPC ", summary.valid.bpc(),
               ", ", static_cast<int64_t>(summary.tokens_per_second), " tokens/s; run in ",
               args.options.out_dir);
  return ok_status();
}

void add_lm_train(CLI::App& lm, CommandRegistry& registry) {
  auto args = std::make_shared<LmTrainArgs>();
  lm::LmTrainOptions& o = args->options;
  CLI::App* cmd = lm.add_subcommand("train", "Train a GPT on one tokenizer's ids (resumable)");
  cmd->add_option("--train", o.train_ids, "Ids of the training text (encode output)")->required();
  cmd->add_option("--valid", o.valid_ids, "Ids of the validation text")->required();
  cmd->add_option("--valid-text", o.valid_text, "The raw validation text (BPC denominator)")
      ->required();
  cmd->add_option("--vocab-size", o.vocab_size, "The tokenizer's vocabulary size (ids below it)")
      ->required()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  cmd->add_option(
      "--config", args->configs,
      "Config JSON file(s) with an \"lm\" section (default: none, the built-in defaults)");
  cmd->add_option("--set", args->sets, "Override a key, e.g. --set lm.steps=100 (default: none)");
  cmd->add_option("--out", o.out_dir, "Run directory")->required();
  cmd->add_option("--device", o.device, "auto, cpu or cuda[:N]")->capture_default_str();
  cmd->add_flag("--resume", o.resume, "Continue from --out/checkpoint.pt when it exists");
  registry.add(cmd, [args] { return run_lm_train(*args); });
}

struct LmEvalArgs {
  std::string checkpoint, ids, text, device = "auto", output;
  int64_t batch = 32;
};

// Without -o: bpc_json on stdout. With -o: eval_json, the bits split into the all-upper lines
// and the other lines of the text.
Status run_lm_eval(const LmEvalArgs& a) {
  MORPHEUS_ASSIGN_OR_RETURN(lm::BpcResult r,
                            lm::evaluate_lm(a.checkpoint, a.ids, a.text, a.device, a.batch));
  if (a.output.empty()) return emit_lm_json(lm::bpc_json(r), "");
  MORPHEUS_ASSIGN_OR_RETURN(lm::LineSlices slices, lm::slice_line_bits(a.text, r.line_bits));
  return emit_lm_json(lm::eval_json(r, slices), a.output);
}

void add_lm_eval(CLI::App& lm, CommandRegistry& registry) {
  auto a = std::make_shared<LmEvalArgs>();
  CLI::App* cmd = lm.add_subcommand("eval", "Bits per character of a checkpoint on a text");
  cmd->add_option("--checkpoint", a->checkpoint, "final.pt or checkpoint.pt")->required();
  cmd->add_option("--ids", a->ids, "Ids of the text (the checkpoint's tokenizer)")->required();
  cmd->add_option("--text", a->text, "The raw text (BPC denominator)")->required();
  cmd->add_option("--device", a->device, "auto, cpu or cuda[:N]")->capture_default_str();
  cmd->add_option("--batch", a->batch, "Windows per forward")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20))
      ->capture_default_str();
  cmd->add_option("-o,--output", a->output,
                  "JSON file with the BPC of the all-upper lines and of the others (default: "
                  "{valid_bpc, valid_bits, valid_tokens, valid_characters} on stdout)");
  registry.add(cmd, [a] { return run_lm_eval(*a); });
}

struct LmGenerateArgs {
  std::string checkpoint, device = "auto", output = "-", stats;
  lm::GenerateOptions options;
};

Status run_lm_generate(const LmGenerateArgs& a) {
  MORPHEUS_ASSIGN_OR_RETURN(torch::Device device, model::resolve_device(a.device));
  MORPHEUS_ASSIGN_OR_RETURN(lm::LoadedLm loaded, lm::load_lm_checkpoint(a.checkpoint, device));
  if (a.options.tokens >= loaded.spec.gpt.context) {
    return invalid_argument("--tokens " + std::to_string(a.options.tokens) +
                                " does not fit the context of " +
                                std::to_string(loaded.spec.gpt.context),
                            "ask for at most context − 1 tokens");
  }
  const lm::GenerateResult r = lm::generate(*loaded.model, a.options, device);
  std::string text;
  const int32_t eol = static_cast<int32_t>(loaded.spec.tokenizer_vocab);
  for (const auto& seq : r.sequences) {  // eol ends a line; each sequence ends one
    std::string line;
    for (int32_t id : seq) {
      if (id == eol) {
        text += line + "\n";
        line.clear();
      } else {
        line += (line.empty() ? "" : " ") + std::to_string(id);
      }
    }
    if (!line.empty()) text += line + "\n";
  }
  MORPHEUS_RETURN_IF_ERROR(write_output(a.output, text));
  const json stats = {{"batch", a.options.batch},      {"tokens", a.options.tokens},
                      {"seconds", r.seconds},          {"tokens_per_s", r.tokens_per_second()},
                      {"device", device.str()},        {"width", loaded.spec.gpt.width},
                      {"vocab", loaded.spec.gpt.vocab}};
  if (!a.stats.empty()) return emit_lm_json(stats, a.stats);
  MORPHEUS_LOG(kInfo, "lm generate: ", stats.dump());
  return ok_status();
}

void add_lm_generate(CLI::App& lm, CommandRegistry& registry) {
  auto a = std::make_shared<LmGenerateArgs>();
  CLI::App* cmd =
      lm.add_subcommand("generate",
                        "Sample id lines from a checkpoint with a KV cache (decode them with the "
                        "tokenizer's decode)");
  cmd->add_option("--checkpoint", a->checkpoint, "final.pt or checkpoint.pt")->required();
  cmd->add_option("--tokens", a->options.tokens, "Tokens per sequence")->capture_default_str();
  cmd->add_option("--batch", a->options.batch, "Sequences decoded together")
      ->check(CLI::Range(int64_t{1}, int64_t{4096}))
      ->capture_default_str();
  cmd->add_option("--temperature", a->options.temperature, "Softmax temperature")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--seed", a->options.seed, "Sampling seed")->capture_default_str();
  cmd->add_option("--device", a->device, "auto, cpu or cuda[:N]")->capture_default_str();
  cmd->add_option("-o,--output", a->output, "Id lines (- for stdout)")->capture_default_str();
  cmd->add_option("--stats", a->stats, "JSON file for the throughput (tokens/s)");
  registry.add(cmd, [a] { return run_lm_generate(*a); });
}

struct LmCheckArgs {
  std::string text, ids, decoded, output;
  int64_t vocab_size = 0;
};

void add_lm_check(CLI::App& lm, CommandRegistry& registry) {
  auto a = std::make_shared<LmCheckArgs>();
  CLI::App* cmd =
      lm.add_subcommand("check",
                        "Reversibility gate: decoded text == text on every line, every id < vocab; "
                        "prints JSON (exit 0 either way)");
  cmd->add_option("--text", a->text, "The raw text that was encoded")->required();
  cmd->add_option("--ids", a->ids, "Its ids (encode output)")->required();
  cmd->add_option("--decoded", a->decoded, "decode output of those ids")->required();
  cmd->add_option("--vocab-size", a->vocab_size, "The tokenizer's vocabulary size")->required();
  cmd->add_option("-o,--output", a->output, "JSON output (default stdout)");
  registry.add(cmd, [a]() -> Status {
    MORPHEUS_ASSIGN_OR_RETURN(lm::GateResult r,
                              lm::check_round_trip(a->text, a->ids, a->decoded, a->vocab_size));
    return emit_lm_json(lm::gate_json(r), a->output);
  });
}

struct LmHeldoutArgs {
  std::string train, dev, output, stats;
};

Status run_lm_heldout(const LmHeldoutArgs& a) {
  MORPHEUS_ASSIGN_OR_RETURN(lm::HeldoutSplit split, lm::heldout_lines(a.train, a.dev));
  std::string text;
  for (const auto& line : split.kept) text += line + "\n";
  MORPHEUS_RETURN_IF_ERROR(write_output(a.output, text));
  MORPHEUS_ASSIGN_OR_RETURN(lm::TextStats train, lm::count_text(a.train));
  const auto kept = static_cast<int64_t>(split.kept.size());
  json stats = {{"train_lines", train.lines},
                {"train_characters", train.characters()},
                {"dev_lines", split.dev_lines},
                {"removed", split.removed},
                {"valid_lines", kept}};
  if (kept > 0) {
    MORPHEUS_ASSIGN_OR_RETURN(lm::TextStats valid, lm::count_text(a.output));
    stats["valid_characters"] = valid.characters();
  }
  return emit_lm_json(stats, a.stats);
}

void add_lm_heldout(CLI::App& lm, CommandRegistry& registry) {
  auto a = std::make_shared<LmHeldoutArgs>();
  CLI::App* cmd =
      lm.add_subcommand("heldout",
                        "The dev lines whose Turkish-lower-cased, whitespace-free form no training "
                        "line has");
  cmd->add_option("--train", a->train, "The training text")->required();
  cmd->add_option("--dev", a->dev, "The dev text")->required();
  cmd->add_option("-o,--output", a->output, "The kept lines")->required();
  cmd->add_option("--stats", a->stats, "JSON counts (default stdout)");
  registry.add(cmd, [a] { return run_lm_heldout(*a); });
}

struct LmSplitArgs {
  lm::LineSplitOptions options;
  std::string stats;
};

Status run_lm_split(const LmSplitArgs& a) {
  MORPHEUS_ASSIGN_OR_RETURN(lm::LineSplit split, lm::split_by_line_hash(a.options));
  return emit_lm_json(lm::line_split_json(split, a.options), a.stats);
}

void add_lm_split(CLI::App& lm, CommandRegistry& registry) {
  auto a = std::make_shared<LmSplitArgs>();
  lm::LineSplitOptions& o = a->options;
  CLI::App* cmd = lm.add_subcommand(
      "split",
      "Training and validation parts of a text: a line is validation iff fnv1a64(its bytes) mod "
      "1,000,000 < share × 1,000,000 (identical lines on one side, order kept)");
  cmd->add_option("--text", o.text, "The text to split (UTF-8)")->required();
  cmd->add_option("--share", o.share, "Expected share of validation lines, in (0, 1)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--min-chars", o.min_chars,
                  "Least characters (code points + line ends) of the validation part; fewer is "
                  "an error")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--train-out", o.train_out, "The training part")->required();
  cmd->add_option("--valid-out", o.valid_out, "The validation part")->required();
  cmd->add_option("--stats", a->stats,
                  "JSON: the rule, the share, the input's checksum, lines and characters of each "
                  "part (default stdout)");
  registry.add(cmd, [a] { return run_lm_split(*a); });
}

void add_lm_chars(CLI::App& lm, CommandRegistry& registry) {
  CLI::App* chars = lm.add_subcommand(
      "chars", "Character-level tokenizer: training code points + byte fallback (reversible)");
  chars->require_subcommand(1);
  auto t = std::make_shared<std::pair<std::string, std::string>>();
  CLI::App* train = chars->add_subcommand("train", "Collect the code points of a text");
  train->add_option("--corpus", t->first, "Training text")->required();
  train->add_option("--out", t->second, "Codec file (JSON)")->required();
  registry.add(train, [t]() -> Status {
    MORPHEUS_ASSIGN_OR_RETURN(lm::CharCodec codec, lm::CharCodec::train(t->first));
    MORPHEUS_LOG(kInfo, "lm chars: ", codec.code_points().size(), " code points, vocabulary ",
                 codec.vocab_size());
    return codec.save(t->second);
  });
  for (const std::string mode : {"encode", "decode"}) {
    auto a = std::make_shared<std::array<std::string, 3>>();  // model, input, output
    (*a)[1] = (*a)[2] = "-";
    CLI::App* cmd = chars->add_subcommand(
        mode, mode == "encode" ? "Text lines -> id lines" : "Id lines -> text lines");
    cmd->add_option("--model", (*a)[0], "Codec file")->required();
    cmd->add_option("input", (*a)[1], "Input file, - for stdin")->capture_default_str();
    cmd->add_option("-o,--output", (*a)[2], "Output file, - for stdout")->capture_default_str();
    registry.add(cmd, [a, mode]() -> Status {
      MORPHEUS_ASSIGN_OR_RETURN(lm::CharCodec codec, lm::CharCodec::load((*a)[0]));
      if (mode == "encode") {
        return encode_lines((*a)[1], (*a)[2], false,
                            [&codec](std::string_view line, std::vector<int32_t>* ids) {
                              return codec.encode(line, ids);
                            });
      }
      return decode_lines((*a)[1], (*a)[2],
                          [&codec](const std::vector<int32_t>& ids, std::string* text) {
                            return codec.decode(ids, text);
                          });
    });
  }
}

struct LmInfoArgs {
  std::vector<std::string> configs, sets;
  std::vector<int64_t> vocab_sizes;
};

// Width and parameter count per vocabulary size (the equalization), from the built model.
Status run_lm_info(const LmInfoArgs& a) {
  MORPHEUS_ASSIGN_OR_RETURN(lm::LmConfig c, load_section<lm::LmConfig>(a.configs, a.sets));
  torch::NoGradGuard no_grad;
  json rows = json::array();
  for (int64_t v : a.vocab_sizes) {
    const lm::Gpt gpt(
        lm::GptOptions{v + 1, lm::model_width(c, v), c.layers, c.heads, c.context, c.dropout});
    rows.push_back({{"vocab_size", v},
                    {"width", gpt->options.width},
                    {"parameters", model::count_parameters(*gpt)}});
  }
  const json out = {{"parameter_budget", lm::parameter_budget(c)},
                    {"context", c.context},
                    {"steps", c.steps},
                    {"tokens_per_step", c.batch_size * c.context},
                    {"systems", rows}};
  std::printf("%s\n", out.dump().c_str());
  return ok_status();
}

void add_lm_info_and_report(CLI::App& lm, CommandRegistry& registry) {
  auto info = std::make_shared<LmInfoArgs>();
  CLI::App* cmd = lm.add_subcommand("info", "Width and parameters per vocabulary size (JSON)");
  cmd->add_option(
      "--config", info->configs,
      "Config JSON file(s) with an \"lm\" section (default: none, the built-in defaults)");
  cmd->add_option("--set", info->sets, "Override a key, e.g. --set lm.d_model=256 (default: none)");
  cmd->add_option("--vocab-size", info->vocab_sizes, "Tokenizer vocabulary size(s)")->required();
  registry.add(cmd, [info] { return run_lm_info(*info); });

  auto vocab = std::make_shared<std::pair<std::string, std::string>>();
  CLI::App* vs = lm.add_subcommand("vocab-size", "Print a tokenizer's vocabulary size");
  vs->add_option("--kind", vocab->first, "morpheus, cbpe, spm, hybrid, hybrid-lossless, chars")
      ->required();
  vs->add_option("path", vocab->second, "Tokenizer directory, lexicon directory or codec file")
      ->required();
  registry.add(vs, [vocab]() -> Status {
    MORPHEUS_ASSIGN_OR_RETURN(int64_t n, lm::tokenizer_vocab_size(vocab->first, vocab->second));
    std::printf("%lld\n", static_cast<long long>(n));
    return ok_status();
  });

  auto study = std::make_shared<std::string>();
  CLI::App* report = lm.add_subcommand(
      "report",
      "Write STUDY/report.md, STUDY/report.json and STUDY/bpc_vs_step.png from a study directory "
      "(studies/lm_study.sh; layout in lm/README.md)");
  report->add_option("--study", *study, "Study directory")->required();
  registry.add(report, [study] { return lm::write_study_report(*study); });
}

}  // namespace

void register_lm_commands(CLI::App& app, CommandRegistry& registry) {
  CLI::App* lm = app.add_subcommand(
      "lm", "Language models over tokenizer ids: bits per character at equal compute");
  lm->require_subcommand(1);
  add_lm_train(*lm, registry);
  add_lm_eval(*lm, registry);
  add_lm_generate(*lm, registry);
  add_lm_check(*lm, registry);
  add_lm_heldout(*lm, registry);
  add_lm_split(*lm, registry);
  add_lm_chars(*lm, registry);
  add_lm_info_and_report(*lm, registry);
}

}  // namespace morpheus::tools
