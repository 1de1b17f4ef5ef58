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

# COIN-OR CBC (with CLP as its LP solver): the placement integer program (sim/strategy/ilp_placement.cpp).
pkg_check_modules(CBC QUIET IMPORTED_TARGET cbc osi-clp)
scalecast_require(CBC_FOUND "COIN-OR CBC and CLP" "coinor-libcbc-dev")
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

# Open MPI is optional: with it, `mpirun -np K scalecast sweep` spreads a sweep's points over
# K ranks; without it the sweep runs its points in local processes only.
find_package(MPI QUIET COMPONENTS CXX)
if(MPI_CXX_FOUND)
  message(STATUS "MPI found: sweep can be spread with mpirun")
else()
  message(STATUS "MPI not found (apt install libopenmpi-dev openmpi-bin): sweep runs on this machine only")
endif()
