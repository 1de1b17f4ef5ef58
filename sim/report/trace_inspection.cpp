#include "sim/report/trace_inspection.h"

#include <algorithm>

#include "sim/core/quantity_parse.h"
#include "sim/report/inspection_format.h"
#include "sim/timeline/chrome_trace.h"

namespace scalecast {

using ordered_json = nlohmann::ordered_json;

namespace {

// The busiest rank's measured compute per step: what compute alone would take, before any
// simulation adds communication.
double compute_per_step_s(const TraceSummary& s) {
  double most_s = 0;
  for (double c : s.compute_s_per_rank) most_s = std::max(most_s, c);
  return s.steps > 0 ? most_s / s.steps : 0;
}

}  // namespace

ordered_json trace_inspection_json(const TraceSummary& s) {
  ordered_json out;
  out["kind"] = "trace";
  out["origin"] = s.origin;
  out["traced_gpu"] = s.traced_gpu;
  out["ranks"] = s.ranks;
  out["steps"] = s.steps;
  // Timing beyond measured compute needs a simulation (`scalecast simulate`): null, not 0.
  out["step_time_s"] = nullptr;
  out["compute_s"] = compute_per_step_s(s);
  out["comm_s"] = nullptr;
  out["exposed_comm_s"] = nullptr;
  out["idle_s"] = nullptr;
  ordered_json tasks = ordered_json::object();
  for (const auto& [kind, count] : s.tasks) tasks[to_string(kind)] = count;
  out["tasks"] = std::move(tasks);
  ordered_json programs = ordered_json::array();
  for (const ProgramSummary& p : s.programs) {
    ordered_json program_tasks = ordered_json::object();
    for (const auto& [kind, count] : p.tasks) program_tasks[to_string(kind)] = count;
    programs.push_back({{"ranks", rank_ranges_text(p.ranks)},
                        {"rank_count", p.ranks.size()},
                        {"tasks", std::move(program_tasks)},
                        {"measured_compute_s", p.measured_compute_s},
                        {"measured_host_s", p.measured_host_s},
                        {"unmeasured_compute_tasks", p.unmeasured_compute_tasks}});
  }
  out["programs"] = std::move(programs);
  out["compute_s_per_rank"] = s.compute_s_per_rank;
  ordered_json collectives = ordered_json::array();
  for (const CollectiveTotal& c : s.collectives)
    collectives.push_back({{"op", to_string(c.op)}, {"count", c.count}, {"bytes", c.bytes}});
  out["collectives"] = std::move(collectives);
  ordered_json communicators = ordered_json::array();
  for (const CommunicatorSummary& c : s.communicators)
    communicators.push_back({{"id", c.id}, {"name", c.name}, {"groups", c.groups}, {"largest_group", c.largest_group}});
  out["communicators"] = std::move(communicators);
  // What the measured durations give without a simulation; times that need one are null.
  ordered_json streams = ordered_json::array();
  for (const TraceStream& t : s.streams)
    streams.push_back({{"program", t.program},
                       {"stream", t.stream},
                       {"kind", t.host ? "host" : "gpu"},
                       {"tasks", t.tasks},
                       {"measured_busy_s", t.measured_busy_s}});
  out["streams"] = std::move(streams);
  out["top_operators"] = top_operators_json(s.top_operators, false);
  ordered_json steps = ordered_json::array();
  for (const auto& [step, compute_s] : s.step_compute_s)
    steps.push_back({{"step", step}, {"time_s", nullptr}, {"compute_s", compute_s}, {"exposed_comm_s", nullptr}});
  out["step_breakdown"] = std::move(steps);
  return out;
}

std::string trace_inspection_text(const std::string& path, const TraceSummary& s) {
  std::string out;
  appendf(out, "trace %s\n", path.c_str());
  appendf(out, "  origin            %s\n", s.origin.empty() ? "(not recorded)" : s.origin.c_str());
  appendf(out, "  traced GPU        %s\n", s.traced_gpu.empty() ? "(not recorded)" : s.traced_gpu.c_str());
  appendf(out, "  ranks             %d running %zu program%s\n", s.ranks, s.programs.size(),
          s.programs.size() == 1 ? "" : "s");
  appendf(out, "  steps             %d\n", s.steps);
  appendf(out, "  compute per step  %s measured on the busiest rank (step time needs `scalecast simulate`)\n",
          format_duration(compute_per_step_s(s)).c_str());
  appendf(out,
          "\nprograms (measured: GPU compute; host: CPU threads' tasks)\n  %-24s %9s %11s %6s %6s %14s %14s %11s\n",
          "ranks", "compute", "collective", "send", "recv", "measured", "host", "unmeasured");
  for (const ProgramSummary& p : s.programs) {
    auto count = [&](TaskKind kind) { return p.tasks.count(kind) ? p.tasks.at(kind) : 0L; };
    appendf(out, "  %-24s %9ld %11ld %6ld %6ld %14s %14s %11ld\n", rank_ranges_text(p.ranks).c_str(),
            count(TaskKind::compute), count(TaskKind::collective), count(TaskKind::send), count(TaskKind::recv),
            format_duration(p.measured_compute_s).c_str(), format_duration(p.measured_host_s).c_str(),
            p.unmeasured_compute_tasks);
  }
  appendf(out, "\ncollectives (over all ranks; bytes are per-rank buffers summed)\n  %-14s %10s %14s\n", "op", "count",
          "bytes");
  for (const CollectiveTotal& c : s.collectives)
    appendf(out, "  %-14s %10ld %14s\n", to_string(c.op), c.count, format_bytes(c.bytes).c_str());
  appendf(out, "\ncommunicators\n  %-6s %-20s %8s %14s\n", "id", "name", "groups", "largest group");
  for (const CommunicatorSummary& c : s.communicators)
    appendf(out, "  %-6d %-20s %8d %14d\n", c.id, c.name.c_str(), c.groups, c.largest_group);
  appendf(out,
          "\nstreams (measured durations summed: busy time if the stream never waits)\n  %-8s %-7s %-5s %8s %14s\n",
          "program", "stream", "kind", "tasks", "busy");
  for (const TraceStream& t : s.streams)
    appendf(out, "  %-8d %-7d %-5s %8ld %14s\n", t.program, t.stream, t.host ? "host" : "gpu", t.tasks,
            format_duration(t.measured_busy_s).c_str());
  appendf(out, "\nsteps (measured compute of the busiest rank)\n  %-6s %14s\n", "step", "compute");
  for (const auto& [step, compute_s] : s.step_compute_s)
    appendf(out, "  %-6d %14s\n", step, format_duration(compute_s).c_str());
  appendf(out, "\ntop operators (measured durations, summed over all ranks)\n  %-32s %-8s %8s %14s %14s\n", "name",
          "category", "count", "total", "mean");
  for (const OperatorTotal& op : s.top_operators)
    appendf(out, "  %-32s %-8s %8ld %14s %14s\n", fit_to_width(op.name, 32).c_str(), to_string(op.category), op.count,
            format_duration(op.total_s).c_str(), format_duration(op.mean_s).c_str());
  return out;
}

}  // namespace scalecast
