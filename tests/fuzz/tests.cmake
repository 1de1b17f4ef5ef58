# tests/fuzz/: the fuzz targets' code is part of the ordinary test executable (fuzz_targets.cpp
# beside the regression test); the libFuzzer executables are built only with
# -DSCALECAST_FUZZ=ON under clang (tools/fuzz.sh).
target_sources(fuzz_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/fuzz_targets.cpp)
if(SCALECAST_FUZZ)
  file(GLOB fuzz_sources ${CMAKE_CURRENT_LIST_DIR}/*_fuzz.cpp)
  foreach(source ${fuzz_sources})
    get_filename_component(name ${source} NAME_WE)
    add_executable(${name} ${source} ${CMAKE_CURRENT_LIST_DIR}/fuzz_targets.cpp)
    target_link_libraries(${name} PRIVATE scalecast_sim)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer)
    set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz)
  endforeach()
endif()
