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

 private:
  std::string source_;
  std::string field_;
};

}  // namespace scalecast
