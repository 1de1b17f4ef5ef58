#include "sim/report/sweep_summary.h"

#include <cstdio>
#include <map>
#include <set>

namespace scalecast {

namespace {

nlohmann::ordered_json optional_number(const std::optional<double>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

std::optional<double> read_optional(const nlohmann::json& json, const char* key) {
  auto it = json.find(key);
  if (it == json.end() || it->is_null()) return std::nullopt;
  return it->get<double>();
}

// What ranks strategies at one scale: time to train when known, else the step time.
double ranking_time_s(const SweepRow& row) { return row.time_to_train_s ? *row.time_to_train_s : row.step_time_s; }

std::string csv_number(const std::optional<double>& value) {
  if (!value) return "";
  char text[64];
  std::snprintf(text, sizeof text, "%.9g", *value);
  return text;
}

}  // namespace

nlohmann::ordered_json to_json(const SweepRow& row) {
  nlohmann::ordered_json out;
  out["gpus"] = row.gpus;
  out["strategy"] = row.strategy;
  out["gpus_per_worker"] = row.gpus_per_worker;
  out["workers"] = row.workers;
  out["global_batch"] = optional_number(row.global_batch);
  out["step_time_s"] = row.step_time_s;
  out["compute_s"] = row.compute_s;
  out["comm_s"] = row.comm_s;
  out["exposed_comm_s"] = row.exposed_comm_s;
  out["waiting_s"] = row.waiting_s;
  out["idle_s"] = row.idle_s;
  out["interference_s"] = row.interference_s;
  out["straggler_s"] = row.straggler_s;
  out["mp_speedup"] = row.mp_speedup;
  out["epochs"] = optional_number(row.epochs);
  out["time_to_train_s"] = optional_number(row.time_to_train_s);
  out["flows"] = row.flows;
  out["sim_wall_s"] = row.sim_wall_s;
  out["warnings"] = row.warnings;
  return out;
}

SweepRow row_from_json(const nlohmann::json& json) {
  SweepRow row;
  row.gpus = json.at("gpus").get<int>();
  row.strategy = json.at("strategy").get<std::string>();
  row.gpus_per_worker = json.at("gpus_per_worker").get<int>();
  row.workers = json.at("workers").get<int>();
  row.global_batch = read_optional(json, "global_batch");
  row.step_time_s = json.at("step_time_s").get<double>();
  row.compute_s = json.at("compute_s").get<double>();
  row.comm_s = json.at("comm_s").get<double>();
  row.exposed_comm_s = json.at("exposed_comm_s").get<double>();
  row.waiting_s = json.value("waiting_s", 0.0);
  row.idle_s = json.at("idle_s").get<double>();
  row.interference_s = json.value("interference_s", 0.0);
  row.straggler_s = json.value("straggler_s", 0.0);
  row.mp_speedup = json.at("mp_speedup").get<double>();
  row.epochs = read_optional(json, "epochs");
  row.time_to_train_s = read_optional(json, "time_to_train_s");
  row.flows = json.at("flows").get<long>();
  row.sim_wall_s = json.at("sim_wall_s").get<double>();
  if (json.contains("warnings")) row.warnings = json.at("warnings").get<std::vector<std::string>>();
  return row;
}

namespace {

// Simplest first: DP, then hybrid workers by size.
bool simpler(const SweepRow& a, const SweepRow& b) { return a.gpus_per_worker < b.gpus_per_worker; }

// The fastest strategy at one scale, unless a simpler one is within `resolution` of it.
SweepSummary::Best best_at_scale(int gpus, const std::map<std::string, const SweepRow*>& strategies, double resolution) {
  const SweepRow* fastest = nullptr;
  for (const auto& [name, row] : strategies)
    if (!fastest || ranking_time_s(*row) < ranking_time_s(*fastest)) fastest = row;
  const double limit_s = ranking_time_s(*fastest) * (1 + resolution);
  const SweepRow* chosen = fastest;
  for (const auto& [name, row] : strategies)
    if (ranking_time_s(*row) <= limit_s && simpler(*row, *chosen)) chosen = row;
  SweepSummary::Best best{gpus, chosen->strategy, ranking_time_s(*chosen), {}};
  for (const auto& [name, row] : strategies)
    if (row != chosen && ranking_time_s(*row) <= ranking_time_s(*chosen) * (1 + resolution)) best.tied_with.push_back(name);
  return best;
}

}  // namespace

SweepSummary summarize_sweep(const std::vector<SweepRow>& rows, double resolution) {
  SweepSummary summary;
  summary.resolution = resolution;
  std::map<int, std::map<std::string, const SweepRow*>> by_gpus;
  for (const SweepRow& row : rows) by_gpus[row.gpus][row.strategy] = &row;
  for (const auto& [gpus, strategies] : by_gpus) summary.best.push_back(best_at_scale(gpus, strategies, resolution));
  // Crossover: DP best at the start, and from some scale on a hybrid strategy best for good.
  const auto& best = summary.best;
  if (!best.empty() && best.front().strategy == "dp" && best.back().strategy != "dp") {
    size_t first = best.size() - 1;
    while (first > 0 && best[first - 1].strategy != "dp") --first;
    summary.crossover_gpus = best[first].gpus;
  }
  if (!by_gpus.empty()) {
    const auto& largest = by_gpus.rbegin()->second;
    auto dp = largest.find("dp");
    const SweepRow* best_hybrid = nullptr;
    for (const auto& [name, row] : largest)
      if (name != "dp" && (!best_hybrid || ranking_time_s(*row) < ranking_time_s(*best_hybrid))) best_hybrid = row;
    if (dp != largest.end() && best_hybrid) {
      summary.hybrid_speedup_at_largest = ranking_time_s(*dp->second) / ranking_time_s(*best_hybrid) - 1;
      summary.best_hybrid_at_largest = best_hybrid->strategy;
    }
  }
  return summary;
}

std::string sweep_csv(const std::vector<SweepRow>& rows, const SweepSummary& summary) {
  std::map<int, std::string> best_at;
  for (const auto& b : summary.best) best_at[b.gpus] = b.strategy;
  std::string csv =
      "gpus,strategy,gpus_per_worker,workers,global_batch,step_time_s,compute_s,comm_s,exposed_comm_s,waiting_s,"
      "idle_s,interference_s,straggler_s,mp_speedup,epochs,time_to_train_s,best\n";
  for (const SweepRow& row : rows) {
    csv += std::to_string(row.gpus) + "," + row.strategy + "," + std::to_string(row.gpus_per_worker) + "," +
           std::to_string(row.workers) + "," + csv_number(row.global_batch) + "," + csv_number(row.step_time_s) + "," +
           csv_number(row.compute_s) + "," + csv_number(row.comm_s) + "," + csv_number(row.exposed_comm_s) + "," +
           csv_number(row.waiting_s) + "," + csv_number(row.idle_s) + "," + csv_number(row.interference_s) + "," +
           csv_number(row.straggler_s) + "," + csv_number(row.mp_speedup) + "," + csv_number(row.epochs) + "," +
           csv_number(row.time_to_train_s) + "," + (best_at[row.gpus] == row.strategy ? "1" : "0") + "\n";
  }
  return csv;
}

nlohmann::ordered_json summary_json(const SweepSummary& summary) {
  nlohmann::ordered_json out;
  out["best"] = nlohmann::ordered_json::array();
  for (const auto& b : summary.best)
    out["best"].push_back({{"gpus", b.gpus}, {"strategy", b.strategy}, {"tied_with", b.tied_with}});
  out["crossover_gpus"] = summary.crossover_gpus ? nlohmann::ordered_json(*summary.crossover_gpus) : nullptr;
  out["hybrid_speedup_at_largest"] =
      summary.hybrid_speedup_at_largest ? nlohmann::ordered_json(*summary.hybrid_speedup_at_largest) : nullptr;
  out["best_hybrid_at_largest"] = summary.best_hybrid_at_largest;
  out["resolution"] = summary.resolution;
  return out;
}

}  // namespace scalecast
