// SPDX-License-Identifier: MIT
// `morpheus export-plain`: a tokenizer directory in the Morpheus format whose letter runs are cut
// by plain BPE or Unigram (baselines/plain/plain_export.h): the case-matched controls of a
// comparison.
#include <memory>
#include <string>

#include "baselines/plain/plain_export.h"
#include "core/file_util.h"
#include "core/logging.h"
#include "eval/gold_data.h"
#include "exporter/model_card.h"
#include "exporter/tokenizer_writer.h"
#include "tokenizer/directory_format.h"
#include "tools/commands.h"

namespace morpheus::tools {
namespace {

struct PlainArgs {
  exporter::WriterOptions writer;
  WriterLists lists;
  exporter::PlainOptions plain;
  std::string runs_out;  // write the folded runs with their counts and stop
};

// The folded letter runs of the word types, run<TAB>count per line (the unigram trainer's input).
Status write_runs(const std::string& words, const std::string& path) {
  MORPHEUS_ASSIGN_OR_RETURN(auto runs, exporter::plain_runs(words));
  std::string out;
  for (const auto& [run, count] : runs) out += run + "\t" + std::to_string(count) + "\n";
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(path, out));
  MORPHEUS_LOG(kInfo, "export-plain: wrote ", path, " (", runs.size(), " folded letter runs)");
  return ok_status();
}

Status run_plain(PlainArgs args) {
  if (!args.runs_out.empty()) return write_runs(args.writer.words, args.runs_out);
  if (args.writer.out.empty()) {
    return invalid_argument("--out is required (unless --runs-out)", "--out DIR");
  }
  resolve_writer_lists(args.lists, &args.writer);
  MORPHEUS_RETURN_IF_ERROR(exporter::check_writer_options(args.writer));
  exporter::ProvenanceInputs inputs;
  inputs.inputs = {{"words", args.writer.words},
                   {"text", args.writer.text},
                   {"pieces", args.plain.pieces},
                   {"eval_report", args.writer.card_eval}};
  inputs.export_options = exporter::writer_settings(args.writer);
  inputs.export_options.update({{"segmenter", args.plain.segmenter},
                                {"pieces", args.plain.pieces},
                                {"bpe_vocab_size", args.plain.bpe_vocab_size}});
  MORPHEUS_ASSIGN_OR_RETURN(args.writer.provenance, exporter::export_provenance(inputs));
  MORPHEUS_ASSIGN_OR_RETURN(std::unique_ptr<exporter::RunSegmenter> segmenter,
                            exporter::make_plain_segmenter(args.writer, args.plain));
  exporter::WriterSummary summary;
  MORPHEUS_RETURN_IF_ERROR(exporter::write_tokenizer_dir(args.writer, *segmenter, &summary));
  MORPHEUS_LOG(kInfo, "export-plain: wrote ", args.writer.out, " (", summary.pieces,
               " pieces from ", summary.letter_runs, " letter runs of ", summary.word_types,
               " word types, ", summary.seconds, " s)");
  return ok_status();
}

}  // namespace

void register_plain_commands(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<PlainArgs>();
  CLI::App* cmd = app.add_subcommand(
      "export-plain",
      "Word types -> a tokenizer directory in the Morpheus format whose letter runs are cut by "
      "plain BPE or Unigram instead of the model (the case-matched controls)");
  cmd->add_option("--segmenter", args->plain.segmenter, "bpe or unigram")->capture_default_str();
  cmd->add_option("--words", args->writer.words, "Word types, word<TAB>count per line")->required();
  cmd->add_option("--out", args->writer.out, "Tokenizer directory to write");
  cmd->add_option("--pieces", args->plain.pieces,
                  "unigram: pieces and log-probabilities (morpheus-spm unigram-pieces on the "
                  "runs of --runs-out)");
  cmd->add_option("--bpe-vocab-size", args->plain.bpe_vocab_size,
                  "bpe: tokens of the BPE model (4 specials + characters + merges); 0: the piece "
                  "budget of --vocab-size + 4")
      ->capture_default_str();
  add_writer_options(cmd, &args->writer, &args->lists);
  cmd->add_option("--runs-out", args->runs_out,
                  "Write the folded letter runs of --words with their counts (run<TAB>count, the "
                  "input of morpheus-spm unigram-pieces) and stop");
  registry.add(cmd, [args] { return run_plain(*args); });
}

namespace {

void add_stream_options(CLI::App* cmd, exporter::StreamOptions* stream) {
  cmd->add_flag("--word-initial,!--no-word-initial", stream->word_initial,
                "A single space before a word travels inside the word's first id (a word-initial "
                "piece, as SentencePiece's U+2581), and a word at the start of a line gets the "
                "same ids; --no-word-initial: every space is an id of its own")
      ->capture_default_str();
  cmd->add_option("--word-initial-share", stream->word_initial_share,
                  "The most of the piece budget word-initial pieces may take")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 0.9));
  cmd->add_option("--merge-share", stream->merge_share,
                  "The most of the piece budget joins of whole segmenter pieces of a word may take "
                  "(frequent words and suffix chains; a piece is never cut); 0: no merges")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 0.9));
}

}  // namespace

void add_writer_options(CLI::App* cmd, exporter::WriterOptions* writer, WriterLists* lists) {
  exporter::WriterOptions& w = *writer;
  cmd->add_option("--text", w.text,
                  "Running text (e.g. the training corpus) whose proper names before an "
                  "apostrophe and \"'da\"-style suffix chains become candidate pieces");
  cmd->add_option("--vocab-size", w.vocab_size,
                  "Total ids incl. 256 byte tokens, <cap>/<upper>/<upper_word>, the special "
                  "tokens and the user symbols")
      ->capture_default_str();
  lists->special_tokens.clear();
  for (const std::string& s : tokenizer::default_special_tokens()) {
    lists->special_tokens += (lists->special_tokens.empty() ? "" : ",") + s;
  }
  cmd->add_option("--special-tokens", lists->special_tokens,
                  "Comma-separated special tokens, ids after the pieces (never produced by "
                  "encoding text; roles: <pad> <s> </s> <mask>, or [PAD] [CLS] [SEP] [MASK]); "
                  "an empty string for none")
      ->capture_default_str();
  cmd->add_option("--user-symbols", lists->user_symbols,
                  "Comma-separated strings that always become one id, matched in the text "
                  "before it is segmented (ids after the special tokens)");
  cmd->add_option("--min-count", w.min_count, "Minimum weighted piece count")
      ->capture_default_str();
  add_stream_options(cmd, &w.stream);
  cmd->add_option("--card-eval", w.card_eval,
                  "Evaluation report (Markdown, e.g. morpheus eval's REPORT.md) for the model "
                  "card README.md of the directory");
}

void resolve_writer_lists(const WriterLists& lists, exporter::WriterOptions* writer) {
  writer->special_tokens.clear();
  if (!lists.special_tokens.empty()) {
    writer->special_tokens = eval::split_fields(lists.special_tokens, ',');
  }
  writer->user_symbols.clear();
  if (!lists.user_symbols.empty())
    writer->user_symbols = eval::split_fields(lists.user_symbols, ',');
}

}  // namespace morpheus::tools
