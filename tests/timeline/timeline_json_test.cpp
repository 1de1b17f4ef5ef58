// Timeline files: exact, deterministic round trips, and errors that name the field.
#include "sim/timeline/timeline_json.h"

#include <gtest/gtest.h>

#include <sstream>

#include "sim/core/input_error.h"
#include "tests/timeline/timeline_test_support.h"

namespace scalecast {
namespace {

using json = nlohmann::json;
using timeline_testing::event;
using timeline_testing::kSmallTimeline;
using timeline_testing::read_text;

class TimelineFiles : public timeline_testing::ScratchFolder {};

// Times that print with many digits, a name that needs escaping, several classes and streams.
Timeline awkward_timeline() {
  Timeline t;
  t.platform = "dgx \"a100\"";
  t.world_size = 3;
  RankClassTimeline a, b;
  a.ranks = {0, 2};
  a.events = {event(EventCategory::compute, 0, 0, 0.1 + 0.2, 0, "conv\t1"),
              event(EventCategory::communication, 1, 1.0 / 3, 2.0 / 3, 0, "allreduce", 25.5 * 1024 * 1024),
              event(EventCategory::point_to_point, 2, 1e-9, 1.0000000000000002e-9, -1, "send", 7),
              event(EventCategory::host, 3, 0.25, 0.5, 0, "launch")};
  a.events[0].interference_s = 0.1 / 3;  // lost to NCCL sharing the GPU, to the slowest rank
  a.events[0].straggler_s = 1e-3;
  b.ranks = {1};
  t.classes = {a, b};  // b has no events
  return t;
}

std::string text_of(const Timeline& t) {
  std::ostringstream out;
  write_timeline_text(t, out);
  return out.str();
}

// Expects timeline_from_json to reject `document` with an InputError on `field`.
void expect_rejected(const json& document, const std::string& field, const std::string& problem_part) {
  try {
    timeline_from_json(document, "t.json");
    FAIL() << "accepted; expected an error on " << field;
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "t.json");
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(problem_part), std::string::npos) << e.what();
  }
}

json small_document() { return json::parse(read_text(kSmallTimeline)); }

TEST_F(TimelineFiles, RoundTripIsExactAndByteIdentical) {
  const Timeline original = awkward_timeline();
  write_timeline(original, path("a.json"));
  const Timeline read_back = read_timeline(path("a.json"));
  EXPECT_EQ(read_back, original);
  write_timeline(read_back, path("b.json"));
  EXPECT_EQ(read_text(path("a.json")), read_text(path("b.json")));
  EXPECT_EQ(entries(), 2u);  // no temporary files left behind
}

TEST(TimelineJson, ValueAndTextAgree) {
  const Timeline t = awkward_timeline();
  EXPECT_EQ(json::parse(text_of(t)), timeline_to_json(t));
  EXPECT_EQ(timeline_from_json(timeline_to_json(t), "value"), t);
}

TEST(TimelineJson, CheckedInFileIsInTheWrittenLayout) {
  // The sample is written as write_timeline lays files out, so reading and writing it again
  // gives the same bytes.
  EXPECT_EQ(text_of(read_timeline(kSmallTimeline)), read_text(kSmallTimeline));
}

TEST(TimelineJson, StepAndBytesAreOptional) {
  json document = small_document();
  document["classes"][0]["events"][0].erase("step");
  document["classes"][0]["events"][0].erase("bytes");
  const Timeline t = timeline_from_json(document, "t.json");
  EXPECT_EQ(t.classes[0].events[0].step, -1);
  EXPECT_EQ(t.classes[0].events[0].bytes, 0);
}

TEST(TimelineJson, RejectsMissingAndMistypedFields) {
  json document = small_document();
  document["classes"][0]["events"][1].erase("end_s");
  expect_rejected(document, "classes[0].events[1].end_s", "is missing");

  document = small_document();
  document["classes"][1]["events"][2]["stream"] = "zero";
  expect_rejected(document, "classes[1].events[2].stream", "must be an integer");

  document = small_document();
  document.erase("world_size");
  expect_rejected(document, "world_size", "is missing");

  document = small_document();
  document["classes"][0]["events"][0]["duration_s"] = 1;
  expect_rejected(document, "classes[0].events[0].duration_s", "is not a field");

  document = small_document();
  document["classes"] = json::object();
  expect_rejected(document, "classes", "must be an array");
}

TEST(TimelineJson, RejectsEndBeforeStartAndUnknownCategory) {
  json document = small_document();
  document["classes"][0]["events"][3]["end_s"] = 5.5;  // starts at 6
  expect_rejected(document, "classes[0].events[3].end_s", "before start_s");

  document = small_document();
  document["classes"][1]["events"][0]["category"] = "memcpy";
  expect_rejected(document, "classes[1].events[0].category", "\"memcpy\"");
}

TEST(TimelineJson, RejectsLostTimeNegativeOrLongerThanItsEvent) {
  json document = small_document();
  document["classes"][0]["events"][0]["interference_s"] = -1e-6;
  expect_rejected(document, "classes[0].events[0].interference_s", "is negative");

  document = small_document();
  auto& e = document["classes"][0]["events"][0];
  e["straggler_s"] = e["end_s"].get<double>() - e["start_s"].get<double>() + 1;
  expect_rejected(document, "classes[0].events[0].straggler_s", "longer than the event");
}

TEST(TimelineJson, RejectsOtherFormatsAndVersions) {
  json document = small_document();
  document["format"] = "scalecast-trace";
  expect_rejected(document, "format", "expected \"scalecast-timeline\"");
  document = small_document();
  document.erase("format");
  expect_rejected(document, "format", "is missing");
  document = small_document();
  document["version"] = 3;
  expect_rejected(document, "version", "reads versions 1 to 2");
  document["version"] = 0;
  expect_rejected(document, "version", "reads versions 1 to 2");
  document["version"] = 1;  // version 1 (no host category) still reads
  EXPECT_NO_THROW(timeline_from_json(document, "t.json"));
}

TEST(TimelineJson, EveryRankIsInExactlyOneClass) {
  json document = small_document();
  document["classes"][1]["ranks"][1] = 4;
  expect_rejected(document, "classes[1].ranks[1]", "outside [0, world_size = 4)");
  document = small_document();
  document["classes"][1]["ranks"][1] = 2;
  expect_rejected(document, "classes[1].ranks[1]", "also in classes[0]");
  document = small_document();
  document["world_size"] = 5;
  expect_rejected(document, "classes", "rank 4 is in no class");
}

TEST_F(TimelineFiles, FileErrorsNameTheFile) {
  try {
    read_timeline(path("missing.json"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), path("missing.json"));
  }
  const std::string broken = write_text("broken.json", "{\n  \"format\": \"scalecast-timeline\",\n  \"version\": \n}");
  try {
    read_timeline(broken);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), broken);
    EXPECT_NE(std::string(e.what()).find("line 4"), std::string::npos) << e.what();
  }
}

TEST_F(TimelineFiles, UnwritablePathIsAnInputErrorAndLeavesNothing) {
  EXPECT_THROW(write_timeline(awkward_timeline(), path("no/such/folder/t.json")), InputError);
  EXPECT_EQ(entries(), 0u);
}

}  // namespace
}  // namespace scalecast
