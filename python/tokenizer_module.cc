// SPDX-License-Identifier: MIT
// morpheus._tokenizer: the Morpheus tokenizer (tokenizer/tokenizer.h) from Python, torch-free. The
// calls are those of `morpheus encode|decode|segment` (tools/cmd_tokenize.cc): Tokenizer::prefetch
// sends the letter runs the segment table lacks to the model in one call (the
// `morpheus-model-server` co-process, tokenizer/model_client.h, started on the first miss), then
// Tokenizer::encode / segment / decode. cache_file is their --cache-file
// (Tokenizer::attach_cache, tokenizer/segment_cache.h): runs outside the table are looked up there
// before the model, and what the model segments is appended to it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "python/status_error.h"
#include "tokenizer/model_client.h"
#include "tokenizer/tokenizer.h"

namespace py = pybind11;

namespace morpheus::python {
namespace {

#ifdef MORPHEUS_BUILD_MODEL_SERVER
constexpr const char* kBuildModelServer = MORPHEUS_BUILD_MODEL_SERVER;
#else
constexpr const char* kBuildModelServer = "";
#endif

// Encodes texts[begin, end) into ids[begin, end); the first error wins.
Status encode_range(const tokenizer::Tokenizer& tok, const std::vector<std::string>& texts,
                    size_t begin, size_t end, std::vector<std::vector<int32_t>>* ids) {
  for (size_t i = begin; i < end; ++i) {
    const Status s = tok.encode(texts[i], &(*ids)[i], false);
    if (!s.ok())
      return Status(s.code(), "text " + std::to_string(i) + ": " + s.message(), s.hint());
  }
  return ok_status();
}

class Tokenizer {
 public:
  Tokenizer(const std::string& path, const std::string& model_server, size_t cache, bool self_test,
            const std::string& cache_file, const std::string& device)
      : cache_file_(cache_file) {
    tokenizer::SegmenterSpec model;
    if (!model_server.empty()) {
      tokenizer::ModelRequest request;
      request.cache = cache;
      request.device = device;
      model = tokenizer::model_server_factory(model_server, request);
    }
    tok_ = value_or_raise(tokenizer::Tokenizer::load(path, self_test, std::move(model)));
    if (!cache_file.empty()) check(tok_->attach_cache(cache_file));
  }

  std::vector<int32_t> encode(const std::string& text, bool allow_invalid) const {
    std::vector<int32_t> ids;
    Status status = ok_status();
    {
      py::gil_scoped_release release;
      status = tok_->prefetch({text});
      if (status.ok()) status = tok_->encode(text, &ids, allow_invalid);
    }
    check(status);
    return ids;
  }

  // One prefetch for the whole batch (as the CLI does per block), then `threads` workers.
  std::vector<std::vector<int32_t>> encode_batch(const std::vector<std::string>& texts,
                                                 size_t threads) const {
    std::vector<std::vector<int32_t>> ids(texts.size());
    Status status = ok_status();
    {
      py::gil_scoped_release release;
      status = tok_->prefetch(texts);
      if (status.ok()) status = encode_parallel(texts, std::max<size_t>(1, threads), &ids);
    }
    check(status);
    return ids;
  }

  py::str decode(const std::vector<int32_t>& ids) const {
    const std::string text = decode_bytes(ids);
    PyObject* s = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), nullptr);
    if (s == nullptr) {
      PyErr_Clear();
      check(invalid_argument("the ids decode to bytes that are not valid UTF-8 (byte tokens)",
                             "use decode_bytes() for text encoded with allow_invalid=True"));
    }
    return py::reinterpret_steal<py::str>(s);
  }

