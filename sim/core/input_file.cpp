#include "sim/core/input_file.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>

#include "sim/core/input_error.h"

namespace scalecast {

namespace fs = std::filesystem;

namespace {

std::mutex inputs_mutex;
std::set<std::string>& inputs() {
  static std::set<std::string>* remembered = new std::set<std::string>;  // never destroyed: exit-safe
  return *remembered;
}

std::string resolved(const std::string& path) {
  std::error_code error;
  const fs::path canonical = fs::weakly_canonical(path, error);
  return error ? fs::absolute(path, error).lexically_normal().string() : canonical.string();
}

}  // namespace

std::uint64_t input_cap_bytes(std::uint64_t default_cap_bytes) {
  const char* text = std::getenv("SCALECAST_MAX_INPUT_MB");
  if (!text || !*text) return default_cap_bytes;
  char* end = nullptr;
  const double mib = std::strtod(text, &end);
  if (end == text || *end || !(mib > 0) || mib > 1e7) return default_cap_bytes;
  return static_cast<std::uint64_t>(mib * 1048576.0);
}

std::string format_cap(std::uint64_t bytes) {
  if (bytes >= (std::uint64_t{1} << 30) && bytes % (std::uint64_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (std::uint64_t{1} << 20)) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

void check_regular_input(const std::string& path, const std::string& what) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status)) throw InputError(path, "", "no such file");
  if (fs::is_directory(status)) throw InputError(path, "", "is a folder, not " + what);
  if (!fs::is_regular_file(status))
    throw InputError(path, "", "is not a regular file (a pipe, socket or device); expected " + what);
}

std::string read_input_file(const std::string& path, const std::string& what, std::uint64_t cap_bytes) {
  check_regular_input(path, what);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", std::string("cannot be opened: ") + std::strerror(errno));
  auto too_large = [&] {
    return InputError(path, "", "is larger than the " + format_cap(cap_bytes) + " scalecast reads for " + what +
                                    " (set SCALECAST_MAX_INPUT_MB to raise the cap)");
  };
  std::error_code error;
  const std::uintmax_t size = fs::file_size(path, error);
  if (!error && size > cap_bytes) throw too_large();
  // One read into a buffer of the file's size (streaming through an ostringstream copies a
  // large timeline several times as it grows); a file that grew since is cut at the cap.
  std::string text(error ? 0 : static_cast<size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (in.peek() != std::char_traits<char>::eof()) throw too_large();
  if (in.bad()) throw InputError(path, "", "reading failed");
  remember_input(path);
  return text;
}

void remember_input(const std::string& path) {
  std::lock_guard<std::mutex> lock(inputs_mutex);
  inputs().insert(resolved(path));
}

bool is_remembered_input(const std::string& path) {
  std::lock_guard<std::mutex> lock(inputs_mutex);
  return inputs().count(resolved(path)) > 0;
}

}  // namespace scalecast
