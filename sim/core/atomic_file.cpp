#include "sim/core/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "sim/core/input_error.h"
#include "sim/core/input_file.h"

namespace scalecast {

void write_file_atomically(const std::string& path, const std::string& content) {
  write_file_atomically(path, [&](std::ostream& out) { out << content; });
}

void check_folder_accepts_files(const std::string& folder, const std::string& path) {
  // access(W_OK) answers yes for root on read-only and virtual filesystems (/proc, /sys); only
  // making something there tells. The probe is a folder, removed at once.
  const std::string probe = (folder.empty() ? std::string(".") : folder) + "/.scalecast-write-probe." + std::to_string(::getpid());
  if (::mkdir(probe.c_str(), 0700) != 0)
    throw InputError(path, "", "cannot be written: folder '" + (folder.empty() ? std::string(".") : folder) +
                                   "' refuses new files (" + std::strerror(errno) + ")");
  ::rmdir(probe.c_str());
}

std::string checked_output_path(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) throw RequestError("output", "the path is empty");
  std::error_code error;
  std::string target = path;
  if (fs::is_symlink(fs::symlink_status(path, error))) {
    target = fs::weakly_canonical(path, error).string();
    if (error) throw InputError(path, "", "is a symlink that cannot be followed");
  }
  const fs::file_status status = fs::status(target, error);
  if (fs::is_directory(status)) throw InputError(path, "", "is a directory, expected a file path");
  if (fs::exists(status) && !fs::is_regular_file(status))
    throw InputError(path, "", "is not a regular file (a pipe, socket or device): outputs are written as files");
  if (is_remembered_input(target))
    throw InputError(path, "", "is one of this command's inputs: writing the output there would destroy it");
  const fs::path parent = fs::path(target).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, error))
    throw InputError(path, "", "cannot be written: folder '" + parent.string() + "' does not exist");
  check_folder_accepts_files(parent.string(), path);
  return target;
}

void write_file_atomically(const std::string& requested, const std::function<void(std::ostream&)>& write) {
  const std::string path = checked_output_path(requested);
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(requested, "", std::string("cannot be written: ") + std::strerror(errno));
    try {
      write(out);
    } catch (...) {
      out.close();
      std::remove(temporary.c_str());
      throw;
    }
    out.flush();
    if (!out) {
      out.close();
      std::remove(temporary.c_str());
      throw InputError(requested, "", "writing failed (disk full?)");
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(temporary.c_str());
    throw InputError(requested, "", std::string("cannot be written: ") + std::strerror(error));
  }
}

void write_folder_atomically(const std::string& folder, const std::function<void(const std::string&)>& fill) {
  namespace fs = std::filesystem;
  if (folder.empty()) throw RequestError("output", "the path is empty");
  std::error_code error;
  if (fs::exists(folder, error) && !fs::is_directory(folder, error))
    throw InputError(folder, "", "exists and is not a folder");
  const fs::path target = fs::absolute(folder, error).lexically_normal();
  const fs::path base = target.has_filename() ? target : target.parent_path();
  fs::create_directories(base.parent_path(), error);
  if (error) throw InputError(folder, "", "cannot be created: " + error.message());
  const fs::path staging = base.string() + ".tmp." + std::to_string(::getpid());
  const fs::path previous = base.string() + ".old." + std::to_string(::getpid());
  fs::remove_all(staging, error);
  if (!fs::create_directory(staging, error)) throw InputError(folder, "", "cannot be created: " + error.message());
  try {
    fill(staging.string());
  } catch (...) {
    fs::remove_all(staging, error);
    throw;
  }
  const bool had_one = fs::exists(base, error);
  if (had_one) fs::rename(base, previous, error);
  if (!error) fs::rename(staging, base, error);
  if (error) {
    const std::string why = error.message();
    if (had_one && !fs::exists(base)) fs::rename(previous, base, error);  // put the old one back
    fs::remove_all(staging, error);
    throw InputError(folder, "", "cannot be written: " + why);
  }
  if (had_one) fs::remove_all(previous, error);
}

}  // namespace scalecast
