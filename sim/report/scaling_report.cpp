#include "sim/report/scaling_report.h"

#include <cstdio>

namespace scalecast {

namespace {

std::string milliseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
  return text;
}

std::string heading(const TraceScaling& s) {
  const std::string traced = s.traced_gpu.empty() ? "an unnamed GPU" : s.traced_gpu;
  if (!s.rescaled) return "  GPU work by class (" + traced + ", replayed as measured), per step:\n";
  const std::string reference = s.reference_gpu == s.traced_gpu ? "" : " (figures of " + s.reference_gpu + ")";
  return "  rescaled from " + traced + reference + " to " + s.target_gpu + ", per step:\n";
}

}  // namespace

nlohmann::ordered_json scaling_json(const TraceScaling& s) {
  nlohmann::ordered_json out;
  out["traced_gpu"] = s.traced_gpu;
  out["reference_gpu"] = s.reference_gpu;
  out["target_gpu"] = s.target_gpu;
  out["rescaled"] = s.rescaled;
  out["steps"] = s.steps;
  out["measured_gpu_s_per_step"] = s.measured_gpu_s / s.steps;
  out["scaled_gpu_s_per_step"] = s.scaled_gpu_s / s.steps;
  nlohmann::ordered_json classes = nlohmann::ordered_json::array();
  for (const ClassScaling& c : s.classes)
    classes.push_back({{"class", c.op_kind},
                       {"precision", c.precision},
                       {"bound", c.bound},
                       {"tasks_per_step", static_cast<double>(c.tasks) / s.steps},
                       {"measured_s_per_step", c.measured_s / s.steps},
                       {"scaled_s_per_step", c.scaled_s / s.steps},
                       {"factor", c.factor},
                       {"rule", c.rule}});
  out["classes"] = classes;
  out["notes"] = s.notes;
  return out;
}

std::string scaling_text(const TraceScaling& s) {
  std::string text = heading(s);
  char line[400];
  std::snprintf(line, sizeof line, "    %-14s %-9s %-8s %7s %12s %12s %7s  %s\n", "class", "precision", "bound", "tasks",
                "measured", "rescaled", "factor", "rule");
  text += line;
  for (const ClassScaling& c : s.classes) {
    std::snprintf(line, sizeof line, "    %-14s %-9s %-8s %7.0f %12s %12s %7.3f  %s\n", c.op_kind.c_str(),
                  c.precision.empty() ? "-" : c.precision.c_str(), c.bound.c_str(), static_cast<double>(c.tasks) / s.steps,
                  milliseconds(c.measured_s / s.steps).c_str(), milliseconds(c.scaled_s / s.steps).c_str(), c.factor,
                  c.rule.empty() ? "kept as measured" : c.rule.c_str());
    text += line;
  }
  const double total = s.measured_gpu_s > 0 ? s.scaled_gpu_s / s.measured_gpu_s : 1;
  std::snprintf(line, sizeof line, "    %-14s %-9s %-8s %7s %12s %12s %7.3f\n", "GPU total", "", "", "",
                milliseconds(s.measured_gpu_s / s.steps).c_str(), milliseconds(s.scaled_gpu_s / s.steps).c_str(), total);
  text += line;
  return text;
}

}  // namespace scalecast
