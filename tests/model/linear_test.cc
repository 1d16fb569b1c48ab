// SPDX-License-Identifier: MIT
// model::Linear: the float path equals torch::nn::Linear; dynamic int8 only inside an Int8Scope,
// in eval mode, close to float; quantize_dynamic_int8 packs every Linear of a model once.
#include "model/linear.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "model/morpheus.h"

namespace morpheus::model {
namespace {

TEST(LinearTest, FloatPathEqualsTorchLinear) {
  torch::manual_seed(5);
  Linear ours(48, 96);
  torch::nn::Linear theirs(48, 96);
  theirs->weight.data().copy_(ours->weight);
  theirs->bias.data().copy_(ours->bias);
  const torch::Tensor x = torch::randn({7, 48});
  EXPECT_TRUE(torch::equal(ours(x), theirs(x)));
}

TEST(LinearTest, Int8RunsOnlyInsideAScopeInEvalModeAndStaysClose) {
  torch::manual_seed(6);
  Linear layer(64, 128);
  layer->eval();
  const torch::Tensor x = torch::randn({300, 64});
  const torch::Tensor reference = layer(x).detach();
  ASSERT_TRUE(quantize_dynamic_int8(*layer).ok());
  ASSERT_TRUE(layer->quantized());
  c10::InferenceMode inference;
  EXPECT_TRUE(torch::equal(layer(x), reference));  // no scope: float
  torch::Tensor int8;
  {
    const Int8Scope scope(true);
    EXPECT_TRUE(Int8Scope::active());
    int8 = layer(x);
    layer->train();
    EXPECT_TRUE(torch::equal(layer(x), reference));  // training mode: float
    layer->eval();
  }
  EXPECT_FALSE(Int8Scope::active());
  EXPECT_FALSE(torch::equal(int8, reference));
  // int8 weights and inputs: error a small fraction of the output scale.
  const double error = (int8 - reference).abs().max().item<double>();
  EXPECT_LT(error, 0.03 * reference.abs().max().item<double>());
}

TEST(LinearTest, QuantizeDynamicInt8PacksEveryLinearOnce) {
  ModelConfig config;
  config.char_vocab_size = 40;
  config.char_dim = 32;
  config.num_heads = 2;
  config.n_layers_encoder = 1;
  config.n_layers_detector = 1;
  config.depth_weights = {1.0};
  config.cnn_kernels = {2, 3};
  config.cnn_channels = 16;
  Morpheus model(config);
  int linears = 0;
  for (const auto& m : model->modules()) linears += dynamic_cast<LinearImpl*>(m.get()) ? 1 : 0;
  ASSERT_GT(linears, 8);
  StatusOr<int> packed = quantize_dynamic_int8(*model);
  ASSERT_TRUE(packed.ok()) << packed.status().to_string();
  EXPECT_EQ(*packed, linears);
  packed = quantize_dynamic_int8(*model);
  ASSERT_TRUE(packed.ok());
  EXPECT_EQ(*packed, 0);
}

}  // namespace
}  // namespace morpheus::model
