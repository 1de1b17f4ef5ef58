// scalecast inspect: summary of a simulated timeline or of a trace, and export of a timeline for
// Perfetto / chrome://tracing.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/core/input_error.h"
#include "sim/cost/cost_model_table.h"
#include "sim/cost/trace_scaling.h"
#include "sim/platform/platform_yaml.h"
#include "sim/report/scaling_report.h"
#include "sim/timeline/chrome_trace.h"
#include "sim/timeline/timeline_json.h"
#include "sim/timeline/timeline_summary.h"
#include "sim/timeline/timeline_svg.h"
#include "sim/trace/trace_json.h"
#include "tools/scalecast/cli_options.h"
#include "tools/scalecast/output_paths.h"

namespace scalecast::cli {

namespace {

using ordered_json = nlohmann::ordered_json;

// `waiting`: a timeline's operators, whose collectives may have waited for other ranks (a
// trace's measured durations have no such part).
ordered_json top_operators_json(const std::vector<OperatorTotal>& totals, bool waiting) {
  ordered_json operators = ordered_json::array();
  for (const OperatorTotal& op : totals) {
    ordered_json entry = {{"name", op.name},
                          {"category", to_string(op.category)},
                          {"count", op.count},
                          {"total_s", op.total_s},
                          {"mean_s", op.mean_s}};
    if (waiting) entry["waiting_s"] = op.waiting_s;
    operators.push_back(std::move(entry));
  }
  return operators;
}

enum class InputKind { timeline, trace };

// What FILE holds, from its "format" field; a directory can only be a trace. A valid timeline
// is read straight into `timeline` (the fast reader: no JSON document); anything else is parsed
// into `document`, so that neither is read twice and errors come from the full readers.
InputKind detect_input(const std::string& path, nlohmann::json& document, std::optional<Timeline>& timeline) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return InputKind::trace;
  const std::string kineto = "this is a PyTorch profiler (Kineto) trace: run `scalecast import kineto " + path +
                             " -o trace.json` first, then inspect or simulate trace.json";
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) throw InputError(path, "", kineto);
  const std::string text = read_text_file(path);
  timeline = timeline_from_text_fast(text);
  if (timeline) return InputKind::timeline;
  document = parse_json_text(text, path);
  const std::string expected = std::string("expected a scalecast timeline (\"format\": \"") + kTimelineFormatName +
                               "\") or trace (\"format\": \"" + kTraceFormatName + "\")";
  if (!document.is_object()) throw InputError(path, "", "is not a JSON object; " + expected);
  if (document.contains("traceEvents")) throw InputError(path, "", kineto);
  auto format = document.find("format");
  if (format == document.end() || !format->is_string()) throw InputError(path, "format", "is missing; " + expected);
  const std::string name = format->get<std::string>();
  if (name == kTimelineFormatName) return InputKind::timeline;
  if (name == kTraceFormatName) return InputKind::trace;
  if (name == kRankFileFormatName)
    throw InputError(path, "format", "this is one rank's file of a trace directory; inspect the directory instead");
  throw InputError(path, "format", "is \"" + name + "\"; " + expected);
}

// "12.345 ms": three decimals in the largest unit that keeps the number at least 1.
std::string format_time(double seconds) {
  char text[64];
  if (seconds >= 1 || seconds == 0) std::snprintf(text, sizeof text, "%.3f s", seconds);
  else if (seconds >= 1e-3) std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
  else std::snprintf(text, sizeof text, "%.3f us", seconds * 1e6);
  return text;
}

// Keeps table columns aligned: long operator names are cut, with "..." to say so.
std::string fit(const std::string& text, size_t width) {
  return text.size() <= width ? text : text.substr(0, width - 3) + "...";
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  char text[64];
  std::snprintf(text, sizeof text, unit ? "%.2f %s" : "%.0f %s", bytes, units[unit]);
  return text;
}

// ---------------------------------------------------------------------------------------------
// Timeline
// ---------------------------------------------------------------------------------------------

ordered_json step_spans_json(const StepReport& step) {
  ordered_json spans = ordered_json::array();
  for (size_t k = 0; k < step.steps.size(); ++k) {
    const StepSpan& span = step.steps[k];
    spans.push_back({{"step", span.step},
                     {"start_s", span.start_s},
                     {"end_s", span.end_s},
                     {"time_s", span.end_s - span.start_s},
                     {"warm_up", k < static_cast<size_t>(step.warm_up_steps)}});
  }
  return spans;
}

