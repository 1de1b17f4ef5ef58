#include "sim/timeline/timeline_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "sim/core/atomic_file.h"
#include "sim/timeline/chrome_trace.h"  // rank_ranges_text
#include "sim/timeline/collective_waits.h"
#include "sim/timeline/step_report.h"

namespace scalecast {

namespace {

// Colours: Tableau 10, readable for most colour-blind readers when paired with the legend.
constexpr const char* kCompute = "#4e79a7";
constexpr const char* kCommunication = "#f28e2b";
constexpr const char* kExposed = "#e15759";
constexpr const char* kPointToPoint = "#59a14f";
constexpr const char* kWaiting = "#c5b0d5";
constexpr const char* kHost = "#9c755f";
constexpr const char* kIdle = "#e8e8e8";
constexpr const char* kPath = "#000000";

constexpr double kLabelWidth_px = 170;
constexpr double kRightMargin_px = 24;
constexpr double kPlotHeight_px = 560;  // rows share about this much height
constexpr double kHeatBin_px = 2;       // width of one time bin of a heat row

using Interval = std::pair<double, double>;

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

std::string with_thousands(long value) {
  std::string digits = std::to_string(value), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string cut(const std::string& text, size_t width) {
  return text.size() <= width ? text : text.substr(0, width - 3) + "...";
}

// Parts of [a, b] not covered by the sorted, disjoint `cover`.
std::vector<Interval> uncovered(double a, double b, const std::vector<Interval>& cover) {
  std::vector<Interval> out;
  auto it = std::lower_bound(cover.begin(), cover.end(), Interval{a, -std::numeric_limits<double>::infinity()});
  if (it != cover.begin()) --it;
  double from = a;
  for (; it != cover.end() && it->first < b; ++it) {
    if (it->second <= from) continue;
    if (it->first > from) out.emplace_back(from, it->first);
    from = std::max(from, it->second);
  }
  if (from < b) out.emplace_back(from, b);
  return out;
}

// Per class: the union of its GPU compute and, with no compute running, the time it transferred
// (exposed communication) and the time it waited in collectives for other ranks to arrive.
// Host (CPU thread) tasks are not GPU work and take no part in it.
struct ClassShape {
  std::vector<Interval> compute;
  std::vector<Interval> exposed;
  std::vector<Interval> waiting;
};

ClassShape shape_of(const RankClassTimeline& rank_class, const std::vector<double>& transfer_start_s,
                    const std::vector<Interval>& waiting) {
  ClassShape shape;
  std::vector<Interval> compute, transfers;
  for (size_t i = 0; i < rank_class.events.size(); ++i) {
    const TimelineEvent& e = rank_class.events[i];
    if (e.category == EventCategory::compute) compute.emplace_back(e.start_s, e.end_s);
    else if (is_transfer(e.category)) transfers.emplace_back(transfer_start_s[i], e.end_s);
  }
  shape.compute = merge_intervals(std::move(compute));
  for (const auto& [a, b] : merge_intervals(std::move(transfers)))
    for (const Interval& part : uncovered(a, b, shape.compute)) shape.exposed.push_back(part);
  std::vector<Interval> waiting_only;
  for (const auto& [a, b] : waiting)
    for (const Interval& part : uncovered(a, b, shape.compute)) waiting_only.push_back(part);
  // A wait that overlaps another collective's transfer counts as transfer.
  for (const auto& [a, b] : waiting_only)
    for (const Interval& part : uncovered(a, b, shape.exposed)) shape.waiting.push_back(part);
  return shape;
}

// Round tick spacing (1, 2 or 5 times a power of ten) giving about `target` ticks over `span_s`,
// and the unit its labels read best in.
struct Ticks {
  double step_s = 1;
  double unit_s = 1;
  const char* unit = "s";
  int decimals = 0;
};

Ticks ticks_for(double span_s, int target) {
  Ticks t;
  const double raw = span_s / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double normalised = raw / magnitude;
  t.step_s = (normalised < 1.5 ? 1 : normalised < 3.5 ? 2 : normalised < 7.5 ? 5 : 10) * magnitude;
  // The unit that the span reads in ("31 ms", not "31000 us"); ticks below it get decimals.
  if (span_s >= 1) t = {t.step_s, 1, "s", 0};
  else if (span_s >= 1e-3) t = {t.step_s, 1e-3, "ms", 0};
  else if (span_s >= 1e-6) t = {t.step_s, 1e-6, "\xC2\xB5s", 0};  // µs
  else t = {t.step_s, 1e-9, "ns", 0};
  const double in_unit = t.step_s / t.unit_s;  // 0.1, 0.2, 0.5, 1, 2, 5, ...
  t.decimals = in_unit >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(in_unit) - 1e-9));
  return t;
}

class SvgWriter {
 public:
  SvgWriter(const Timeline& timeline, const TimelineSvgOptions& options) : timeline_(timeline), options_(options) {}

