// The SVG timeline picture: which rows it draws (per rank, identical rows grouped, buckets of
// ranks), the legend, the time axis, and that what it says in words matches what it drew.
#include "sim/timeline/timeline_svg.h"

#include <gtest/gtest.h>

#include <regex>

#include "sim/core/input_error.h"
#include "sim/timeline/timeline_json.h"
#include "tests/timeline/timeline_test_support.h"

namespace scalecast {
namespace {

using timeline_testing::event;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// One class of `ranks` ranks: compute [0,2], an allreduce [1.5,3] of which [2,3] is exposed.
Timeline one_class(int ranks) {
  Timeline t;
  t.platform = "test";
  t.world_size = ranks;
  RankClassTimeline c;
  for (int r = 0; r < ranks; ++r) c.ranks.push_back(r);
  c.events = {event(EventCategory::compute, 0, 0, 2), event(EventCategory::communication, 1, 1.5, 3)};
  t.classes.push_back(c);
  return t;
}

// `ranks` ranks, each its own class, computing for a different time: no two rows alike.
Timeline all_different(int ranks) {
  Timeline t;
  t.platform = "test";
  t.world_size = ranks;
  for (int r = 0; r < ranks; ++r) {
    RankClassTimeline c;
    c.ranks = {r};
    c.events = {event(EventCategory::compute, 0, 0, 1 + r), event(EventCategory::communication, 1, 1 + r, 2 * ranks)};
    t.classes.push_back(c);
  }
  return t;
}

TEST(TimelineSvg, OneRowPerRankUpToTheLimit) {
  TimelineSvgOptions options;
  options.title = "small <test> & co";
  const TimelineSvg svg = timeline_svg(read_timeline(timeline_testing::kSmallTimeline), options);
  EXPECT_EQ(svg.mode, SvgRowMode::per_rank);
  EXPECT_EQ(svg.rows, 4);
  EXPECT_TRUE(svg.text.starts_with("<?xml")) << svg.text.substr(0, 100);
  EXPECT_TRUE(contains(svg.text, "</svg>"));
  for (const char* label : {">rank 0<", ">rank 1<", ">rank 2<", ">rank 3<", "4 ranks, one row each"})
    EXPECT_TRUE(contains(svg.text, label)) << label;
  EXPECT_TRUE(contains(svg.text, "small &lt;test&gt; &amp; co"));  // the title is escaped
  // Legend: every category of the timeline (it has sends) and idle.
  for (const char* entry : {">GPU compute<", "exposed communication", "overlapped by compute", "send/recv (p2p)", ">idle<"})
    EXPECT_TRUE(contains(svg.text, entry)) << entry;
  // Step boundaries and a 2 s axis over the 15.5 s span.
  EXPECT_TRUE(contains(svg.text, ">step 0<"));
  EXPECT_TRUE(contains(svg.text, ">step 1<"));
  for (const char* tick : {">0 s<", ">2 s<", ">14 s<"}) EXPECT_TRUE(contains(svg.text, tick)) << tick;
  EXPECT_FALSE(contains(svg.text, ">16 s<"));  // beyond the span
}

// Rank 0's exposed communication [4,6] of step 0 is drawn in the exposed colour, and its
// overlapped part [3,4] in the communication colour: x = 170 + t / 15.5 * 1006.
TEST(TimelineSvg, ExposedCommunicationIsTheUncoveredPart) {
  const TimelineSvg svg = timeline_svg(read_timeline(timeline_testing::kSmallTimeline), {});
  const double plot_px = 1200 - 170 - 24;
  auto x = [&](double t_s) { return 170 + t_s / 15.5 * plot_px; };
  char exposed[128], overlapped[128];
  std::snprintf(exposed, sizeof exposed, "x=\"%.1f\" y=\"[0-9.]+\" width=\"%.1f\" height=\"[0-9.]+\" fill=\"#e15759\"", x(4),
                x(6) - x(4));
  std::snprintf(overlapped, sizeof overlapped, "x=\"%.1f\" y=\"[0-9.]+\" width=\"%.1f\" height=\"[0-9.]+\" fill=\"#f28e2b\"",
                x(3), x(6) - x(3));
  EXPECT_TRUE(std::regex_search(svg.text, std::regex(exposed))) << exposed;
  EXPECT_TRUE(std::regex_search(svg.text, std::regex(overlapped))) << overlapped;
}

// Class 0 reaches the allreduce at 1 but class 1 only at 3: class 0's lane shows [1,3] as
// waiting and the transfer [3,5] as exposed communication. x = 170 + t / 5 * 1006.
TEST(TimelineSvg, WaitingForOtherRanksHasItsOwnColour) {
  Timeline t;
  t.world_size = 2;
  t.classes = {{{0}, {event(EventCategory::compute, 0, 0, 1), event(EventCategory::communication, 1, 1, 5, 0, "ar")}},
               {{1}, {event(EventCategory::compute, 0, 0, 3), event(EventCategory::communication, 1, 3, 5, 0, "ar")}}};
  const TimelineSvg svg = timeline_svg(t, {});
  auto x = [](double t_s) { return 170 + t_s / 5 * 1006; };
  char waiting[128], exposed[128];
  std::snprintf(waiting, sizeof waiting, "x=\"%.1f\" y=\"[0-9.]+\" width=\"%.1f\" height=\"[0-9.]+\" fill=\"#c5b0d5\"", x(1),
                x(3) - x(1));
  std::snprintf(exposed, sizeof exposed, "x=\"%.1f\" y=\"[0-9.]+\" width=\"%.1f\" height=\"[0-9.]+\" fill=\"#e15759\"", x(3),
                x(5) - x(3));
  EXPECT_TRUE(std::regex_search(svg.text, std::regex(waiting))) << waiting;
  EXPECT_EQ(count(svg.text, "fill=\"#e15759\""), 3u);  // legend, and [3,5] on each rank
  EXPECT_TRUE(std::regex_search(svg.text, std::regex(exposed))) << exposed;
  EXPECT_TRUE(contains(svg.text, "waiting for other ranks"));
  // Without waits, the legend does not list waiting.
  EXPECT_FALSE(contains(timeline_svg(one_class(2), {}).text, "waiting for other ranks"));
}

TEST(TimelineSvg, IdenticalRanksShareARow) {
  const TimelineSvg svg = timeline_svg(one_class(1024), {});
  EXPECT_EQ(svg.mode, SvgRowMode::identical_rows_grouped);
  EXPECT_EQ(svg.rows, 1);
  EXPECT_TRUE(contains(svg.text, ">ranks 0-1023<"));
  EXPECT_TRUE(contains(svg.text, "1,024 ranks in 1 row: ranks whose rows would look the same share one"));
}

TEST(TimelineSvg, ClassesThatLookAlikeShareARow) {
  // 100 classes of one rank each, with the same events: one row.
  Timeline t = all_different(100);
  for (auto& c : t.classes) c.events = t.classes.front().events;
  const TimelineSvg svg = timeline_svg(t, {});
  EXPECT_EQ(svg.mode, SvgRowMode::identical_rows_grouped);
  EXPECT_EQ(svg.rows, 1);
  EXPECT_TRUE(contains(svg.text, ">ranks 0-99<"));
}

TEST(TimelineSvg, TooManyDifferentRowsBecomeBucketsOfRanks) {
  TimelineSvgOptions options;
  options.max_rows = 64;
  const TimelineSvg svg = timeline_svg(all_different(200), options);
  EXPECT_EQ(svg.mode, SvgRowMode::rank_buckets);
  EXPECT_EQ(svg.rows, 50);  // 4 ranks a row
  EXPECT_TRUE(contains(svg.text, ">ranks 0-3<"));
  EXPECT_TRUE(contains(svg.text, ">ranks 196-199<"));
  EXPECT_TRUE(contains(svg.text, "200 ranks in 50 rows of 4 consecutive ranks (200 different rows, too many to draw one each)"));
  EXPECT_FALSE(contains(svg.text, "overlapped by compute"));  // heat rows show compute and exposed only
}

// A heat row of 2 ranks, one computing through the whole span and one for half of it: the
// first half of the row is fully blue, the second half half blue (level 8 of 16).
TEST(TimelineSvg, HeatRowsShowTheShareOfRanks) {
  Timeline t;
  t.world_size = 4;
  for (int r = 0; r < 4; ++r) {
    RankClassTimeline c;
    c.ranks = {r};
    c.events = {event(EventCategory::compute, 0, 0, r % 2 ? 8 : 4)};
    if (r == 3) c.events.push_back(event(EventCategory::communication, 1, 8, 8.5));  // makes rows 1 and 3 differ
    t.classes.push_back(c);
  }
  TimelineSvgOptions options;
  options.max_rows = 2;
  const TimelineSvg svg = timeline_svg(t, options);
  ASSERT_EQ(svg.mode, SvgRowMode::rank_buckets);
  ASSERT_EQ(svg.rows, 2);
  // Row height 18 (the cap), gap 2: bars 16 high; half-share bars 8 high.
  EXPECT_GE(count(svg.text, "height=\"16.0\" fill=\"#4e79a7\""), 2u);
  EXPECT_GE(count(svg.text, "height=\"8.0\" fill=\"#4e79a7\""), 2u);
}

TEST(TimelineSvg, CriticalPathIsDrawnAndNamedInTheLegend) {
  const Timeline t = read_timeline(timeline_testing::kSmallTimeline);
  const CriticalPath path = critical_path(t, step_spans(t)[1]);
  TimelineSvgOptions options;
  options.critical_path = &path;
  const TimelineSvg svg = timeline_svg(t, options);
  EXPECT_TRUE(contains(svg.text, "critical path of step 1"));
  // The legend's line, then one line per run on a lane: forward and backward on rank 1's
  // stream 0 are one run, then the allreduce on rank 0's stream 1, the optimizer on its stream 0.
  ASSERT_EQ(path.segments.size(), 4u);
  EXPECT_EQ(count(svg.text, "stroke=\"#000000\" stroke-width=\"2\""), 1u + 3u);
  EXPECT_EQ(count(svg.text, "stroke=\"#000000\" stroke-width=\"1\""), 2u);  // two moves between lanes
}

// Host (CPU thread) tasks are drawn in their own colour on their own lane and named in the
// legend; they are not GPU compute, so they do not cover exposed communication.
TEST(TimelineSvg, HostTasksHaveTheirOwnColourAndDoNotHideExposedCommunication) {
  Timeline t = one_class(1);
  t.classes[0].events = {event(EventCategory::host, 2, 0, 4), event(EventCategory::communication, 1, 1, 3)};
  const std::string text = timeline_svg(t, {}).text;
  EXPECT_TRUE(contains(text, ">host (CPU thread)<"));
  EXPECT_EQ(count(text, "fill=\"#9c755f\""), 2u);  // legend and the host lane
  EXPECT_EQ(count(text, "fill=\"#4e79a7\""), 1u);  // the legend only: no GPU compute
  EXPECT_EQ(count(text, "fill=\"#e15759\""), 2u);  // legend, and the whole allreduce is exposed
}

// A lane of many short kernels is drawn as busy as it was: 1,000 kernels of 0.1 us, one every
// microsecond, on a 1,000-pixel plot of 1 ms cover a tenth of each pixel, so the whole lane is
// drawn at the lowest opacity (1/8), never solid.
TEST(TimelineSvg, ShortTasksAreDrawnByTheShareOfEachPixelTheyCover) {
  Timeline t = one_class(1);
  t.classes[0].events.clear();
  for (int k = 0; k < 1000; ++k) t.classes[0].events.push_back(event(EventCategory::compute, 0, k * 1e-6, k * 1e-6 + 0.1e-6));
  TimelineSvgOptions options;
  options.width_px = 1000 + 170 + 24;  // a 1,000-pixel plot
  const std::string text = timeline_svg(t, options).text;
  const std::regex bar("fill=\"#4e79a7\"( fill-opacity=\"([0-9.]+)\")?/>");
  double drawn_px = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), bar); it != std::sregex_iterator(); ++it) {
    if (!(*it)[1].matched) continue;  // the legend's swatch
    EXPECT_EQ((*it)[2].str(), "0.1");  // 1/8, printed with one decimal
    const std::string before = text.substr(0, it->position());
    const size_t width_at = before.rfind("width=\"");
    drawn_px += std::stod(before.substr(width_at + 7));
  }
  EXPECT_NEAR(drawn_px, 1000, 2);  // the whole lane, faintly
}

