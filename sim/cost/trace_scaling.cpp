#include "sim/cost/trace_scaling.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "sim/cost/kernel_class.h"

namespace scalecast {

namespace {

bool is_measured_gpu_task(const Task& task) {
  return task.kind == TaskKind::compute && task.duration_s >= 0 && task.op_kind != "host";
}

// The cost-model families are written per training precision: fp32 training runs its matrix
// products as the family says (TF32 tensor cores on A100 and later), so fp32 and TF32 kernels
// both take the family's fp32 entry.
std::string training_precision(const std::string& kernel_precision) {
  return kernel_precision == "tf32" ? "fp32" : kernel_precision;
}

// Ranks per program over the world size: sums weighted by it are per-rank means.
std::vector<double> program_weights(const ExecutionGraph& graph) {
  std::vector<double> weights(graph.programs.size(), 0.0);
  const double world = std::max(1, graph.world_size());
  for (int program : graph.program_of_rank) weights[program] += 1.0 / world;
  return weights;
}

// The training precision most of the trace's compute-bound time runs at; fp32 when none is known.
std::string dominant_precision(const ExecutionGraph& graph) {
  std::map<std::string, double> time_s;
  for (const RankProgram& program : graph.programs)
    for (const Task& task : program.tasks)
      if (is_measured_gpu_task(task) && scaling_bound(task.op_kind) == ScalingBound::compute && !task.precision.empty())
        time_s[training_precision(task.precision)] += task.duration_s;
  if (time_s.empty()) return "fp32";
  return std::max_element(time_s.begin(), time_s.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
}

const char* bound_name(ScalingBound bound) {
  return bound == ScalingBound::compute ? "compute" : bound == ScalingBound::memory ? "memory" : "kept";
}

// The class a task is scaled as: its op_kind, and for compute-bound kinds a training precision.
std::pair<std::string, std::string> class_key(const Task& task, const std::string& dominant) {
  if (scaling_bound(task.op_kind) != ScalingBound::compute) return {task.op_kind, ""};
  const std::string precision = training_precision(task.precision);
  return {task.op_kind, precision.empty() ? dominant : precision};
}

using ClassMap = std::map<std::pair<std::string, std::string>, ClassScaling>;

ClassMap group_classes(const ExecutionGraph& graph, const std::string& dominant) {
  ClassMap classes;
  std::map<std::pair<std::string, std::string>, double> tasks_per_rank;
  const std::vector<double> weights = program_weights(graph);
  for (size_t p = 0; p < graph.programs.size(); ++p)
    for (const Task& task : graph.programs[p].tasks) {
      if (!is_measured_gpu_task(task)) continue;
      const auto key = class_key(task, dominant);
      ClassScaling& c = classes[key];
      if (c.bound.empty()) {
        c.op_kind = task.op_kind.empty() ? "(none)" : task.op_kind;
        c.precision = key.second;
        c.bound = bound_name(scaling_bound(task.op_kind));
      }
      c.measured_s += weights[p] * task.duration_s;
      tasks_per_rank[key] += weights[p];
    }
  for (auto& [key, c] : classes) {
    c.scaled_s = c.measured_s;
    c.tasks = static_cast<long>(tasks_per_rank[key] + 0.5);
  }
  return classes;
}

// "156 TFLOP/s", "2039 GB/s".
std::string format_rate(double value, const char* unit) {
  char text[64];
  std::snprintf(text, sizeof text, "%.4g %s", value, unit);
  return text;
}

struct Factor {
  double factor = 1;
  std::string rule;
};

// The two GPUs' cost models at one training precision, with their notes collected.
struct ModelPair {
  ResolvedCostModel traced, target;
};

ModelPair resolve_pair(const CostModelTable& table, const GpuSpec& traced, const GpuSpec& target,
                       const std::string& precision, const std::string& kind, std::vector<std::string>& notes) {
  ModelPair pair{resolve_cost_model(table, traced, precision, {kind}), resolve_cost_model(table, target, precision, {kind})};
  // Each note names its GPU or family, so one list serves both GPUs.
  notes.insert(notes.end(), pair.traced.notes.begin(), pair.traced.notes.end());
  notes.insert(notes.end(), pair.target.notes.begin(), pair.target.notes.end());
  return pair;
}

// "156 TFLOP/s (tf32)", or "156 TFLOP/s x 0.9 sustained (tf32)" for a card whose power limit
// lowers its clocks (GpuSpec::sustained_compute).
std::string rate_text(const GpuSpec& gpu, const std::string& precision) {
  std::string text = format_rate(peak_flops_per_s(gpu, precision) / 1e12, "TFLOP/s");
  if (gpu.sustained_compute < 1) {
    char note[40];
    std::snprintf(note, sizeof note, " x %.3g sustained", gpu.sustained_compute);
    text += note;
  }
  return text + " (" + precision + ")";
}

Factor compute_factor(const std::string& kind, const ModelPair& models, const GpuSpec& traced, const GpuSpec& target) {
  const KindEfficiency from = models.traced.model.for_kind(kind), to = models.target.model.for_kind(kind);
  const double rate_from = sustained_flops_per_s(traced, models.traced.model.precision);
  const double rate_to = sustained_flops_per_s(target, models.target.model.precision);
  Factor f;
  if (rate_from <= 0 || rate_to <= 0) return f;
  f.factor = (rate_from * from.compute_efficiency) / (rate_to * to.compute_efficiency);
  char efficiencies[96];
  std::snprintf(efficiencies, sizeof efficiencies, ", efficiency %.3g -> %.3g", from.compute_efficiency,
                to.compute_efficiency);
  f.rule = "peak " + rate_text(traced, models.traced.model.precision) + " -> " +
           rate_text(target, models.target.model.precision) + efficiencies;
  return f;
}

Factor memory_factor(const std::string& kind, const ModelPair& models, const GpuSpec& traced, const GpuSpec& target) {
  const KindEfficiency from = models.traced.model.for_kind(kind), to = models.target.model.for_kind(kind);
  Factor f;
  if (traced.memory_bandwidth_Bps <= 0 || target.memory_bandwidth_Bps <= 0) return f;
  f.factor = (traced.memory_bandwidth_Bps * from.memory_efficiency) / (target.memory_bandwidth_Bps * to.memory_efficiency);
  f.rule = "memory " + format_rate(traced.memory_bandwidth_Bps / 1e9, "GB/s") + " -> " +
           format_rate(target.memory_bandwidth_Bps / 1e9, "GB/s");
  if (from.memory_efficiency != to.memory_efficiency) {
    char efficiencies[96];
    std::snprintf(efficiencies, sizeof efficiencies, ", efficiency %.3g -> %.3g", from.memory_efficiency,
                  to.memory_efficiency);
    f.rule += efficiencies;
  }
  return f;
}

std::vector<ClassScaling> sorted_classes(const ClassMap& classes) {
  std::vector<ClassScaling> out;
  for (const auto& [key, c] : classes) out.push_back(c);
  std::stable_sort(out.begin(), out.end(), [](const ClassScaling& a, const ClassScaling& b) { return a.measured_s > b.measured_s; });
  return out;
}

void add_unique(std::vector<std::string>& notes, const std::string& note) {
  if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
}

void total(TraceScaling& scaling) {
  for (const ClassScaling& c : scaling.classes) {
    scaling.measured_gpu_s += c.measured_s;
    scaling.scaled_gpu_s += c.scaled_s;
  }
}

int count_steps(const ExecutionGraph& graph) {
  std::set<int> steps;
  for (const RankProgram& program : graph.programs)
    for (const Task& task : program.tasks)
      if (task.step >= 0) steps.insert(task.step);
  return std::max<int>(1, static_cast<int>(steps.size()));
}

}  // namespace

TraceScaling describe_trace_classes(const ExecutionGraph& graph) {
  TraceScaling scaling;
  scaling.traced_gpu = graph.traced_gpu;
  scaling.steps = count_steps(graph);
  scaling.classes = sorted_classes(group_classes(graph, dominant_precision(graph)));
  total(scaling);
  return scaling;
}

TraceScaling rescale_trace(ExecutionGraph& graph, const GpuSpec& target, const CostModelTable& table) {
  TraceScaling scaling = describe_trace_classes(graph);
  scaling.target_gpu = target.model;
  const GpuReference* reference = find_gpu_reference(table, graph.traced_gpu);
  if (graph.traced_gpu.empty()) {
    scaling.notes.push_back("the trace names no GPU (traced_gpu): its durations are replayed as measured");
    return scaling;
  }
  if (!reference) {
    // The very GPU the platform names needs no figures: its durations stand as measured.
    if (graph.traced_gpu.find(target.model) != std::string::npos || target.model.find(graph.traced_gpu) != std::string::npos)
      return scaling;
    scaling.notes.push_back("no reference figures for the traced GPU '" + graph.traced_gpu +
                            "' (cost-model gpus): its durations are replayed as measured; add it with a cost-model file");
    return scaling;
  }
  scaling.reference_gpu = reference->gpu.model;
  const std::string dominant = dominant_precision(graph);
  std::map<std::pair<std::string, std::string>, Factor> factors;
  std::vector<std::string> notes;
  ClassMap classes = group_classes(graph, dominant);
  for (auto& [key, c] : classes) {
    const ScalingBound bound = scaling_bound(key.first);
    if (bound == ScalingBound::kept) continue;
    const ModelPair models =
        resolve_pair(table, reference->gpu, target, key.second.empty() ? dominant : key.second, key.first, notes);
    const Factor f = bound == ScalingBound::compute ? compute_factor(key.first, models, reference->gpu, target)
                                                    : memory_factor(key.first, models, reference->gpu, target);
    factors[key] = f;
    c.factor = f.factor;
    c.rule = f.rule;
    c.scaled_s = c.measured_s * f.factor;
  }
  for (RankProgram& program : graph.programs)
    for (Task& task : program.tasks) {
      if (!is_measured_gpu_task(task)) continue;
      auto it = factors.find(class_key(task, dominant));
      if (it == factors.end()) continue;
      // A task priced as a sequence of kernels keeps its parts in proportion (they lie within it).
      for (double* seconds : {&task.duration_s, &task.compute_bound_s, &task.memory_bound_s}) *seconds *= it->second.factor;
    }
  scaling.rescaled = true;
  scaling.classes = sorted_classes(classes);
  scaling.measured_gpu_s = scaling.scaled_gpu_s = 0;
  total(scaling);
  for (const std::string& note : notes) add_unique(scaling.notes, note);
  for (const ClassScaling& c : scaling.classes)
    if (c.op_kind == "(none)")
      scaling.notes.push_back(std::to_string(c.tasks) + " measured GPU tasks per rank have no class (op_kind): kept as " +
                              "measured; re-import the trace to classify them");
  return scaling;
}

}  // namespace scalecast
