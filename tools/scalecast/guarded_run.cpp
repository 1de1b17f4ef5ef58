#include "tools/scalecast/guarded_run.h"

#include <exception>
#include <iostream>
#include <map>

#include "sim/core/input_error.h"

namespace scalecast::cli {

namespace {

// The option a library parameter comes from (RequestError names parameters, never flags).
std::string option_for(const std::string& command, const std::string& parameter) {
  if (parameter == "strategy") return command == "sweep" ? "--strategies" : "--strategy";
  static const std::map<std::string, std::string> options = {
      {"gpus", "--gpus"}, {"algorithm", "--algo"}, {"output", "--output"}, {"traces", "FILES"},
      {"step", "--step"}, {"precision", "--precision"}, {"protocol", "--proto"}, {"bytes", "--bytes"},
      {"global_batch", "--global-batch"}, {"gpus_per_node", "--gpus-per-node"}};
  auto it = options.find(parameter);
  return it != options.end() ? it->second : parameter;
}

}  // namespace

int run_guarded(const std::string& name, SubcommandFunction run, const std::vector<std::string>& args) {
  try {
    return run(args);
  } catch (const InputError& e) {
    std::cerr << "scalecast: error: " << e.what() << "\n";
    return 2;
  } catch (const RequestError& e) {
    std::cerr << "scalecast: error: command line: " << option_for(name, e.parameter()) << ": " << e.problem() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "scalecast: internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace scalecast::cli
