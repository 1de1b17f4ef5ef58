// Writes outputs so that an interrupted run leaves no half-written file and never clobbers a
// good one: the content goes to a temporary file beside the target, then is renamed over it.
//
// What an output path may be (checked before anything is written; InputError otherwise):
//  - a new file, or an existing regular file, which is replaced;
//  - a symlink: written through, i.e. its target is replaced and the link stays;
//  - never a folder, a pipe, socket or device, and never one of the command's inputs
//    (input_file.h remembers them): `--output` naming the input trace would destroy it.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace scalecast {

// Throws InputError (source = path) when the folder cannot be written; no file is left behind.
void write_file_atomically(const std::string& path, const std::string& content);

// The checks above without writing (commands call it before they start working, so that a bad
// output path fails at once), the folder's accepting new files included. Returns the file that
// will be replaced: the path, or a symlink's target.
std::string checked_output_path(const std::string& path);

// Throws InputError (source = path) unless a file can be made in `folder` ("" is the working
// folder): it makes and removes a probe there, since permission bits do not tell (root may
// "write" to /proc or a read-only mount).
void check_folder_accepts_files(const std::string& folder, const std::string& path);

// A folder of outputs written whole or not at all: `fill` writes into a fresh temporary folder
// beside `folder`, which then replaces `folder` (an existing one is removed only once the new
// one is complete). Throws InputError when `folder` exists and is not a folder.
void write_folder_atomically(const std::string& folder, const std::function<void(const std::string&)>& fill);

// Streams into the temporary file through `write` (for outputs too large to build in memory).
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace scalecast
