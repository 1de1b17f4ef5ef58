// The `scalecast` subcommands (README "A tour, command by command"). Each takes the arguments
// after its name, writes its result to stdout (one JSON object with --json, a table otherwise)
// and returns the exit code. Bad input is thrown as InputError; main turns it into exit 2.
#pragma once

#include <string>
#include <vector>

namespace scalecast::cli {

int run_simulate(const std::vector<std::string>& args);
int run_collective(const std::vector<std::string>& args);
int run_inspect(const std::vector<std::string>& args);
int run_sweep(const std::vector<std::string>& args);
int run_import(const std::vector<std::string>& args);
int run_capture(const std::vector<std::string>& args);
int run_validate(const std::vector<std::string>& args);

}  // namespace scalecast::cli
