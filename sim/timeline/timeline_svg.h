// A timeline drawn as an SVG picture: ranks down, time across, each stream of a rank a lane,
// tasks coloured by category (compute; communication under compute; exposed communication,
// i.e. with no compute running on the rank; send/recv), idle time grey, a legend, a time axis
// with round tick labels, step boundaries, and optionally a step's critical path as a black line.
//
// A picture can show a few dozen rows. Up to `max_rows` ranks, every rank is a row. Beyond
// that, ranks whose rows would draw the same pixels are one row (a DP timeline of 16,384 ranks
// is one row); and when even those are too many, each row stands for a bucket of consecutive
// ranks and shows, at each instant, the share of them computing and in exposed communication
// (a stacked heat row). The picture says in words which of these it did.
//
// The SVG is written as text (it is a plain picture format; no library needed).
#pragma once

#include <string>
#include <vector>

#include "sim/timeline/critical_path.h"
#include "sim/timeline/timeline.h"

namespace scalecast {

struct TimelineSvgOptions {
  std::string title;
  std::vector<std::string> notes;  // lines under the title (the summary figures)
  int max_rows = 64;               // rows drawn before ranks are summarised
  int width_px = 1200;
  const CriticalPath* critical_path = nullptr;  // drawn over the lanes when given
};

// How the rows were chosen, for tests and for the note in the picture.
enum class SvgRowMode { per_rank, identical_rows_grouped, rank_buckets };

struct TimelineSvg {
  std::string text;
  SvgRowMode mode = SvgRowMode::per_rank;
  int rows = 0;
};

TimelineSvg timeline_svg(const Timeline& timeline, const TimelineSvgOptions& options);

// Writes atomically; throws InputError when the path cannot be written.
void write_timeline_svg(const Timeline& timeline, const std::string& path, const TimelineSvgOptions& options);

}  // namespace scalecast
