#include "sim/engine/solver_stack.h"

#include <pthread.h>

#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

#include "sim/core/input_error.h"

namespace scalecast {

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
// 96 bytes measured per level of update_modified_cnst_set_rec; a third more for safety, and
// 8 MiB for everything else on the stack.
constexpr std::size_t kBytesPerConstraint = 128;
constexpr std::size_t kBaseBytes = 8 * kMiB;

std::string mib(std::size_t bytes) { return std::to_string((bytes + kMiB - 1) / kMiB) + " MiB"; }

struct ThreadWork {
  const std::function<void()>* work = nullptr;
  std::exception_ptr error;
};

void* run_thread_work(void* argument) {
  auto* thread = static_cast<ThreadWork*>(argument);
  try {
    (*thread->work)();
  } catch (...) {
    thread->error = std::current_exception();
  }
  return nullptr;
}

}  // namespace

std::size_t solver_stack_bytes(std::size_t link_constraints) { return kBaseBytes + link_constraints * kBytesPerConstraint; }

void run_with_solver_stack(const std::function<void()>& work) {
  pthread_attr_t attributes;
  if (int e = pthread_attr_init(&attributes); e != 0) throw std::runtime_error(std::string("pthread_attr_init: ") + std::strerror(e));
  ThreadWork thread_work{&work, nullptr};
  pthread_t thread;
  int e = pthread_attr_setstacksize(&attributes, kSolverThreadStackBytes);
  if (e == 0) e = pthread_create(&thread, &attributes, run_thread_work, &thread_work);
  pthread_attr_destroy(&attributes);
  if (e != 0)
    throw std::runtime_error("could not start the simulation thread with " + mib(kSolverThreadStackBytes) +
                             " of stack: " + std::strerror(e));
  pthread_join(thread, nullptr);
  if (thread_work.error) std::rethrow_exception(thread_work.error);
}

void check_solver_stack(std::size_t link_constraints) {
  const std::size_t needed = solver_stack_bytes(link_constraints);
  if (needed > kSolverThreadStackBytes)
    throw RequestError("gpus", "simulating " + std::to_string(link_constraints) + " link directions needs " + mib(needed) +
                                   " of stack for SimGrid's solver, more than the " + mib(kSolverThreadStackBytes) +
                                   " the simulation thread has");
}

}  // namespace scalecast