TEST(TimelineSvg, TickLabelsInMillisecondsAndMicroseconds) {
  Timeline t = one_class(2);
  t.classes[0].events = {event(EventCategory::compute, 0, 0, 0.03129)};
  std::string text = timeline_svg(t, {}).text;
  EXPECT_TRUE(contains(text, ">30 ms<")) << "2 ms ticks";
  EXPECT_FALSE(contains(text, ">32 ms<"));
  t.classes[0].events = {event(EventCategory::compute, 0, 0, 0.0009)};
  text = timeline_svg(t, {}).text;
  EXPECT_TRUE(contains(text, ">800 \xC2\xB5s<")) << "100 us ticks";
  t.classes[0].events = {event(EventCategory::compute, 0, 0, 0.0000012)};
  text = timeline_svg(t, {}).text;
  EXPECT_TRUE(contains(text, ">1.2 \xC2\xB5s<")) << "0.2 us ticks";
}

class TimelineSvgFile : public timeline_testing::ScratchFolder {};

TEST_F(TimelineSvgFile, WriteIsAtomicAndRejectsBadPaths) {
  EXPECT_THROW(write_timeline_svg(one_class(2), path("missing/t.svg"), {}), InputError);
  EXPECT_EQ(entries(), 0u);
  write_timeline_svg(one_class(2), path("t.svg"), {});
  EXPECT_TRUE(timeline_testing::read_text(path("t.svg")).starts_with("<?xml"));
  EXPECT_EQ(entries(), 1u);  // no temporary file left beside it
}

}  // namespace
}  // namespace scalecast
