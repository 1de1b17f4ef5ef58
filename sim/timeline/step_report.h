// The one definition of "a training step" and "where its time went", used by every command
// that reports a step (simulate, sweep, validate, inspect), so that they agree.
//
// Resources. A rank class's GPU (all its streams together: busy while it computes or transfers,
// not while a collective waits for other ranks to arrive) is one resource, and each of its host
// threads (a stream of host events) is another. The resource that bounds the job is the one
// with the most work in the numbered steps (events labelled with a step); ties go to the first
// class, and within a class to the GPU, then to the lowest stream.
//
// Steps. With two or more numbered steps, a step is the steady-state period of the job: the
// time from the step's start on the bounding resource (its first event of that step) to the
// next step's start there; the last step runs to its last event's end there. The first step is
// warm-up (nothing of an earlier step is queued when the replay starts it: the host has not run
// ahead, the GPU starts empty), so it is reported but left out of the step time, the median
// period over the other steps. With one step (or none numbered), the step is its span, first
// start to last end over all classes, and there is no warm-up. Events outside every numbered
// step (set-up) are left out when numbered steps exist.
//
// The breakdown is that of the bounding resource's rank class (with a straggler, the class
// every other one waits for), mean over the steady-state steps.
#pragma once

#include <string>
#include <vector>

#include "sim/timeline/collective_waits.h"
#include "sim/timeline/timeline.h"

namespace scalecast {

struct StepResource {
  int rank_class = -1;
  int stream = -1;  // a host thread's stream; -1 for the class's GPU
  double work_s = 0;  // its busy time summed over the numbered steps
  bool is_gpu() const { return stream < 0; }
  // Whether `e`, an event of this resource's class, ran on this resource.
  bool holds(const TimelineEvent& e) const {
    return is_gpu() ? e.category != EventCategory::host : e.category == EventCategory::host && e.stream == stream;
  }
};
std::string describe(const StepResource& resource);  // "rank class 0's GPU", "rank class 0's host thread (stream 9)"

struct StepReport {
  std::vector<StepSpan> steps;  // every step: its period on the bounding resource (or its span)
  int warm_up_steps = 0;        // the first steps, reported in `steps` but left out of the step time
  StepResource bounding;        // the resource whose step starts define the steps
  bool periods = false;         // steps are periods on the bounding resource (two or more steps)
  double step_time_s = 0;       // median over the steady-state steps
  double mean_step_time_s = 0;  // mean over the same steps
  int breakdown_class = -1;     // the bounding resource's rank class; -1 when there are no steps
  TimeBreakdown per_step;       // that class's breakdown, mean over the steady-state steps
  double per_step_waiting_s = 0;  // the part of per_step.exposed_communication_s spent waiting
  std::vector<StepSpan> steady_steps() const {
    return {steps.begin() + std::min<size_t>(warm_up_steps, steps.size()), steps.end()};
  }
};

StepReport report_steps(const Timeline& timeline, const CollectiveWaits& waits);
StepReport report_steps(const Timeline& timeline);

// How report_steps defines a step, in one sentence for people (inspect prints it).
std::string step_definition(const StepReport& report);

// Numbered steps' spans when there are any, else the one unnumbered span.
std::vector<StepSpan> training_steps(const Timeline& timeline);

double median(std::vector<double> values);

}  // namespace scalecast
