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
#include "sim/report/timeline_inspection.h"
#include "sim/report/trace_inspection.h"
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

enum class InputKind { timeline, trace };

// What FILE holds, from its "format" field; a directory can only be a trace. A valid timeline
// is read straight into `timeline` (the fast reader: no JSON document); anything else is parsed
// into `document`, so that neither is read twice and errors come from the full readers.
InputKind detect_input(const std::string& path, nlohmann::json& document, std::optional<Timeline>& timeline) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return InputKind::trace;
  const std::string text = read_text_file(path);
  reject_gzip(path, text);
  timeline = timeline_from_text_fast(text);
  if (timeline) return InputKind::timeline;
  document = parse_json_text(text, path);
  const std::string expected = std::string("expected a scalecast timeline (\"format\": \"") + kTimelineFormatName +
                               "\") or trace (\"format\": \"" + kTraceFormatName + "\")";
  if (!document.is_object()) throw InputError(path, "", "is not a JSON object; " + expected);
  if (document.contains("traceEvents")) throw InputError(path, "", kineto_import_hint(path));
  auto format = document.find("format");
  if (format == document.end() || !format->is_string()) throw InputError(path, "format", "is missing; " + expected);
  const std::string name = format->get<std::string>();
  if (name == kTimelineFormatName) return InputKind::timeline;
  if (name == kTraceFormatName) return InputKind::trace;
  if (name == kRankFileFormatName)
    throw InputError(path, "format", "this is one rank's file of a trace directory; inspect the directory instead");
  throw InputError(path, "format", "is \"" + name + "\"; " + expected);
}

// ---------------------------------------------------------------------------------------------
// Trace
// ---------------------------------------------------------------------------------------------

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
    ordered_json report = trace_inspection_json(summary);
    report["kernel_classes"] = scaling_json(classes);
    std::cout << report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::printf("%s\n%s", trace_inspection_text(path, summary).c_str(), scaling_text(classes).c_str());
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
    write_timeline_svg(timeline, values["svg"].as<std::string>(), timeline_svg_options(path, summary, views.svg_rows));
  if (json) {
    std::cout << timeline_inspection_json(summary).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  std::fputs(timeline_inspection_text(path, summary).c_str(), stdout);
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
