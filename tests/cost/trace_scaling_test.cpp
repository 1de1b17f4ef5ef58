#include <gtest/gtest.h>

#include <string>

#include "sim/core/input_error.h"
#include "sim/cost/cost_model_table.h"
#include "sim/cost/trace_scaling.h"

namespace scalecast {
namespace {

// Two families with round figures: the traced Old-GPU and the simulated New-GPU.
const std::string kTable = R"(families:
  - family: Old
    match: [Old]
    precisions:
      fp32:
        default: {compute_efficiency: 0.5, memory_efficiency: 0.5, launch_overhead: 5us}
      fp16:
        default: {compute_efficiency: 0.4, memory_efficiency: 0.5, launch_overhead: 5us}
        kinds: {conv: {compute_efficiency: 0.8}}
  - family: New
    match: [New]
    precisions:
      fp32:
        peak: tf32
        default: {compute_efficiency: 0.25, memory_efficiency: 1.0, launch_overhead: 5us}
      fp16:
        default: {compute_efficiency: 0.2, memory_efficiency: 1.0, launch_overhead: 5us}
        kinds: {conv: {compute_efficiency: 0.4, copied_from: "a guess"}}
uncalibrated:
  precisions:
    fp16: {default: {compute_efficiency: 0.1, memory_efficiency: 0.5, launch_overhead: 5us}}
gpus:
  - match: [Old-GPU, PG-1]
    gpu: {model: Old-GPU, peak_flops: {fp32: 10TFLOPS, fp16: 100TFLOPS}, memory_bandwidth: 1000GB/s}
)";

GpuSpec new_gpu() {
  GpuSpec gpu;
  gpu.model = "New-GPU-80GB";
  gpu.peak_flops_per_s = {{"fp32", 20e12}, {"tf32", 40e12}, {"fp16", 400e12}};
  gpu.memory_bandwidth_Bps = 4000e9;
  return gpu;
}

Task measured(const std::string& op_kind, const std::string& precision, double duration_s, int step = 0) {
  Task task;
  task.kind = TaskKind::compute;
  task.op_kind = op_kind;
  task.precision = precision;
  task.duration_s = duration_s;
  task.step = step;
  return task;
}

ExecutionGraph trace_on(const std::string& gpu) {
  ExecutionGraph graph;
  graph.traced_gpu = gpu;
  RankProgram program;
  program.tasks = {measured("conv", "fp16", 1.0), measured("matmul", "", 1.0), measured("elementwise", "", 1.0),
                   measured("launch", "", 1.0), measured("host", "", 1.0), measured("transfer", "", 1.0),
                   measured("", "", 1.0), measured("conv", "tf32", 1.0, 1)};
  Task priced;  // cost-model inputs, no duration: priced on the simulated GPU, never rescaled
  priced.duration_s = -1;
  priced.flops = 1e9;
  priced.op_kind = "conv";
  program.tasks.push_back(priced);
  Task collective;
  collective.kind = TaskKind::collective;
  collective.bytes = 1e6;
  program.tasks.push_back(collective);
  graph.programs = {program};
  graph.program_of_rank = {0, 0};
  return graph;
}

TEST(TraceScaling, EachClassScalesByWhatBoundsIt) {
  const CostModelTable table = parse_cost_model_yaml(kTable, "cm.yaml");
  ExecutionGraph graph = trace_on("NVIDIA Old-GPU-16GB");
  const TraceScaling s = rescale_trace(graph, new_gpu(), table);
  ASSERT_TRUE(s.rescaled);
  EXPECT_EQ(s.reference_gpu, "Old-GPU");
  EXPECT_EQ(s.steps, 2);
  const auto& t = graph.programs[0].tasks;
  // conv fp16: (100 T x 0.8) / (400 T x 0.4) = 0.5.
  EXPECT_DOUBLE_EQ(t[0].duration_s, 0.5);
  // matmul without a precision takes the trace's most common one among compute-bound tasks:
  // fp16 (1 s) and fp32-from-tf32 (1 s) tie, the first by name wins: fp16. (100 x 0.4)/(400 x 0.2).
  EXPECT_DOUBLE_EQ(t[1].duration_s, 0.5);
  // memory-bound: (1000 GB/s x 0.5) / (4000 GB/s x 1.0).
  EXPECT_DOUBLE_EQ(t[2].duration_s, 0.125);
  // launch-bound, host, transfers and unclassified tasks keep their durations.
  for (int i : {3, 4, 5, 6}) EXPECT_DOUBLE_EQ(t[i].duration_s, 1.0) << t[i].op_kind;
  // a TF32 kernel runs as the families' fp32: (10 T fp32 x 0.5) / (40 T tf32 x 0.25) = 0.5.
  EXPECT_DOUBLE_EQ(t[7].duration_s, 0.5);
  EXPECT_EQ(t[8].duration_s, -1);
  EXPECT_EQ(t[9].kind, TaskKind::collective);
  // The report: per-class factors, totals per rank, notes for copied and unclassified work.
  double total_factor = s.scaled_gpu_s / s.measured_gpu_s;
  EXPECT_NEAR(total_factor, (0.5 + 0.5 + 0.125 + 3 + 0.5) / 7, 1e-12);  // host time is not GPU work
  bool copied = false, unclassified = false;
  for (const std::string& note : s.notes) {
    copied = copied || note.find("copied from a guess") != std::string::npos;
    unclassified = unclassified || note.find("have no class") != std::string::npos;
  }
  EXPECT_TRUE(copied);
  EXPECT_TRUE(unclassified);
  for (const ClassScaling& c : s.classes) {
    if (c.op_kind == "conv" && c.precision == "fp16") {
      EXPECT_NE(c.rule.find("100 TFLOP/s (fp16) -> 400 TFLOP/s"), std::string::npos);
    }
  }
}

// A power-limited target card sustains a fraction of its peaks: compute-bound kernels take
// longer by it, memory-bound ones do not, and the rule says so.
TEST(TraceScaling, PowerLimitedTargetSlowsComputeBoundKernelsOnly) {
  const CostModelTable table = parse_cost_model_yaml(kTable, "cm.yaml");
  ExecutionGraph graph = trace_on("NVIDIA Old-GPU-16GB");
  GpuSpec capped = new_gpu();
  capped.sustained_compute = 0.5;
  const TraceScaling s = rescale_trace(graph, capped, table);
  const auto& t = graph.programs[0].tasks;
  EXPECT_DOUBLE_EQ(t[0].duration_s, 1.0);    // conv fp16: 0.5 at the full peak, / 0.5
  EXPECT_DOUBLE_EQ(t[2].duration_s, 0.125);  // elementwise: memory-bound, as before
  bool said = false;
  for (const ClassScaling& c : s.classes)
    if (c.op_kind == "conv" && c.precision == "fp16")
      said = c.rule.find("-> 400 TFLOP/s x 0.5 sustained (fp16)") != std::string::npos;
  EXPECT_TRUE(said);
}

// A task priced kernel by kernel (Task::compute_bound_s) scales whole: its parts keep their
// share of its duration, so they still fit in it.
TEST(TraceScaling, ATasksBoundPartsScaleWithIt) {
  const CostModelTable table = parse_cost_model_yaml(kTable, "cm.yaml");
  ExecutionGraph graph = trace_on("NVIDIA Old-GPU-16GB");
  Task& conv = graph.programs[0].tasks[0];
  conv.compute_bound_s = 0.6;
  conv.memory_bound_s = 0.3;
  rescale_trace(graph, new_gpu(), table);
  EXPECT_DOUBLE_EQ(conv.duration_s, 0.5);
  EXPECT_DOUBLE_EQ(conv.compute_bound_s, 0.3);
  EXPECT_DOUBLE_EQ(conv.memory_bound_s, 0.15);
}

TEST(TraceScaling, UnknownOrUnnamedTracedGpuReplaysAsMeasured) {
  const CostModelTable table = parse_cost_model_yaml(kTable, "cm.yaml");
  for (const std::string gpu : {"", "Mystery-9"}) {
    ExecutionGraph graph = trace_on(gpu);
    const ExecutionGraph before = graph;
    const TraceScaling s = rescale_trace(graph, new_gpu(), table);
    EXPECT_FALSE(s.rescaled);
    EXPECT_EQ(graph, before);
    ASSERT_EQ(s.notes.size(), 1u);
    EXPECT_NE(s.notes[0].find(gpu.empty() ? "names no GPU" : "Mystery-9"), std::string::npos);
  }
}

TEST(TraceScaling, UnknownGpuReplayedOnItselfNeedsNoNote) {
  GpuSpec same = new_gpu();
  same.model = "Mystery-9";
  ExecutionGraph graph = trace_on("NVIDIA Mystery-9");
  const ExecutionGraph before = graph;
  const TraceScaling s = rescale_trace(graph, same, parse_cost_model_yaml(kTable, "cm.yaml"));
  EXPECT_FALSE(s.rescaled);
  EXPECT_TRUE(s.notes.empty());
  EXPECT_EQ(graph, before);
}

TEST(TraceScaling, SameGpuKeepsDurationsAndUncalibratedTargetIsNoted) {
  const CostModelTable table = parse_cost_model_yaml(kTable, "cm.yaml");
  GpuSpec old_gpu = table.gpus[0].gpu;
  ExecutionGraph graph = trace_on("PG-1");
  const ExecutionGraph before = graph;
  rescale_trace(graph, old_gpu, table);
  EXPECT_EQ(graph, before);
  // A simulated GPU no family matches runs with `uncalibrated` and says so (fp32 comes from
  // nowhere: uncalibrated lists fp16 only, and fp32 has no related precision -> input error).
  GpuSpec other = new_gpu();
  other.model = "Other-1";
  ExecutionGraph fp16_only;
  fp16_only.traced_gpu = "Old-GPU";
  fp16_only.programs = {RankProgram{{measured("conv", "fp16", 1.0)}}};
  fp16_only.program_of_rank = {0};
  const TraceScaling s = rescale_trace(fp16_only, other, table);
  ASSERT_FALSE(s.notes.empty());
  EXPECT_NE(s.notes.back().find("uncalibrated"), std::string::npos);
  EXPECT_DOUBLE_EQ(fp16_only.programs[0].tasks[0].duration_s, (100e12 * 0.8) / (400e12 * 0.1));
  ExecutionGraph fp32 = trace_on("Old-GPU");
  EXPECT_THROW(rescale_trace(fp32, other, table), InputError);
}

TEST(TraceScaling, ClassTableWithoutAPlatform) {
  const TraceScaling s = describe_trace_classes(trace_on("Old-GPU"));
  EXPECT_FALSE(s.rescaled);
  EXPECT_DOUBLE_EQ(s.measured_gpu_s, 7.0);  // host excluded; per rank (both ranks run the program)
  EXPECT_DOUBLE_EQ(s.scaled_gpu_s, s.measured_gpu_s);
  EXPECT_EQ(s.classes.size(), 7u);  // conv fp16, conv fp32, matmul, elementwise, launch, transfer, (none)
}

}  // namespace
}  // namespace scalecast
