// SPDX-License-Identifier: MIT
#include "prepare/teacher.h"

#include <chrono>
#include <deque>
#include <sstream>

#include "core/file_util.h"
#include "core/logging.h"
#include "core/progress.h"
#include "core/subprocess.h"
#include "core/unicode.h"
#include "core/utf8.h"
#include "prepare/corpus.h"
#include "tokenizer/segment_file.h"

namespace morpheus::train {
namespace {

using morph::Cuts;
using morph::cuts_from_pieces;
using morph::pieces_from_cuts;

std::string last_lines(const std::string& path, size_t n) {
  StatusOr<std::string> text = read_file(path);
  if (!text.ok()) return {};
  std::deque<std::string> lines;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    lines.push_back(line);
    if (lines.size() > n) lines.pop_front();
  }
  std::string out;
  for (const std::string& l : lines) out += "\n  | " + l;
  return out;
}

}  // namespace

StatusOr<TeacherTable> read_teacher_tsv(const std::string& path) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path, /*validate_utf8=*/true));
  TeacherTable table;
  std::unordered_map<std::u32string, uint64_t> first_line;
  std::string line;
  while (reader.next(&line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    StatusOr<tokenizer::SegmentedWord> parsed = tokenizer::parse_segment_line(line);
    if (!parsed.ok()) {
      Status s = parsed.status();
      return s.prepend(path + ": line " + std::to_string(reader.line_number()))
          .with_hint("each line must be word<TAB>piece piece …, the pieces spelling the word");
    }
    std::u32string word = lower_code_points(parsed->word);
    std::vector<std::u32string> pieces;
    for (const std::string& p : parsed->pieces) pieces.push_back(lower_code_points(p));
    Cuts cuts = cuts_from_pieces(pieces);
    auto it = table.find(word);
    if (it != table.end()) {
      if (it->second != cuts) {
        return invalid_argument(
            path + ": line " + std::to_string(reader.line_number()) + ": word '" + parsed->word +
                "' was already segmented differently on line " + std::to_string(first_line[word]),
            "keep one segmentation per (lower-cased) word");
      }
      continue;
    }
    first_line[word] = reader.line_number();
    table.emplace(std::move(word), std::move(cuts));
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  return table;
}

Status write_teacher_tsv(const std::string& path, const std::vector<std::u32string>& types,
                         const std::vector<Cuts>& cuts) {
  MORPHEUS_CHECK(types.size() == cuts.size(), "types and cuts differ in size");
  AtomicFileWriter writer;
  MORPHEUS_RETURN_IF_ERROR(writer.open(path));
  std::string buffer;
  for (size_t i = 0; i < types.size(); ++i) {
    buffer += utf8::encode(types[i]);
    buffer += '\t';
    const std::vector<std::u32string> pieces = pieces_from_cuts(types[i], cuts[i]);
    for (size_t p = 0; p < pieces.size(); ++p) {
      if (p > 0) buffer += ' ';
      buffer += utf8::encode(pieces[p]);
    }
    buffer += '\n';
    if (buffer.size() > (1u << 20)) {
      MORPHEUS_RETURN_IF_ERROR(writer.write(buffer));
      buffer.clear();
    }
  }
  MORPHEUS_RETURN_IF_ERROR(writer.write(buffer));
  return writer.commit();
}

StatusOr<TeacherTable> read_morfessor_segmentation(const std::string& path) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path, /*validate_utf8=*/true));
  TeacherTable table;
  std::string line;
  while (reader.next(&line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::string where = path + ": line " + std::to_string(reader.line_number());
    const size_t space = line.find(' ');
    if (space == std::string::npos || space == 0) {
      return data_loss(where + ": expected 'count morph + morph', got '" + line + "'");
    }
    std::vector<std::u32string> pieces;
    std::u32string word;
    std::string_view rest = std::string_view(line).substr(space + 1);
    while (true) {
      const size_t sep = rest.find(" + ");
      const std::string_view morph = rest.substr(0, sep);
      if (morph.empty()) return data_loss(where + ": empty morph in '" + line + "'");
      pieces.push_back(lower_code_points(morph));
      word += pieces.back();
      if (sep == std::string_view::npos) break;
      rest = rest.substr(sep + 3);
    }
    table[word] = cuts_from_pieces(pieces);
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  return table;
}

Status run_subprocess(const std::vector<std::string>& argv, const std::string& log_path,
                      const std::string& label) {
  SpawnOptions options;
  options.stdin_path = "/dev/null";
  options.stdout_path = log_path;
  options.append_stdout = true;
  options.stderr_to_stdout = true;
  ProgressBar bar(label, 0, "s");
  const auto start = std::chrono::steady_clock::now();
  MORPHEUS_ASSIGN_OR_RETURN(
      const ExitStatus done, run_process(argv, options, [&] {
        bar.set(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                          std::chrono::steady_clock::now() - start)
                                          .count()));
      }));
  bar.finish();
  if (done.ok()) return ok_status();
  return internal_error("'" + argv[0] + " " + (argv.size() > 1 ? argv[1] : "") + "' " +
                            done.describe() + "; last lines of " + log_path + ":" +
                            last_lines(log_path, 8),
                        "see " + log_path);
}

