// SPDX-License-Identifier: MIT
// morpheus._tokenizer: the Morpheus tokenizer (tokenizer/tokenizer.h) from Python, torch-free. The
// calls are those of `morpheus encode|decode|segment` (tools/cmd_tokenize.cc): Tokenizer::prefetch
// sends the letter runs the segment table lacks to the model in one call (the torch-free engine
// in this process, engine/directory.h, loaded on the first miss), then
// Tokenizer::encode / segment / decode. cache_file is their --cache-file
// (Tokenizer::attach_cache, tokenizer/segment_cache.h): runs outside the table are looked up there
// before the model, and what the model segments is appended to it.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "baselines/plain/plain_segmenters.h"
#include "engine/directory.h"
#include "python/status_error.h"
#include "tokenizer/hf_files.h"
#include "tokenizer/tokenizer.h"

namespace py = pybind11;

namespace morpheus::python {
namespace {

// The ids (and, when `offsets` is set, their character spans) of a batch of texts.
struct Encoded {
  std::vector<std::vector<int32_t>> ids;
  std::vector<std::vector<tokenizer::TextSpan>> offsets;
};

// Encodes texts[begin, end) into out[begin, end); the first error wins.
Status encode_range(const tokenizer::Tokenizer& tok, const std::vector<std::string>& texts,
                    const tokenizer::EncodeOptions& options, bool with_offsets, size_t begin,
                    size_t end, Encoded* out) {
  for (size_t i = begin; i < end; ++i) {
    tokenizer::Offsets offsets;
    const Status s = tok.encode(texts[i], options, &out->ids[i], with_offsets ? &offsets : nullptr);
    if (!s.ok())
      return Status(s.code(), "text " + std::to_string(i) + ": " + s.message(), s.hint());
    if (with_offsets) out->offsets[i] = std::move(offsets.chars);
  }
  return ok_status();
}

// Rows of ints as a Python list of lists, built with the C API (pybind11's list caster converts
// every element through its type caster: most of a large batch's conversion time).
py::list int_lists(const std::vector<std::vector<int32_t>>& rows) {
  py::list out(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    PyObject* row = PyList_New(static_cast<Py_ssize_t>(rows[i].size()));
    if (row == nullptr) throw py::error_already_set();
    for (size_t j = 0; j < rows[i].size(); ++j) {
      PyObject* v = PyLong_FromLong(rows[i][j]);
      if (v == nullptr) {
        Py_DECREF(row);
        throw py::error_already_set();
      }
      PyList_SET_ITEM(row, static_cast<Py_ssize_t>(j), v);
    }
    PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(i), row);
  }
  return out;
}

// A list of lists of ones, one as long as each row.
py::list ones_lists(const std::vector<std::vector<int32_t>>& rows) {
  py::list out(rows.size());
  PyObject* one = PyLong_FromLong(1);
  for (size_t i = 0; i < rows.size(); ++i) {
    PyObject* row = PyList_New(static_cast<Py_ssize_t>(rows[i].size()));
    if (row == nullptr) {
      Py_DECREF(one);
      throw py::error_already_set();
    }
    for (size_t j = 0; j < rows[i].size(); ++j) {
      Py_INCREF(one);
      PyList_SET_ITEM(row, static_cast<Py_ssize_t>(j), one);
    }
    PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(i), row);
  }
  Py_DECREF(one);
  return out;
}

// encode_batch's padding and truncation (transformers' meaning): no padding, to the longest
// text, or to max_length; truncation cuts each text to max_length ids (keeping </s> last).
struct BatchShape {
  enum class Padding { kNone, kLongest, kMaxLength } padding = Padding::kNone;
  bool truncation = false;
  size_t max_length = 0;
  std::string tensors;  // "", "np" or "pt"
};

