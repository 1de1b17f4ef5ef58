// A streaming reader for well-formed timelines: builds the Timeline straight from the parser's
// events (nlohmann's SAX interface) instead of a JSON document first. A 1,024-rank timeline is
// half a million small objects; as a document they cost most of `inspect`'s time and memory.
//
// It only ever accepts: at the first thing it does not expect (an unknown or repeated field, a
// wrong type, a value out of range, a syntax error) it gives up and returns nothing, and the
// caller reads the text with the full reader, whose error message names the file and field.
// So the two readers agree on every valid timeline (tests check it) and errors stay as they were.
#include <nlohmann/json.hpp>
#include <optional>

#include "sim/timeline/timeline_json.h"

namespace scalecast {

namespace {

enum class Context { root, classes, rank_class, ranks, events, event };

// Field ids per object kind; bit i of `seen` says field i was read.
enum RootField { kFormat, kVersion, kPlatform, kWorldSize, kClasses };
enum ClassField { kRanks, kEvents };
enum EventField { kStream, kStep, kCategory, kName, kStart, kEnd, kBytes, kInterference, kStraggler };

class TimelineSax {
 public:
  using number_integer_t = std::int64_t;
  using number_unsigned_t = std::uint64_t;
  using number_float_t = double;
  using string_t = std::string;
  using binary_t = nlohmann::json::binary_t;

  Timeline timeline;
  bool complete = false;

  bool null() { return false; }
  bool boolean(bool) { return false; }
  bool binary(binary_t&) { return false; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

  bool number_integer(std::int64_t value) { return integer(value); }
  bool number_unsigned(std::uint64_t value) {
    return value <= static_cast<std::uint64_t>(INT64_MAX) && integer(static_cast<std::int64_t>(value));
  }
  bool number_float(double value, const std::string&) {
    if (top() != Context::event) return false;
    return real(value);
  }

  bool string(std::string& value) {
    if (top() == Context::root) {
      if (field_ == kFormat) return value == kTimelineFormatName;
      if (field_ == kPlatform) return (timeline.platform = std::move(value), true);
      return false;
    }
    if (top() != Context::event) return false;
    if (field_ == kCategory) return parse_event_category(value, event_.category);
    if (field_ == kName) return (event_.name = std::move(value), true);
    return false;
  }

  bool start_object(std::size_t) {
    if (stack_.empty()) return push(Context::root);
    if (top() == Context::classes) {
      timeline.classes.emplace_back();
      return push(Context::rank_class);
    }
    if (top() == Context::events) {
      event_ = TimelineEvent{};
      return push(Context::event);
    }
    return false;
  }

  bool key(std::string& name) {
    static const char* const root_fields[] = {"format", "version", "platform", "world_size", "classes"};
    static const char* const class_fields[] = {"ranks", "events"};
    static const char* const event_fields[] = {"stream",  "step",  "category",       "name",       "start_s",
                                               "end_s",   "bytes", "interference_s", "straggler_s"};
    switch (top()) {
      case Context::root: return field(name, root_fields, 5);
      case Context::rank_class: return field(name, class_fields, 2);
      case Context::event: return field(name, event_fields, 9);
      default: return false;
    }
  }

  bool end_object() {
    const int seen = seen_.back();
    const Context context = top();
    stack_.pop_back();
    seen_.pop_back();
    if (context == Context::event) {
      const int required = 1 << kStream | 1 << kCategory | 1 << kName | 1 << kStart | 1 << kEnd;
      if ((seen & required) != required || event_.end_s < event_.start_s || event_.bytes < 0) return false;
      for (double lost_s : {event_.interference_s, event_.straggler_s})
        if (lost_s < 0 || lost_s > event_.end_s - event_.start_s) return false;
      timeline.classes.back().events.push_back(std::move(event_));
      return true;
    }
    if (context == Context::rank_class) return seen == (1 << kRanks | 1 << kEvents) && !timeline.classes.back().ranks.empty();
    if (context == Context::root) {
      complete = seen == (1 << kFormat | 1 << kVersion | 1 << kPlatform | 1 << kWorldSize | 1 << kClasses);
      return complete;
    }
    return false;
  }

  bool start_array(std::size_t) {
    if (top() == Context::root && field_ == kClasses) return push(Context::classes);
    if (top() == Context::rank_class && field_ == kRanks) return push(Context::ranks);
    if (top() == Context::rank_class && field_ == kEvents) return push(Context::events);
    return false;
  }

  bool end_array() {
    stack_.pop_back();
    seen_.pop_back();
    return true;
  }

 private:
  Context top() const { return stack_.empty() ? Context::root : stack_.back(); }
  bool push(Context context) {
    stack_.push_back(context);
    seen_.push_back(0);
    return true;
  }
  bool field(const std::string& name, const char* const* names, int count) {
    for (int i = 0; i < count; ++i)
      if (name == names[i]) {
        if (seen_.back() & (1 << i)) return false;  // a repeated field
        seen_.back() |= 1 << i;
        field_ = i;
        return true;
      }
    return false;
  }
  bool integer(std::int64_t value) {
    const bool fits = value >= INT_MIN && value <= INT_MAX;
    switch (top()) {
      case Context::ranks:
        if (!fits) return false;
        timeline.classes.back().ranks.push_back(static_cast<int>(value));
        return true;
      case Context::root:
        if (!fits) return false;
        if (field_ == kVersion) return value >= kOldestTimelineFormatVersion && value <= kTimelineFormatVersion;
        if (field_ == kWorldSize) return (timeline.world_size = static_cast<int>(value)) >= 1;
        return false;
      case Context::event:
        if (field_ == kStream) return fits && (event_.stream = static_cast<int>(value)) >= 0;
        if (field_ == kStep) return fits && (event_.step = static_cast<int>(value)) >= -1;
        return real(static_cast<double>(value));
      default: return false;
    }
  }
  bool real(double value) {
    if (field_ == kStart) return (event_.start_s = value, true);
    if (field_ == kEnd) return (event_.end_s = value, true);
    if (field_ == kBytes) return (event_.bytes = value, true);
    if (field_ == kInterference) return (event_.interference_s = value, true);
    if (field_ == kStraggler) return (event_.straggler_s = value, true);
    return false;
  }

  std::vector<Context> stack_;
  std::vector<int> seen_;
  int field_ = -1;
  TimelineEvent event_;
};

}  // namespace

std::optional<Timeline> timeline_from_text_fast(const std::string& text) {
  TimelineSax sax;
  try {
    if (!nlohmann::json::sax_parse(text, &sax) || !sax.complete) return std::nullopt;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  // Every rank in exactly one class.
  std::vector<char> covered(sax.timeline.world_size, 0);
  for (const RankClassTimeline& rank_class : sax.timeline.classes)
    for (int rank : rank_class.ranks) {
      if (rank < 0 || rank >= sax.timeline.world_size || covered[rank]) return std::nullopt;
      covered[rank] = 1;
    }
  for (char c : covered)
    if (!c) return std::nullopt;
  return std::move(sax.timeline);
}

}  // namespace scalecast
