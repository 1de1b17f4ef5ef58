#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/core/input_error.h"
#include "sim/workload/model_graph.h"
#include "tests/support/yaml_edits.h"

namespace scalecast {
namespace {

// A diamond a -> {b, c} -> d, listed out of order (d first) to exercise the topological sort.
const std::string kHeader = R"(name: tiny
precision: fp32
batch_per_gpu: 8
dataset: {name: toy, samples: 1000}
target_metric: loss 1.0
statistical_efficiency: {min_epochs: 10, critical_batch: 100, source: made up for the test}
)";
const std::string kOperators = R"(operators:
  - {name: d, kind: matmul, flops_per_sample: 40, activation_bytes_per_sample: 40, parameter_bytes: 400, inputs: [b, c]}
  - {name: a, kind: conv, flops_per_sample: 10, activation_bytes_per_sample: 100, parameter_bytes: 1000, input_bytes_per_sample: 12}
  - {name: b, kind: conv, flops_per_sample: 20, activation_bytes_per_sample: 200, parameter_bytes: 2000, inputs: [a]}
  - {name: c, kind: elementwise, flops_per_sample: 30, activation_bytes_per_sample: 300, inputs: [a]}
)";

ModelGraph parse(const std::string& text) { return parse_model_graph_yaml(text, "workloads/x.yaml"); }

// Parses `text` expecting an InputError; returns it for the caller to check source and field.
InputError parse_error(const std::string& text) {
  return testing::input_error_of([](const std::string& t) { parse(t); }, text);
}

using testing::replace;

TEST(ModelGraphYaml, ReadsFieldsAndOrdersOperatorsTopologically) {
  const ModelGraph model = parse(kHeader + kOperators);
  EXPECT_EQ(model.name, "tiny");
  EXPECT_EQ(model.source, "workloads/x.yaml");
  EXPECT_EQ(model.batch_per_gpu, 8);
  EXPECT_EQ(model.dataset_samples, 1000);
  EXPECT_EQ(model.precision, "fp32");
  EXPECT_EQ(model.target_metric, "loss 1.0");
  EXPECT_EQ(model.statistical_efficiency.min_epochs, 10);
  EXPECT_EQ(model.statistical_efficiency.critical_batch, 100);
  ASSERT_EQ(model.operators.size(), 5u);  // a, b, c, d and the generated loss
  EXPECT_EQ(model.operators[0].name, "a");
  EXPECT_EQ(model.operators[1].name, "b");
  EXPECT_EQ(model.operators[2].name, "c");
  EXPECT_EQ(model.operators[3].name, "d");
  EXPECT_EQ(model.operators[3].inputs, (std::vector<int>{1, 2}));
  EXPECT_EQ(model.operators[0].input_bytes_per_sample, 12);
  EXPECT_EQ(model.operators[2].parameter_bytes, 0);
  for (size_t i = 0; i < model.operators.size(); ++i)
    for (int input : model.operators[i].inputs) EXPECT_LT(input, static_cast<int>(i));
}

TEST(ModelGraphYaml, AppendsLossReadingEveryOutput) {
  const ModelGraph model = parse(kHeader + kOperators);
  const Operator& loss = model.operators.back();
  EXPECT_EQ(loss.name, "loss");
  EXPECT_EQ(loss.kind, kLossKind);
  EXPECT_EQ(loss.inputs, (std::vector<int>{3}));
  EXPECT_DOUBLE_EQ(loss.flops_per_sample, 5 * 40 / 4.0);  // 10 fp32 logits, 5 FLOPs each
  EXPECT_EQ(loss.activation_bytes_per_sample, 4);
}

TEST(ModelGraphYaml, DeclaredLossIsKeptAndMustReadEveryOutput) {
  const std::string with_loss =
      kOperators + "  - {name: xent, kind: loss, flops_per_sample: 1, activation_bytes_per_sample: 4, inputs: [d]}\n";
  const ModelGraph model = parse(kHeader + with_loss);
  EXPECT_EQ(model.operators.size(), 5u);
  EXPECT_EQ(model.operators.back().name, "xent");
  const std::string dangling = with_loss + "  - {name: e, kind: conv, flops_per_sample: 1, activation_bytes_per_sample: 4, inputs: [a]}\n";
  const InputError error = parse_error(kHeader + dangling);
  EXPECT_EQ(error.field(), "operators");
  EXPECT_NE(std::string(error.what()).find("'e'"), std::string::npos) << error.what();
}