ordered_json streams_json(const std::vector<StreamUtilisation>& streams) {
  ordered_json out = ordered_json::array();
  for (const StreamUtilisation& u : streams)
    out.push_back({{"class", u.rank_class},
                   {"stream", u.stream},
                   {"categories", u.categories},
                   {"events", u.events},
                   {"busy_s", u.busy_s},
                   {"utilisation", u.utilisation}});
  return out;
}

// Per rank: classes stand for all their ranks (identical events).
ordered_json rank_utilisation_json(const std::vector<RankUtilisation>& utilisation) {
  ordered_json ranks = ordered_json::array();
  for (const RankUtilisation& u : utilisation)
    ranks.push_back({{"class", u.rank_class},
                     {"ranks", rank_ranges_text(u.ranks)},
                     {"rank_count", u.ranks.size()},
                     {"busy_s", u.busy_s},
                     {"compute_s", u.time.compute_s},
                     {"comm_s", u.time.communication_s},
                     {"exposed_comm_s", u.time.exposed_communication_s},
                     {"waiting_s", u.waiting_s},
                     {"idle_s", u.time.idle_s},
                     {"host_s", u.time.host_s},
                     {"host_only_s", u.time.host_only_s},
                     {"utilisation", u.utilisation},
                     {"compute_utilisation", u.compute_utilisation}});
  return ranks;
}

ordered_json step_breakdowns_json(const std::vector<StepBreakdown>& breakdowns) {
  ordered_json steps = ordered_json::array();
  for (const StepBreakdown& b : breakdowns)
    steps.push_back({{"step", b.span.step},
                     {"start_s", b.span.start_s},
                     {"end_s", b.span.end_s},
                     {"time_s", b.span.end_s - b.span.start_s},
                     {"class", b.rank_class},
                     {"compute_s", b.time.compute_s},
                     {"comm_s", b.time.communication_s},
                     {"exposed_comm_s", b.time.exposed_communication_s},
                     {"waiting_s", b.waiting_s},
                     {"idle_s", b.time.idle_s},
                     {"host_s", b.time.host_s},
                     {"host_only_s", b.time.host_only_s}});
  return steps;
}

ordered_json critical_path_json(const CriticalPath& path) {
  ordered_json segments = ordered_json::array();
  for (const PathSegment& seg : path.segments)
    segments.push_back({{"kind", to_string(seg.kind)},
                        {"name", seg.name},
                        {"class", seg.rank_class},
                        {"rank", seg.rank},
                        {"stream", seg.stream},
                        {"start_s", seg.start_s},
                        {"end_s", seg.end_s},
                        {"duration_s", seg.duration_s()},
                        {"share", seg.share}});
  return {{"step", path.step.step},
          {"start_s", path.step.start_s},
          {"end_s", path.step.end_s},
          {"time_s", path.step.end_s - path.step.start_s},
          {"compute_s", path.total_s(PathSegmentKind::compute)},
          {"comm_s", path.total_s(PathSegmentKind::communication)},
          {"p2p_s", path.total_s(PathSegmentKind::point_to_point)},
          {"host_s", path.total_s(PathSegmentKind::host)},
          {"idle_s", path.total_s(PathSegmentKind::idle)},
          {"segments", std::move(segments)}};
}

ordered_json timeline_report(const TimelineSummary& s) {
  ordered_json out;
  out["kind"] = "timeline";
  out["platform"] = s.platform;
  out["ranks"] = s.ranks;
  out["rank_classes"] = s.rank_classes;
  out["steps"] = s.step.steps.size();
  out["step_time_s"] = s.step.step_time_s;
  out["mean_step_time_s"] = s.step.mean_step_time_s;
  out["step_definition"] = step_definition(s.step);
  out["warm_up_steps"] = s.step.warm_up_steps;
  if (s.step.breakdown_class >= 0)
    out["bounding_resource"] = {{"class", s.step.bounding.rank_class},
                                {"kind", s.step.bounding.is_gpu() ? "gpu" : "host"},
                                {"stream", s.step.bounding.is_gpu() ? ordered_json(nullptr) : ordered_json(s.step.bounding.stream)},
                                {"work_s", s.step.bounding.work_s}};
  out["span_s"] = s.span_s;
  out["step_spans"] = step_spans_json(s.step);
  out["breakdown_class"] = s.step.breakdown_class;
  out["compute_s"] = s.step.per_step.compute_s;
  out["comm_s"] = s.step.per_step.communication_s;
  out["exposed_comm_s"] = s.step.per_step.exposed_communication_s;
  out["idle_s"] = s.step.per_step.idle_s;
  out["waiting_s"] = s.step.per_step_waiting_s;
  out["host_s"] = s.step.per_step.host_s;
  out["host_only_s"] = s.step.per_step.host_only_s;
  out["streams"] = streams_json(s.streams);
  out["top_operators"] = top_operators_json(s.top_operators, true);
  out["utilisation"] = {{"span_s", s.span_s}, {"ranks", rank_utilisation_json(s.rank_utilisation)}, {"streams", out["streams"]}};
  out["step_breakdown"] = step_breakdowns_json(s.step_breakdowns);
  out["critical_path"] = critical_path_json(s.critical_path);
  return out;
}

