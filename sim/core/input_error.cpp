#include "sim/core/input_error.h"

namespace scalecast {

namespace {
std::string format_message(const std::string& source, const std::string& field, const std::string& problem) {
  std::string message = source;
  if (!field.empty()) message += ": " + field;
  return message + ": " + problem;
}
}  // namespace

InputError::InputError(std::string source, std::string field, const std::string& problem)
    : std::runtime_error(format_message(source, field, problem)),
      source_(std::move(source)),
      field_(std::move(field)),
      problem_(problem) {}

RequestError::RequestError(std::string parameter, const std::string& problem)
    : std::runtime_error(parameter + ": " + problem), parameter_(std::move(parameter)), problem_(problem) {}

}  // namespace scalecast