TEST(ModelGraphYaml, CycleIsRejectedNamingTheOperators) {
  // a now reads d: a -> b -> d -> a.
  const std::string cyclic = replace(kOperators, "input_bytes_per_sample: 12}", "inputs: [d]}");
  const InputError error = parse_error(kHeader + cyclic);
  EXPECT_EQ(error.source(), "workloads/x.yaml");
  EXPECT_EQ(error.field(), "operators[0].inputs");
  const std::string message = error.what();
  EXPECT_NE(message.find("cycle"), std::string::npos) << message;
  EXPECT_NE(message.find("d -> a"), std::string::npos) << message;
}

TEST(ModelGraphYaml, SelfLoopIsACycle) {
  const InputError error = parse_error(kHeader + replace(kOperators, "inputs: [a]}\n  - {name: c", "inputs: [b]}\n  - {name: c"));
  EXPECT_EQ(error.field(), "operators[2].inputs");
  EXPECT_NE(std::string(error.what()).find("b -> b"), std::string::npos) << error.what();
}

TEST(ModelGraphYaml, UnknownInputIsRejected) {
  const InputError error = parse_error(kHeader + replace(kOperators, "inputs: [b, c]", "inputs: [b, conv9]"));
  EXPECT_EQ(error.source(), "workloads/x.yaml");
  EXPECT_EQ(error.field(), "operators[0].inputs[1]");
  EXPECT_NE(std::string(error.what()).find("unknown operator 'conv9'"), std::string::npos) << error.what();
}

TEST(ModelGraphYaml, NegativeCostsAreRejected) {
  EXPECT_EQ(parse_error(kHeader + replace(kOperators, "flops_per_sample: 20", "flops_per_sample: -20")).field(),
            "operators[2].flops_per_sample");
  EXPECT_EQ(parse_error(kHeader + replace(kOperators, "activation_bytes_per_sample: 300", "activation_bytes_per_sample: -1")).field(),
            "operators[3].activation_bytes_per_sample");
  EXPECT_EQ(parse_error(kHeader + replace(kOperators, "parameter_bytes: 400", "parameter_bytes: -400")).field(),
            "operators[0].parameter_bytes");
}

// Finite is not enough: numbers lie in physical ranges (sim/core/physical_limits.h), and the
// message states the range.
TEST(ModelGraphYaml, NumbersOutsideTheirRangesAreRejected) {
  auto message_of = [](const InputError& error) { return std::string(error.what()); };
  const InputError flops = parse_error(kHeader + replace(kOperators, "flops_per_sample: 20", "flops_per_sample: 1e308"));
  EXPECT_EQ(flops.field(), "operators[2].flops_per_sample");
  EXPECT_NE(message_of(flops).find("at most 1e24 FLOPs"), std::string::npos) << flops.what();
  const InputError huge = parse_error(kHeader + replace(kOperators, "flops_per_sample: 20", "flops_per_sample: 1e400"));
  EXPECT_EQ(huge.field(), "operators[2].flops_per_sample");
  EXPECT_NE(message_of(huge).find("outside the range of numbers"), std::string::npos) << huge.what();
  EXPECT_EQ(parse_error(kHeader + replace(kOperators, "activation_bytes_per_sample: 300", "activation_bytes_per_sample: 2e18")).field(),
            "operators[3].activation_bytes_per_sample");
  EXPECT_EQ(parse_error(replace(kHeader, "samples: 1000", "samples: 1e300") + kOperators).field(), "dataset.samples");
  EXPECT_EQ(parse_error(replace(kHeader, "min_epochs: 10", "min_epochs: 1e300") + kOperators).field(),
            "statistical_efficiency.min_epochs");
  EXPECT_EQ(parse_error(replace(kHeader, "batch_per_gpu: 8", "batch_per_gpu: 100000000") + kOperators).field(), "batch_per_gpu");
  // Each operator's weights are in range, but not their sum (DP exchanges them all).
  const std::string heavy = replace(replace(kOperators, "parameter_bytes: 400", "parameter_bytes: 1e18"),
                                    "parameter_bytes: 1000", "parameter_bytes: 1e18");
  const InputError sum = parse_error(kHeader + heavy);
  EXPECT_EQ(sum.field(), "operators");
  EXPECT_NE(message_of(sum).find("2^60"), std::string::npos) << sum.what();
}

