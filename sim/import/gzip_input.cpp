#include "sim/import/gzip_input.h"

#include "sim/core/input_error.h"

namespace scalecast {

GzipInputBuffer::GzipInputBuffer(const std::string& path, size_t buffer_bytes) : path_(path), buffer_(buffer_bytes) {
  file_ = gzopen(path.c_str(), "rb");
  if (!file_) throw InputError(path, "", "cannot open the file for reading");
  gzbuffer(file_, 1 << 17);
  setg(buffer_.data(), buffer_.data(), buffer_.data());
}

GzipInputBuffer::~GzipInputBuffer() {
  if (file_) gzclose(file_);
}

GzipInputBuffer::int_type GzipInputBuffer::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  consumed_ += static_cast<size_t>(egptr() - eback());
  const int got = gzread(file_, buffer_.data(), static_cast<unsigned>(buffer_.size()));
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
    setg(buffer_.data(), buffer_.data(), buffer_.data());
    return traits_type::eof();
  }
  setg(buffer_.data(), buffer_.data(), buffer_.data() + got);
  return traits_type::to_int_type(*gptr());
}

}  // namespace scalecast