  TimelineSvg draw();

 private:
  struct Row {
    std::string label;
    int rank_class = -1;                            // lane rows: the class drawn
    std::vector<std::pair<int, long>> class_ranks;  // heat rows: (class, ranks of it in the row)
    long ranks = 0;
  };

  // Rank classes keyed by how their row would look, and the looks in first-seen order.
  struct LookGroups {
    std::map<std::string, std::vector<int>> classes;
    std::vector<std::string> order;
  };

  void scan_events();
  void choose_rows();
  LookGroups group_classes_by_look() const;
  void add_grouped_rows(const LookGroups& looks);
  void add_bucket_rows(const std::vector<int>& class_of_rank, int max_rows, size_t different_rows);
  void size_rows();
  void draw_header(double& y);
  void draw_legend(double y);
  void draw_lane_row(const Row& row, double top);
  void draw_heat_row(const Row& row, double top);
  void draw_axis(double plot_top, double plot_bottom);
  void draw_critical_path(const std::vector<double>& row_tops);
  void draw_step_boundaries(double plot_top, double plot_bottom);
  std::string svg_document(double height) const;
  double x(double t_s) const { return left_ + (t_s - t0_) / (t1_ - t0_) * plot_width_; }
  void rect(double x0, double y0, double w, double h, const char* fill, double opacity = 1) {
    out_ << "<rect x=\"" << number(x0) << "\" y=\"" << number(y0) << "\" width=\"" << number(w) << "\" height=\""
         << number(h) << "\" fill=\"" << fill << "\"";
    if (opacity < 1) out_ << " fill-opacity=\"" << number(opacity) << "\"";
    out_ << "/>\n";
  }
  void text(double x0, double y0, const std::string& content, const std::string& attributes = "") {
    out_ << "<text x=\"" << number(x0) << "\" y=\"" << number(y0) << "\"" << (attributes.empty() ? "" : " ")
         << attributes << ">" << escape(content) << "</text>\n";
  }
  const ClassShape& shape(int rank_class) {
    auto it = shapes_.find(rank_class);
    if (it == shapes_.end())
      it = shapes_.emplace(rank_class, shape_of(timeline_.classes[rank_class], waits_.transfer_start_s[rank_class],
                                                waits_.waiting[rank_class]))
               .first;
    return it->second;
  }
  // Bars [x0, x1) of one colour on one lane, merged where they touch so that back-to-back
  // tasks draw as one bar instead of hundreds of slivers. Runs narrower than a pixel are drawn
  // by how much of each pixel they cover (fill-opacity), so that a lane of thousands of short
  // kernels looks as busy as it was, not solid.
  void bars(std::vector<Interval> spans_s, double top, double height, const char* fill);

