// The shipped presets: they load, they are what the generator writes, and their totals match the
// published architecture figures workloads/README.md quotes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "sim/workload/model_graph.h"
#include "sim/workload/transformer.h"
#include "sim/workload/training_graph.h"

namespace scalecast {
namespace {

int index_of(const ModelGraph& model, const std::string& name) {
  for (size_t i = 0; i < model.operators.size(); ++i)
    if (model.operators[i].name == name) return static_cast<int>(i);
  ADD_FAILURE() << "no operator " << name << " in " << model.name;
  return -1;
}

bool reads(const ModelGraph& model, const std::string& consumer, const std::string& producer) {
  const int c = index_of(model, consumer), p = index_of(model, producer);
  if (c < 0 || p < 0) return false;
  for (int input : model.operators[c].inputs)
    if (input == p) return true;
  return false;
}

TEST(Presets, CommittedFilesAreWhatTheGeneratorWrites) {
  const std::string command = "python3 " + std::string(SCALECAST_SOURCE_DIR) +
                              "/tools/workloads/generate_workloads.py --check";
  if (std::system("python3 --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  EXPECT_EQ(std::system(command.c_str()), 0);
}

TEST(Presets, AllLoadAndMatchPublishedSizes) {
  const std::vector<std::string> presets = workload_presets();  // cost-model.yaml is not one
  for (const char* name : {"biglstm", "biglstm_wavefront", "gnmt", "gnmt_wavefront", "gpt", "gpt3-175b", "inception_v3",
                           "llama-70b", "resnet50"})
    EXPECT_NE(std::find(presets.begin(), presets.end(), name), presets.end()) << name;
  EXPECT_EQ(std::find(presets.begin(), presets.end(), "cost-model"), presets.end());
  struct Expect {
    const char* name;
    double gflops, gflops_tolerance, params_m, params_tolerance;
  };
  // Forward GFLOP = 2 x GMACs. Inception-V3 5.71 GMACs / 27.16 M parameters with the auxiliary
  // head, ResNet-50 4.09 GMACs / 25.56 M (torchvision); BigLSTM 1.8 B parameters (Jozefowicz et
  // al.); GPT-2 medium 355 M (Radford et al.); GNMT about 278 M (8+8 layers, 1024 units, 32k).
  const Expect expected[] = {{"inception_v3", 11.42, 0.1, 27.16, 0.05}, {"resnet50", 8.18, 0.1, 25.56, 0.05},
                             {"biglstm", 6.37, 0.1, 1800, 30}, {"gpt", 827, 5, 355, 1}, {"gnmt", 10.55, 0.1, 277, 5},
                             {"biglstm_wavefront", 6.37, 0.1, 1800, 30}, {"gnmt_wavefront", 10.55, 0.1, 277, 5}};
  for (const Expect& e : expected) {
    const ModelGraph model = load_model_graph(e.name);
    EXPECT_EQ(model.name, e.name);
    const Operator& loss = model.operators.back();
    EXPECT_EQ(loss.kind, kLossKind);
    const double gflops = (forward_flops_per_sample(model) - loss.flops_per_sample) / 1e9;
    EXPECT_NEAR(gflops, e.gflops, e.gflops_tolerance) << e.name;
    EXPECT_NEAR(parameter_bytes(model) / 4 / 1e6, e.params_m, e.params_tolerance) << e.name;
    const TrainingGraph step = training_graph(model, model.batch_per_gpu);
    EXPECT_GT(step.tasks.size(), 2 * model.operators.size() - 10) << e.name;
    EXPECT_GT(model.statistical_efficiency.epochs(model.batch_per_gpu), 0);
    EXPECT_FALSE(model.statistical_efficiency.source.empty());
  }
}

// The transformer presets carry their published configuration, from which the loader derives
// the operator graph: GPT-3 175B (Brown et al. 2020: 175.0 B) and Llama 2 70B (68.98 B).
TEST(Presets, TransformersMatchPublishedSizes) {
  for (const auto& [name, params_b, tolerance_b, global_batch] :
       {std::tuple{"gpt3-175b", 175.0, 0.5, 1536}, {"llama-70b", 68.98, 0.01, 1024}}) {
    const ModelGraph model = load_model_graph(name);
    ASSERT_TRUE(model.transformer.has_value()) << name;
    EXPECT_NEAR(transformer_parameters(*model.transformer) / 1e9, params_b, tolerance_b) << name;
    EXPECT_NEAR(parameter_bytes(model) / 4 / 1e9, params_b, tolerance_b) << name;
    EXPECT_EQ(model.global_batch, global_batch) << name;
    EXPECT_EQ(model.statistical_efficiency.epochs(*model.global_batch), 1) << name;  // one pass over the token budget
  }
}

TEST(Presets, InceptionBranchesAreSeparateParallelOperators) {
  const ModelGraph model = load_model_graph("inception_v3");
  // Mixed_5b's four branches all read the stem's output and meet in the concat.
  for (const char* branch : {"Mixed_5b.branch1x1", "Mixed_5b.branch5x5_1", "Mixed_5b.branch3x3dbl_1",
                             "Mixed_5b.branch_pool.avgpool"})
    EXPECT_TRUE(reads(model, branch, "maxpool2")) << branch;
  EXPECT_TRUE(reads(model, "Mixed_5b.concat", "Mixed_5b.branch5x5_2"));
  EXPECT_FALSE(reads(model, "Mixed_5b.branch5x5_2", "Mixed_5b.branch1x1"));
  EXPECT_TRUE(reads(model, "AuxLogits.avgpool", "Mixed_6e.concat"));
}

// The presets run each LSTM layer as one operator over the sequence, as cuDNN does: the next
// layer reads the whole of it.
TEST(Presets, LstmLayersAreWholeSequences) {
  const ModelGraph model = load_model_graph("gnmt");
  EXPECT_TRUE(reads(model, "encoder.l2.t0", "encoder.l1.t0"));
  EXPECT_TRUE(reads(model, "encoder.l1.t0", "encoder.l0.backward.t0"));
  EXPECT_TRUE(reads(model, "decoder.l3.t0", "attention.t0"));
  for (const Operator& op : model.operators) EXPECT_EQ(op.name.find(".t1"), std::string::npos) << op.name;
  const ModelGraph big = load_model_graph("biglstm");
  EXPECT_TRUE(reads(big, "lstm1.t0", "lstm0.t0"));
  EXPECT_EQ(big.operators[index_of(big, "lstm1.t0")].shares_parameters_of, -1);
}

TEST(Presets, WavefrontVariantsUnrollLstmLayersInTime) {
  const ModelGraph model = load_model_graph("gnmt_wavefront");
  EXPECT_TRUE(reads(model, "encoder.l2.t3", "encoder.l1.t3"));  // layer below, same chunk
  EXPECT_TRUE(reads(model, "encoder.l2.t3", "encoder.l2.t2"));  // same layer, previous chunk
  EXPECT_TRUE(reads(model, "encoder.l0.backward.t2", "encoder.l0.backward.t3"));  // runs backwards in time
  EXPECT_TRUE(reads(model, "encoder.l1.t0", "encoder.l0.backward.t0"));
  EXPECT_TRUE(reads(model, "decoder.l3.t1", "attention.t1"));
  const int later = index_of(model, "encoder.l2.t3"), owner = index_of(model, "encoder.l2.t0");
  EXPECT_EQ(model.operators[later].shares_parameters_of, owner);
  EXPECT_EQ(model.operators[later].parameter_bytes, 0);
  // The recurrent edge carries the (h, c) state only: 2 x 1024 fp32 values per sample.
  const Operator& op = model.operators[later];
  for (size_t k = 0; k < op.inputs.size(); ++k) {
    if (op.inputs[k] == index_of(model, "encoder.l2.t2")) {
      EXPECT_EQ(input_edge_bytes(model, later, k), 8192);
    }
  }
  // BigLSTM: the sampled softmax's gradient is sparse.
  const ModelGraph big = load_model_graph("biglstm_wavefront");
  const Operator& softmax = big.operators[index_of(big, "softmax.t0")];
  EXPECT_LT(gradient_bytes(softmax, 128), 0.02 * softmax.parameter_bytes);
}

}  // namespace
}  // namespace scalecast
