#include "sim/report/timeline_inspection.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "sim/report/inspection_format.h"
#include "sim/timeline/chrome_trace.h"

namespace scalecast {

using ordered_json = nlohmann::ordered_json;

namespace {

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

// Tables with a row per rank class are cut here in the human output (--json has every row).
constexpr size_t kMaxClassRows = 16;

void append_rank_utilisation(std::string& out, const TimelineSummary& s) {
  appendf(out, "\nranks (over the timeline's span of %s; a class's figures hold for each of its ranks)\n",
          format_duration(s.span_s).c_str());
  std::vector<const RankUtilisation*> rows;
  for (const RankUtilisation& u : s.rank_utilisation) rows.push_back(&u);
  if (rows.size() > kMaxClassRows) {
    // Many classes: the least busy ones are the interesting ones (stragglers' partners wait).
    std::stable_sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->utilisation < b->utilisation; });
    std::vector<double> utilisations;
    for (auto* u : rows) utilisations.push_back(u->utilisation);
    appendf(out, "  %zu rank classes: utilisation min %.1f%%, median %.1f%%, max %.1f%%; the %zu least busy:\n",
            rows.size(), 100 * utilisations.front(), 100 * utilisations[utilisations.size() / 2],
            100 * utilisations.back(), kMaxClassRows);
    rows.resize(kMaxClassRows);
  }
  appendf(out, "  %-6s %-20s %12s %7s %12s %8s %12s %12s %12s %12s\n", "class", "ranks", "GPU busy", "util", "compute",
          "compute%", "exposed comm", "(waiting)", "idle", "host");
  for (const RankUtilisation* u : rows)
    appendf(out, "  %-6d %-20s %12s %6.1f%% %12s %7.1f%% %12s %12s %12s %12s\n", u->rank_class,
            fit_to_width(rank_ranges_text(u->ranks), 20).c_str(), format_duration(u->busy_s).c_str(),
            100 * u->utilisation, format_duration(u->time.compute_s).c_str(), 100 * u->compute_utilisation,
            format_duration(u->time.exposed_communication_s).c_str(), format_duration(u->waiting_s).c_str(),
            format_duration(u->time.idle_s).c_str(), format_duration(u->time.host_s).c_str());
}

void append_step_breakdowns(std::string& out, const TimelineSummary& s) {
  appendf(out, "\nsteps (rank class %d, the one that sets the step)\n", s.step.breakdown_class);
  appendf(out, "  %-6s %12s %12s %12s %12s %12s %12s %12s\n", "step", "time", "compute", "comm", "exposed comm",
          "(waiting)", "idle", "host");
  for (size_t k = 0; k < s.step_breakdowns.size(); ++k) {
    const StepBreakdown& b = s.step_breakdowns[k];
    appendf(out, "  %-6d %12s %12s %12s %12s %12s %12s %12s%s\n", b.span.step,
            format_duration(b.span.end_s - b.span.start_s).c_str(), format_duration(b.time.compute_s).c_str(),
            format_duration(b.time.communication_s).c_str(), format_duration(b.time.exposed_communication_s).c_str(),
            format_duration(b.waiting_s).c_str(), format_duration(b.time.idle_s).c_str(),
            format_duration(b.time.host_s).c_str(),
            k < static_cast<size_t>(s.step.warm_up_steps) ? "  warm-up: not in the step time" : "");
  }
}

