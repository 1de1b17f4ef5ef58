// Reads a file that may be gzip-compressed, as a stream, without holding it in memory: zlib's
// gzread decompresses (or passes a plain file through) into a small buffer that a JSON parser
// pulls from. Kineto traces are often hundreds of MB once decompressed.
#pragma once

#include <zlib.h>

#include <streambuf>
#include <string>
#include <vector>

namespace scalecast {

class GzipInputBuffer : public std::streambuf {
 public:
  // Throws InputError when the file cannot be opened.
  explicit GzipInputBuffer(const std::string& path, size_t buffer_bytes = 1 << 18);
  ~GzipInputBuffer() override;
  GzipInputBuffer(const GzipInputBuffer&) = delete;
  GzipInputBuffer& operator=(const GzipInputBuffer&) = delete;

  // Bytes handed out so far (decompressed), for error messages.
  size_t offset() const { return consumed_ + static_cast<size_t>(gptr() - eback()); }

 protected:
  // Refills the buffer; throws InputError on a corrupt or truncated gzip stream (zlib reports
  // "unexpected end of file"), so a cut-off download never parses as a shorter trace.
  int_type underflow() override;

 private:
  std::string path_;
  gzFile file_ = nullptr;
  std::vector<char> buffer_;
  size_t consumed_ = 0;
};

}  // namespace scalecast