  const Timeline& timeline_;
  const TimelineSvgOptions& options_;
  std::ostringstream out_;
  std::map<int, ClassShape> shapes_;
  CollectiveWaits waits_;
  std::vector<Row> rows_;
  SvgRowMode mode_ = SvgRowMode::per_rank;
  std::vector<int> streams_;
  std::map<int, int> lane_of_stream_;
  double t0_ = 0, t1_ = 1;
  double width_ = 1200, left_ = kLabelWidth_px, plot_width_ = 1000;
  double lane_height_ = 12, row_gap_ = 4, row_height_ = 24;
  bool has_p2p_ = false;
  bool has_host_ = false;
  bool has_waiting_ = false;
  std::string summary_note_;
};

void SvgWriter::choose_rows() {
  const int max_rows = std::max(1, options_.max_rows);
  std::vector<int> class_of_rank(timeline_.world_size, -1);
  for (size_t c = 0; c < timeline_.classes.size(); ++c)
    for (int rank : timeline_.classes[c].ranks)
      if (rank >= 0 && rank < timeline_.world_size) class_of_rank[rank] = static_cast<int>(c);

  if (timeline_.world_size <= max_rows) {
    mode_ = SvgRowMode::per_rank;
    for (int rank = 0; rank < timeline_.world_size; ++rank)
      if (class_of_rank[rank] >= 0) rows_.push_back({"rank " + std::to_string(rank), class_of_rank[rank], {}, 1});
    summary_note_ = with_thousands(timeline_.world_size) + " ranks, one row each";
    return;
  }
  const LookGroups looks = group_classes_by_look();
  if (static_cast<int>(looks.order.size()) <= max_rows) {
    mode_ = SvgRowMode::identical_rows_grouped;
    add_grouped_rows(looks);
    return;
  }
  mode_ = SvgRowMode::rank_buckets;
  add_bucket_rows(class_of_rank, max_rows, looks.order.size());
}

// Ranks whose rows would draw the same pixels: same tasks on the same streams, to a quarter
// of a pixel. Classes hold ranks whose events are identical already; this also joins classes
// that differ by less than the picture can show.
SvgWriter::LookGroups SvgWriter::group_classes_by_look() const {
  LookGroups looks;
  for (size_t c = 0; c < timeline_.classes.size(); ++c) {
    std::string look;
    for (const TimelineEvent& e : timeline_.classes[c].events) {
      look += std::to_string(e.stream) + ':' + std::to_string(static_cast<int>(e.category)) + ':' +
              std::to_string(std::lround(4 * x(e.start_s))) + ':' + std::to_string(std::lround(4 * x(e.end_s))) + ';';
    }
    auto [it, inserted] = looks.classes.emplace(look, std::vector<int>{});
    if (inserted) looks.order.push_back(look);
    it->second.push_back(static_cast<int>(c));
  }
  return looks;
}

// One row for each look, labelled with its ranks, in the order of each row's first rank.
void SvgWriter::add_grouped_rows(const LookGroups& looks) {
  std::vector<std::pair<int, Row>> rows;  // by first rank
  for (const std::string& look : looks.order) {
    const std::vector<int>& classes = looks.classes.at(look);
    std::vector<int> ranks;
    for (int c : classes) ranks.insert(ranks.end(), timeline_.classes[c].ranks.begin(), timeline_.classes[c].ranks.end());
    if (ranks.empty()) continue;
    const int first = *std::min_element(ranks.begin(), ranks.end());
    const std::string who = ranks.size() == 1 ? "rank " : "ranks ";
    Row row{cut(who + rank_ranges_text(ranks), 26), classes.front(), {}, static_cast<long>(ranks.size())};
    rows.emplace_back(first, std::move(row));
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [first, row] : rows) rows_.push_back(std::move(row));
  summary_note_ = with_thousands(timeline_.world_size) + " ranks in " + std::to_string(rows_.size()) + " row" +
                  (rows_.size() == 1 ? "" : "s") + ": ranks whose rows would look the same share one";
}

// Too many different rows to draw one each: rows of consecutive ranks, each counting its ranks
// by class (drawn as a heat row).
void SvgWriter::add_bucket_rows(const std::vector<int>& class_of_rank, int max_rows, size_t different_rows) {
  const int per_row = (timeline_.world_size + max_rows - 1) / max_rows;
  for (int first = 0; first < timeline_.world_size; first += per_row) {
    const int last = std::min(timeline_.world_size, first + per_row) - 1;
    Row row;
    row.label = "ranks " + std::to_string(first) + "-" + std::to_string(last);
    std::map<int, long> counts;
    for (int rank = first; rank <= last; ++rank)
      if (class_of_rank[rank] >= 0) ++counts[class_of_rank[rank]];
    row.class_ranks.assign(counts.begin(), counts.end());
    row.ranks = last - first + 1;
    rows_.push_back(std::move(row));
  }
  summary_note_ = with_thousands(timeline_.world_size) + " ranks in " + std::to_string(rows_.size()) + " rows of " +
                  std::to_string(per_row) + " consecutive ranks (" + with_thousands(static_cast<long>(different_rows)) +
                  " different rows, too many to draw one each); a row shows the share of its ranks computing, "
                  "transferring or waiting";
}

void SvgWriter::bars(std::vector<Interval> spans_s, double top, double height, const char* fill) {
  std::vector<Interval> spans_px;
  for (const auto& [a, b] : merge_intervals(std::move(spans_s))) spans_px.emplace_back(x(a), x(b));
  std::map<long, double> covered_px;  // pixel column -> the part of it that narrow runs cover
  std::vector<Interval> runs;
  for (const auto& [a, b] : spans_px) {
    if (b - a >= 1) {
      if (!runs.empty() && a <= runs.back().second + 0.25) runs.back().second = std::max(runs.back().second, b);
      else runs.emplace_back(a, b);
      continue;
    }
    for (long column = static_cast<long>(std::floor(a)); column < b; ++column)
      covered_px[column] += std::min<double>(b, column + 1) - std::max<double>(a, column);
  }
  for (const auto& [a, b] : runs) rect(a, top, b - a, height, fill);
  // Coverage in eighths (at least one, so that a lone short task stays visible); equal
  // neighbours draw as one rectangle.
  auto level = [](double part) { return std::clamp(std::lround(8 * part), 1L, 8L); };
  for (auto it = covered_px.begin(); it != covered_px.end();) {
    auto end = std::next(it);
    while (end != covered_px.end() && end->first == std::prev(end)->first + 1 && level(end->second) == level(it->second)) ++end;
    const long last = std::prev(end)->first;
    rect(static_cast<double>(it->first), top, static_cast<double>(last + 1 - it->first), height, fill, level(it->second) / 8.0);
    it = end;
  }
}

void SvgWriter::draw_lane_row(const Row& row, double top) {
  const RankClassTimeline& rank_class = timeline_.classes[row.rank_class];
  const std::vector<double>& transfer_start_s = waits_.transfer_start_s[row.rank_class];
  std::vector<std::vector<Interval>> compute(streams_.size()), communication(streams_.size()), p2p(streams_.size()),
      waiting(streams_.size()), host(streams_.size());
  for (size_t i = 0; i < rank_class.events.size(); ++i) {
    const TimelineEvent& e = rank_class.events[i];
    const int lane = lane_of_stream_.at(e.stream);
    if (!is_transfer(e.category)) {
      (e.category == EventCategory::host ? host : compute)[lane].emplace_back(e.start_s, e.end_s);
      continue;
    }
    // Before its transfer began, a collective only waited for the other ranks.
    if (transfer_start_s[i] > e.start_s) waiting[lane].emplace_back(e.start_s, transfer_start_s[i]);
    (e.category == EventCategory::communication ? communication : p2p)[lane].emplace_back(transfer_start_s[i], e.end_s);
  }
  const ClassShape& s = shape(row.rank_class);
  for (size_t lane = 0; lane < streams_.size(); ++lane) {
    const double y = top + lane * lane_height_;
    const double h = std::max(1.0, lane_height_ - (lane_height_ >= 6 ? 1 : 0));
    rect(left_, y, plot_width_, h, kIdle);
    bars(compute[lane], y, h, kCompute);
    bars(host[lane], y, h, kHost);
    bars(waiting[lane], y, h, kWaiting);
    bars(communication[lane], y, h, kCommunication);
    bars(p2p[lane], y, h, kPointToPoint);
    // Exposed parts of this lane's communication: where the rank had no compute running.
    std::vector<Interval> exposed;
    for (const auto* list : {&communication[lane], &p2p[lane]})
      for (const auto& [a, b] : *list)
        for (const Interval& part : uncovered(a, b, s.compute)) exposed.push_back(part);
    bars(exposed, y, h, kExposed);
  }
  text(8, top + std::min(row_height_ - row_gap_, 12.0) - 1, row.label,
       "font-size=\"" + std::string(lane_height_ >= 9 ? "11" : "9") + "\"");
  if (lane_height_ >= 8 && streams_.size() > 1)
    for (size_t lane = 0; lane < streams_.size(); ++lane) {
      std::string label = "s";  // built in two steps: GCC 12 warns falsely on "s" + to_string (-Wrestrict, bug 105329)
      label += std::to_string(streams_[lane]);
      text(left_ - 6, top + (lane + 1) * lane_height_ - 2, label, "font-size=\"8\" text-anchor=\"end\" fill=\"#666\"");
    }
}

void SvgWriter::draw_heat_row(const Row& row, double top) {
  const int bins = std::max(1, static_cast<int>(plot_width_ / kHeatBin_px));
  const double bin_s = (t1_ - t0_) / bins;
  std::vector<double> compute(bins, 0), exposed(bins, 0), waiting(bins, 0);
  auto spread = [&](const std::vector<Interval>& intervals, double weight, std::vector<double>& into) {
    for (const auto& [a, b] : intervals) {
      int first = std::clamp(static_cast<int>((a - t0_) / bin_s), 0, bins - 1);
      int last = std::clamp(static_cast<int>((b - t0_) / bin_s), 0, bins - 1);
      for (int i = first; i <= last; ++i) {
        const double from = std::max(a, t0_ + i * bin_s), to = std::min(b, t0_ + (i + 1) * bin_s);
        if (to > from) into[i] += weight * (to - from);
      }
    }
  };
  for (const auto& [rank_class, ranks] : row.class_ranks) {
    const ClassShape& s = shape(rank_class);
    spread(s.compute, static_cast<double>(ranks), compute);
    spread(s.exposed, static_cast<double>(ranks), exposed);
    spread(s.waiting, static_cast<double>(ranks), waiting);
  }
  const double h = row_height_ - row_gap_;
  rect(left_, top, plot_width_, h, kIdle);
  // Shares rounded to sixteenths, so that runs of equal bins draw as one bar.
  auto level = [&](double time_s) { return std::lround(16 * std::clamp(time_s / (bin_s * row.ranks), 0.0, 1.0)); };
  int run_start = 0;
  for (int i = 1; i <= bins; ++i) {
    if (i < bins && level(compute[i]) == level(compute[run_start]) && level(exposed[i]) == level(exposed[run_start]) &&
        level(waiting[i]) == level(waiting[run_start]))
      continue;
    const double x0 = left_ + run_start * kHeatBin_px, w = (i - run_start) * kHeatBin_px;
    // Stacked from the bottom: computing, transferring, waiting; the rest of the height is idle.
    const double hc = h * level(compute[run_start]) / 16.0, he = h * level(exposed[run_start]) / 16.0;
    const double hw = std::min(h - hc - he, h * level(waiting[run_start]) / 16.0);
    if (hc > 0) rect(x0, top + h - hc, w, hc, kCompute);
    if (he > 0) rect(x0, top + h - hc - he, w, he, kExposed);
    if (hw > 0) rect(x0, top + h - hc - he - hw, w, hw, kWaiting);
    run_start = i;
  }
  text(8, top + h - 1, row.label, "font-size=\"" + std::string(h >= 9 ? "10" : "8") + "\"");
}

void SvgWriter::draw_header(double& y) {
  text(8, y, options_.title, "font-size=\"16\" font-weight=\"bold\"");
  y += 20;
  for (const std::string& note : options_.notes) {
    text(8, y, note, "font-size=\"12\"");
    y += 16;
  }
  text(8, y, summary_note_, "font-size=\"12\" fill=\"#444\"");
  y += 22;
}

void SvgWriter::draw_legend(double y) {
  std::vector<std::pair<const char*, std::string>> items = {{kCompute, "GPU compute"}};
  if (has_host_ && mode_ != SvgRowMode::rank_buckets) items.push_back({kHost, "host (CPU thread)"});
  if (mode_ != SvgRowMode::rank_buckets) items.push_back({kCommunication, "communication (overlapped by compute)"});
  items.push_back({kExposed, "exposed communication (no compute running)"});
  if (has_waiting_) items.push_back({kWaiting, "waiting for other ranks"});
  if (has_p2p_ && mode_ != SvgRowMode::rank_buckets) items.push_back({kPointToPoint, "send/recv (p2p)"});
  items.push_back({kIdle, "idle"});
  double x0 = 8;
  for (const auto& [colour, label] : items) {
    rect(x0, y - 10, 12, 12, colour);
    text(x0 + 16, y, label, "font-size=\"12\"");
    x0 += 16 + 6.6 * label.size() + 18;
  }
  if (options_.critical_path && mode_ != SvgRowMode::rank_buckets && !options_.critical_path->segments.empty()) {
    out_ << "<line x1=\"" << number(x0) << "\" y1=\"" << number(y - 4) << "\" x2=\"" << number(x0 + 16) << "\" y2=\""
         << number(y - 4) << "\" stroke=\"" << kPath << "\" stroke-width=\"2\"/>\n";
    text(x0 + 20, y, "critical path of step " + std::to_string(options_.critical_path->step.step), "font-size=\"12\"");
  }
}

void SvgWriter::draw_axis(double plot_top, double plot_bottom) {
  const Ticks ticks = ticks_for(t1_ - t0_, 10);
  out_ << "<line x1=\"" << number(left_) << "\" y1=\"" << number(plot_bottom + 2) << "\" x2=\""
       << number(left_ + plot_width_) << "\" y2=\"" << number(plot_bottom + 2) << "\" stroke=\"#333\"/>\n";
  const long count = static_cast<long>(std::floor((t1_ - t0_) / ticks.step_s + 1e-9));
  for (long k = 0; k <= count; ++k) {
    const double t_s = k * ticks.step_s;
    const double x0 = left_ + t_s / (t1_ - t0_) * plot_width_;
    out_ << "<line x1=\"" << number(x0) << "\" y1=\"" << number(plot_top) << "\" x2=\"" << number(x0) << "\" y2=\""
         << number(plot_bottom + 6) << "\" stroke=\"#999\" stroke-opacity=\"0.35\"/>\n";
    char label[48];
    std::snprintf(label, sizeof label, "%.*f %s", ticks.decimals, t_s / ticks.unit_s, ticks.unit);
    text(x0, plot_bottom + 18, label, "font-size=\"11\" text-anchor=\"middle\"");
  }
  text(left_ + plot_width_ / 2, plot_bottom + 34, "simulated time since the first task", "font-size=\"11\" text-anchor=\"middle\" fill=\"#444\"");
}

void SvgWriter::draw_critical_path(const std::vector<double>& row_tops) {
  const CriticalPath& path = *options_.critical_path;
  // A class is drawn on the first row that shows it.
  std::map<int, size_t> row_of_class;
  for (size_t r = 0; r < rows_.size(); ++r) row_of_class.emplace(rows_[r].rank_class, r);
  // Back-to-back segments on one lane are one line (a ResNet step is ~200 kernels in a row).
  struct Run {
    double x0, x1, y;
    bool idle;
  };
  std::vector<Run> runs;
  for (const PathSegment& s : path.segments) {
    auto row = row_of_class.find(s.rank_class);
    if (row == row_of_class.end()) continue;
    const int lane = s.stream >= 0 ? lane_of_stream_.at(s.stream) : 0;
    const Run run{x(s.start_s), x(s.end_s), row_tops[row->second] + (lane + 1) * lane_height_ - 2,
                  s.kind == PathSegmentKind::idle};
    if (!runs.empty() && runs.back().y == run.y && runs.back().idle == run.idle && run.x0 <= runs.back().x1 + 0.25)
      runs.back().x1 = std::max(runs.back().x1, run.x1);
    else
      runs.push_back(run);
  }
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run& r = runs[i];
    if (i > 0 && std::abs(runs[i - 1].y - r.y) > 0.1)  // the path moves to another lane or rank
      out_ << "<line x1=\"" << number(r.x0) << "\" y1=\"" << number(runs[i - 1].y) << "\" x2=\"" << number(r.x0)
           << "\" y2=\"" << number(r.y) << "\" stroke=\"" << kPath << "\" stroke-width=\"1\"/>\n";
    out_ << "<line x1=\"" << number(r.x0) << "\" y1=\"" << number(r.y) << "\" x2=\"" << number(std::max(r.x1, r.x0 + 0.5))
         << "\" y2=\"" << number(r.y) << "\" stroke=\"" << kPath << "\" stroke-width=\"2\""
         << (r.idle ? " stroke-dasharray=\"3,2\"" : "") << "/>\n";
  }
}

