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
    : path_(path), what_(what) {
  check_regular_input(path, what);
  std::error_code error;
  const std::uintmax_t file_bytes = std::filesystem::file_size(path, error);
  compressed_bytes_ = error ? 0 : file_bytes;
  file_ = gzopen(path.c_str(), "rb");
  if (!file_) throw InputError(path, "", "cannot open the file for reading");
  // zlib's buffers (in: the size given, out: twice that) and ours are sized to the file, up to
  // their caps: a small trace (a test's, a fuzzer's input) then allocates kilobytes, not the
  // 640 KiB that large ones need to stream fast (freed and re-mapped per file by a sanitizer's
  // allocator: a tenth of the fuzzer's time went to page faults).
  gzbuffer(file_, static_cast<unsigned>(std::clamp<std::uintmax_t>(file_bytes, 8 << 10, 1 << 17)));
  compressed_ = gzdirect(file_) == 0;  // reads the header: 0 when a gzip stream follows
  const std::uintmax_t expected_bytes = compressed_ ? 16 * file_bytes : file_bytes + 1;  // Kineto deflates 13-17x
  buffer_bytes_ = static_cast<size_t>(std::clamp<std::uintmax_t>(expected_bytes, std::min<size_t>(buffer_bytes, 16 << 10), buffer_bytes));
  buffer_ = std::make_unique_for_overwrite<char[]>(buffer_bytes_);
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
