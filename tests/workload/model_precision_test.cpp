#include <gtest/gtest.h>

#include "sim/core/input_error.h"
#include "sim/workload/model_graph.h"

namespace scalecast {
namespace {

// --precision: activations (and so the backward pass's activation gradients) take the new value
// size; weights, their gradients and the data loader's input keep theirs.
TEST(ModelPrecision, ActivationsFollowWeightsStay) {
  const ModelGraph fp16 = load_model_graph("resnet50");
  ASSERT_EQ(fp16.precision, "fp16");
  const ModelGraph fp32 = at_precision(fp16, "fp32");
  const ModelGraph fp8 = at_precision(fp16, "fp8");
  EXPECT_EQ(fp32.precision, "fp32");
  ASSERT_EQ(fp32.operators.size(), fp16.operators.size());
  for (size_t i = 0; i < fp16.operators.size(); ++i) {
    const Operator &a = fp16.operators[i], &b = fp32.operators[i], &c = fp8.operators[i];
    EXPECT_DOUBLE_EQ(b.activation_bytes_per_sample, 2 * a.activation_bytes_per_sample) << a.name;
    EXPECT_DOUBLE_EQ(c.activation_bytes_per_sample, a.activation_bytes_per_sample / 2) << a.name;
    EXPECT_EQ(b.parameter_bytes, a.parameter_bytes) << a.name;
    EXPECT_EQ(b.input_bytes_per_sample, a.input_bytes_per_sample) << a.name;
    EXPECT_EQ(b.flops_per_sample, a.flops_per_sample) << a.name;
  }
  EXPECT_DOUBLE_EQ(at_precision(fp16, "bf16").operators[3].activation_bytes_per_sample,
                   fp16.operators[3].activation_bytes_per_sample);
  EXPECT_THROW(at_precision(fp16, "int4"), RequestError);
  EXPECT_EQ(bytes_per_value("tf32"), 4);
}

}  // namespace
}  // namespace scalecast