// The path as runs: consecutive segments of one kind on one class and stream are one line
// (a ResNet step is ~200 back-to-back kernels on one stream; --json lists each).
void append_critical_path(std::string& out, const TimelineSummary& s) {
  const CriticalPath& path = s.critical_path;
  if (path.segments.empty()) return;
  const double length_s = path.step.end_s - path.step.start_s;
  appendf(out, "\ncritical path of step %d (%s): what sets the step's length\n", path.step.step,
          format_duration(length_s).c_str());
  for (PathSegmentKind kind : {PathSegmentKind::compute, PathSegmentKind::communication,
                               PathSegmentKind::point_to_point, PathSegmentKind::host, PathSegmentKind::idle})
    appendf(out, "  %-16s %12s %s\n", to_string(kind), format_duration(path.total_s(kind)).c_str(),
            percent_text(path.total_s(kind), length_s).c_str());
  appendf(out, "  %-12s %12s %6s  %-13s %6s %6s %5s  %s\n", "start", "duration", "share", "kind", "rank", "stream",
          "tasks", "first ... last");
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
    if (i - first > 1) names = fit_to_width(a.name, 28) + " ... " + fit_to_width(last.name, 28);
    if (printed++ < 40)
      appendf(out, "  %-12s %12s %s  %-13s %6d %6s %5zu  %s\n", format_duration(a.start_s - path.step.start_s).c_str(),
              format_duration(run_s).c_str(), percent_text(run_s, length_s).c_str(), to_string(a.kind), a.rank,
              a.stream >= 0 ? std::to_string(a.stream).c_str() : "-", i - first, names.c_str());
    first = i;
  }
  if (printed > 40) appendf(out, "  ... %zu more runs (--json lists every segment)\n", printed - 40);
}

}  // namespace

