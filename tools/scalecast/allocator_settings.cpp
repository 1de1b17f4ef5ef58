#include "tools/scalecast/allocator_settings.h"

#include <dlfcn.h>
#include <sys/types.h>

#include <cstddef>
#include <initializer_list>
#include <string>

// jemalloc reads this at start-up; other allocators ignore it.
extern "C" {
const char* malloc_conf = "dirty_decay_ms:-1,muzzy_decay_ms:-1";
}

namespace scalecast::cli {

void return_freed_memory_promptly() {
  // Looked up rather than linked: the binary builds and runs without jemalloc.
  using Mallctl = int (*)(const char*, void*, size_t*, void*, size_t);
  auto mallctl = reinterpret_cast<Mallctl>(dlsym(RTLD_DEFAULT, "mallctl"));
  if (!mallctl) return;
  ssize_t decay_ms = 0;
  mallctl("arenas.dirty_decay_ms", nullptr, nullptr, &decay_ms, sizeof decay_ms);  // arenas made later
  mallctl("arenas.muzzy_decay_ms", nullptr, nullptr, &decay_ms, sizeof decay_ms);
  unsigned arenas = 0;
  size_t size = sizeof arenas;
  if (mallctl("arenas.narenas", &arenas, &size, nullptr, 0) != 0) return;
  for (unsigned i = 0; i < arenas; ++i)
    for (const char* setting : {".dirty_decay_ms", ".muzzy_decay_ms"}) {
      const std::string name = "arena." + std::to_string(i) + setting;
      mallctl(name.c_str(), nullptr, nullptr, &decay_ms, sizeof decay_ms);  // fails for arenas never used
    }
}

}  // namespace scalecast::cli
