#include "tools/scalecast/cli_options.h"

#include <iostream>

#include "sim/core/input_error.h"
#include "sim/core/yaml_input.h"
#include "sim/platform/platform_yaml.h"
#include "sim/workload/model_graph.h"

namespace scalecast::cli {

bool parse_options(const std::string& command, const std::string& usage, const std::vector<std::string>& args,
                   po::options_description& options, po::variables_map& values,
                   const po::positional_options_description* positional) {
  options.add_options()("help,h", "show this help");
  try {
    po::command_line_parser parser(args);
    parser.options(options);
    // Always a positional description, empty when the command takes none: then a stray word
    // ("--gpus 8 junk") is an error instead of being ignored.
    const po::positional_options_description none;
    parser.positional(positional ? *positional : none);
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

void add_output_option(po::options_description& options, const std::string& what, const std::string& alias) {
  options.add_options()("output,o", po::value<std::string>(), what.c_str());
  if (!alias.empty()) options.add_options()(alias.c_str(), po::value<std::string>(), "the same as --output (older name)");
}

std::optional<std::string> output_option(const po::variables_map& values, const std::string& alias) {
  const bool both = values.count("output") && !alias.empty() && values.count(alias);
  if (both) throw InputError("command line", "--output", "given twice (also as --" + alias + ")");
  if (values.count("output")) return values["output"].as<std::string>();
  if (!alias.empty() && values.count(alias)) return values[alias].as<std::string>();
  return std::nullopt;
}

std::string platform_option_help() {
  return "platform YAML file or preset: " + yaml::join_words(platform_presets());
}

std::string workload_option_help() {
  return "workload YAML file or preset: " + yaml::join_words(workload_presets());
}

void add_collective_options(po::options_description& options) {
  options.add_options()
      ("algo", po::value<std::string>()->default_value("auto"),
       "collective algorithm: auto (NCCL's pick) | ring | tree | nvls | nvlstree | pat | hier | direct")
      ("proto", po::value<std::string>()->default_value("auto"), "NCCL protocol: auto | LL | LL128 | Simple")
      ("fidelity", po::value<std::string>()->default_value("steady"),
       "collective fidelity: steady (pipelined steady state) | step (every ring step; validation)");
}

ReplayOptions collective_options(const po::variables_map& values) {
  ReplayOptions options;
  if (!parse_collective_algorithm(values["algo"].as<std::string>(), options.algorithm))
    throw InputError("command line", "--algo", "expected auto, ring, tree, nvls, nvlstree, pat, hier or direct, got '" +
                                                   values["algo"].as<std::string>() + "'");
  if (!parse_collective_protocol(values["proto"].as<std::string>(), options.protocol))
    throw InputError("command line", "--proto", "expected auto, LL, LL128 or Simple, got '" +
                                                    values["proto"].as<std::string>() + "'");
  const std::string fidelity = values["fidelity"].as<std::string>();
  if (fidelity != "steady" && fidelity != "step")
    throw InputError("command line", "--fidelity", "expected steady or step, got '" + fidelity + "'");
  options.fidelity = fidelity == "step" ? CollectiveFidelity::step_by_step : CollectiveFidelity::steady_state;
  return options;
}

}  // namespace scalecast::cli