// Tables with a row per rank class are cut here in the human output (--json has every row).
constexpr size_t kMaxClassRows = 16;

std::string percent(double part, double whole, bool aligned = true) {
  char text[32];
  std::snprintf(text, sizeof text, aligned ? "%5.1f%%" : "%.1f%%", whole > 0 ? 100 * part / whole : 0.0);
  return text;
}

void print_rank_utilisation(const TimelineSummary& s) {
  std::printf("\nranks (over the timeline's span of %s; a class's figures hold for each of its ranks)\n",
              format_time(s.span_s).c_str());
  std::vector<const RankUtilisation*> rows;
  for (const RankUtilisation& u : s.rank_utilisation) rows.push_back(&u);
  if (rows.size() > kMaxClassRows) {
    // Many classes: the least busy ones are the interesting ones (stragglers' partners wait).
    std::stable_sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->utilisation < b->utilisation; });
    std::vector<double> utilisations;
    for (auto* u : rows) utilisations.push_back(u->utilisation);
    std::printf("  %zu rank classes: utilisation min %.1f%%, median %.1f%%, max %.1f%%; the %zu least busy:\n", rows.size(),
                100 * utilisations.front(), 100 * utilisations[utilisations.size() / 2], 100 * utilisations.back(),
                kMaxClassRows);
    rows.resize(kMaxClassRows);
  }
  std::printf("  %-6s %-20s %12s %7s %12s %8s %12s %12s %12s %12s\n", "class", "ranks", "GPU busy", "util",
              "compute", "compute%", "exposed comm", "(waiting)", "idle", "host");
  for (const RankUtilisation* u : rows)
    std::printf("  %-6d %-20s %12s %6.1f%% %12s %7.1f%% %12s %12s %12s %12s\n", u->rank_class,
                fit(rank_ranges_text(u->ranks), 20).c_str(), format_time(u->busy_s).c_str(), 100 * u->utilisation,
                format_time(u->time.compute_s).c_str(), 100 * u->compute_utilisation,
                format_time(u->time.exposed_communication_s).c_str(), format_time(u->waiting_s).c_str(),
                format_time(u->time.idle_s).c_str(), format_time(u->time.host_s).c_str());
}

void print_step_breakdowns(const TimelineSummary& s) {
  std::printf("\nsteps (rank class %d, the one that sets the step)\n", s.step.breakdown_class);
  std::printf("  %-6s %12s %12s %12s %12s %12s %12s %12s\n", "step", "time", "compute", "comm", "exposed comm",
              "(waiting)", "idle", "host");
  for (size_t k = 0; k < s.step_breakdowns.size(); ++k) {
    const StepBreakdown& b = s.step_breakdowns[k];
    std::printf("  %-6d %12s %12s %12s %12s %12s %12s %12s%s\n", b.span.step, format_time(b.span.end_s - b.span.start_s).c_str(),
                format_time(b.time.compute_s).c_str(), format_time(b.time.communication_s).c_str(),
                format_time(b.time.exposed_communication_s).c_str(), format_time(b.waiting_s).c_str(),
                format_time(b.time.idle_s).c_str(), format_time(b.time.host_s).c_str(),
                k < static_cast<size_t>(s.step.warm_up_steps) ? "  warm-up: not in the step time" : "");
  }
}

