// The critical path of a training step: the chain of tasks, each waiting for the one before it,
// that sets the step's length. Shorten any segment on it and the step gets shorter; work off it
// has slack.
//
// A timeline (format version 1) records when tasks ran, not which task each one waited for, so
// the chain is recovered from the times, walking back from the step's last task:
//  - the engine starts a task at the very instant its last prerequisite (the previous task of
//    its stream, or a dependency) ends; so a task's predecessor is a task that ended when it
//    started: of the same rank class first (same stream preferred), else of another class (a
//    cross-rank dependency);
//  - a collective or send/recv ends at the same instant for all its members, and its transfer
//    starts when the last member arrives; a member that arrived earlier waited for that one.
//    So on reaching a collective, the path moves to the member that arrived last (members: same
//    category and bytes, same end, and for a collective the same name; a send's partner has
//    another name), and the collective's segment runs from that arrival to its end;
//  - where no task ended at a task's start (a gap), the gap is an `idle` segment and the walk
//    continues from the class's latest task ending before it.
// Segments are clipped to the step, so they tile it: their shares add up to 1.
#pragma once

#include <string>
#include <vector>

#include "sim/timeline/step_report.h"
#include "sim/timeline/timeline.h"

namespace scalecast {

enum class PathSegmentKind { compute, communication, point_to_point, host, idle };
const char* to_string(PathSegmentKind kind);

struct PathSegment {
  PathSegmentKind kind = PathSegmentKind::compute;
  std::string name;     // the task's name; "idle" for a gap
  int rank_class = -1;  // the class the segment ran on
  int rank = -1;        // the first rank of that class
  int stream = -1;      // -1 for a gap
  double start_s = 0;
  double end_s = 0;
  double share = 0;     // (end_s - start_s) / the step's length
  double duration_s() const { return end_s - start_s; }
};

struct CriticalPath {
  StepSpan step;
  std::vector<PathSegment> segments;  // in time order, tiling [step.start_s, step.end_s]
  double total_s(PathSegmentKind kind) const;
};

// Events closer in time than this are taken to be the same instant (simulated times are exact;
// this only absorbs rounding in hand-written or converted timelines).
constexpr double kSameInstant_s = 1e-9;

// The critical path of `step`: one of report_steps(timeline).steps, with `resource` its
// bounding resource, or one of step_spans(timeline), with none. The chain ends where the step
// does: at what the next step's first task on the resource waited for (a period that runs to
// the next step's start), or at the step's last task (on the resource, when one is given). A
// timeline without events gives an empty path.
CriticalPath critical_path(const Timeline& timeline, const StepSpan& step, const StepResource* resource = nullptr);

}  // namespace scalecast
