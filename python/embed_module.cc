// SPDX-License-Identifier: MIT
// morpheus._embed: word embeddings of a Morpheus tokenizer directory from Python (LibTorch), the
// vectors `morpheus embed` writes: infer::load_with_model (checksums, self-tests), its
// NeuralSegmenter on the device of model::resolve_device (as train --device), embed_words
// (embed/word_vectors.h).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/torch.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "embed/word_vectors.h"
#include "infer/tokenizer_model.h"
#include "model/runtime.h"
#include "python/status_error.h"

namespace py = pybind11;

namespace morpheus::python {
namespace {

class Embedder {
 public:
  Embedder(const std::string& path, const std::string& device, size_t batch_size, int threads)
      : batch_size_(batch_size) {
    if (batch_size_ == 0) check(invalid_argument("batch_size must be at least 1"));
    // The trainer's --device: "cuda" without CUDA is FAILED_PRECONDITION (RuntimeError).
    const torch::Device resolved = value_or_raise(model::resolve_device(device));
    model::configure_device(resolved);
    if (threads > 0) torch::set_num_threads(threads);
    infer::NeuralSegmenterOptions options;
    options.cache_capacity = 0;  // as `morpheus embed`
    options.device = resolved;
    tok_ = value_or_raise(infer::load_with_model(path, options));
    seg_ = value_or_raise(infer::neural_model(*tok_));
  }

  py::array_t<float> embed(const std::vector<std::string>& words) const {
    torch::Tensor emb;
    {
      py::gil_scoped_release release;
      emb = embed::embed_words(*seg_, words, batch_size_);
    }
    py::array_t<float> out({emb.size(0), emb.size(1)});
    std::memcpy(out.mutable_data(), emb.data_ptr<float>(),
                static_cast<size_t>(emb.numel()) * sizeof(float));
    return out;
  }

  int64_t dim() const { return seg_->embedding_dim(); }
  std::string device() const { return seg_->device().str(); }
  const std::string& path() const { return tok_->dir(); }

 private:
  size_t batch_size_;
  std::unique_ptr<tokenizer::Tokenizer> tok_;
  const infer::NeuralSegmenter* seg_ = nullptr;
};

}  // namespace
}  // namespace morpheus::python

PYBIND11_MODULE(_embed, m) {
  using morpheus::python::Embedder;
  m.doc() = "Word embeddings of a Morpheus tokenizer (LibTorch); see morpheus.Embedder.";
  py::class_<Embedder>(m, "Embedder", R"(The word embedder of a tokenizer directory.

Loads the model as `morpheus embed` does (checksums, table and model self-tests). `device` is
resolved as `morpheus train --device` resolves it: "auto" is the first CUDA device when LibTorch
has CUDA and sees a GPU, else the CPU; "cpu"; "cuda" or "cuda:N" raise RuntimeError when CUDA is
unavailable (ValueError for an unknown name). The model and each batch's inputs live on that
device; embed() returns float32 rows on the CPU. The CUDA path is compiled but untested here:
Debian's libtorch-dev is CPU-only, so "auto" is the CPU unless built against a CUDA LibTorch.
`batch_size` words go through the model per call (morpheus embed: 16384); `threads` > 0 sets
LibTorch's intra-op threads for the process.)")
      .def(py::init<const std::string&, const std::string&, size_t, int>(), py::arg("path"),
           py::arg("device") = "cpu", py::arg("batch_size") = 16384, py::arg("threads") = 0)
      .def("embed", &Embedder::embed, py::arg("words"),
           "float32 array (len(words), dim): one row per word, the rows `morpheus embed` writes "
           "(the GIL is released).")
      .def_property_readonly("dim", &Embedder::dim, "Embedding dimension.")
      .def_property_readonly("device", &Embedder::device,
                             "The device the model runs on (\"cpu\", \"cuda:0\", ...).")
      .def_property_readonly("path", &Embedder::path, "The tokenizer directory.");
}