BatchShape parse_batch_shape(const py::object& padding, const py::object& max_length,
                             bool truncation, const py::object& return_tensors) {
  BatchShape shape;
  if (py::isinstance<py::bool_>(padding)) {
    shape.padding =
        padding.cast<bool>() ? BatchShape::Padding::kLongest : BatchShape::Padding::kNone;
  } else if (!padding.is_none()) {
    const std::string p = py::str(padding);
    if (p == "longest") {
      shape.padding = BatchShape::Padding::kLongest;
    } else if (p == "max_length") {
      shape.padding = BatchShape::Padding::kMaxLength;
    } else if (p != "do_not_pad") {
      check(invalid_argument("padding=" + std::string(py::repr(padding)) + " is not supported",
                             "padding is False, True, \"longest\" or \"max_length\""));
    }
  }
  if (!max_length.is_none()) {
    const long long n = max_length.cast<long long>();
    if (n < 1) check(invalid_argument("max_length must be at least 1"));
    shape.max_length = static_cast<size_t>(n);
  }
  shape.truncation = truncation;
  if ((truncation || shape.padding == BatchShape::Padding::kMaxLength) && shape.max_length == 0) {
    check(invalid_argument(
        std::string(truncation ? "truncation" : "padding=\"max_length\"") + " needs max_length",
        "pass max_length=N"));
  }
  if (!return_tensors.is_none()) {
    shape.tensors = py::str(return_tensors);
    if (shape.tensors != "np" && shape.tensors != "pt") {
      check(invalid_argument(
          "return_tensors=" + std::string(py::repr(return_tensors)) + " is not supported",
          "return_tensors is None, \"np\" (numpy) or \"pt\" (torch)"));
    }
  }
  return shape;
}

// Rows of equal length as an int64 numpy array [rows, length(, width)], or a torch tensor.
template <typename Row, typename Fill>
py::object to_tensor(const std::vector<Row>& rows, size_t width, const std::string& kind,
                     Fill fill) {
  const size_t length = rows.empty() ? 0 : rows[0].size();
  for (const Row& r : rows) {
    if (r.size() != length) {
      check(invalid_argument("return_tensors needs rows of one length, got " +
                                 std::to_string(length) + " and " + std::to_string(r.size()),
                             "pass padding=True (\"longest\") or padding=\"max_length\""));
    }
  }
  std::vector<py::ssize_t> shape = {static_cast<py::ssize_t>(rows.size()),
                                    static_cast<py::ssize_t>(length)};
  if (width > 1) shape.push_back(static_cast<py::ssize_t>(width));
  py::array_t<int64_t> array(shape);
  int64_t* data = array.mutable_data();
  for (const Row& r : rows) {
    for (const auto& v : r) data = fill(v, data);
  }
  if (kind == "np") return std::move(array);
  return py::module_::import("torch").attr("from_numpy")(array);
}

// Ids given as a sequence, a numpy array or a torch tensor (through its tolist()).
template <typename Ids>
Ids ids_of(const py::object& ids) {
  if (py::hasattr(ids, "tolist")) return ids.attr("tolist")().cast<Ids>();
  return ids.cast<Ids>();
}

class Tokenizer {
 public:
  Tokenizer(const std::string& path, bool self_test, const std::string& cache_file,
            const std::string& device, size_t threads)
      : cache_file_(cache_file) {
    if (device != "cpu") {
      check(invalid_argument("device \"" + device + "\": the tokenizer's model runs on the CPU",
                             "for a GPU, segment with: morpheus-torch encode --device cuda"));
    }
    if (threads == 0) check(invalid_argument("threads must be at least 1"));
    tokenizer::cbpe::register_plain_segmenters();  // directories cut by plain BPE or Unigram
    tok_ = value_or_raise(
        tokenizer::Tokenizer::load(path, self_test, engine::engine_model_spec(threads)));
    if (!cache_file.empty()) check(tok_->attach_cache(cache_file));
  }

  std::vector<int32_t> encode(const std::string& text, bool allow_invalid, bool add_bos,
                              bool add_eos) const {
    return encode_one(text, allow_invalid, add_bos, add_eos, nullptr);
  }

