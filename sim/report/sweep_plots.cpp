#include "sim/report/sweep_plots.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace scalecast {

namespace {

constexpr double kWidth = 820, kHeight = 500;
constexpr double kLeft = 90, kRight = 170, kTop = 56, kBottom = 64;
constexpr double kPlotWidth = kWidth - kLeft - kRight, kPlotHeight = kHeight - kTop - kBottom;
const char* const kStrategyColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"};

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

std::string number(double value, const char* format = "%.6g") {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

void open_svg(std::ostringstream& svg, const std::string& title, const std::string& subtitle) {
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" viewBox=\"0 0 " << kWidth << " " << kHeight << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << kLeft << "\" y=\"24\" font-size=\"16\" font-weight=\"bold\">" << escape(title) << "</text>\n"
      << "<text x=\"" << kLeft << "\" y=\"42\" font-size=\"12\" fill=\"#555\">" << escape(subtitle) << "</text>\n"
      << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << kPlotWidth << "\" height=\"" << kPlotHeight
      << "\" fill=\"none\" stroke=\"#333\"/>\n";
}

void axis_label(std::ostringstream& svg, const std::string& x_label, const std::string& y_label) {
  svg << "<text x=\"" << kLeft + kPlotWidth / 2 << "\" y=\"" << kHeight - 16 << "\" font-size=\"13\" text-anchor=\"middle\">"
      << escape(x_label) << "</text>\n"
      << "<text transform=\"translate(22," << kTop + kPlotHeight / 2 << ") rotate(-90)\" font-size=\"13\" text-anchor=\"middle\">"
      << escape(y_label) << "</text>\n";
}

// Log-scale ticks: 1, 2, 5 times the powers of ten inside [low, high].
std::vector<double> log_ticks(double low, double high) {
  std::vector<double> ticks;
  for (int e = static_cast<int>(std::floor(std::log10(low))) - 1; e <= static_cast<int>(std::ceil(std::log10(high))); ++e)
    for (double m : {1.0, 2.0, 5.0}) {
      const double v = m * std::pow(10.0, e);
      if (v >= low * 0.999 && v <= high * 1.001) ticks.push_back(v);
    }
  if (ticks.size() > 12) {  // a wide range: decades only
    std::vector<double> decades;
    for (double v : ticks)
      if (std::abs(std::log10(v) - std::round(std::log10(v))) < 1e-9) decades.push_back(v);
    ticks = decades;
  }
  return ticks;
}

std::vector<double> linear_ticks(double high) {
  if (!(high > 0)) return {0, 1};
  const double raw = high / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * magnitude >= raw) {
      step = m * magnitude;
      break;
    }
  // From 0 to the first tick at or above `high`, so that the axis ends on a labelled tick.
  std::vector<double> ticks{0};
  while (ticks.back() < high) ticks.push_back(ticks.back() + step);
  return ticks;
}

std::vector<std::string> strategies_in_order(const std::vector<SweepRow>& rows) {
  std::vector<std::string> names;
  for (const SweepRow& row : rows)
    if (std::find(names.begin(), names.end(), row.strategy) == names.end()) names.push_back(row.strategy);
  return names;
}

std::vector<int> gpu_counts(const std::vector<SweepRow>& rows) {
  std::vector<int> counts;
  for (const SweepRow& row : rows) counts.push_back(row.gpus);
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

void legend_entry(std::ostringstream& svg, int index, const std::string& colour, const std::string& label, bool line) {
  const double x = kLeft + kPlotWidth + 16, y = kTop + 14 + index * 22;
  if (line)
    svg << "<line x1=\"" << x << "\" y1=\"" << y << "\" x2=\"" << x + 24 << "\" y2=\"" << y << "\" stroke=\"" << colour
        << "\" stroke-width=\"2.5\"/><circle cx=\"" << x + 12 << "\" cy=\"" << y << "\" r=\"3.5\" fill=\"" << colour << "\"/>\n";
  else
    svg << "<rect x=\"" << x << "\" y=\"" << y - 7 << "\" width=\"24\" height=\"14\" fill=\"" << colour << "\"/>\n";
  svg << "<text x=\"" << x + 32 << "\" y=\"" << y + 4 << "\" font-size=\"12\">" << escape(label) << "</text>\n";
}

// The time-to-train plot's coordinates: GPUs on a log2 axis, values on a log10 axis.
struct LogAxes {
  double x_low = 0, x_high = 1, low = 1, high = 10;
  double px(double gpus) const { return kLeft + (std::log2(gpus) - x_low) / (x_high - x_low) * kPlotWidth; }
  double py(double v) const {
    return kTop + kPlotHeight - (std::log10(v) - std::log10(low)) / (std::log10(high) - std::log10(low)) * kPlotHeight;
  }
};

void draw_log_grid(std::ostringstream& svg, const LogAxes& axes, const std::vector<int>& counts) {
  for (int gpus : counts) {
    const double x = axes.px(gpus);
    svg << "<line x1=\"" << x << "\" y1=\"" << kTop << "\" x2=\"" << x << "\" y2=\"" << kTop + kPlotHeight
        << "\" stroke=\"#e4e4e4\"/><text x=\"" << x << "\" y=\"" << kTop + kPlotHeight + 18
        << "\" font-size=\"11\" text-anchor=\"middle\">" << gpus << "</text>\n";
  }
  for (double v : log_ticks(axes.low, axes.high)) {
    const double y = axes.py(v);
    svg << "<line x1=\"" << kLeft << "\" y1=\"" << y << "\" x2=\"" << kLeft + kPlotWidth << "\" y2=\"" << y
        << "\" stroke=\"#e4e4e4\"/><text x=\"" << kLeft - 6 << "\" y=\"" << y + 4 << "\" font-size=\"11\" text-anchor=\"end\">"
        << number(v, "%g") << "</text>\n";
  }
}

void draw_crossover(std::ostringstream& svg, const LogAxes& axes, int crossover_gpus) {
  const double x = axes.px(crossover_gpus);
  svg << "<line x1=\"" << x << "\" y1=\"" << kTop << "\" x2=\"" << x << "\" y2=\"" << kTop + kPlotHeight
      << "\" stroke=\"#000\" stroke-dasharray=\"6,4\"/>\n";
  // The label sits on the side of the line with room for it.
  const bool left = x > kLeft + kPlotWidth * 0.55;
  svg << "<text x=\"" << (left ? x - 5 : x + 5) << "\" y=\"" << kTop + 16 << "\" font-size=\"12\" text-anchor=\""
      << (left ? "end" : "start") << "\">crossover: hybrid best from " << crossover_gpus << " GPUs</text>\n";
}

struct BarPart {
  const char* label;
  const char* colour;
  double (*ms)(const SweepRow&);
};

// A bar's parts, bottom to top: compute alone, then what the GPU's sharing with NCCL and the
// slowest rank added to it; the exposed communication moving data, then waiting for other ranks
// (a pipeline's bubble); idle.
const BarPart kBarParts[] = {
    {"compute", "#4c78a8", [](const SweepRow& r) { return (r.compute_s - r.interference_s - r.straggler_s) * 1e3; }},
    {"interference", "#72b7b2", [](const SweepRow& r) { return r.interference_s * 1e3; }},
    {"stragglers", "#eeca3b", [](const SweepRow& r) { return r.straggler_s * 1e3; }},
    {"exposed comm.", "#e45756", [](const SweepRow& r) { return (r.exposed_comm_s - r.waiting_s) * 1e3; }},
    {"waiting", "#f2a7a3", [](const SweepRow& r) { return r.waiting_s * 1e3; }},
    {"idle", "#bab0ac", [](const SweepRow& r) { return r.idle_s * 1e3; }}};

// The breakdown plot's vertical position of `ms`, on an axis from 0 to top_ms.
double bar_y(double ms, double top_ms) { return kTop + kPlotHeight - ms / top_ms * kPlotHeight; }

void draw_bar(std::ostringstream& svg, const SweepRow& row, double x, double bar_width, double top_ms) {
  double base_ms = 0;
  for (const BarPart& part : kBarParts) {
    const double ms = part.ms(row);
    if (ms <= 0) continue;
    svg << "<rect x=\"" << number(x + 1, "%.1f") << "\" y=\"" << number(bar_y(base_ms + ms, top_ms), "%.1f")
        << "\" width=\"" << number(bar_width - 2, "%.1f") << "\" height=\""
        << number(bar_y(base_ms, top_ms) - bar_y(base_ms + ms, top_ms), "%.1f") << "\" fill=\"" << part.colour
        << "\"><title>" << escape(row.strategy) << " at " << row.gpus << " GPUs: " << part.label << " "
        << number(ms, "%.2f") << " ms</title></rect>\n";
    base_ms += ms;
  }
}

}  // namespace

std::string time_to_train_svg(const std::string& title, const std::vector<SweepRow>& rows, const SweepSummary& summary) {
  const bool have_ttt = std::all_of(rows.begin(), rows.end(), [](const SweepRow& r) { return r.time_to_train_s.has_value(); });
  auto value_h = [&](const SweepRow& r) { return have_ttt ? *r.time_to_train_s / 3600 : r.step_time_s * 1e3; };
  const auto counts = gpu_counts(rows);
  double low = 1e300, high = 0;
  for (const SweepRow& r : rows) {
    low = std::min(low, value_h(r));
    high = std::max(high, value_h(r));
  }
  const LogAxes axes{std::log2(counts.front()), std::log2(std::max(counts.back(), counts.front() * 2)), low / 1.3,
                     high * 1.3};
  auto px = [&](double gpus) { return axes.px(gpus); };
  auto py = [&](double v) { return axes.py(v); };

  std::ostringstream svg;
  open_svg(svg, title + (have_ttt ? ": time to train" : ": step time"),
           have_ttt ? "log-log; lower is better; time to train = epochs(global batch) x dataset / global batch x step time"
                    : "log-log; step time per strategy (no statistical efficiency given)");
  draw_log_grid(svg, axes, counts);
  axis_label(svg, "GPUs", have_ttt ? "time to train (hours)" : "step time (ms)");
  if (summary.crossover_gpus) draw_crossover(svg, axes, *summary.crossover_gpus);
  const auto strategies = strategies_in_order(rows);
  for (size_t s = 0; s < strategies.size(); ++s) {
    const std::string colour = kStrategyColours[s % std::size(kStrategyColours)];
    std::string points;
    for (const SweepRow& r : rows)
      if (r.strategy == strategies[s]) points += number(px(r.gpus), "%.1f") + "," + number(py(value_h(r)), "%.1f") + " ";
    svg << "<polyline points=\"" << points << "\" fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2.5\"/>\n";
    for (const SweepRow& r : rows)
      if (r.strategy == strategies[s])
        svg << "<circle cx=\"" << number(px(r.gpus), "%.1f") << "\" cy=\"" << number(py(value_h(r)), "%.1f")
            << "\" r=\"3.5\" fill=\"" << colour << "\"/>\n";
    legend_entry(svg, static_cast<int>(s), colour, strategies[s], true);
  }
  // Ring the best strategy at each scale.
  for (const auto& best : summary.best)
    for (const SweepRow& r : rows)
      if (r.gpus == best.gpus && r.strategy == best.strategy)
        svg << "<circle cx=\"" << number(px(r.gpus), "%.1f") << "\" cy=\"" << number(py(value_h(r)), "%.1f")
            << "\" r=\"7\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.2\"/>\n";
  const double note_y = kTop + 14 + strategies.size() * 22 + 8;
  svg << "<circle cx=\"" << kLeft + kPlotWidth + 28 << "\" cy=\"" << note_y << "\" r=\"7\" fill=\"none\" stroke=\"#000\"/>"
      << "<text x=\"" << kLeft + kPlotWidth + 48 << "\" y=\"" << note_y + 4 << "\" font-size=\"12\">best at scale</text>\n";
  svg << "</svg>\n";
  return svg.str();
}

std::string step_breakdown_svg(const std::string& title, const std::vector<SweepRow>& rows) {
  const auto counts = gpu_counts(rows);
  const auto strategies = strategies_in_order(rows);
  double high = 0;
  for (const SweepRow& r : rows) high = std::max(high, r.step_time_s * 1e3);
  const auto ticks = linear_ticks(high * 1.02);
  const double top_ms = ticks.back();
  auto py = [&](double ms) { return bar_y(ms, top_ms); };
  const double group_width = kPlotWidth / counts.size();
  const double bar_width = std::min(28.0, group_width * 0.8 / strategies.size());

  std::ostringstream svg;
  open_svg(svg, title + ": step time breakdown",
           "bars per scale, left to right: " + [&] {
             std::string list;
             for (const auto& s : strategies) list += (list.empty() ? "" : ", ") + s;
             return list;
           }() + "; the rank that ends the step last");
  for (double v : ticks) {
    const double y = py(v);
    svg << "<line x1=\"" << kLeft << "\" y1=\"" << y << "\" x2=\"" << kLeft + kPlotWidth << "\" y2=\"" << y
        << "\" stroke=\"#e4e4e4\"/><text x=\"" << kLeft - 6 << "\" y=\"" << y + 4 << "\" font-size=\"11\" text-anchor=\"end\">"
        << number(v, "%g") << "</text>\n";
  }
  axis_label(svg, "GPUs", "step time (ms)");
  for (size_t g = 0; g < counts.size(); ++g) {
    const double centre = kLeft + group_width * (g + 0.5);
    svg << "<text x=\"" << centre << "\" y=\"" << kTop + kPlotHeight + 30 << "\" font-size=\"11\" text-anchor=\"middle\">"
        << counts[g] << "</text>\n";
    for (size_t s = 0; s < strategies.size(); ++s) {
      auto row = std::find_if(rows.begin(), rows.end(),
                              [&](const SweepRow& r) { return r.gpus == counts[g] && r.strategy == strategies[s]; });
      const double x = centre - bar_width * strategies.size() / 2 + bar_width * s;
      // hybrid:M shows as M; dp and tp/pp layouts by their names (the subtitle lists them all).
      const std::string short_name =
          strategies[s].rfind("hybrid:", 0) == 0 ? strategies[s].substr(strategies[s].find(':') + 1) : strategies[s];
      svg << "<text x=\"" << x + bar_width / 2 << "\" y=\"" << kTop + kPlotHeight + 13
          << "\" font-size=\"9\" fill=\"#555\" text-anchor=\"middle\">" << short_name << "</text>\n";
      if (row == rows.end()) continue;
      draw_bar(svg, *row, x, bar_width, top_ms);
    }
  }
  for (size_t p = 0; p < std::size(kBarParts); ++p)
    legend_entry(svg, static_cast<int>(p), kBarParts[p].colour, kBarParts[p].label, false);
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace scalecast