ordered_json timeline_inspection_json(const TimelineSummary& s) {
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
    out["bounding_resource"] = {
        {"class", s.step.bounding.rank_class},
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
  out["utilisation"] = {
      {"span_s", s.span_s}, {"ranks", rank_utilisation_json(s.rank_utilisation)}, {"streams", out["streams"]}};
  out["step_breakdown"] = step_breakdowns_json(s.step_breakdowns);
  out["critical_path"] = critical_path_json(s.critical_path);
  return out;
}

std::string timeline_inspection_text(const std::string& path, const TimelineSummary& s) {
  std::string out;
  appendf(out, "timeline %s\n", path.c_str());
  appendf(out, "  platform          %s\n", s.platform.c_str());
  appendf(out, "  ranks             %d in %d rank class%s\n", s.ranks, s.rank_classes, s.rank_classes == 1 ? "" : "es");
  appendf(out, "  steps             %zu (%d warm-up), step time %s (median; mean %s)\n", s.step.steps.size(),
          s.step.warm_up_steps, format_duration(s.step.step_time_s).c_str(),
          format_duration(s.step.mean_step_time_s).c_str());
  appendf(out, "  a step is         %s\n", step_definition(s.step).c_str());
  if (s.step.breakdown_class >= 0) {
    appendf(out, "  bounded by        %s (%s of work in the steps)\n", describe(s.step.bounding).c_str(),
            format_duration(s.step.bounding.work_s).c_str());
    appendf(out, "\nper step, rank class %d (the one that sets the step), mean over the steps after warm-up\n",
            s.step.breakdown_class);
    appendf(out, "  compute           %s\n", format_duration(s.step.per_step.compute_s).c_str());
    appendf(out, "  communication     %s\n", format_duration(s.step.per_step.communication_s).c_str());
    appendf(out, "  exposed comm      %s\n", format_duration(s.step.per_step.exposed_communication_s).c_str());
    if (s.step.per_step_waiting_s > 0)
      appendf(out, "    of which waiting %s for other ranks to reach collectives\n",
              format_duration(s.step.per_step_waiting_s).c_str());
    appendf(out, "  idle              %s   (the GPU neither computed nor communicated)\n",
            format_duration(s.step.per_step.idle_s).c_str());
    if (s.step.per_step.host_s > 0)
      appendf(out, "  host              %s   (a CPU thread ran; %s of it while the GPU was idle)\n",
              format_duration(s.step.per_step.host_s).c_str(), format_duration(s.step.per_step.host_only_s).c_str());
  }
  append_step_breakdowns(out, s);
  append_rank_utilisation(out, s);
  appendf(out, "\nstreams (busy time over the timeline's span of %s)\n", format_duration(s.span_s).c_str());
  appendf(out, "  %-6s %-7s %-22s %8s %14s %7s\n", "class", "stream", "categories", "events", "busy", "util");
  size_t stream_rows = 0;
  for (const StreamUtilisation& u : s.streams) {
    if (u.rank_class >= static_cast<int>(kMaxClassRows)) continue;
    ++stream_rows;
    appendf(out, "  %-6d %-7d %-22s %8ld %14s %6.1f%%\n", u.rank_class, u.stream, u.categories.c_str(), u.events,
            format_duration(u.busy_s).c_str(), 100 * u.utilisation);
  }
  if (stream_rows < s.streams.size())
    appendf(out, "  ... %zu more streams of classes %zu and above (--json lists every one)\n",
            s.streams.size() - stream_rows, kMaxClassRows);
  appendf(out,
          "\ntop operators (summed over all ranks; a collective from when its transfer began, its ranks' wait "
          "for each other apart)\n");
  appendf(out, "  %-32s %-14s %8s %14s %14s %14s\n", "name", "category", "count", "total", "mean", "(waiting)");
  for (const OperatorTotal& op : s.top_operators)
    appendf(out, "  %-32s %-14s %8ld %14s %14s %14s\n", fit_to_width(op.name, 32).c_str(), to_string(op.category),
            op.count, format_duration(op.total_s).c_str(), format_duration(op.mean_s).c_str(),
            format_duration(op.waiting_s).c_str());
  append_critical_path(out, s);
  return out;
}

TimelineSvgOptions timeline_svg_options(const std::string& file, const TimelineSummary& s, int max_rows) {
  TimelineSvgOptions options;
  options.max_rows = max_rows;
  options.title = std::filesystem::path(file).filename().string() + ": " + s.platform + ", " + std::to_string(s.ranks) +
                  " rank" + (s.ranks == 1 ? "" : "s") + ", " + std::to_string(s.step.steps.size()) + " step" +
                  (s.step.steps.size() == 1 ? "" : "s") + ", step time " + format_duration(s.step.step_time_s) +
                  " (median)";
  if (s.step.breakdown_class >= 0) {
    const double step_s = s.step.per_step.span_s;
    options.notes.push_back(
        "per step, rank class " + std::to_string(s.step.breakdown_class) + " (sets the step): compute " +
        format_duration(s.step.per_step.compute_s) + " (" + percent_text(s.step.per_step.compute_s, step_s, false) +
        "), exposed communication " + format_duration(s.step.per_step.exposed_communication_s) + " (" +
        percent_text(s.step.per_step.exposed_communication_s, step_s, false) + "), idle " +
        format_duration(s.step.per_step.idle_s) + "; communication in all " +
        format_duration(s.step.per_step.communication_s) +
        (s.step.per_step.host_s > 0 ? "; host (CPU threads) " + format_duration(s.step.per_step.host_s) : ""));
  }
  const CriticalPath& path = s.critical_path;
  if (!path.segments.empty()) {
    const double length_s = path.step.end_s - path.step.start_s;
    options.notes.push_back("critical path of step " + std::to_string(path.step.step) + ": compute " +
                            percent_text(path.total_s(PathSegmentKind::compute), length_s, false) + ", communication " +
                            percent_text(path.total_s(PathSegmentKind::communication), length_s, false) + ", p2p " +
                            percent_text(path.total_s(PathSegmentKind::point_to_point), length_s, false) +
                            (path.total_s(PathSegmentKind::host) > 0
                                 ? ", host " + percent_text(path.total_s(PathSegmentKind::host), length_s, false)
                                 : std::string()) +
                            ", idle " + percent_text(path.total_s(PathSegmentKind::idle), length_s, false));
    options.critical_path = &path;
  }
  return options;
}

}  // namespace scalecast