  // Character spans [begin, end) of the ids encode() gives (code points; an invalid byte counts
  // one, as Python's surrogateescape decodes it).
  std::vector<std::pair<size_t, size_t>> offsets(const std::string& text, bool allow_invalid,
                                                 bool add_bos, bool add_eos) const {
    tokenizer::Offsets offsets;
    encode_one(text, allow_invalid, add_bos, add_eos, &offsets);
    std::vector<std::pair<size_t, size_t>> out;
    for (const tokenizer::TextSpan& c : offsets.chars) out.emplace_back(c.begin, c.end);
    return out;
  }

  // One prefetch for the whole batch (as the CLI does per block), then `threads` workers; then
  // truncation, padding and the tensors.
  py::object encode_batch(const std::vector<std::string>& texts, size_t threads, bool add_bos,
                          bool add_eos, const py::object& padding, const py::object& max_length,
                          bool truncation, const py::object& return_tensors, bool return_offsets,
                          bool return_attention_mask) const {
    const BatchShape shape = parse_batch_shape(padding, max_length, truncation, return_tensors);
    tokenizer::EncodeOptions options;
    options.add_bos = add_bos;
    options.add_eos = add_eos && !truncation;  // added after the cut
    if (shape.padding != BatchShape::Padding::kNone && tok_->pad_id() < 0) {
      check(invalid_argument(tok_->dir() + " has no <pad> special token to pad with",
                             "export with --special-tokens including <pad> (the default), or "
                             "pass padding=False"));
    }
    if (add_eos && tok_->eos_id() < 0) {
      check(failed_precondition(tok_->dir() + " has no </s> special token",
                                "export with --special-tokens including it"));
    }
    Encoded out;
    out.ids.resize(texts.size());
    if (return_offsets) out.offsets.resize(texts.size());
    Status status = ok_status();
    {
      py::gil_scoped_release release;
      status = tok_->prefetch(texts);
      if (status.ok()) {
        status =
            encode_parallel(texts, options, return_offsets, std::max<size_t>(1, threads), &out);
      }
    }
    check(status);
    if (truncation) truncate(shape.max_length, add_eos, &out);
    if (shape.padding == BatchShape::Padding::kNone && shape.tensors.empty() && !return_offsets &&
        !return_attention_mask) {
      return int_lists(out.ids);
    }
    if (shape.padding == BatchShape::Padding::kNone && shape.tensors.empty() && !return_offsets) {
      py::dict result;  // return_attention_mask alone: the mask is ones
      result["input_ids"] = int_lists(out.ids);
      result["attention_mask"] = ones_lists(out.ids);
      return std::move(result);
    }
    std::vector<std::vector<int32_t>> mask(out.ids.size());
    for (size_t i = 0; i < out.ids.size(); ++i) mask[i].assign(out.ids[i].size(), 1);
    if (shape.padding != BatchShape::Padding::kNone) pad(shape, &out, &mask);
    py::dict result;
    if (shape.tensors.empty()) {
      result["input_ids"] = int_lists(out.ids);
      result["attention_mask"] = int_lists(mask);
      if (return_offsets) result["offsets"] = offsets_lists(out);
      return std::move(result);
    }
    const auto one = [](int32_t v, int64_t* d) {
      *d = v;
      return d + 1;
    };
    result["input_ids"] = to_tensor(out.ids, 1, shape.tensors, one);
    result["attention_mask"] = to_tensor(mask, 1, shape.tensors, one);
    if (return_offsets) {
      result["offsets"] =
          to_tensor(out.offsets, 2, shape.tensors, [](const tokenizer::TextSpan& c, int64_t* d) {
            d[0] = static_cast<int64_t>(c.begin);
            d[1] = static_cast<int64_t>(c.end);
            return d + 2;
          });
    }
    return std::move(result);
  }

