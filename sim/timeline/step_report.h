// The one definition of "a training step" and "where its time went", used by every command
// that reports a step (simulate, sweep, validate, inspect), so that they agree.
//
// Steps: the spans of the timeline's numbered steps (step_spans(); events outside any numbered
// step, such as set-up, are left out when numbered steps exist). The step time is the median
// span. The breakdown is that of the rank class that sets the step: the one busiest
// (compute plus exposed communication) once the time it spent waiting in collectives for other
// ranks is taken out -- with a straggler every other class "communicates" while it waits, and
// the straggler is the one that waited least. Ties go to the first class, for a stable answer.
#pragma once

#include <vector>

#include "sim/timeline/collective_waits.h"
#include "sim/timeline/timeline.h"

namespace scalecast {

struct StepReport {
  std::vector<StepSpan> steps;
  double step_time_s = 0;       // median of the step spans
  double mean_step_time_s = 0;
  int breakdown_class = -1;     // the rank class that sets the step; -1 when there are no steps
  TimeBreakdown per_step;       // that class's breakdown, mean over steps
  double per_step_waiting_s = 0;  // the part of per_step.exposed_communication_s spent waiting
};

StepReport report_steps(const Timeline& timeline, const CollectiveWaits& waits);
StepReport report_steps(const Timeline& timeline);

// Numbered steps when there are any, else the one unnumbered span.
std::vector<StepSpan> training_steps(const Timeline& timeline);

double median(std::vector<double> values);

}  // namespace scalecast
