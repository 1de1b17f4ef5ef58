// How a subcommand's failure becomes an exit code and one line on stderr, shared by both
// binaries (main.cpp: scalecast-sim, front_main.cpp: scalecast): InputError and RequestError
// are bad input (exit 2, the message names the file or option), anything else is ours (exit 1).
#pragma once

#include <string>
#include <vector>

namespace scalecast::cli {

using SubcommandFunction = int (*)(const std::vector<std::string>&);

// Runs `run(args)` for the subcommand `name`; never throws.
int run_guarded(const std::string& name, SubcommandFunction run, const std::vector<std::string>& args);

}  // namespace scalecast::cli
