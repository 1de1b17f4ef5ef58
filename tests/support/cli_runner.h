// Runs the scalecast binary as a user would (tests that need several simulations must use
// separate processes: SimGrid's engine is a per-process singleton).
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace scalecast::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Runs `command_line` in the shell; stdout and stderr come back apart.
inline CommandResult run_command(const std::string& command_line) {
  static int counter = 0;
  const std::string err_path =
      (std::filesystem::temp_directory_path() / ("scalecast-stderr-" + std::to_string(::getpid()) + "-" + std::to_string(counter++))).string();
  const std::string command = command_line + " 2>" + err_path;
  CommandResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.out.append(buffer.data(), n);
  int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = read_text(err_path);
  std::filesystem::remove(err_path);
  return result;
}

// `arguments` is appended to the binary's path as shell text.
inline CommandResult run_scalecast(const std::string& arguments) {
  return run_command(std::string(SCALECAST_BINARY) + " " + arguments);
}

}  // namespace scalecast::testing
