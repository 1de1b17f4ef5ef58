// Runs jobs in forked worker processes, at most `parallel` at a time. SimGrid's engine is a
// per-process singleton, so every simulation of a sweep needs a process of its own; forking
// (rather than exec'ing the binary again) lets the children inherit what the parent prepared,
// e.g. the placements, which are the expensive part of a hybrid point.
#pragma once

#include <functional>
#include <string>

namespace scalecast {

struct JobOutcome {
  int exit_code = 0;    // 0 done, 2 bad input, 1 failure (as the command's own exit codes)
  std::string output;   // what the job returned (exit 0) or its error message
};

// job(i) runs in a child process and returns its result as text; an InputError or RequestError
// it throws becomes exit 2 with the message, any other exception exit 1. on_done(i, outcome) runs in the
// parent as each job ends, in completion order.
void run_in_processes(int count, int parallel, const std::function<std::string(int)>& job,
                      const std::function<void(int, const JobOutcome&)>& on_done);
// The same, where job i may start only once ready(i) holds: whenever a slot is free, the
// lowest-numbered job not yet started that is ready starts. on_done may make more jobs ready
// (the children forked after it inherit what it changed in the parent). Returns when no job is
// running and none of those left is ready: the caller learns from its own state which never
// started (a job whose prerequisite failed).
void run_in_processes(int count, int parallel, const std::function<std::string(int)>& job,
                      const std::function<void(int, const JobOutcome&)>& on_done,
                      const std::function<bool(int)>& ready);

}  // namespace scalecast
