// Errors in what a user wrote (a YAML file, a trace, a command line). Every one names where
// the problem is and what was expected; the command line turns it into exit code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace scalecast {

class InputError : public std::runtime_error {
 public:
  // source: a file path or "command line"; field: a dotted path inside it ("nodes.gpus[2].bandwidth").
  InputError(std::string source, std::string field, const std::string& problem);

  const std::string& source() const { return source_; }
  const std::string& field() const { return field_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string source_;
  std::string field_;
  std::string problem_;
};

// A request the library cannot carry out as asked -- more GPUs than the platform holds, an
// algorithm that does not apply to an operation -- as opposed to a file whose content is wrong.
// The library names the parameter in its own terms ("gpus", "strategy", "algorithm"); the
// command line maps it to the option the user typed (tools/scalecast/main.cpp), so library code
// never names a command-line flag. Also exit code 2.
class RequestError : public std::runtime_error {
 public:
  RequestError(std::string parameter, const std::string& problem);
  const std::string& parameter() const { return parameter_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string parameter_;
  std::string problem_;
};

}  // namespace scalecast