// The time range, the streams that get a lane each, and which legend entries apply.
void SvgWriter::scan_events() {
  std::set<int> streams;
  double first_s = std::numeric_limits<double>::infinity(), last_s = -first_s;
  for (const RankClassTimeline& c : timeline_.classes)
    for (const TimelineEvent& e : c.events) {
      if (!std::isfinite(e.start_s) || !std::isfinite(e.end_s)) throw std::runtime_error("timeline has a non-finite time");
      streams.insert(e.stream);
      has_p2p_ = has_p2p_ || e.category == EventCategory::point_to_point;
      has_host_ = has_host_ || e.category == EventCategory::host;
      first_s = std::min(first_s, e.start_s);
      last_s = std::max(last_s, e.end_s);
    }
  if (first_s > last_s) first_s = last_s = 0;
  t0_ = first_s;
  t1_ = last_s > first_s ? last_s : first_s + 1e-6;  // an empty or instantaneous timeline still gets an axis
  streams_.assign(streams.begin(), streams.end());
  if (streams_.empty()) streams_.push_back(0);
  for (size_t i = 0; i < streams_.size(); ++i) lane_of_stream_[streams_[i]] = static_cast<int>(i);
}

// Row and lane heights that fit the chosen rows into the plot's height.
void SvgWriter::size_rows() {
  const double rows = std::max<size_t>(1, rows_.size());
  if (mode_ == SvgRowMode::rank_buckets) {
    row_height_ = std::clamp(std::floor(kPlotHeight_px / rows), 5.0, 18.0);
    row_gap_ = row_height_ >= 10 ? 2 : 1;
    lane_height_ = row_height_ - row_gap_;
  } else {
    const double lanes = rows * streams_.size();
    lane_height_ = std::clamp(std::floor(kPlotHeight_px / lanes), 3.0, 14.0);
    row_gap_ = lane_height_ >= 8 ? 5 : 2;
    row_height_ = lane_height_ * streams_.size() + row_gap_;
  }
}

