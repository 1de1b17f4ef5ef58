#include "tools/scalecast/cli_options.h"

#include <iostream>

#include "sim/core/input_error.h"

namespace scalecast::cli {

bool parse_options(const std::string& command, const std::string& usage, const std::vector<std::string>& args,
                   po::options_description& options, po::variables_map& values,
                   const po::positional_options_description* positional) {
  options.add_options()("help,h", "show this help");
  try {
    po::command_line_parser parser(args);
    parser.options(options);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), values);
    if (values.count("help")) {
      std::cout << "usage: scalecast " << command << " " << usage << "\n\n" << options << "\n";
      return false;
    }
    po::notify(values);
  } catch (const po::error& e) {
    throw InputError("command line", command, std::string(e.what()) + " (see 'scalecast " + command + " --help')");
  }
  return true;
}

}  // namespace scalecast::cli
