// SPDX-License-Identifier: MIT
// morpheus._embed: word embeddings of a Morpheus tokenizer directory from Python, torch-free: the
// vectors `morpheus embed` writes, from the engine (engine/directory.h) of the tokenizer loaded
// with its checksums and self-tests.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "engine/directory.h"
#include "engine/embedding_layout.h"
#include "python/status_error.h"
#include "tokenizer/tokenizer.h"

namespace py = pybind11;

namespace morpheus::python {
namespace {

class Embedder {
 public:
  Embedder(const std::string& path, const std::string& device, size_t batch_size, size_t threads)
      : batch_size_(batch_size) {
    if (batch_size_ == 0) check(invalid_argument("batch_size must be at least 1"));
    if (threads == 0) check(invalid_argument("threads must be at least 1"));
    if (device != "cpu") {
      check(invalid_argument("device \"" + device + "\": the embedder runs on the CPU",
                             "for a GPU, embed with: morpheus-torch embed --device cuda"));
    }
    tok_ =
        value_or_raise(tokenizer::Tokenizer::load(path, true, engine::engine_model_spec(threads)));
    model_ = value_or_raise(engine::engine_model(*tok_));
  }

  py::array_t<float> embed(const std::vector<std::string>& words, const std::string& part) const {
    const engine::EmbeddingLayout& layout = model_->embedding_layout();
    const engine::EmbeddingPart columns = value_or_raise(layout.part(part));
    py::array_t<float> out({words.size(), columns.dim});
    float* data = out.mutable_data();
    {
      py::gil_scoped_release release;
      for (size_t begin = 0; begin < words.size(); begin += batch_size_) {
        const size_t end = std::min(words.size(), begin + batch_size_);
        const std::vector<std::string> block(words.begin() + static_cast<ptrdiff_t>(begin),
                                             words.begin() + static_cast<ptrdiff_t>(end));
        const std::vector<float> rows =
            engine::take_part(model_->embed(block), block.size(), layout.dim(), columns);
        std::memcpy(data + begin * columns.dim, rows.data(), rows.size() * sizeof(float));
      }
    }
    return out;
  }

  std::vector<py::dict> parts() const {
    std::vector<py::dict> out;
    for (const engine::EmbeddingPart& p : model_->embedding_layout().parts()) {
      py::dict d;
      d["name"] = p.name;
      d["offset"] = p.offset;
      d["dim"] = p.dim;
      out.push_back(d);
    }
    return out;
  }

  size_t dim() const { return model_->embedding_dim(); }
  const std::string& path() const { return tok_->dir(); }

 private:
  size_t batch_size_;
  std::unique_ptr<tokenizer::Tokenizer> tok_;
  const engine::EngineSegmenter* model_ = nullptr;
};

}  // namespace
}  // namespace morpheus::python

PYBIND11_MODULE(_embed, m) {
  using morpheus::python::Embedder;
  m.doc() = "Word embeddings of a Morpheus tokenizer (torch-free); see morpheus.Embedder.";
  py::class_<Embedder>(m, "Embedder", R"(The word embedder of a tokenizer directory.

Loads the tokenizer as `morpheus embed` does (checksums, table and model self-tests) and runs
its model on the torch-free engine (model.weights), `threads` threads per batch of `batch_size`
words. `device` must be "cpu" (a GPU is `morpheus-torch embed --device cuda`).)")
      .def(py::init<const std::string&, const std::string&, size_t, size_t>(), py::arg("path"),
           py::arg("device") = "cpu", py::arg("batch_size") = 16384, py::arg("threads") = 1)
      .def("embed", &Embedder::embed, py::arg("words"), py::arg("part") = "full",
           "float32 array (len(words), dim of the part): one row per word, the rows `morpheus "
           "embed --part` writes (the GIL is released). part: \"full\" or a name of `parts`.")
      .def_property_readonly("parts", &Embedder::parts,
                             "The parts of a full row in order: [{name, offset, dim}] (one part "
                             "\"full\" for a directory exported before the parts).")
      .def_property_readonly("dim", &Embedder::dim, "Dimension of a full row.")
      .def_property_readonly(
          "device", [](const Embedder&) { return std::string("cpu"); },
          "The device the model runs on (\"cpu\").")
      .def_property_readonly("path", &Embedder::path, "The tokenizer directory.");
}
