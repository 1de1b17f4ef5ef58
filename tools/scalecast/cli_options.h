// Shared command-line plumbing: Boost.Program_options parsing that reports bad options as
// InputError (exit 2), and the --help text.
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/replay_engine.h"

namespace scalecast::cli {

namespace po = boost::program_options;

// Parses `args`; returns false when --help was asked (the help text has been printed).
bool parse_options(const std::string& command, const std::string& usage, const std::vector<std::string>& args,
                   po::options_description& options, po::variables_map& values,
                   const po::positional_options_description* positional = nullptr);

// -o/--output: where a command writes its output file (or folder). `alias` keeps a command's
// older name for it working (--timeline, --out); giving both is an error.
void add_output_option(po::options_description& options, const std::string& what, const std::string& alias = "");
std::optional<std::string> output_option(const po::variables_map& values, const std::string& alias = "");

// "platform YAML file or preset (dgx-a100, dgx-h100, ...)": the help text lists the presets
// found at run time, the user's folders included.
std::string platform_option_help();
std::string workload_option_help();

// --algo and --fidelity, as both simulate and collective take them.
void add_collective_options(po::options_description& options);
ReplayOptions collective_options(const po::variables_map& values);

}  // namespace scalecast::cli
