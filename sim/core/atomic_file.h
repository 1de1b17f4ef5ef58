// Writes outputs so that an interrupted run leaves no half-written file and never clobbers a
// good one: the content goes to a temporary file beside the target, then is renamed over it.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace scalecast {

// Throws InputError (source = path) when the folder cannot be written; no file is left behind.
void write_file_atomically(const std::string& path, const std::string& content);

// Streams into the temporary file through `write` (for outputs too large to build in memory).
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace scalecast
