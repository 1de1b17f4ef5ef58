#include "sim/import/gzip_input.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "sim/core/input_error.h"
#include "sim/core/input_file.h"

namespace scalecast {

namespace {

double inflate_ratio() {
  const char* text = std::getenv("SCALECAST_MAX_INFLATE_RATIO");
  if (!text || !*text) return kMaxInflateRatio;
  char* end = nullptr;
  const double ratio = std::strtod(text, &end);
  return end == text || *end || !(ratio >= 1) || ratio > 1e6 ? kMaxInflateRatio : ratio;
}

}  // namespace

std::uint64_t inflate_cap_bytes(std::uint64_t compressed_bytes) {
  return std::max(kInflateFloorBytes, static_cast<std::uint64_t>(inflate_ratio() * static_cast<double>(compressed_bytes)));
}

GzipInputBuffer::GzipInputBuffer(const std::string& path, const std::string& what, size_t buffer_bytes)
    : path_(path), what_(what), buffer_(std::make_unique_for_overwrite<char[]>(buffer_bytes)), buffer_bytes_(buffer_bytes) {
  check_regular_input(path, what);
  file_ = gzopen(path.c_str(), "rb");
  if (!file_) throw InputError(path, "", "cannot open the file for reading");
  gzbuffer(file_, 1 << 17);
  compressed_ = gzdirect(file_) == 0;  // reads the header: 0 when a gzip stream follows
  std::error_code error;
  const std::uintmax_t file_bytes = std::filesystem::file_size(path, error);
  compressed_bytes_ = error ? 0 : file_bytes;
  cap_bytes_ = input_cap_bytes(kMaxStreamedBytes);
  if (compressed_) cap_bytes_ = std::min(cap_bytes_, inflate_cap_bytes(compressed_bytes_));
  remember_input(path);
  setg(buffer_.get(), buffer_.get(), buffer_.get());
}

GzipInputBuffer::~GzipInputBuffer() {
  if (file_) gzclose(file_);
}

GzipInputBuffer::int_type GzipInputBuffer::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  consumed_ += static_cast<size_t>(egptr() - eback());
  const int got = gzread(file_, buffer_.get(), static_cast<unsigned>(buffer_bytes_));
  if (got < 0) {
    int code = 0;
    const char* message = gzerror(file_, &code);
    throw InputError(path_, "", std::string("corrupt or truncated gzip data after ") + std::to_string(consumed_) +
                                    " decompressed bytes (" + (message ? message : "zlib error") + ")");
  }
  if (got == 0) {
    // gzread returns 0 both at a clean end and when the compressed stream stops mid-member.
    int code = 0;
    const char* message = gzerror(file_, &code);
    if (code != Z_OK && code != Z_STREAM_END)
      throw InputError(path_, "", std::string("corrupt or truncated gzip data (") + (message ? message : "zlib error") + ")");
    setg(buffer_.get(), buffer_.get(), buffer_.get());
    return traits_type::eof();
  }
  check_cap(static_cast<size_t>(got));
  setg(buffer_.get(), buffer_.get(), buffer_.get() + got);
  return traits_type::to_int_type(*gptr());
}

void GzipInputBuffer::check_cap(size_t got) const {
  if (consumed_ + got <= cap_bytes_) return;
  const std::uint64_t absolute = input_cap_bytes(kMaxStreamedBytes);
  if (compressed_ && cap_bytes_ < absolute)
    throw InputError(path_, "", "decompresses to more than " + format_cap(cap_bytes_) + " (" + format_cap(compressed_bytes_) +
                                    " compressed; scalecast inflates at most " + std::to_string(static_cast<long long>(inflate_ratio())) +
                                    " times that, real traces 13-17 times: a decompression bomb?); set "
                                    "SCALECAST_MAX_INFLATE_RATIO to raise the ratio");
  throw InputError(path_, "", std::string(compressed_ ? "decompresses to" : "is") + " more than the " + format_cap(absolute) +
                                  " scalecast reads for " + what_ + " (set SCALECAST_MAX_INPUT_MB to raise the cap)");
}

}  // namespace scalecast
