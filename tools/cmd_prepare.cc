// SPDX-License-Identifier: MIT
// `morpheus prepare --corpus FILE… --out DIR [--config FILE] [--set prepare.k=v] [--teacher TSV]
// [--gold TSV]`: corpus → Morfessor teacher → root correction → vocabularies → caches
// (train/prepare.h). Prints the prepare.json summary on stdout.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/file_util.h"
#include "tools/commands.h"
#include "train/prepare.h"

namespace morpheus::tools {
namespace {

// The default corpus, relative to the working directory (the repo checkout).
const char* const kDefaultCorpus[] = {
    "node_modules/nlptoolkit-corpus/corpus.txt",
    "node_modules/nlptoolkit-morphologicalanalysis/penntreebank.txt",
};

struct PrepareArgs {
  std::vector<std::string> corpus;
  std::string out;
  std::vector<std::string> configs;
  std::vector<std::string> sets;
  std::string teacher;
  std::string gold;
};

Status run_prepare_command(const PrepareArgs& args) {
  train::PrepareOptions options;
  MORPHEUS_ASSIGN_OR_RETURN(options.config, train::load_prepare_config(args.configs, args.sets));
  options.corpus_files = args.corpus;
  if (options.corpus_files.empty()) {
    for (const char* path : kDefaultCorpus) {
      if (!file_exists(path)) {
        return not_found(std::string("default corpus file ") + path + " not found",
                         "run from the repo checkout after `npm install`, or pass --corpus FILE");
      }
      options.corpus_files.emplace_back(path);
    }
  }
  options.out_dir = args.out;
  options.teacher_file = args.teacher;
  options.gold_file = args.gold;
  MORPHEUS_ASSIGN_OR_RETURN(nlohmann::json summary, train::run_prepare(options));
  Output out;
  MORPHEUS_RETURN_IF_ERROR(out.open("-"));
  MORPHEUS_RETURN_IF_ERROR(out.write(summary.dump(2) + "\n"));
  return out.close();
}

}  // namespace

void register_prepare_commands(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<PrepareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "prepare",
      "Build training data: words of the corpus, Morfessor teacher segmentation, root "
      "correction, char/word/root vocabularies, seeded train/dev split and compact caches");
  cmd->add_option("--corpus", args->corpus,
                  "Corpus files: plain text (one sentence per line) or NLPToolkit treebank "
                  "(default: npm nlptoolkit-corpus corpus.txt + penntreebank.txt sentences)");
  cmd->add_option("--out", args->out, "Output directory")->required();
  cmd->add_option("--config", args->configs,
                  "Config files; only their \"prepare\" section is read (repeatable)");
  cmd->add_option("--set", args->sets, "Override a config value: prepare.key=value (repeatable)");
  cmd->add_option("--teacher", args->teacher,
                  "Use this word<TAB>piece piece segmentation instead of training Morfessor");
  cmd->add_option("--gold", args->gold,
                  "Gold segmentations (word<TAB>alt , alt) to score the teacher, e.g. "
                  "../shared/data/gold/mc2010_tur_trainset.tsv");
  registry.add(cmd, [args] { return run_prepare_command(*args); });
}

}  // namespace morpheus::tools
