// Room on the stack for SimGrid's max-min solver.
//
// SimGrid's maestro (which handles every simcall and solves the sharing system) runs on the
// stack of the thread that runs the engine, and with selective update (our setting; CM02's
// lazy mode needs it) its System::update_modified_cnst_set_rec recurses once per link
// constraint along a connected component of the sharing system: 96 bytes a level in Debian's
// SimGrid 3.32 (measured with gdb). A ring of flows through a 131,072-GPU cluster chains
// ~500,000 link directions, far beyond the 8 MiB that Linux gives a main stack by default: the
// recursion ran off the stack and SimGrid died with "Segmentation fault." after minutes of
// work. Raising the main stack's limit is bounded by the room the kernel left below it at exec
// (128 MiB by default), too little for a DGX-1 cluster of that size (1.1 million link
// directions: 141 MiB), so the engine runs on a thread of its own whose stack is sized here.
#pragma once

#include <cstddef>
#include <functional>

namespace scalecast {

// Bytes of stack the solver may use for that many link directions.
std::size_t solver_stack_bytes(std::size_t link_constraints);

// The stack of the thread run_with_solver_stack starts: room for 4 million link directions
// (a 131,072-GPU platform of the presets builds at most 1.1 million). Only the pages the
// recursion touches are ever committed.
constexpr std::size_t kSolverThreadStackBytes = std::size_t{512} << 20;

// Runs `work` on a thread with kSolverThreadStackBytes of stack, waits for it, and rethrows
// whatever it threw. Throws std::runtime_error when the thread cannot be started.
void run_with_solver_stack(const std::function<void()>& work);

// Throws RequestError("gpus") naming the stack needed when SimGrid's solver could need more
// than kSolverThreadStackBytes for `link_constraints` link directions.
void check_solver_stack(std::size_t link_constraints);

}  // namespace scalecast
