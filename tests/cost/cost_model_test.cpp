#include <gtest/gtest.h>

#include <string>

#include "sim/core/input_error.h"
#include "sim/cost/compute_cost.h"
#include "sim/cost/cost_model_fit.h"
#include "sim/cost/cost_model_table.h"
#include "sim/cost/kernel_class.h"

namespace scalecast {
namespace {

GpuSpec test_gpu(const std::string& model = "TestGPU-X100") {
  GpuSpec gpu;
  gpu.model = model;
  gpu.peak_flops_per_s = {{"fp32", 10e12}, {"tf32", 80e12}, {"fp16", 100e12}};
  gpu.memory_bandwidth_Bps = 1e12;
  return gpu;
}

const std::string kTable = R"(families:
  - family: X100
    match: [X100]
    precisions:
      fp32:
        peak: tf32
        default: {compute_efficiency: 0.5, memory_efficiency: 0.8, launch_overhead: 5us}
        kinds:
          conv: {compute_efficiency: 0.25}
          lstm: {memory_efficiency: 0.4, launch_overhead: 0}
)";

TEST(CostModel, RooflineWithPerKindEfficiencies) {
  const ComputeCostModel model = compute_cost_model_for(parse_cost_model_yaml(kTable, "cm.yaml"), test_gpu(), "fp32");
  EXPECT_EQ(model.precision, "tf32");
  // conv: 1 TFLOP at 80 TFLOP/s * 0.25 = 50 ms, bytes negligible, + 5 us.
  EXPECT_NEAR(operator_time_s("conv", 1e12, 1e6, test_gpu(), model), 0.05 + 5e-6, 1e-12);
  // Unknown kind: defaults. 1 TFLOP at 40 TFLOP/s = 25 ms.
  EXPECT_NEAR(operator_time_s("mystery", 1e12, 1e6, test_gpu(), model), 0.025 + 5e-6, 1e-12);
  // lstm inherits compute 0.5, memory 0.4, no overhead: 8 GB at 400 GB/s = 20 ms (memory-bound).
  EXPECT_NEAR(operator_time_s("lstm", 1e9, 8e9, test_gpu(), model), 0.02, 1e-12);
  // Tasks priced through compute_duration_s use the same rule; measured durations stay measured.
  Task task;
  task.duration_s = -1;
  task.op_kind = "conv";
  task.flops = 1e12;
  EXPECT_NEAR(compute_duration_s(task, test_gpu(), model), 0.05 + 5e-6, 1e-12);
  task.duration_s = 0.003;
  EXPECT_EQ(compute_duration_s(task, test_gpu(), model), 0.003);
}

// A power-limited card sustains a fraction of its peaks: compute-bound work slows by it,
// memory-bound work (HBM clocks are not lowered) does not, and the data sheet's peak stays
// what reports such as MFU divide by.
TEST(CostModel, SustainedComputeSlowsComputeBoundWorkOnly) {
  const ComputeCostModel model = compute_cost_model_for(parse_cost_model_yaml(kTable, "cm.yaml"), test_gpu(), "fp32");
  GpuSpec capped = test_gpu();
  capped.sustained_compute = 0.8;
  EXPECT_NEAR(operator_time_s("conv", 1e12, 1e6, capped, model), 0.05 / 0.8 + 5e-6, 1e-12);
  EXPECT_NEAR(operator_time_s("lstm", 1e9, 8e9, capped, model), 0.02, 1e-12);
  EXPECT_DOUBLE_EQ(peak_flops_per_s(capped, "tf32"), peak_flops_per_s(test_gpu(), "tf32"));
  EXPECT_DOUBLE_EQ(sustained_flops_per_s(capped, "tf32"), 0.8 * peak_flops_per_s(test_gpu(), "tf32"));
  Task task;
  task.duration_s = -1;
  task.op_kind = "conv";
  task.flops = 1e12;
  EXPECT_NEAR(compute_time_parts(task, capped, model).compute_s, 0.05 / 0.8, 1e-12);
}

// A task that runs as several kernels (an unfused optimizer's loop) pays the per-kernel
// overhead for each, on both pricing paths.
TEST(CostModel, EachLaunchPaysTheKernelOverhead) {
  const ComputeCostModel model = compute_cost_model_for(parse_cost_model_yaml(kTable, "cm.yaml"), test_gpu(), "fp32");
  Task task;
  task.duration_s = -1;
  task.op_kind = "conv";
  task.flops = 1e12;
  task.launches = 10;
  EXPECT_NEAR(compute_duration_s(task, test_gpu(), model), 0.05 + 10 * 5e-6, 1e-12);
  EXPECT_NEAR(compute_time_parts(task, test_gpu(), model).fixed_s, 10 * 5e-6, 1e-15);
}

TEST(CostModel, GpuWithoutFamilyRunsUncalibratedOrIsAnInputError) {
  // A table without `uncalibrated` cannot price a GPU no family matches: an input error naming
  // the table and the GPU.
  const CostModelTable bare = parse_cost_model_yaml(kTable, "cm.yaml");
  try {
    compute_cost_model_for(bare, test_gpu("OtherGPU"), "fp32");
    FAIL();
  } catch (const InputError& error) {
    EXPECT_EQ(error.source(), "cm.yaml");
    EXPECT_NE(std::string(error.what()).find("OtherGPU"), std::string::npos);
  }
  // With defaults, it runs and the notes say "uncalibrated" and where the values come from.
  const CostModelTable table = parse_cost_model_yaml(kTable + R"(uncalibrated:
  precisions:
    fp32:
      default: {compute_efficiency: 0.4, memory_efficiency: 0.6, launch_overhead: 5us, copied_from: X100}
)", "cm.yaml");
  const ResolvedCostModel resolved = resolve_cost_model(table, test_gpu("OtherGPU"), "fp32");
  EXPECT_EQ(resolved.family, "");
  EXPECT_EQ(resolved.model.compute_efficiency, 0.4);
  ASSERT_EQ(resolved.notes.size(), 2u);
  EXPECT_NE(resolved.notes[0].find("uncalibrated"), std::string::npos);
  EXPECT_NE(resolved.notes[1].find("copied from X100"), std::string::npos);
  // bf16 takes fp16's efficiencies, fp16 takes bf16's: here neither exists.
  EXPECT_THROW(compute_cost_model_for(table, test_gpu(), "fp16"), InputError);
}

// A GPU no family prices is blamed on the platform that named it (node.gpu.model), with the
// models the families know: the table is rarely what is wrong (issue 15 found three errors that
// named cost-model.yaml for a mistyped platform GPU).
TEST(CostModel, UnpricedGpuBlamesThePlatformFieldThatNamedIt) {
  GpuSpec typo = test_gpu("TestGPU-Y100");
  typo.source = "p.yaml";
  typo.model_field = "node.gpu.model";
  auto expect_blames_platform = [&](const CostModelTable& table, const std::string& precision, const std::string& problem) {
    try {
      compute_cost_model_for(table, typo, precision);
      FAIL() << "priced " << precision;
    } catch (const InputError& error) {
      EXPECT_EQ(error.source(), "p.yaml");
      EXPECT_EQ(error.field(), "node.gpu.model");
      const std::string message = error.what();
      EXPECT_NE(message.find("'TestGPU-Y100' matches no cost-model family of cm.yaml (known models: X100)"), std::string::npos)
          << message;
      EXPECT_NE(message.find(problem), std::string::npos) << message;
    }
  };
  expect_blames_platform(parse_cost_model_yaml(kTable, "cm.yaml"), "fp32", "no `uncalibrated` default");
  const CostModelTable fp16_default = parse_cost_model_yaml(kTable + R"(uncalibrated:
  precisions:
    fp16:
      default: {compute_efficiency: 0.4, memory_efficiency: 0.6, launch_overhead: 5us}
)", "cm.yaml");
  expect_blames_platform(fp16_default, "fp32", "`uncalibrated` default has no fp32 efficiencies");
  // Priced by the default, the warning says where the model was named and what is known.
  const ResolvedCostModel resolved = resolve_cost_model(fp16_default, typo, "bf16");
  ASSERT_FALSE(resolved.notes.empty());
  EXPECT_NE(resolved.notes[0].find("GPU 'TestGPU-Y100' (node.gpu.model in p.yaml) is uncalibrated"), std::string::npos)
      << resolved.notes[0];
  EXPECT_NE(resolved.notes[0].find("known models: X100"), std::string::npos) << resolved.notes[0];
  EXPECT_NE(resolved.notes[0].find("`uncalibrated` of cm.yaml"), std::string::npos) << resolved.notes[0];
}

TEST(CostModel, RelatedPrecisionsStandInAndAreNoted) {
  const CostModelTable table = parse_cost_model_yaml(R"(families:
  - family: X100
    match: [X100]
    precisions:
      fp32: {peak: tf32, default: {compute_efficiency: 0.5, memory_efficiency: 0.8, launch_overhead: 5us}}
      fp16:
        default: {compute_efficiency: 0.3, memory_efficiency: 0.8, launch_overhead: 5us}
        kinds: {conv: {compute_efficiency: 0.2, copied_from: "Y100"}}
)", "cm.yaml");
  const ResolvedCostModel bf16 = resolve_cost_model(table, test_gpu(), "bf16");
  EXPECT_EQ(bf16.model.precision, "bf16");  // fp16's efficiencies against the bf16 peak
  EXPECT_EQ(bf16.model.for_kind("conv").compute_efficiency, 0.2);
  ASSERT_EQ(bf16.notes.size(), 3u);
  EXPECT_NE(bf16.notes[0].find("no bf16 efficiencies: fp16's are used"), std::string::npos);
  EXPECT_NE(bf16.notes[1].find("(conv)"), std::string::npos);
  EXPECT_NE(bf16.notes[1].find("copied from Y100"), std::string::npos);
  EXPECT_NE(bf16.notes[2].find("no bf16 peak"), std::string::npos);  // test_gpu lists fp16 only
  // The GPU's peak stands in the same way: bf16 -> fp16.
  EXPECT_EQ(peak_flops_per_s(test_gpu(), "bf16"), 100e12);
  EXPECT_EQ(resolve_cost_model(table, test_gpu(), "tf32").model.precision, "tf32");  // fp32's entry names tf32
  EXPECT_EQ(resolve_cost_model(table, test_gpu(), "fp64").model.precision, "fp64");
  EXPECT_TRUE(resolve_cost_model(table, test_gpu(), "fp32").notes.empty());
}

TEST(CostModel, UserTablesLayerOverTheShippedOne) {
  const CostModelTable base = parse_cost_model_yaml(kTable, "base.yaml");
  const CostModelTable top = parse_cost_model_yaml(R"(families:
  - family: X100
    match: [X100]
    precisions:
      fp32: {default: {compute_efficiency: 0.9, memory_efficiency: 0.9, launch_overhead: 1us}}
  - family: Z9
    match: [Z9]
    precisions:
      fp16: {default: {compute_efficiency: 0.1, memory_efficiency: 0.1, launch_overhead: 1us}}
gpus:
  - {match: [Z9], gpu: {model: Z9, peak_flops: {fp16: 10TFLOPS}, memory_bandwidth: 100GB/s}}
launch_bound_below: 7us
)", "mine.yaml", false);
  const CostModelTable table = layer_cost_models(base, top);
  ASSERT_EQ(table.families.size(), 2u);  // X100 replaced, Z9 added
  EXPECT_EQ(compute_cost_model_for(table, test_gpu(), "fp32").compute_efficiency, 0.9);
  EXPECT_EQ(family_of(table, test_gpu("Z9-SXM")), "Z9");
  ASSERT_NE(find_gpu_reference(table, "NVIDIA Z9"), nullptr);
  EXPECT_EQ(find_gpu_reference(table, "NVIDIA Z9")->gpu.memory_bandwidth_Bps, 100e9);
  EXPECT_EQ(find_gpu_reference(table, "W1"), nullptr);
  EXPECT_EQ(launch_bound_below_s(table), 7e-6);
  EXPECT_EQ(launch_bound_below_s(base), kDefaultLaunchBoundBelow_s);
  // A user's file need not list families; a table of its own must.
  EXPECT_THROW(parse_cost_model_yaml("launch_bound_below: 2us\n", "mine.yaml"), InputError);
  EXPECT_NO_THROW(parse_cost_model_yaml("launch_bound_below: 2us\n", "mine.yaml", false));
}

TEST(CostModel, TableIsReadStrictly) {
  auto field_of = [](const std::string& text) {
    try {
      parse_cost_model_yaml(text, "cm.yaml");
    } catch (const InputError& error) {
      return error.field();
    }
    return std::string("(no error)");
  };
  auto with = [](const std::string& from, const std::string& to) {
    std::string text = kTable;
    return text.replace(text.find(from), from.size(), to);
  };
  EXPECT_EQ(field_of(with("compute_efficiency: 0.25", "compute_efficiency: 1.5")),
            "families[0].precisions.fp32.kinds.conv.compute_efficiency");
  EXPECT_EQ(field_of(with("memory_efficiency: 0.8", "memory_eff: 0.8")), "families[0].precisions.fp32.default.memory_eff");
  EXPECT_EQ(field_of(with("launch_overhead: 5us", "launch_overhead: 5")), "families[0].precisions.fp32.default.launch_overhead");
  // Precision names are the GPU's (a typo such as fp-0 would never be looked up), peaks too.
  EXPECT_EQ(field_of(with("      fp32:\n", "      fp-0:\n")), "families[0].precisions.fp-0");
  EXPECT_EQ(field_of(with("peak: tf32", "peak: tf-32")), "families[0].precisions.fp32.peak");
  EXPECT_EQ(field_of(with("      fp32:\n", "      [fp32]:\n")), "families[0].precisions");
  // Ranges (sim/core/physical_limits.h): efficiencies from 0.001, overheads up to 1 s.
  EXPECT_EQ(field_of(with("compute_efficiency: 0.25", "compute_efficiency: 1e-300")),
            "families[0].precisions.fp32.kinds.conv.compute_efficiency");
  EXPECT_EQ(field_of(with("launch_overhead: 5us", "launch_overhead: 1e308s")), "families[0].precisions.fp32.default.launch_overhead");
  EXPECT_EQ(field_of(with("          lstm:", "          conv:")), "families[0].precisions.fp32.kinds.conv");
}

TEST(CostModel, ShippedTableCoversThePlatformGpus) {
  const CostModelTable table = load_cost_model_table();
  for (const std::string model : {"V100-SXM2-32GB", "A100-SXM4-40GB", "A100-PCIe-40GB", "H100-SXM5-80GB", "H200-SXM-141GB"})
    for (const std::string precision : {"fp32", "fp16"}) {
      const ComputeCostModel m = compute_cost_model_for(table, test_gpu(model), precision);
      EXPECT_GT(m.compute_efficiency, 0) << model << " " << precision;
      EXPECT_FALSE(m.per_kind.empty()) << model << " " << precision;
    }
}

// H100's FP8 GEMMs run at the measured cuBLASLt rate (0.698 of the FP8 peak), not fp16's 0.801;
// the kinds not measured in FP8 are fp16's and say so.
TEST(CostModel, ShippedH100Fp8GemmsAreMeasuredAndTheRestMarkedCopied) {
  GpuSpec h100 = test_gpu("H100-SXM5-80GB");
  h100.peak_flops_per_s["fp8"] = 1978.9e12;
  const ResolvedCostModel fp8 = resolve_cost_model(load_cost_model_table(), h100, "fp8");
  EXPECT_EQ(fp8.family, "H100");
  EXPECT_EQ(fp8.model.precision, "fp8");
  EXPECT_DOUBLE_EQ(fp8.model.for_kind("gemm").compute_efficiency, 0.698);
  EXPECT_DOUBLE_EQ(fp8.model.for_kind("conv").compute_efficiency,
                   resolve_cost_model(load_cost_model_table(), h100, "fp16").model.for_kind("conv").compute_efficiency);
  ASSERT_EQ(fp8.notes.size(), 2u);  // one per source: gemm is measured, no note for it
  EXPECT_NE(fp8.notes[0].find("H100 fp8 efficiencies (conv) are not measured on this GPU: copied from H100 fp16"),
            std::string::npos)
      << fp8.notes[0];
  EXPECT_NE(fp8.notes[1].find("(attention, lstm, matmul) are not measured on this GPU: copied from H100 fp16 (A100 x"),
            std::string::npos)
      << fp8.notes[1];
}

// A trace whose tasks ran at known efficiencies: the fit recovers them.
TEST(CostModelFit, RecoversEfficienciesFromATrace) {
  const GpuSpec gpu = test_gpu();
  ComputeCostModel prior;
  prior.precision = "fp32";
  prior.launch_overhead_s = 2e-6;
  RankProgram program;
  auto add = [&](const std::string& kind, double flops, double bytes, double seconds) {
    Task t;
    t.kind = TaskKind::compute;
    t.op_kind = kind;
    t.flops = flops;
    t.memory_bytes = bytes;
    t.duration_s = seconds + 2e-6;
    program.tasks.push_back(t);
  };
  // conv at 30% of 10 TFLOP/s: 3e9 FLOP take 1 ms, 6e9 take 2 ms.
  add("conv", 3e9, 1e6, 1e-3);
  add("conv", 6e9, 1e6, 2e-3);
  // elementwise at 60% of 1 TB/s: 6e8 bytes in 1 ms.
  add("elementwise", 1e6, 6e8, 1e-3);
  // a task without op_kind or duration is ignored
  add("", 1e12, 0, 1e-3);
  ExecutionGraph trace;
  trace.programs.push_back(program);
  const auto fits = fit_kind_efficiencies(trace, gpu, prior);
  ASSERT_EQ(fits.size(), 2u);
  EXPECT_NEAR(fits.at("conv").efficiency.compute_efficiency, 0.3, 1e-9);
  EXPECT_EQ(fits.at("conv").compute_bound_tasks, 2);
  EXPECT_EQ(fits.at("conv").efficiency.memory_efficiency, prior.memory_efficiency);  // no memory-bound conv
  EXPECT_NEAR(fits.at("elementwise").efficiency.memory_efficiency, 0.6, 1e-9);
  EXPECT_EQ(fits.at("elementwise").memory_bound_tasks, 1);
  EXPECT_FALSE(fits.at("conv").clamped);
  // Round trip: the fitted model prices the trace's tasks at their measured durations.
  ComputeCostModel fitted = prior;
  for (const auto& [kind, fit] : fits) fitted.per_kind[kind] = fit.efficiency;
  for (size_t i = 0; i < 3; ++i) {
    Task priced = program.tasks[i];
    priced.duration_s = -1;
    EXPECT_NEAR(compute_duration_s(priced, gpu, fitted), program.tasks[i].duration_s, 1e-9);
  }
}

TEST(CostModelFit, FasterThanPeakIsClampedAndFlagged) {
  ComputeCostModel prior;
  prior.precision = "fp32";
  RankProgram program;
  Task t;
  t.op_kind = "matmul";
  t.flops = 1e11;  // 10 ms at peak, measured 5 ms
  t.duration_s = 5e-3 + prior.launch_overhead_s;
  program.tasks.push_back(t);
  ExecutionGraph trace;
  trace.programs.push_back(program);
  const KindFit fit = fit_kind_efficiencies(trace, test_gpu(), prior).at("matmul");
  EXPECT_TRUE(fit.clamped);
  EXPECT_EQ(fit.efficiency.compute_efficiency, 1);
}

}  // namespace
}  // namespace scalecast