  py::str decode(const std::vector<int32_t>& ids, bool skip_special) const {
    const std::string text = decode_bytes(ids, skip_special);
    PyObject* s = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), nullptr);
    if (s == nullptr) {
      PyErr_Clear();
      check(invalid_argument("the ids decode to bytes that are not valid UTF-8 (byte tokens)",
                             "use decode_bytes() for text encoded with allow_invalid=True"));
    }
    return py::reinterpret_steal<py::str>(s);
  }

  std::string decode_bytes(const std::vector<int32_t>& ids, bool skip_special) const {
    std::string text;
    check(tok_->decode(ids, &text, !skip_special));
    return text;
  }

  std::vector<py::str> decode_batch(const std::vector<std::vector<int32_t>>& batch,
                                    bool skip_special) const {
    std::vector<py::str> out;
    for (const std::vector<int32_t>& ids : batch) out.push_back(decode(ids, skip_special));
    return out;
  }

  std::vector<std::string> segment(const std::string& text) const {
    Status status = ok_status();
    StatusOr<std::vector<std::string>> pieces = std::vector<std::string>{};
    {
      py::gil_scoped_release release;
      status = tok_->prefetch({text});
      if (status.ok()) pieces = tok_->segment(text);
    }
    check(status);
    return value_or_raise(std::move(pieces));
  }

  std::string id_to_piece(int32_t id) const {
    if (id < 0 || id >= vocab_size()) {
      check(invalid_argument("id " + std::to_string(id) + " is outside [0, " +
                             std::to_string(vocab_size()) + ")"));
    }
    return tok_->id_to_piece(id);
  }
  int32_t piece_to_id(const std::string& piece) const { return tok_->piece_to_id(piece); }
  int32_t vocab_size() const { return tok_->vocab_size(); }
  const tokenizer::Tokenizer& tok() const { return *tok_; }
  const std::string& path() const { return tok_->dir(); }
  uint64_t table_hits() const { return tok_->table_hits(); }
  uint64_t model_runs() const { return tok_->model_runs(); }
  uint64_t cache_file_hits() const { return tok_->run_stats().cache; }
  const std::string& cache_file() const { return cache_file_; }

 private:
  std::vector<int32_t> encode_one(const std::string& text, bool allow_invalid, bool add_bos,
                                  bool add_eos, tokenizer::Offsets* offsets) const {
    tokenizer::EncodeOptions options;
    options.allow_invalid = allow_invalid;
    options.add_bos = add_bos;
    options.add_eos = add_eos;
    std::vector<int32_t> ids;
    Status status = ok_status();
    {
      py::gil_scoped_release release;
      status = tok_->prefetch({text});
      if (status.ok()) status = tok_->encode(text, options, &ids, offsets);
    }
    check(status);
    return ids;
  }

  Status encode_parallel(const std::vector<std::string>& texts,
                         const tokenizer::EncodeOptions& options, bool with_offsets, size_t threads,
                         Encoded* out) const {
    const size_t n = texts.size();
    threads = std::min(threads, std::max<size_t>(1, n));
    std::vector<Status> results(threads, ok_status());
    std::vector<std::thread> workers;
    for (size_t t = 1; t < threads; ++t) {
      workers.emplace_back([&, t] {
        results[t] = encode_range(*tok_, texts, options, with_offsets, n * t / threads,
                                  n * (t + 1) / threads, out);
      });
    }
    results[0] = encode_range(*tok_, texts, options, with_offsets, 0, n / threads, out);
    for (std::thread& w : workers) w.join();
    for (const Status& s : results) MORPHEUS_RETURN_IF_ERROR(s);
    return ok_status();
  }

  // Cuts every row to max_length ids, </s> (when add_eos) last.
  void truncate(size_t max_length, bool add_eos, Encoded* out) const {
    const size_t keep = max_length - (add_eos ? 1 : 0);
    for (size_t i = 0; i < out->ids.size(); ++i) {
      const size_t length = std::min(keep, out->ids[i].size());
      out->ids[i].resize(length);
      if (!out->offsets.empty()) out->offsets[i].resize(length);
      if (!add_eos) continue;
      out->ids[i].push_back(tok_->eos_id());
      if (out->offsets.empty()) continue;
      const size_t end = length == 0 ? 0 : out->offsets[i].back().end;
      out->offsets[i].push_back({end, end});
    }
  }

  // Pads every row on the right with <pad> (mask 0, offsets (0, 0)) to the longest row or to
  // max_length.
  void pad(const BatchShape& shape, Encoded* out, std::vector<std::vector<int32_t>>* mask) const {
    size_t length = shape.padding == BatchShape::Padding::kMaxLength ? shape.max_length : 0;
    for (const auto& ids : out->ids) length = std::max(length, ids.size());
    for (size_t i = 0; i < out->ids.size(); ++i) {
      out->ids[i].resize(length, tok_->pad_id());
      (*mask)[i].resize(length, 0);
      if (!out->offsets.empty()) out->offsets[i].resize(length, tokenizer::TextSpan{0, 0});
    }
  }

  static py::list offsets_lists(const Encoded& out) {
    py::list rows;
    for (const auto& row : out.offsets) {
      py::list spans;
      for (const tokenizer::TextSpan& c : row) spans.append(py::make_tuple(c.begin, c.end));
      rows.append(spans);
    }
    return rows;
  }

  std::string cache_file_;
  std::unique_ptr<tokenizer::Tokenizer> tok_;
};

}  // namespace
}  // namespace morpheus::python

