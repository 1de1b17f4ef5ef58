#include "tools/scalecast/replay_summary.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "sim/core/input_error.h"

namespace scalecast::cli {

StepSummary summarize_steps(const ReplayResult& result) {
  StepSummary summary;
  const auto spans = step_spans(result.timeline);
  summary.steps = static_cast<int>(spans.size());
  if (spans.empty()) return summary;
  std::vector<double> durations;
  for (const StepSpan& span : spans) {
    durations.push_back(span.end_s - span.start_s);
    // The class that ends the step last sets its time: its breakdown explains the step.
    const RankClassTimeline* critical = nullptr;
    double latest_end = -1;
    for (const auto& c : result.timeline.classes)
      for (const auto& e : c.events)
        if (e.step == span.step && e.end_s > latest_end) {
          latest_end = e.end_s;
          critical = &c;
        }
    TimeBreakdown b = breakdown(*critical, span.start_s, span.end_s);
    summary.compute_s += b.compute_s / spans.size();
    summary.comm_s += b.communication_s / spans.size();
    summary.exposed_comm_s += b.exposed_communication_s / spans.size();
    summary.idle_s += b.idle_s / spans.size();
  }
  std::sort(durations.begin(), durations.end());
  const size_t n = durations.size();
  summary.step_time_s = n % 2 ? durations[n / 2] : (durations[n / 2 - 1] + durations[n / 2]) / 2;
  return summary;
}

nlohmann::ordered_json algorithm_counts(const ReplayResult& result) {
  std::map<std::string, int> counts;
  for (const auto& c : result.collectives)
    if (!c.point_to_point) ++counts[to_string(c.algorithm)];
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [name, count] : counts) out[name] = count;
  return out;
}

void check_output_path(const std::string& path, const std::string& option) {
  namespace fs = std::filesystem;
  fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) parent = ".";
  std::error_code error;
  if (!fs::is_directory(parent, error))
    throw InputError(path, option, "cannot be written: folder '" + parent.string() + "' does not exist");
  if (fs::is_directory(path, error)) throw InputError(path, option, "is a directory, expected a file path");
}

}  // namespace scalecast::cli
