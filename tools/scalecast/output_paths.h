// Output files named on the command line are checked before any work runs, so that a run that
// would fail to write its result fails at once (exit 2) instead of after the simulation.
#pragma once

#include <string>

namespace scalecast::cli {

// Fails early (exit 2, nothing simulated) when an output cannot be written there
// (sim/core/atomic_file.h says what an output path may be).
void check_output_path(const std::string& path, const std::string& option);

}  // namespace scalecast::cli
