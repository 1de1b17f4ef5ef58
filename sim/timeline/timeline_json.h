// Simulated timelines on disk (format "scalecast-timeline", version 2), as `simulate --timeline`
// writes them and `inspect` reads them. traces/TIMELINE.md describes the format.
//
// The file keeps the rank classes of the Timeline: ranks that ran in lockstep share one list
// of events, so a 16,384-GPU timeline is as small as the few distinct ranks it holds.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "sim/core/json_input.h"  // read_json_file, for callers that sniff a file's format
#include "sim/timeline/timeline.h"

namespace scalecast {

constexpr const char* kTimelineFormatName = "scalecast-timeline";
constexpr int kTimelineFormatVersion = 2;
// Version 1 lacked the `host` category and is otherwise the same: still read.
constexpr int kOldestTimelineFormatVersion = 1;

// The timeline as a JSON value, and back. timeline_from_json checks the format name and
// version, the type of every field, rejects unknown fields, events that end before they start
// or have an unknown category, and ranks outside [0, world_size) or in more than one class (every
// rank must be in exactly one). Errors are InputError naming `source` and the field path
// ("classes[1].events[7].end_s").
nlohmann::json timeline_to_json(const Timeline& timeline);
Timeline timeline_from_json(const nlohmann::json& document, const std::string& source);

// The file's text: deterministic (the same timeline always gives the same bytes), one event per
// line, doubles printed so that they read back exactly.
void write_timeline_text(const Timeline& timeline, std::ostream& out);

// Writes atomically (an interrupted write leaves no partial file). Throws InputError when the
// path cannot be written.
void write_timeline(const Timeline& timeline, const std::string& path);

// The timeline in `text` when it is a valid timeline, read without building a JSON document
// (timeline_fast_reader.cpp); nothing at the first thing it does not expect, and the caller then
// uses timeline_from_json, whose errors name the field. Both give the same Timeline for every
// valid text.
std::optional<Timeline> timeline_from_text_fast(const std::string& text);

// Reads and validates a timeline file. Throws InputError naming the file: missing, unreadable,
// invalid JSON (with line and column), or anything timeline_from_json rejects.
Timeline read_timeline(const std::string& path);

}  // namespace scalecast
