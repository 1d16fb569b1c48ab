// SPDX-License-Identifier: MIT
// `morpheus prepare --corpus FILE… --out DIR [--config FILE] [--set k=v] [--teacher TSV]
// [--gold TSV]`: corpus → Morfessor teacher → root correction → vocabularies → caches
// (prepare/prepare.h). The config resolves whole, as for `morpheus train` (config/config_loader.h);
// prepare reads its "prepare" section. Prints the prepare.json summary on stdout.
// `morpheus teacher --data DIR [--raw] [--root-snap] [FILE]`: the labels that prepare directory
// teaches, for any words (`word<TAB>piece piece…` per line).
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/config_loader.h"
#include "core/file_util.h"
#include "core/utf8.h"
#include "morph/cuts.h"
#include "prepare/corpus.h"
#include "prepare/prepare.h"
#include "tools/cli.h"
#include "tools/commands.h"

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
  std::string annotations;
};

Status run_prepare_command(const PrepareArgs& args) {
  train::PrepareOptions options;
  MORPHEUS_ASSIGN_OR_RETURN(options.config, config::load_prepare_config(args.configs, args.sets));
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
  options.annotations_file = args.annotations;
  MORPHEUS_ASSIGN_OR_RETURN(nlohmann::json summary, train::run_prepare(options));
  return write_output("-", summary.dump(2) + "\n");
}

struct TeacherArgs {
  std::string data, input = "-", output = "-";
  bool raw = false;
  bool root_snap = false;
};

// word<TAB>pieces for every non-empty line of the input; the pieces cut the word as written at
// the offsets of its lower-case form (one code point for one).
Status run_teacher_command(const TeacherArgs& args) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(args.input == "-" ? "/dev/stdin" : args.input));
  std::vector<std::string> words;
  std::vector<std::u32string> lower;
  std::string line;
  while (reader.next(&line)) {
    if (line.empty()) continue;
    lower.push_back(train::lower_code_points(line));
    words.push_back(std::move(line));
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  MORPHEUS_ASSIGN_OR_RETURN(std::vector<morph::Cuts> cuts,
                            train::teacher_labels(args.data, lower, args.raw, args.root_snap));
  Output out;
  MORPHEUS_RETURN_IF_ERROR(out.open(args.output));
  for (size_t i = 0; i < words.size(); ++i) {
    MORPHEUS_ASSIGN_OR_RETURN(const std::u32string written, utf8::decode(words[i]));  // validated
    std::string pieces;
    for (const std::u32string& p : morph::pieces_from_cuts(written, cuts[i])) {
      pieces += (pieces.empty() ? "" : " ") + utf8::encode(p);
    }
    MORPHEUS_RETURN_IF_ERROR(out.write(words[i] + "\t" + pieces + "\n"));
  }
  return out.close();
}

void register_teacher_command(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<TeacherArgs>();
  CLI::App* cmd = app.add_subcommand(
      "teacher",
      "Segment words as the teacher of a prepare directory does: its table, its Morfessor model "
      "for other words, then the root correction (the labels Morpheus learns from)");
  cmd->add_option("--data", args->data, "Prepare output directory")->required();
  cmd->add_flag("--raw", args->raw, "Skip the root correction (the raw Morfessor segmentation)");
  cmd->add_flag(
      "--root-snap", args->root_snap,
      "Then the root snap of `morpheus export --root-snap` (the prepare directory's lexicons)");
  cmd->add_option("input", args->input, "Words, one per line; - for stdin")->capture_default_str();
  cmd->add_option("-o,--output", args->output, "Output file, - for stdout")->capture_default_str();
  registry.add(cmd, [args] { return run_teacher_command(*args); });
}

}  // namespace

void register_prepare_commands(CLI::App& app, CommandRegistry& registry) {
  register_teacher_command(app, registry);
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
                  "Config files (repeatable; later files win), resolved whole as by `morpheus "
                  "train`: an unknown key in any section is an error; prepare reads the "
                  "\"prepare\" section");
  cmd->add_option("--set", args->sets,
                  "Override a config value: section.key=value, e.g. prepare.word_vocab_size=50000 "
                  "(repeatable)");
  cmd->add_option("--teacher", args->teacher,
                  "Use this word<TAB>piece piece segmentation instead of training Morfessor");
  cmd->add_option("--gold", args->gold,
                  "Gold segmentations (word<TAB>alt , alt) to score the teacher, e.g. "
                  "../shared/data/gold/mc2010_tur_trainset.tsv");
  cmd->add_option("--annotations", args->annotations,
                  "Annotated words (word<TAB>alt , alt) for semi-supervised Morfessor: only the "
                  "MC2010 tune part (morpheus gold-split --gold mc2010 --part tune)");
  registry.add(cmd, [args] { return run_prepare_command(*args); });
}

}  // namespace morpheus::tools
