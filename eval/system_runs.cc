// SPDX-License-Identifier: MIT
// The system runs of one evaluation (eval/system_runs.h): subprocesses, their outputs read back.
#include "eval/system_runs.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "core/file_util.h"
#include "core/logging.h"
#include "core/subprocess.h"
#include "core/utf8.h"
#include "eval/gold_data.h"

namespace morpheus::eval {
namespace {

using Clock = std::chrono::steady_clock;

struct CommandRun {
  bool ok = false;
  int exit_code = -1;
  double seconds = 0;
};

// Runs `cmd` with /bin/sh; stderr (and stdout unless captured) is appended to `log`.
CommandRun run_command(const std::string& cmd, const std::string& stdout_path,
                       const std::string& log) {
  if (std::FILE* f = std::fopen(log.c_str(), "a")) {
    std::fprintf(f, "$ %s\n", cmd.c_str());
    std::fclose(f);
  }
  SpawnOptions options;
  options.stdout_path = stdout_path.empty() ? log : stdout_path;
  options.append_stdout = stdout_path.empty();
  options.stderr_path = log;
  const auto t0 = Clock::now();
  const StatusOr<ExitStatus> done = run_shell(cmd, options);
  CommandRun r;
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (done.ok() && done->exited) r.exit_code = done->code;
  r.ok = r.exit_code == 0;
  return r;
}

// Expands a template and runs it; `output` is captured from stdout when the template lacks it.
StatusOr<CommandRun> run_template(const std::string& tmpl, std::map<std::string, std::string> vars,
                                  const std::string& log) {
  MORPHEUS_ASSIGN_OR_RETURN(std::string cmd, expand_command(tmpl, vars));
  const bool captures = tmpl.find("{output}") == std::string::npos &&
                        tmpl.find("{output_npy}") == std::string::npos && vars.count("output");
  return run_command(cmd, captures ? vars["output"] : "", log);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// Lenient reader of "word<TAB>p1 p2" lines: pieces that do not spell the word are kept (and
// counted); a line without a tab is an error naming the file and line.
Status read_segmentations(const std::string& path, SystemResult* r) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path));
  std::string line;
  while (reader.next(&line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos || tab == 0) {
      return data_loss(path + ": line " + std::to_string(reader.line_number()) +
                           ": expected word<TAB>piece piece…",
                       "segment commands must print one \"word<TAB>pieces\" line per word");
    }
    const std::string word = line.substr(0, tab);
    Pieces pieces;
    std::string joined;
    for (std::string& p : split_fields(line.substr(tab + 1), ' ')) {
      if (p.empty()) continue;
      joined += p;
      pieces.push_back(std::move(p));
    }
    ++r->seg_lines;
    if (joined != word) ++r->non_spelling;
    r->seg.emplace(word, std::move(pieces));
  }
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  r->has_seg = true;
  return ok_status();
}

StatusOr<std::vector<std::string>> read_lines(const std::string& path) {
  LineReader reader;
  MORPHEUS_RETURN_IF_ERROR(reader.open(path, false));
  std::vector<std::string> lines;
  std::string line;
  while (reader.next(&line)) lines.push_back(line);
  MORPHEUS_RETURN_IF_ERROR(reader.status());
  return lines;
}

// Share of lines of `decoded` equal to `original` (missing lines count as failures).
double match_rate(const std::vector<std::string>& original,
                  const std::vector<std::string>& decoded) {
  size_t ok = 0;
  for (size_t i = 0; i < original.size(); ++i)
    ok += i < decoded.size() && decoded[i] == original[i];
  return original.empty() ? 0.0 : static_cast<double>(ok) / static_cast<double>(original.size());
}

std::string note_for(const CommandRun& run, const std::string& what, const std::string& log) {
  return what + " failed (exit " + std::to_string(run.exit_code) + "), see " + log;
}

