# Finds every library scalecast links against. A missing one is a configure error that names
# the Debian package to install (tools/install-deps.sh installs them all).

function(scalecast_require found what package)
  if(NOT ${found})
    message(FATAL_ERROR "scalecast needs ${what}: install the Debian package '${package}' "
                        "(or run tools/install-deps.sh)")
  endif()
endfunction()

find_package(PkgConfig QUIET)
scalecast_require(PKG_CONFIG_FOUND "pkg-config" "pkg-config")

pkg_check_modules(SIMGRID QUIET IMPORTED_TARGET simgrid>=3.32)
scalecast_require(SIMGRID_FOUND "SimGrid >= 3.32" "libsimgrid-dev")

find_package(yaml-cpp QUIET)
scalecast_require(yaml-cpp_FOUND "yaml-cpp" "libyaml-cpp-dev")

find_package(Boost 1.74 QUIET COMPONENTS program_options)
scalecast_require(Boost_FOUND "Boost.Program_options" "libboost-program-options-dev")

find_package(nlohmann_json 3.10 QUIET)
scalecast_require(nlohmann_json_FOUND "nlohmann-json" "nlohmann-json3-dev")

find_package(ZLIB QUIET)
scalecast_require(ZLIB_FOUND "zlib" "zlib1g-dev")

find_package(Threads REQUIRED)

if(SCALECAST_BUILD_TESTS)
  find_package(GTest QUIET)
  scalecast_require(GTest_FOUND "GoogleTest" "libgtest-dev")
endif()

if(SCALECAST_BUILD_BENCHMARKS)
  find_package(benchmark QUIET)
  scalecast_require(benchmark_FOUND "Google Benchmark" "libbenchmark-dev")
endif()
