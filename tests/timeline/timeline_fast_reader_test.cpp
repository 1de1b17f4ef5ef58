// The streaming timeline reader (timeline_fast_reader.cpp) against the full one: the same
// Timeline for every valid text, and nothing (so that the full reader reports the error) for
// every kind of invalid text.
#include <gtest/gtest.h>

#include <functional>
#include <sstream>

#include "sim/core/input_error.h"
#include "sim/timeline/timeline_json.h"
#include "tests/timeline/timeline_test_support.h"

namespace scalecast {
namespace {

using json = nlohmann::json;
using timeline_testing::event;

Timeline full_read(const std::string& text) { return timeline_from_json(parse_json_text(text, "t.json"), "t.json"); }

void expect_same(const std::string& text) {
  const std::optional<Timeline> fast = timeline_from_text_fast(text);
  ASSERT_TRUE(fast.has_value()) << text.substr(0, 200);
  EXPECT_EQ(*fast, full_read(text));
}

TEST(TimelineFastReader, SameTimelineAsTheFullReader) {
  expect_same(timeline_testing::read_text(timeline_testing::kSmallTimeline));

  // Times with many digits, escapes, an empty class, p2p, a step of -1, in the written layout.
  Timeline t;
  t.platform = "dgx \"a100\"\n";
  t.world_size = 3;
  t.classes = {{{0, 2},
                {event(EventCategory::compute, 0, 0, 0.1 + 0.2, 0, "conv\t1 \xC2\xB5"),
                 event(EventCategory::communication, 1, 1.0 / 3, 2.0 / 3, 3, "allreduce", 25.5 * 1024 * 1024),
                 event(EventCategory::point_to_point, 7, 1e-9, 1.0000000000000002e-9, -1, "send", 7)}},
               {{1}, {}}};
  std::ostringstream out;
  write_timeline_text(t, out);
  expect_same(out.str());
  EXPECT_EQ(*timeline_from_text_fast(out.str()), t);

  // Hand-written: integers where seconds are expected, optional fields left out, keys in any order.
  expect_same(R"({"classes": [{"events": [{"end_s": 2, "start_s": 0, "name": "a", "category": "compute", "stream": 0}],
                               "ranks": [0]}],
                  "world_size": 1, "platform": "p", "version": 1, "format": "scalecast-timeline"})");
}

// Each mutation of the small timeline makes it invalid; the fast reader must decline all of
// them (and the full reader then names the field: timeline_json_test.cpp).
TEST(TimelineFastReader, DeclinesWhatTheFullReaderRejects) {
  const json small = json::parse(timeline_testing::read_text(timeline_testing::kSmallTimeline));
  const std::vector<std::pair<std::string, std::function<void(json&)>>> mutations = {
      {"missing end_s", [](json& d) { d["classes"][0]["events"][1].erase("end_s"); }},
      {"string stream", [](json& d) { d["classes"][1]["events"][2]["stream"] = "zero"; }},
      {"fractional stream", [](json& d) { d["classes"][1]["events"][2]["stream"] = 1.5; }},
      {"negative stream", [](json& d) { d["classes"][1]["events"][2]["stream"] = -1; }},
      {"step below -1", [](json& d) { d["classes"][1]["events"][2]["step"] = -2; }},
      {"negative bytes", [](json& d) { d["classes"][1]["events"][2]["bytes"] = -1; }},
      {"null name", [](json& d) { d["classes"][1]["events"][2]["name"] = nullptr; }},
      {"no world_size", [](json& d) { d.erase("world_size"); }},
      {"world_size 0", [](json& d) { d["world_size"] = 0; }},
      {"unknown event field", [](json& d) { d["classes"][0]["events"][0]["duration_s"] = 1; }},
      {"unknown class field", [](json& d) { d["classes"][0]["note"] = "x"; }},
      {"unknown top field", [](json& d) { d["extra"] = 1; }},
      {"classes not an array", [](json& d) { d["classes"] = json::object(); }},
      {"end before start", [](json& d) { d["classes"][0]["events"][3]["end_s"] = 5.5; }},
      {"unknown category", [](json& d) { d["classes"][1]["events"][0]["category"] = "memcpy"; }},
      {"other format", [](json& d) { d["format"] = "scalecast-trace"; }},
      {"no format", [](json& d) { d.erase("format"); }},
      {"version 3", [](json& d) { d["version"] = 3; }},
      {"rank outside", [](json& d) { d["classes"][1]["ranks"][1] = 4; }},
      {"rank twice", [](json& d) { d["classes"][1]["ranks"][1] = 2; }},
      {"rank in no class", [](json& d) { d["world_size"] = 5; }},
      {"class without ranks", [](json& d) { d["classes"][1]["ranks"] = json::array(); }},
      {"not an object", [](json& d) { d = json::array({1, 2}); }},
  };
  for (const auto& [what, mutate] : mutations) {
    json document = small;
    mutate(document);
    const std::string text = document.dump();
    EXPECT_FALSE(timeline_from_text_fast(text).has_value()) << what;
    EXPECT_THROW(full_read(text), InputError) << what;
  }
  // Text-level faults: a repeated field, bad syntax, a truncated file.
  const std::string text = timeline_testing::read_text(timeline_testing::kSmallTimeline);
  std::string repeated = text;
  repeated.replace(repeated.find("\"stream\":0,"), 11, "\"stream\":0,\"stream\":1,");
  EXPECT_FALSE(timeline_from_text_fast(repeated).has_value());
  EXPECT_THROW(full_read(repeated), InputError);
  EXPECT_FALSE(timeline_from_text_fast(text.substr(0, text.size() / 2)).has_value());
  EXPECT_FALSE(timeline_from_text_fast("{\"format\": ").has_value());
  EXPECT_FALSE(timeline_from_text_fast("").has_value());
}

}  // namespace
}  // namespace scalecast