TEST(ModelGraphYaml, StrictFieldsAndTypes) {
  EXPECT_EQ(parse_error(kHeader + replace(kOperators, "kind: matmul", "kind: matmul, flop_per_sample: 3")).field(),
            "operators[0].flop_per_sample");
  EXPECT_EQ(parse_error(kHeader + replace(kOperators, "flops_per_sample: 40", "flops_per_sample: lots")).field(),
            "operators[0].flops_per_sample");
  EXPECT_EQ(parse_error(kHeader + replace(kOperators, "{name: a, ", "{")).field(), "operators[1].name");
  EXPECT_EQ(parse_error(kHeader + replace(kOperators, "name: c,", "name: b,")).field(), "operators[3].name");
  EXPECT_EQ(parse_error(kHeader + replace(kOperators, "inputs: [a]}\n  - {name: c", "inputs: [a, a]}\n  - {name: c")).field(),
            "operators[2].inputs[1]");
  EXPECT_EQ(parse_error(replace(kHeader, "batch_per_gpu: 8", "batch_per_gpu: 0") + kOperators).field(), "batch_per_gpu");
  EXPECT_EQ(parse_error(replace(kHeader, "precision: fp32", "precision: fp31") + kOperators).field(), "precision");
  EXPECT_EQ(parse_error(replace(kHeader, "samples: 1000", "samples: -5") + kOperators).field(), "dataset.samples");
  EXPECT_EQ(parse_error(replace(kHeader, "name: tiny\n", "name: tiny\ncolour: red\n") + kOperators).field(), "colour");
  EXPECT_EQ(parse_error(replace(kHeader, "target_metric: loss 1.0\n", "") + kOperators).field(), "target_metric");
  EXPECT_EQ(parse_error(kHeader + "operators: []\n").field(), "operators");
  // Data-loader bytes only on an operator without inputs.
  EXPECT_EQ(parse_error(kHeader + replace(kOperators, "parameter_bytes: 2000,", "parameter_bytes: 2000, input_bytes_per_sample: 1,")).field(),
            "operators[2].input_bytes_per_sample");
}

TEST(ModelGraphYaml, EdgeBytesAndSharedWeights) {
  const std::string text = kOperators +
      "  - {name: d2, kind: matmul, flops_per_sample: 40, activation_bytes_per_sample: 40, shares_parameters_of: d,\n"
      "     inputs: [{name: d, bytes_per_sample: 8}, c]}\n";
  const ModelGraph model = parse(kHeader + text);
  const Operator& d2 = model.operators[4];
  ASSERT_EQ(d2.name, "d2");
  EXPECT_EQ(d2.shares_parameters_of, 3);
  EXPECT_EQ(d2.input_edge_bytes_per_sample, (std::vector<double>{8, 300}));
  EXPECT_EQ(input_edge_bytes(model, 4, 1), 300);
  EXPECT_EQ(weight_bytes_used(model, 4), 400);
  EXPECT_EQ(parse_error(kHeader + replace(text, "shares_parameters_of: d,", "shares_parameters_of: c,")).field(),
            "operators[4].shares_parameters_of");  // c has no weights
  EXPECT_EQ(parse_error(kHeader + replace(text, "shares_parameters_of: d,", "shares_parameters_of: zz,")).field(),
            "operators[4].shares_parameters_of");
  EXPECT_EQ(parse_error(kHeader + replace(text, "bytes_per_sample: 8", "bytes_per_sample: -8")).field(),
            "operators[4].inputs[0].bytes_per_sample");
  EXPECT_EQ(parse_error(kHeader + replace(text, "{name: d, bytes_per_sample: 8}", "{name: dd, bytes_per_sample: 8}")).field(),
            "operators[4].inputs[0].name");
}