// The path as runs: consecutive segments of one kind on one class and stream are one line
// (a ResNet step is ~200 back-to-back kernels on one stream; --json lists each).
void print_critical_path(const TimelineSummary& s) {
  const CriticalPath& path = s.critical_path;
  if (path.segments.empty()) return;
  const double length_s = path.step.end_s - path.step.start_s;
  std::printf("\ncritical path of step %d (%s): what sets the step's length\n", path.step.step,
              format_time(length_s).c_str());
  for (PathSegmentKind kind : {PathSegmentKind::compute, PathSegmentKind::communication, PathSegmentKind::point_to_point,
                               PathSegmentKind::host, PathSegmentKind::idle})
    std::printf("  %-16s %12s %s\n", to_string(kind), format_time(path.total_s(kind)).c_str(),
                percent(path.total_s(kind), length_s).c_str());
  std::printf("  %-12s %12s %6s  %-13s %6s %6s %5s  %s\n", "start", "duration", "share", "kind", "rank", "stream", "tasks",
              "first ... last");
  size_t first = 0;
  size_t printed = 0;
  for (size_t i = 1; i <= path.segments.size(); ++i) {
    const PathSegment& a = path.segments[first];
    if (i < path.segments.size()) {
      const PathSegment& b = path.segments[i];
      if (b.kind == a.kind && b.rank_class == a.rank_class && b.stream == a.stream) continue;
    }
    const PathSegment& last = path.segments[i - 1];
    const double run_s = last.end_s - a.start_s;
    std::string names = a.name;
    if (i - first > 1) names = fit(a.name, 28) + " ... " + fit(last.name, 28);
    if (printed++ < 40)
      std::printf("  %-12s %12s %s  %-13s %6d %6s %5zu  %s\n", format_time(a.start_s - path.step.start_s).c_str(),
                  format_time(run_s).c_str(), percent(run_s, length_s).c_str(), to_string(a.kind), a.rank,
                  a.stream >= 0 ? std::to_string(a.stream).c_str() : "-", i - first, names.c_str());
    first = i;
  }
  if (printed > 40) std::printf("  ... %zu more runs (--json lists every segment)\n", printed - 40);
}

void print_timeline(const std::string& path, const TimelineSummary& s) {
  std::printf("timeline %s\n", path.c_str());
  std::printf("  platform          %s\n", s.platform.c_str());
  std::printf("  ranks             %d in %d rank class%s\n", s.ranks, s.rank_classes, s.rank_classes == 1 ? "" : "es");
  std::printf("  steps             %zu (%d warm-up), step time %s (median; mean %s)\n", s.step.steps.size(),
              s.step.warm_up_steps, format_time(s.step.step_time_s).c_str(), format_time(s.step.mean_step_time_s).c_str());
  std::printf("  a step is         %s\n", step_definition(s.step).c_str());
  if (s.step.breakdown_class >= 0) {
    std::printf("  bounded by        %s (%s of work in the steps)\n", describe(s.step.bounding).c_str(),
                format_time(s.step.bounding.work_s).c_str());
    std::printf("\nper step, rank class %d (the one that sets the step), mean over the steps after warm-up\n",
                s.step.breakdown_class);
    std::printf("  compute           %s\n", format_time(s.step.per_step.compute_s).c_str());
    std::printf("  communication     %s\n", format_time(s.step.per_step.communication_s).c_str());
    std::printf("  exposed comm      %s\n", format_time(s.step.per_step.exposed_communication_s).c_str());
    if (s.step.per_step_waiting_s > 0)
      std::printf("    of which waiting %s for other ranks to reach collectives\n", format_time(s.step.per_step_waiting_s).c_str());
    std::printf("  idle              %s   (the GPU neither computed nor communicated)\n", format_time(s.step.per_step.idle_s).c_str());
    if (s.step.per_step.host_s > 0)
      std::printf("  host              %s   (a CPU thread ran; %s of it while the GPU was idle)\n",
                  format_time(s.step.per_step.host_s).c_str(), format_time(s.step.per_step.host_only_s).c_str());
  }
  print_step_breakdowns(s);
  print_rank_utilisation(s);
  std::printf("\nstreams (busy time over the timeline's span of %s)\n", format_time(s.span_s).c_str());
  std::printf("  %-6s %-7s %-22s %8s %14s %7s\n", "class", "stream", "categories", "events", "busy", "util");
  size_t stream_rows = 0;
  for (const StreamUtilisation& u : s.streams) {
    if (u.rank_class >= static_cast<int>(kMaxClassRows)) continue;
    ++stream_rows;
    std::printf("  %-6d %-7d %-22s %8ld %14s %6.1f%%\n", u.rank_class, u.stream, u.categories.c_str(), u.events,
                format_time(u.busy_s).c_str(), 100 * u.utilisation);
  }
  if (stream_rows < s.streams.size())
    std::printf("  ... %zu more streams of classes %zu and above (--json lists every one)\n", s.streams.size() - stream_rows,
                kMaxClassRows);
  std::printf("\ntop operators (summed over all ranks; a collective from when its transfer began, its ranks' wait "
              "for each other apart)\n");
  std::printf("  %-32s %-14s %8s %14s %14s %14s\n", "name", "category", "count", "total", "mean", "(waiting)");
  for (const OperatorTotal& op : s.top_operators)
    std::printf("  %-32s %-14s %8ld %14s %14s %14s\n", fit(op.name, 32).c_str(), to_string(op.category), op.count,
                format_time(op.total_s).c_str(), format_time(op.mean_s).c_str(), format_time(op.waiting_s).c_str());
  print_critical_path(s);
}

