// SPDX-License-Identifier: MIT
// The evaluation pipeline (eval/eval_pipeline.h): config → gold sets → system runs → tables and
// figures → the finished report. Each stage is its own file: gold_sets.h, system_runs.h,
// report_tables.h; this file assembles the report (notes, published figures, † marks).
#include "eval/eval_pipeline.h"

#include <map>

#include "core/config_section.h"
#include "core/file_util.h"
#include "core/logging.h"
#include "eval/gold_sets.h"
#include "eval/published_figures.h"
#include "eval/report.h"
#include "eval/report_tables.h"
#include "eval/system_runs.h"

namespace morpheus::eval {
namespace {

// The bullet points under the report title.
std::vector<std::string> report_notes(const EvalConfig& c, const GoldSets& g,
                                      const std::vector<SystemResult>& systems) {
  std::vector<std::string> notes = {
      "Every system is run through its command line on the same word lists and text; a row "
      "marked n/a has no output for that metric (the note says why).",
      "Case policy: every boundary and MorphScore metric scores the Turkish lower-cased word "
      "(İ→i, I→ı; offsets unchanged), for every system alike; round trip, fertility and speed "
      "keep the text as written.",
      std::string("Gold split: every gold set is split by one rule (eval/gold_policy.h: FNV-1a "
                  "64 of the lower-cased word, or of the lemma for root families and lemma "
                  "retrieval, mod 10,000; "
                  "tune share 0.5 for MC2010, 0.1 for every other set). These tables show the ") +
          gold_part_name(c.part()) +
          " part; whatever chose anything (weights, thresholds, configs, checkpoints) read the "
          "tune part only.",
      "`n` is the number of items a row was computed on (words, sentences, queries, pairs).",
      "Published figures (the Morpheus paper, §5) come from the reference's own data and "
      "definitions (other files, MAP counting the query, warm-cache speed): a reference point, "
      "not a like-for-like comparison.",
  };
  if (g.seen) {
    notes.push_back("Training text: `" + c.training_text + "` (" + g.training_checksum + ", " +
                    std::to_string(g.seen->size()) +
                    " seen word types incl. the MC2010 tune words); every trained system "
                    "learned from this text. seen = a type of it, unseen = the rest.");
  } else {
    notes.push_back("No training text configured: seen/unseen columns are n/a.");
  }
  notes.push_back(
      "Tuning: what was chosen (weights, thresholds, the root snap, configs) on which part, with "
      "the tune-part figures behind each choice, is in docs/results.md.");
  std::string systems_note = "Systems:";
  for (const SystemResult& r : systems) {
    systems_note += " " + r.spec.name +
                    (r.spec.published.empty() ? "" : " (§5: " + r.spec.published + ")") + ";";
  }
  notes.push_back(systems_note);
  return notes;
}

// Published figures, n/a rows for empty item sets, † on supervised systems (and their notes).
void finish_rows(const std::vector<SystemResult>& systems, const PublishedFigures& figures,
                 Report* report) {
  std::map<std::string, std::string> published_of, supervision_of;
  for (const SystemResult& r : systems) {
    published_of[r.spec.name] = r.spec.published;
    if (!r.spec.supervision.empty()) {
      supervision_of[r.spec.name] = r.spec.supervision;
      report->notes.push_back("† " + r.spec.name + " was trained with annotated words: " +
                              r.spec.supervision + " (never UD or Penn gold).");
    }
  }
  for (ReportTable& t : report->tables) {
    for (ReportRow& row : t.rows) {
      if (!t.published_label.empty()) row.published = figures.value(t.id, published_of[row.system]);
      if (row.n && *row.n == 0) {  // nothing to average over: n/a, not 0
        row.values.assign(t.columns.size(), std::nullopt);
        if (row.note.empty()) row.note = "no items";
      }
      if (supervision_of.count(row.system)) row.system += " †";
    }
  }
}

StatusOr<PublishedFigures> load_published_figures(const EvalConfig& c) {
  if (c.published_figures.empty()) return PublishedFigures();
  return PublishedFigures::load(c.published_figures);
}

}  // namespace

Status run_eval(const nlohmann::json& config, const std::string& out_dir) {
  MORPHEUS_ASSIGN_OR_RETURN(const EvalConfig c,
                            section_from_json<EvalConfig>(config, "eval config"));
  MORPHEUS_RETURN_IF_ERROR(check_artifacts(c));
  MORPHEUS_ASSIGN_OR_RETURN(const PublishedFigures figures, load_published_figures(c));
  const std::string work = path_join(out_dir, "work");
  MORPHEUS_RETURN_IF_ERROR(make_dirs(work));
  MORPHEUS_LOG(kInfo, "eval: loading gold data");
  MORPHEUS_ASSIGN_OR_RETURN(const GoldSets gold, load_gold_sets(c));
  MORPHEUS_ASSIGN_OR_RETURN(const SystemRuns runs, run_systems(c, gold, work));
  const EvalInputs in{c, gold, runs.words};

  Report report;
  report.title = "Morpheus evaluation";
  report.notes = report_notes(c, gold, runs.systems);
  report.tables = build_tables(in, runs.systems);
  MORPHEUS_ASSIGN_OR_RETURN(report.figures, pca_figures(in, runs.systems, out_dir));
  finish_rows(runs.systems, figures, &report);
  MORPHEUS_RETURN_IF_ERROR(write_report(report, out_dir));
  MORPHEUS_LOG(kInfo, "eval: wrote ", path_join(out_dir, "report.md"));
  return ok_status();
}

}  // namespace morpheus::eval