PYBIND11_MODULE(_tokenizer, m) {
  using morpheus::python::ids_of;
  using morpheus::python::Tokenizer;
  m.doc() = "The Morpheus tokenizer (torch-free); see morpheus.Tokenizer.";
  // The module file of a directory's transformers files (tokenizer/hf_files.h; morpheus.hf).
  m.attr("HF_MODULE_SOURCE") = morpheus::tokenizer::kHfModuleSource;
  py::class_<Tokenizer>(m, "Tokenizer", R"(A tokenizer directory written by `morpheus export`.

Loading checks the checksums and the self-test as `morpheus encode` does. Letter runs missing
from the segment table go to the model, run in this process by the torch-free engine (loaded
from the directory's model.weights on the first miss; `threads` threads per batch of new words,
--model-threads); `device` must be "cpu" (a GPU is `morpheus-torch encode --device cuda`).
`cache_file` is --cache-file of `morpheus encode|segment`: a persistent cache of the model's
segmentations, created when absent, read before the model is asked and appended to
(tokenizer/segment_cache.h); the file is locked while the Tokenizer lives, so a second writer
(process or Tokenizer) on it raises RuntimeError.)")
      .def(py::init<const std::string&, bool, const std::string&, const std::string&, size_t>(),
           py::arg("path"), py::arg("self_test") = true, py::arg("cache_file") = "",
           py::arg("device") = "cpu", py::arg("threads") = 1)
      .def("encode", &Tokenizer::encode, py::arg("text"), py::arg("allow_invalid") = false,
           py::arg("add_bos") = false, py::arg("add_eos") = false,
           "Ids of one text (str, or bytes with allow_invalid=True for invalid UTF-8 as byte "
           "tokens); the ids `morpheus encode` writes for that line. add_bos/add_eos put <s> "
           "first and </s> last (RuntimeError when the tokenizer has none). "
           "Special token strings in the text (\"<s>\") are encoded as characters; user "
           "symbols are matched.")
      .def("offsets", &Tokenizer::offsets, py::arg("text"), py::arg("allow_invalid") = false,
           py::arg("add_bos") = false, py::arg("add_eos") = false,
           "Per id of encode(text, ...), its (begin, end) in the characters of `text` "
           "(text[begin:end]); case tokens, <s> and </s> are empty, the byte tokens of one "
           "character each cover it.")
      .def("encode_batch", &Tokenizer::encode_batch, py::arg("texts"), py::arg("threads") = 1,
           py::arg("add_bos") = false, py::arg("add_eos") = false, py::arg("padding") = false,
           py::arg("max_length") = py::none(), py::arg("truncation") = false,
           py::arg("return_tensors") = py::none(), py::arg("return_offsets") = false,
           py::arg("return_attention_mask") = false,
           R"(Ids of every text: one model call for all letter runs the table lacks, then
`threads` workers encode (the GIL is released).

With the defaults: a list of id lists. With padding, return_tensors, return_offsets or
return_attention_mask: a dict {"input_ids", "attention_mask"[, "offsets"]} (as transformers'
tokenizers return).
padding: False, True or "longest" (to the longest text), "max_length" (to max_length), with
<pad> on the right (attention_mask 0, offsets (0, 0)); ValueError when the tokenizer has no <pad>.
truncation: cut every text to max_length ids (</s> kept last with add_eos).
return_tensors: None (lists), "np" (int64 numpy arrays) or "pt" (torch tensors; torch is imported
on first use); rows must be of one length (padding).
return_offsets: per id its (begin, end) in the characters of its text (see offsets()).)")
      .def(
          "decode",
          [](const Tokenizer& t, const py::object& ids, bool skip_special) {
            return t.decode(ids_of<std::vector<int32_t>>(ids), skip_special);
          },
          py::arg("ids"), py::arg("skip_special_tokens") = true,
          "The text of `ids` (a sequence of ints, a numpy array or a torch tensor); special "
          "tokens (<pad>, <s>, ...) are dropped unless skip_special_tokens=False.")
      .def(
          "decode_batch",
          [](const Tokenizer& t, const py::object& batch, bool skip_special) {
            return t.decode_batch(ids_of<std::vector<std::vector<int32_t>>>(batch), skip_special);
          },
          py::arg("batch"), py::arg("skip_special_tokens") = true,
          "decode() of every row (a list of id lists, a 2-D numpy array or torch tensor).")
      .def(
          "decode_bytes",
          [](const Tokenizer& t, const py::object& ids, bool skip_special) {
            return py::bytes(t.decode_bytes(ids_of<std::vector<int32_t>>(ids), skip_special));
          },
          py::arg("ids"), py::arg("skip_special_tokens") = true,
          "The bytes of `ids` (for texts encoded with allow_invalid=True).")
      .def("segment", &Tokenizer::segment, py::arg("word"),
           "Pieces of one word in its original case (`morpheus segment`); they concatenate to "
           "the word.")
      .def("segment_text", &Tokenizer::segment, py::arg("text"),
           "Pieces of every span of a running-text line (`morpheus segment --text`); they "
           "concatenate to the text.")
      .def("id_to_piece", &Tokenizer::id_to_piece, py::arg("id"),
           "\"<0x41>\", \"<cap>\", \"<upper>\", \"<upper_word>\", the piece string, the special "
           "token or the user symbol.")
      .def("piece_to_id", &Tokenizer::piece_to_id, py::arg("piece"), "Id of a piece string, or -1.")
      .def_property_readonly("vocab_size", &Tokenizer::vocab_size, "Number of ids.")
      .def_property_readonly(
          "pad_id", [](const Tokenizer& t) { return t.tok().pad_id(); }, "Id of <pad>, or -1.")
      .def_property_readonly(
          "bos_id", [](const Tokenizer& t) { return t.tok().bos_id(); }, "Id of <s>, or -1.")
      .def_property_readonly(
          "eos_id", [](const Tokenizer& t) { return t.tok().eos_id(); }, "Id of </s>, or -1.")
      .def_property_readonly(
          "mask_id", [](const Tokenizer& t) { return t.tok().mask_id(); }, "Id of <mask>, or -1.")
      .def_property_readonly(
          "special_tokens", [](const Tokenizer& t) { return t.tok().special_tokens(); },
          "The special tokens in id order (ids after the pieces).")
      .def_property_readonly(
          "user_symbols", [](const Tokenizer& t) { return t.tok().user_symbols(); },
          "The user symbols in id order (ids after the special tokens), matched in text.")
      .def_property_readonly("path", &Tokenizer::path, "The tokenizer directory.")
      .def_property_readonly("table_hits", &Tokenizer::table_hits,
                             "Letter runs answered by the segment table so far.")
      .def_property_readonly("model_runs", &Tokenizer::model_runs,
                             "Letter runs sent to the model so far.")
      .def_property_readonly("cache_file", &Tokenizer::cache_file,
                             "The persistent segmentation cache file, or \"\" without one.")
      .def_property_readonly("cache_file_hits", &Tokenizer::cache_file_hits,
                             "Distinct letter runs the cache file answered so far (instead of "
                             "the model).");
}