// Dashed step boundaries, when the timeline numbers its steps.
void SvgWriter::draw_step_boundaries(double plot_top, double plot_bottom) {
  for (const StepSpan& step : report_steps(timeline_, waits_).steps) {
    if (step.step < 0) continue;
    const double x0 = x(step.start_s);
    out_ << "<line x1=\"" << number(x0) << "\" y1=\"" << number(plot_top - 6) << "\" x2=\"" << number(x0) << "\" y2=\""
         << number(plot_bottom) << "\" stroke=\"#333\" stroke-dasharray=\"4,3\"/>\n";
    text(x0 + 3, plot_top - 8, "step " + std::to_string(step.step), "font-size=\"10\" fill=\"#333\"");
  }
}

// The <svg> element around the body drawn into out_ (its height is known only at the end).
std::string SvgWriter::svg_document(double height) const {
  std::ostringstream svg;
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << number(width_) << "\" height=\"" << number(height)
      << "\" viewBox=\"0 0 " << number(width_) << " " << number(height) << "\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
      << "<g shape-rendering=\"crispEdges\">\n"
      << out_.str() << "</g>\n</svg>\n";
  return svg.str();
}

TimelineSvg SvgWriter::draw() {
  scan_events();
  width_ = std::max(400, options_.width_px);
  left_ = kLabelWidth_px;
  plot_width_ = width_ - left_ - kRightMargin_px;

  waits_ = collective_waits(timeline_);
  for (const auto& waiting : waits_.waiting) has_waiting_ = has_waiting_ || !waiting.empty();
  choose_rows();
  size_rows();

  double y = 24;
  draw_header(y);
  draw_legend(y);
  y += 24;
  const double plot_top = y;
  std::vector<double> row_tops;
  for (const Row& row : rows_) {
    row_tops.push_back(y);
    if (mode_ == SvgRowMode::rank_buckets) draw_heat_row(row, y);
    else draw_lane_row(row, y);
    y += row_height_;
  }
  const double plot_bottom = y - row_gap_;
  draw_step_boundaries(plot_top, plot_bottom);
  if (options_.critical_path && mode_ != SvgRowMode::rank_buckets) draw_critical_path(row_tops);
  draw_axis(plot_top, plot_bottom);
  return {svg_document(plot_bottom + 48), mode_, static_cast<int>(rows_.size())};
}

}  // namespace

TimelineSvg timeline_svg(const Timeline& timeline, const TimelineSvgOptions& options) {
  SvgWriter writer(timeline, options);
  return writer.draw();
}

void write_timeline_svg(const Timeline& timeline, const std::string& path, const TimelineSvgOptions& options) {
  const TimelineSvg svg = timeline_svg(timeline, options);
  write_file_atomically(path, svg.text);
}

}  // namespace scalecast
