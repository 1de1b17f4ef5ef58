// Shared command-line plumbing: Boost.Program_options parsing that reports bad options as
// InputError (exit 2), and the --help text.
#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "sim/engine/replay_engine.h"

namespace scalecast::cli {

namespace po = boost::program_options;

// Parses `args`; returns false when --help was asked (the help text has been printed).
bool parse_options(const std::string& command, const std::string& usage, const std::vector<std::string>& args,
                   po::options_description& options, po::variables_map& values,
                   const po::positional_options_description* positional = nullptr);

// --algo and --fidelity, as both simulate and collective take them.
void add_collective_options(po::options_description& options);
ReplayOptions collective_options(const po::variables_map& values);

}  // namespace scalecast::cli