// ---------------------------------------------------------------------------------------------
// Trace
// ---------------------------------------------------------------------------------------------

// The busiest rank's measured compute per step: what compute alone would take, before any
// simulation adds communication.
double compute_per_step_s(const TraceSummary& s) {
  double most_s = 0;
  for (double c : s.compute_s_per_rank) most_s = std::max(most_s, c);
  return s.steps > 0 ? most_s / s.steps : 0;
}

ordered_json trace_report(const TraceSummary& s) {
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

void print_trace(const std::string& path, const TraceSummary& s) {
  std::printf("trace %s\n", path.c_str());
  std::printf("  origin            %s\n", s.origin.empty() ? "(not recorded)" : s.origin.c_str());
  std::printf("  traced GPU        %s\n", s.traced_gpu.empty() ? "(not recorded)" : s.traced_gpu.c_str());
  std::printf("  ranks             %d running %zu program%s\n", s.ranks, s.programs.size(), s.programs.size() == 1 ? "" : "s");
  std::printf("  steps             %d\n", s.steps);
  std::printf("  compute per step  %s measured on the busiest rank (step time needs `scalecast simulate`)\n",
              format_time(compute_per_step_s(s)).c_str());
  std::printf("\nprograms (measured: GPU compute; host: CPU threads' tasks)\n  %-24s %9s %11s %6s %6s %14s %14s %11s\n",
              "ranks", "compute", "collective", "send", "recv", "measured", "host", "unmeasured");
  for (const ProgramSummary& p : s.programs) {
    auto count = [&](TaskKind kind) { return p.tasks.count(kind) ? p.tasks.at(kind) : 0L; };
    std::printf("  %-24s %9ld %11ld %6ld %6ld %14s %14s %11ld\n", rank_ranges_text(p.ranks).c_str(), count(TaskKind::compute),
                count(TaskKind::collective), count(TaskKind::send), count(TaskKind::recv),
                format_time(p.measured_compute_s).c_str(), format_time(p.measured_host_s).c_str(), p.unmeasured_compute_tasks);
  }
  std::printf("\ncollectives (over all ranks; bytes are per-rank buffers summed)\n  %-14s %10s %14s\n", "op", "count", "bytes");
  for (const CollectiveTotal& c : s.collectives)
    std::printf("  %-14s %10ld %14s\n", to_string(c.op), c.count, format_bytes(c.bytes).c_str());
  std::printf("\ncommunicators\n  %-6s %-20s %8s %14s\n", "id", "name", "groups", "largest group");
  for (const CommunicatorSummary& c : s.communicators)
    std::printf("  %-6d %-20s %8d %14d\n", c.id, c.name.c_str(), c.groups, c.largest_group);
  std::printf("\nstreams (measured durations summed: busy time if the stream never waits)\n  %-8s %-7s %-5s %8s %14s\n",
              "program", "stream", "kind", "tasks", "busy");
  for (const TraceStream& t : s.streams)
    std::printf("  %-8d %-7d %-5s %8ld %14s\n", t.program, t.stream, t.host ? "host" : "gpu", t.tasks,
                format_time(t.measured_busy_s).c_str());
  std::printf("\nsteps (measured compute of the busiest rank)\n  %-6s %14s\n", "step", "compute");
  for (const auto& [step, compute_s] : s.step_compute_s)
    std::printf("  %-6d %14s\n", step, format_time(compute_s).c_str());
  std::printf("\ntop operators (measured durations, summed over all ranks)\n  %-32s %-8s %8s %14s %14s\n", "name",
              "category", "count", "total", "mean");
  for (const OperatorTotal& op : s.top_operators)
    std::printf("  %-32s %-8s %8ld %14s %14s\n", fit(op.name, 32).c_str(), to_string(op.category), op.count,
                format_time(op.total_s).c_str(), format_time(op.mean_s).c_str());
}

// The picture's title and the figures under it.
TimelineSvgOptions svg_options(const std::string& file, const TimelineSummary& s, int max_rows) {
  TimelineSvgOptions options;
  options.max_rows = max_rows;
  options.title = std::filesystem::path(file).filename().string() + ": " + s.platform + ", " + std::to_string(s.ranks) +
                  " rank" + (s.ranks == 1 ? "" : "s") + ", " + std::to_string(s.step.steps.size()) + " step" +
                  (s.step.steps.size() == 1 ? "" : "s") + ", step time " + format_time(s.step.step_time_s) + " (median)";
  if (s.step.breakdown_class >= 0) {
    const double step_s = s.step.per_step.span_s;
    options.notes.push_back("per step, rank class " + std::to_string(s.step.breakdown_class) + " (sets the step): compute " +
                            format_time(s.step.per_step.compute_s) + " (" + percent(s.step.per_step.compute_s, step_s, false) +
                            "), exposed communication " + format_time(s.step.per_step.exposed_communication_s) + " (" +
                            percent(s.step.per_step.exposed_communication_s, step_s, false) + "), idle " + format_time(s.step.per_step.idle_s) +
                            "; communication in all " + format_time(s.step.per_step.communication_s) +
                            (s.step.per_step.host_s > 0 ? "; host (CPU threads) " + format_time(s.step.per_step.host_s) : ""));
  }
  const CriticalPath& path = s.critical_path;
  if (!path.segments.empty()) {
    const double length_s = path.step.end_s - path.step.start_s;
    options.notes.push_back("critical path of step " + std::to_string(path.step.step) + ": compute " +
                            percent(path.total_s(PathSegmentKind::compute), length_s, false) + ", communication " +
                            percent(path.total_s(PathSegmentKind::communication), length_s, false) + ", p2p " +
                            percent(path.total_s(PathSegmentKind::point_to_point), length_s, false) +
                            (path.total_s(PathSegmentKind::host) > 0
                                 ? ", host " + percent(path.total_s(PathSegmentKind::host), length_s, false)
                                 : std::string()) +
                            ", idle " +
                            percent(path.total_s(PathSegmentKind::idle), length_s, false));
    options.critical_path = &path;
  }
  return options;
}

// The trace's measured GPU work by kernel class: as measured, or rescaled to --platform's GPU.
TraceScaling trace_classes(const ExecutionGraph& graph, const po::variables_map& values) {
  if (!values.count("platform")) {
    if (values.count("cost-model")) throw InputError("command line", "--cost-model", "needs --platform");
    return describe_trace_classes(graph);
  }
  ExecutionGraph copy = graph;
  const std::string cost_model = values.count("cost-model") ? values["cost-model"].as<std::string>() : "";
  return rescale_trace(copy, load_platform(values["platform"].as<std::string>()).node.gpu, load_cost_model_table(cost_model));
}

// A trace: its summary, and how its kernels would rescale (--platform).
void inspect_trace(const std::string& path, const po::variables_map& values, int top, bool json) {
  for (const char* option : {"chrome", "svg", "step"})
    if (values.count(option))
      throw InputError("command line", std::string("--") + option,
                       path + " is a trace, and --" + option + " needs a simulated timeline; run `scalecast simulate --trace " +
                           path + " --timeline T.json` and inspect T.json");
  ExecutionGraph graph = read_trace(path);
  const TraceScaling classes = trace_classes(graph, values);
  const TraceSummary summary = summarize_trace(std::move(graph), static_cast<size_t>(top));
  for (const std::string& note : classes.notes) std::cerr << "scalecast: warning: " << note << "\n";
  if (json) {
    ordered_json report = trace_report(summary);
    report["kernel_classes"] = scaling_json(classes);
    std::cout << report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    print_trace(path, summary);
    std::printf("\n%s", scaling_text(classes).c_str());
  }
}

struct TimelineViews {
  int top = 10;
  int step = kLongestStep;
  int svg_rows = 64;
  ChromeTraceOptions chrome;
};

// A simulated timeline: its summary, and the Chrome trace and SVG picture asked for.
void inspect_timeline(const std::string& path, const Timeline& timeline, const po::variables_map& values,
                      const TimelineViews& views, bool json) {
  // Everything that can reject the input comes before any output is written, so that a run that
  // exits 2 leaves no Chrome trace without its picture or the reverse.
  if (values.count("chrome")) check_output_path(values["chrome"].as<std::string>(), "--chrome");
  if (values.count("svg")) check_output_path(values["svg"].as<std::string>(), "--svg");
  const TimelineSummary summary = summarize_timeline(timeline, static_cast<size_t>(views.top), views.step);
  if (values.count("chrome")) write_chrome_trace(timeline, values["chrome"].as<std::string>(), views.chrome);
  if (values.count("svg"))
    write_timeline_svg(timeline, values["svg"].as<std::string>(), svg_options(path, summary, views.svg_rows));
  if (json) {
    std::cout << timeline_report(summary).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  print_timeline(path, summary);
  if (values.count("chrome")) std::printf("\nwrote Chrome trace %s\n", values["chrome"].as<std::string>().c_str());
  if (values.count("svg")) std::printf("wrote SVG timeline %s\n", values["svg"].as<std::string>().c_str());
}

}  // namespace

int run_inspect(const std::vector<std::string>& args) {
  po::options_description options("inspect options");
  options.add_options()
      ("file", po::value<std::string>()->required(), "timeline (from simulate --timeline), trace file or trace directory")
      ("chrome", po::value<std::string>(), "export a timeline as a Chrome trace (Perfetto, chrome://tracing) to this file")
      ("max-ranks", po::value<int>()->default_value(64), "Chrome export: one process per rank up to this many ranks, "
                                                         "one per rank class beyond")
      ("svg", po::value<std::string>(), "draw the timeline as an SVG picture to this file")
      ("svg-rows", po::value<int>()->default_value(64), "SVG: rows drawn before ranks are summarised (identical rows "
                                                        "grouped, then buckets of ranks)")
      ("step", po::value<int>(), "step whose critical path is reported (default: the longest)")
      ("top", po::value<int>()->default_value(10), "operators to list")
      ("platform", po::value<std::string>(), "trace: rescale its GPU work by kernel class to this platform's GPU and show how")
      ("cost-model", po::value<std::string>(), "trace: cost-model YAML file layered on the shipped one (with --platform)")
      ("json", po::bool_switch(), "print one JSON object");
  po::positional_options_description positional;
  positional.add("file", 1);
  po::variables_map values;
  if (!parse_options("inspect", "FILE [--chrome OUT] [--svg OUT] [--json]", args, options, values, &positional)) return 0;
  const int svg_rows = values["svg-rows"].as<int>();
  if (svg_rows < 1) throw InputError("command line", "--svg-rows", "must be at least 1");
  const int step = values.count("step") ? values["step"].as<int>() : kLongestStep;
  if (values.count("step") && step < -1) throw InputError("command line", "--step", "must be a step number (-1 or more)");
  const int top = values["top"].as<int>();
  if (top < 0) throw InputError("command line", "--top", "must not be negative");
  ChromeTraceOptions chrome;
  chrome.max_ranks = values["max-ranks"].as<int>();
  if (chrome.max_ranks < 1) throw InputError("command line", "--max-ranks", "must be at least 1");

  const std::string path = values["file"].as<std::string>();
  const bool json = values["json"].as<bool>();
  nlohmann::json document;
  std::optional<Timeline> fast_timeline;
  if (detect_input(path, document, fast_timeline) == InputKind::trace) {
    inspect_trace(path, values, top, json);
    return 0;
  }
  for (const char* option : {"platform", "cost-model"})
    if (values.count(option))
      throw InputError("command line", std::string("--") + option, path + " is a simulated timeline; --" + option +
                                                                          " applies to traces");
  Timeline timeline = fast_timeline ? std::move(*fast_timeline) : timeline_from_json(document, path);
  document = nullptr;  // the parsed text is no longer needed; a large one is worth freeing
  inspect_timeline(path, timeline, values, {top, step, svg_rows, chrome}, json);
  return 0;
}

}  // namespace scalecast::cli
