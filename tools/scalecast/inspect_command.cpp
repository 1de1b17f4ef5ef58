// scalecast inspect: summary of a simulated timeline or of a trace, and export of a timeline for
// Perfetto / chrome://tracing.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/core/input_error.h"
#include "sim/timeline/chrome_trace.h"
#include "sim/timeline/timeline_json.h"
#include "sim/timeline/timeline_summary.h"
#include "sim/trace/trace_json.h"
#include "tools/scalecast/cli_options.h"

namespace scalecast::cli {

namespace {

using ordered_json = nlohmann::ordered_json;

enum class InputKind { timeline, trace };

// What FILE holds, from its "format" field; a directory can only be a trace. `document` receives
// the parsed file so that a timeline is not read twice.
InputKind detect_input(const std::string& path, nlohmann::json& document) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return InputKind::trace;
  document = read_json_file(path);
  const std::string expected = std::string("expected a scalecast timeline (\"format\": \"") + kTimelineFormatName +
                               "\") or trace (\"format\": \"" + kTraceFormatName + "\")";
  if (!document.is_object()) throw InputError(path, "", "is not a JSON object; " + expected);
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

ordered_json timeline_report(const TimelineSummary& s) {
  ordered_json out;
  out["kind"] = "timeline";
  out["platform"] = s.platform;
  out["ranks"] = s.ranks;
  out["rank_classes"] = s.rank_classes;
  out["steps"] = s.steps.size();
  out["step_time_s"] = s.step_time_s;
  out["mean_step_time_s"] = s.mean_step_time_s;
  out["span_s"] = s.span_s;
  ordered_json spans = ordered_json::array();
  for (const StepSpan& span : s.steps)
    spans.push_back({{"step", span.step}, {"start_s", span.start_s}, {"end_s", span.end_s}, {"time_s", span.end_s - span.start_s}});
  out["step_spans"] = std::move(spans);
  out["breakdown_class"] = s.breakdown_class;
  out["compute_s"] = s.per_step.compute_s;
  out["comm_s"] = s.per_step.communication_s;
  out["exposed_comm_s"] = s.per_step.exposed_communication_s;
  out["idle_s"] = s.per_step.idle_s;
  ordered_json streams = ordered_json::array();
  for (const StreamUtilisation& u : s.streams)
    streams.push_back({{"class", u.rank_class},
                       {"stream", u.stream},
                       {"categories", u.categories},
                       {"events", u.events},
                       {"busy_s", u.busy_s},
                       {"utilisation", u.utilisation}});
  out["streams"] = std::move(streams);
  ordered_json operators = ordered_json::array();
  for (const OperatorTotal& op : s.top_operators)
    operators.push_back({{"name", op.name},
                         {"category", to_string(op.category)},
                         {"count", op.count},
                         {"total_s", op.total_s},
                         {"mean_s", op.mean_s}});
  out["top_operators"] = std::move(operators);
  return out;
}

void print_timeline(const std::string& path, const TimelineSummary& s) {
  std::printf("timeline %s\n", path.c_str());
  std::printf("  platform          %s\n", s.platform.c_str());
  std::printf("  ranks             %d in %d rank class%s\n", s.ranks, s.rank_classes, s.rank_classes == 1 ? "" : "es");
  std::printf("  steps             %zu, step time %s (median; mean %s)\n", s.steps.size(), format_time(s.step_time_s).c_str(),
              format_time(s.mean_step_time_s).c_str());
  if (s.breakdown_class >= 0) {
    std::printf("\nper step, rank class %d (the busiest)\n", s.breakdown_class);
    std::printf("  compute           %s\n", format_time(s.per_step.compute_s).c_str());
    std::printf("  communication     %s\n", format_time(s.per_step.communication_s).c_str());
    std::printf("  exposed comm      %s\n", format_time(s.per_step.exposed_communication_s).c_str());
    std::printf("  idle              %s\n", format_time(s.per_step.idle_s).c_str());
  }
  std::printf("\nstreams (busy time over the timeline's span of %s)\n", format_time(s.span_s).c_str());
  std::printf("  %-6s %-7s %-22s %8s %14s %7s\n", "class", "stream", "categories", "events", "busy", "util");
  for (const StreamUtilisation& u : s.streams)
    std::printf("  %-6d %-7d %-22s %8ld %14s %6.1f%%\n", u.rank_class, u.stream, u.categories.c_str(), u.events,
                format_time(u.busy_s).c_str(), 100 * u.utilisation);
  std::printf("\ntop operators (summed over all ranks)\n");
  std::printf("  %-32s %-14s %8s %14s %14s\n", "name", "category", "count", "total", "mean");
  for (const OperatorTotal& op : s.top_operators)
    std::printf("  %-32s %-14s %8ld %14s %14s\n", fit(op.name, 32).c_str(), to_string(op.category), op.count,
                format_time(op.total_s).c_str(), format_time(op.mean_s).c_str());
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
  std::printf("\nprograms\n  %-24s %9s %11s %6s %6s %14s %11s\n", "ranks", "compute", "collective", "send", "recv",
              "measured", "unmeasured");
  for (const ProgramSummary& p : s.programs) {
    auto count = [&](TaskKind kind) { return p.tasks.count(kind) ? p.tasks.at(kind) : 0L; };
    std::printf("  %-24s %9ld %11ld %6ld %6ld %14s %11ld\n", rank_ranges_text(p.ranks).c_str(), count(TaskKind::compute),
                count(TaskKind::collective), count(TaskKind::send), count(TaskKind::recv),
                format_time(p.measured_compute_s).c_str(), p.unmeasured_compute_tasks);
  }
  std::printf("\ncollectives (over all ranks; bytes are per-rank buffers summed)\n  %-14s %10s %14s\n", "op", "count", "bytes");
  for (const CollectiveTotal& c : s.collectives)
    std::printf("  %-14s %10ld %14s\n", to_string(c.op), c.count, format_bytes(c.bytes).c_str());
  std::printf("\ncommunicators\n  %-6s %-20s %8s %14s\n", "id", "name", "groups", "largest group");
  for (const CommunicatorSummary& c : s.communicators)
    std::printf("  %-6d %-20s %8d %14d\n", c.id, c.name.c_str(), c.groups, c.largest_group);
}

}  // namespace

int run_inspect(const std::vector<std::string>& args) {
  po::options_description options("inspect options");
  options.add_options()
      ("file", po::value<std::string>()->required(), "timeline (from simulate --timeline), trace file or trace directory")
      ("chrome", po::value<std::string>(), "export a timeline as a Chrome trace (Perfetto, chrome://tracing) to this file")
      ("max-ranks", po::value<int>()->default_value(64), "Chrome export: one process per rank up to this many ranks, "
                                                         "one per rank class beyond")
      ("svg", po::value<std::string>(), "draw the timeline as SVG (not implemented yet)")
      ("top", po::value<int>()->default_value(10), "operators to list")
      ("json", po::bool_switch(), "print one JSON object");
  po::positional_options_description positional;
  positional.add("file", 1);
  po::variables_map values;
  if (!parse_options("inspect", "FILE [--chrome OUT] [--json]", args, options, values, &positional)) return 0;
  if (values.count("svg")) throw InputError("command line", "--svg", "is not implemented yet; use --chrome and Perfetto");
  const int top = values["top"].as<int>();
  if (top < 0) throw InputError("command line", "--top", "must not be negative");
  ChromeTraceOptions chrome;
  chrome.max_ranks = values["max-ranks"].as<int>();
  if (chrome.max_ranks < 1) throw InputError("command line", "--max-ranks", "must be at least 1");

  const std::string path = values["file"].as<std::string>();
  const bool json = values["json"].as<bool>();
  nlohmann::json document;
  if (detect_input(path, document) == InputKind::trace) {
    if (values.count("chrome"))
      throw InputError("command line", "--chrome",
                       path + " is a trace, and --chrome exports a simulated timeline; run `scalecast simulate --trace " +
                           path + " --timeline T.json` and inspect T.json");
    const TraceSummary summary = summarize_trace(read_trace(path));
    if (json) std::cout << trace_report(summary).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    else print_trace(path, summary);
    return 0;
  }

  const Timeline timeline = timeline_from_json(document, path);
  document = nullptr;  // the parsed text is no longer needed; a large one is worth freeing
  if (values.count("chrome")) write_chrome_trace(timeline, values["chrome"].as<std::string>(), chrome);
  const TimelineSummary summary = summarize_timeline(timeline, static_cast<size_t>(top));
  if (json) {
    std::cout << timeline_report(summary).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    print_timeline(path, summary);
    if (values.count("chrome")) std::printf("\nwrote Chrome trace %s\n", values["chrome"].as<std::string>().c_str());
  }
  return 0;
}

}  // namespace scalecast::cli