  std::string decode_bytes(const std::vector<int32_t>& ids) const {
    std::string text;
    check(tok_->decode(ids, &text));
    return text;
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
  const std::string& path() const { return tok_->dir(); }
  uint64_t table_hits() const { return tok_->table_hits(); }
  uint64_t model_runs() const { return tok_->model_runs(); }
  uint64_t cache_file_hits() const { return tok_->run_stats().cache; }
  const std::string& cache_file() const { return cache_file_; }

 private:
  Status encode_parallel(const std::vector<std::string>& texts, size_t threads,
                         std::vector<std::vector<int32_t>>* ids) const {
    const size_t n = texts.size();
    threads = std::min(threads, std::max<size_t>(1, n));
    std::vector<Status> results(threads, ok_status());
    std::vector<std::thread> workers;
    for (size_t t = 1; t < threads; ++t) {
      workers.emplace_back([&, t] {
        results[t] = encode_range(*tok_, texts, n * t / threads, n * (t + 1) / threads, ids);
      });
    }
    results[0] = encode_range(*tok_, texts, 0, n / threads, ids);
    for (std::thread& w : workers) w.join();
    for (const Status& s : results) MORPHEUS_RETURN_IF_ERROR(s);
    return ok_status();
  }

  std::string cache_file_;
  std::unique_ptr<tokenizer::Tokenizer> tok_;
};

}  // namespace
}  // namespace morpheus::python

PYBIND11_MODULE(_tokenizer, m) {
  using morpheus::python::Tokenizer;
  m.doc() = "The Morpheus tokenizer (torch-free); see morpheus.Tokenizer.";
  m.attr("BUILD_MODEL_SERVER") = morpheus::python::kBuildModelServer;
  py::class_<Tokenizer>(m, "Tokenizer", R"(A tokenizer directory written by `morpheus export`.

Loading checks the checksums and the self-test as `morpheus encode` does. Letter runs missing
from the segment table go to `model_server` (the `morpheus-model-server` binary, started on
the first miss); with model_server="" they are an error. `cache` is the model server's LRU
(--cache), `device` where it runs (auto, cpu, cuda or cuda:N; --device). `cache_file` is --cache-file of `morpheus encode|segment`: a persistent cache of the
model's segmentations, created when absent, read before the model is asked and appended to
(tokenizer/segment_cache.h); the file is locked while the Tokenizer lives, so a second writer
(process or Tokenizer) on it raises RuntimeError.)")
      .def(py::init<const std::string&, const std::string&, size_t, bool, const std::string&,
                    const std::string&>(),
           py::arg("path"), py::arg("model_server") = "", py::arg("cache") = size_t{1} << 20,
           py::arg("self_test") = true, py::arg("cache_file") = "", py::arg("device") = "cpu")
      .def("encode", &Tokenizer::encode, py::arg("text"), py::arg("allow_invalid") = false,
           "Ids of one text (str, or bytes with allow_invalid=True for invalid UTF-8 as byte "
           "tokens); the ids `morpheus encode` writes for that line.")
      .def("encode_batch", &Tokenizer::encode_batch, py::arg("texts"), py::arg("threads") = 1,
           "Ids of every text: one model call for all letter runs the table lacks, then "
           "`threads` workers encode (the GIL is released).")
      .def("decode", &Tokenizer::decode, py::arg("ids"), "The text of `ids` (str).")
      .def(
          "decode_bytes",
          [](const Tokenizer& t, const std::vector<int32_t>& ids) {
            return py::bytes(t.decode_bytes(ids));
          },
          py::arg("ids"), "The bytes of `ids` (for texts encoded with allow_invalid=True).")
      .def("segment", &Tokenizer::segment, py::arg("word"),
           "Pieces of one word in its original case (`morpheus segment`); they concatenate to "
           "the word.")
      .def("segment_text", &Tokenizer::segment, py::arg("text"),
           "Pieces of every span of a running-text line (`morpheus segment --text`); they "
           "concatenate to the text.")
      .def("id_to_piece", &Tokenizer::id_to_piece, py::arg("id"),
           "\"<0x41>\", \"<cap>\", \"<upper>\", \"<upper_word>\" or the piece string.")
      .def("piece_to_id", &Tokenizer::piece_to_id, py::arg("piece"), "Id of a piece string, or -1.")
      .def_property_readonly("vocab_size", &Tokenizer::vocab_size, "Number of ids.")
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