TEST(ModelGraphYaml, StatisticalEfficiencyForms) {
  const std::string table = replace(kHeader, "{min_epochs: 10, critical_batch: 100, source: made up for the test}",
                                    "{measured: [[256, 90], [8192, 95]]}");
  const ModelGraph model = parse(table + kOperators);
  ASSERT_EQ(model.statistical_efficiency.measured.size(), 2u);
  EXPECT_EQ(model.statistical_efficiency.measured[1], std::make_pair(8192.0, 95.0));
  EXPECT_EQ(parse_error(replace(kHeader, "critical_batch: 100,", "critical_batch: 100, measured: [[1, 2]],") + kOperators).field(),
            "statistical_efficiency.measured");
  EXPECT_EQ(parse_error(replace(kHeader, "{min_epochs: 10, critical_batch: 100, source: made up for the test}",
                                "{measured: [[256, 90], [128, 95]]}") + kOperators).field(),
            "statistical_efficiency.measured[1]");
  EXPECT_EQ(parse_error(replace(kHeader, "critical_batch: 100", "critical_batch: 0") + kOperators).field(),
            "statistical_efficiency.critical_batch");
}

TEST(ModelGraphYaml, YamlSyntaxErrorNamesTheFile) {
  const InputError error = parse_error(kHeader + "operators: [\n");
  EXPECT_EQ(error.source(), "workloads/x.yaml");
  EXPECT_NE(std::string(error.what()).find("syntax"), std::string::npos);
}

// The files in tests/workload/data are the bad inputs a CLI test can hand to --workload; the
// message must name the file and the field.
TEST(ModelGraphYaml, BadFilesNameFileAndField) {
  const std::string dir = std::string(SCALECAST_SOURCE_DIR) + "/tests/workload/data/";
  const struct {
    const char* file;
    const char* field;
    const char* says;
  } cases[] = {{"cycle.yaml", "operators[1].inputs", "cycle: c -> b -> c"},
               {"unknown-input.yaml", "operators[3].inputs[0]", "unknown operator 'conv9' (line 11)"},
               {"negative-flops.yaml", "operators[1].flops_per_sample", "must not be negative"}};
  for (const auto& c : cases) {
    try {
      load_model_graph(dir + c.file);
      ADD_FAILURE() << c.file << " loaded";
    } catch (const InputError& error) {
      EXPECT_EQ(error.source(), dir + c.file);
      EXPECT_EQ(error.field(), c.field);
      EXPECT_NE(std::string(error.what()).find(c.says), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find(c.file), std::string::npos) << error.what();
    }
  }
}

// The example in workloads/SCHEMA.md is a valid file.
TEST(ModelGraphYaml, SchemaExampleParses) {
  std::ifstream in(std::string(SCALECAST_SOURCE_DIR) + "/workloads/SCHEMA.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const size_t begin = doc.find("```yaml\n");
  ASSERT_NE(begin, std::string::npos);
  const size_t end = doc.find("```", begin + 8);
  const ModelGraph model = parse(doc.substr(begin + 8, end - begin - 8));
  EXPECT_EQ(model.name, "tiny");
  EXPECT_EQ(model.operators.size(), 5u);
}

TEST(ModelGraphYaml, UnknownPresetListsTheAvailableOnes) {
  try {
    load_model_graph("no_such_model");
    FAIL() << "loaded a preset that does not exist";
  } catch (const InputError& error) {
    EXPECT_EQ(error.source(), "no_such_model");
    EXPECT_NE(std::string(error.what()).find("inception_v3"), std::string::npos) << error.what();
  }
  EXPECT_THROW(load_model_graph("cost-model"), InputError);  // the efficiency table is not a workload
}

}  // namespace
}  // namespace scalecast