// Encode then decode `input` (cold once, then warm_runs times); sets round-trip rate.
void run_codec(const EvalConfig& c, const std::string& work, const std::string& tag,
               const std::string& input, const std::vector<std::string>& lines, bool timed,
               SystemResult* r) {
  const std::string log = path_join(work, r->spec.name + ".log");
  const std::string ids = path_join(work, tag + ".ids");
  const std::string back = path_join(work, tag + ".decoded");
  std::vector<double> enc, dec;
  const size_t runs = timed ? 1 + c.speed.warm_runs : 1;
  for (size_t i = 0; i < runs; ++i) {
    auto e = run_template(r->spec.encode, {{"input", input}, {"output", ids}, {"work", work}}, log);
    if (!e.ok() || !e->ok) {
      r->codec_note = e.ok() ? note_for(*e, "encode", log) : e.status().message();
      return;
    }
    enc.push_back(e->seconds);
    auto d = run_template(r->spec.decode, {{"input", ids}, {"output", back}, {"work", work}}, log);
    if (!d.ok() || !d->ok) {
      r->codec_note = d.ok() ? note_for(*d, "decode", log) : d.status().message();
      return;
    }
    dec.push_back(d->seconds);
  }
  auto decoded = read_lines(back);
  if (!decoded.ok()) {
    r->codec_note = decoded.status().message();
    return;
  }
  const double rate = match_rate(lines, *decoded);
  if (tag == "sentences") {
    r->rt_sentences = rate;
    r->rt_sentence_n = lines.size();
  } else {
    r->rt_words = rate;
    r->rt_word_n = lines.size();
  }
  if (timed) {
    r->enc_cold = enc.front();
    r->dec_cold = dec.front();
    if (enc.size() > 1) {
      r->enc_warm = median({enc.begin() + 1, enc.end()});
      r->dec_warm = median({dec.begin() + 1, dec.end()});
    }
  }
}
// The pieces of a built-in reference segmenter: the whole word, or one piece per code point.
Pieces builtin_pieces(const std::string& builtin, const std::string& w) {
  Pieces pieces;
  if (builtin == "whole-word") {
    pieces.push_back(w);
    return pieces;
  }
  for (size_t pos = 0; pos < w.size();) {
    const utf8::Decoded d = utf8::decode_one(w, pos);
    pieces.push_back(w.substr(pos, d.length));
    pos += d.length;
  }
  return pieces;
}

// Segmentations: the built-in segmenter, the segment command's output or the ready file.
void run_segmentation(const std::string& work, const std::vector<std::string>& words,
                      const std::string& words_file, SystemResult* r) {
  const SystemSpec& spec = r->spec;
  const std::string log = path_join(work, spec.name + ".log");
  if (!spec.builtin.empty()) {
    for (const std::string& w : words) {
      r->seg.emplace(w, builtin_pieces(spec.builtin, w));
      ++r->seg_lines;
    }
    r->has_seg = true;
  }
  std::string seg_file = spec.segmentations;
  if (!spec.segment.empty()) {
    seg_file = path_join(work, "segmentations.tsv");
    auto s = run_template(spec.segment,
                          {{"input", words_file}, {"output", seg_file}, {"work", work}}, log);
    if (!s.ok() || !s->ok) {
      r->seg_note = s.ok() ? note_for(*s, "segment", log) : s.status().message();
      seg_file.clear();
    } else {
      r->segment_seconds = s->seconds;
    }
  }
  if (!seg_file.empty()) {
    Status st = read_segmentations(seg_file, r);
    if (!st.ok()) r->seg_note = st.message();
  } else if (r->seg_note.empty() && !r->has_seg) {
    r->seg_note = "no segment command or segmentations file";
  }
}

// Codec: round trip on the UD stem-boundary words, then the timed round trip on the sentences.
void run_codecs(const EvalConfig& c, const std::string& work, const std::string& sentences_file,
                const GoldSets& g, SystemResult* r) {
  if (r->spec.encode.empty() || r->spec.decode.empty()) {
    r->codec_note = "no encode/decode commands";
    return;
  }
  const std::vector<std::string>& rt_words = g.roundtrip_words;
  if (!rt_words.empty()) {
    const std::string wf = path_join(work, "roundtrip_words.txt");
    Status st = write_file_atomic(wf, join_lines(rt_words));
    if (st.ok()) run_codec(c, work, "words", wf, rt_words, false, r);
  }
  if (!g.sentences.empty() && r->codec_note.empty()) {
    run_codec(c, work, "sentences", sentences_file, g.sentences, true, r);
  }
}