// Runs the script sys.argv[1] as __main__ with its own arguments after `random` is seeded.
constexpr const char* kSeededScript =
    "import random, runpy, sys; random.seed(20261124); sys.argv = sys.argv[1:]; "
    "runpy.run_path(sys.argv[0], run_name='__main__')";

Status check_morfessor(const MorfessorOptions& options) {
  for (const std::string& path : {options.python, options.train_script, options.segment_script}) {
    if (!file_exists(path)) {
      return failed_precondition("Morfessor is not available: '" + path + "' does not exist",
                                 "apt-get install python3-morfessor, or pass a ready segmentation "
                                 "with --teacher FILE.tsv");
    }
  }
  return ok_status();
}

StatusOr<TeacherTable> train_morfessor(const MorfessorOptions& options,
                                       const std::vector<std::u32string>& types,
                                       const std::vector<uint64_t>& counts,
                                       const std::string& work_dir) {
  MORPHEUS_CHECK(types.size() == counts.size(), "types and counts differ in size");
  MORPHEUS_RETURN_IF_ERROR(check_morfessor(options));
  const std::string counts_path = path_join(work_dir, "morfessor_counts.txt");
  const std::string model_path = path_join(work_dir, "morfessor_model.bin");
  const std::string segm_path = path_join(work_dir, "morfessor_segmentation.txt");
  const std::string log_path = path_join(work_dir, "morfessor.log");
  std::string text;
  for (size_t i = 0; i < types.size(); ++i) {
    text += std::to_string(counts[i]) + " " + utf8::encode(types[i]) + "\n";
  }
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(counts_path, text));
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(log_path, ""));
  std::ostringstream weight;
  weight << options.corpusweight;
  MORPHEUS_LOG(kInfo, "training Morfessor Baseline on ", types.size(), " types (dampening ",
               options.dampening, "); log: ", log_path);
  // Morfessor's batch training shuffles with Python's unseeded `random` (two runs on the same
  // counts differ: MC2010 F1 0.571 vs 0.574): run it with a fixed seed and hash seed.
  std::vector<std::string> argv = {"/usr/bin/env",
                                   "PYTHONHASHSEED=0",
                                   options.python,
                                   "-c",
                                   kSeededScript,
                                   options.train_script,
                                   "--traindata-list",
                                   "-e",
                                   "utf-8",
                                   "-m",
                                   "init+batch",
                                   "-d",
                                   options.dampening,
                                   "-w",
                                   weight.str(),
                                   "-s",
                                   model_path,
                                   "-S",
                                   segm_path};
  if (!options.annotations.empty()) {
    argv.insert(argv.end(), {"-A", options.annotations});
    if (options.annotation_weight > 0) {
      std::ostringstream w;
      w << options.annotation_weight;
      argv.insert(argv.end(), {"-W", w.str()});
    }
  }
  argv.push_back(counts_path);
  MORPHEUS_RETURN_IF_ERROR(run_subprocess(argv, log_path, "teacher"));
  MORPHEUS_ASSIGN_OR_RETURN(TeacherTable table, read_morfessor_segmentation(segm_path));
  size_t missing = 0;
  for (const std::u32string& t : types) missing += table.count(t) == 0 ? 1u : 0u;
  if (missing > 0) {
    return data_loss(segm_path + ": Morfessor returned no segmentation for " +
                         std::to_string(missing) + " of " + std::to_string(types.size()) +
                         " word types",
                     "see " + log_path);
  }
  return table;
}

StatusOr<TeacherTable> segment_with_morfessor(const MorfessorOptions& options,
                                              const std::string& model_path,
                                              const std::vector<std::u32string>& words,
                                              const std::string& work_dir) {
  MORPHEUS_RETURN_IF_ERROR(check_morfessor(options));
  const std::string in_path = path_join(work_dir, "morfessor_segment_in.txt");
  const std::string out_path = path_join(work_dir, "morfessor_segment_out.txt");
  const std::string log_path = path_join(work_dir, "morfessor_segment.log");
  std::string text;
  for (const std::u32string& w : words) text += utf8::encode(w) + "\n";
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(in_path, text));
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(log_path, ""));
  MORPHEUS_RETURN_IF_ERROR(run_subprocess({options.python, options.segment_script, "-e", "utf-8",
                                           "-l", model_path, "-o", out_path, in_path},
                                          log_path, "teacher-segment"));
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(out_path, /*validate_utf8=*/true));
  TeacherTable table;
  std::string line;
  size_t i = 0;
  while (reader.next(&line)) {
    if (line.empty()) continue;
    if (i >= words.size()) break;
    std::vector<std::u32string> pieces;
    std::u32string joined;
    std::istringstream in(line);
    std::string piece;
    while (in >> piece) {
      pieces.push_back(lower_code_points(piece));
      joined += pieces.back();
    }
    if (joined != words[i]) {
      return data_loss(out_path + ": line " + std::to_string(reader.line_number()) + ": '" + line +
                       "' does not spell '" + utf8::encode(words[i]) + "'");
    }
    table[words[i]] = cuts_from_pieces(pieces);
    ++i;
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  if (i != words.size()) {
    return data_loss(out_path + ": " + std::to_string(i) + " segmentations for " +
                     std::to_string(words.size()) + " words");
  }
  return table;
}

}  // namespace morpheus::train