// Embeddings: the embed command's .npy (when it wrote one) or .vec, or the ready file.
void run_embedding(const std::string& work, const std::string& emb_words_file, SystemResult* r) {
  const SystemSpec& spec = r->spec;
  const std::string log = path_join(work, spec.name + ".log");
  std::string emb_file = spec.embeddings;
  if (!spec.embed.empty()) {
    const std::string vec = path_join(work, "embeddings.vec");
    const std::string npy = path_join(work, "embeddings.npy");
    auto s = run_template(
        spec.embed,
        {{"input", emb_words_file}, {"output", vec}, {"output_npy", npy}, {"work", work}}, log);
    if (!s.ok() || !s->ok) {
      r->emb_note = s.ok() ? note_for(*s, "embed", log) : s.status().message();
    } else {
      emb_file = file_exists(npy) ? npy : vec;
    }
  }
  if (!emb_file.empty() && r->emb_note.empty()) {
    auto e = load_embeddings(emb_file);
    if (e.ok()) {
      r->emb = std::move(*e);
    } else {
      r->emb_note = e.status().message();
    }
  } else if (r->emb_note.empty()) {
    r->emb_note = "no embeddings";
  }
}

}  // namespace

StatusOr<std::string> expand_command(const std::string& tmpl,
                                     const std::map<std::string, std::string>& vars) {
  std::string out;
  size_t pos = 0;
  while (pos < tmpl.size()) {
    const size_t open = tmpl.find('{', pos);
    if (open == std::string::npos) {
      out += tmpl.substr(pos);
      break;
    }
    const size_t close = tmpl.find('}', open);
    out += tmpl.substr(pos, open - pos);
    if (close == std::string::npos) return invalid_argument("unclosed '{' in command: " + tmpl);
    const std::string key = tmpl.substr(open + 1, close - open - 1);
    auto it = vars.find(key);
    if (it == vars.end()) {
      std::string known;
      for (const auto& [k, v] : vars) known += (known.empty() ? "{" : ", {") + k + "}";
      return invalid_argument("unknown placeholder {" + key + "} in command: " + tmpl,
                              "placeholders here: " + known);
    }
    out += shell_quote(it->second);
    pos = close + 1;
  }
  return out;
}

Status check_artifacts(const EvalConfig& c) {
  std::string missing;
  for (const SystemSpec& s : c.systems) {
    if (!s.artifact.empty() && !file_exists(s.artifact)) {
      missing += (missing.empty() ? "" : "; ") + s.name + " needs " + s.artifact;
    }
  }
  if (missing.empty()) return ok_status();
  return failed_precondition("eval: missing artifacts: " + missing,
                             "run scripts/main.sh first: it trains and exports every system the "
                             "eval scores (or pass the --run-dir that holds them)");
}

SystemResult run_system(const EvalConfig& c, const SystemSpec& spec, const std::string& work_root,
                        const std::vector<std::string>& words, const std::string& words_file,
                        const std::string& emb_words_file, const std::string& sentences_file,
                        const GoldSets& g) {
  SystemResult r;
  r.spec = spec;
  const std::string work = path_join(work_root, spec.name);
  Status made = make_dirs(work);
  if (!made.ok()) {
    r.seg_note = r.codec_note = r.emb_note = made.message();
    return r;
  }
  MORPHEUS_LOG(kInfo, "eval: system ", spec.name);
  run_segmentation(work, words, words_file, &r);
  run_codecs(c, work, sentences_file, g, &r);
  run_embedding(work, emb_words_file, &r);
  for (const std::string* note : {&r.seg_note, &r.codec_note, &r.emb_note}) {
    if (note->find("failed") != std::string::npos || note->find(": line ") != std::string::npos) {
      MORPHEUS_LOG(kWarning, "eval: ", spec.name, ": ", *note);
    }
  }
  return r;
}

StatusOr<SystemRuns> run_systems(const EvalConfig& c, const GoldSets& g, const std::string& work) {
  SystemRuns runs;
  runs.words = segmentation_words(g);
  const std::vector<std::string> emb_words = embedding_words(g);
  const std::string words_file = path_join(work, "words.txt");
  const std::string emb_words_file = path_join(work, "embedding_words.txt");
  const std::string sentences_file = path_join(work, "sentences.txt");
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(words_file, join_lines(runs.words)));
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(emb_words_file, join_lines(emb_words)));
  MORPHEUS_RETURN_IF_ERROR(write_file_atomic(sentences_file, join_lines(g.sentences)));
  MORPHEUS_LOG(kInfo, "eval: ", runs.words.size(), " words to segment, ", emb_words.size(),
               " words to embed, ", g.sentences.size(), " sentences");
  for (const SystemSpec& spec : c.systems) {
    runs.systems.push_back(
        run_system(c, spec, work, runs.words, words_file, emb_words_file, sentences_file, g));
  }
  return runs;
}

}  // namespace morpheus::eval
