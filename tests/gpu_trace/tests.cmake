# Extra build rules for tests/gpu_trace/ (included by tests/CMakeLists.txt after it made
# gpu_trace_tests and gpu_trace_cli_tests): the capture's own libraries, the fake NCCL and the
# job that uses it, the NCCL interposer's test executable, and the tests that need a GPU (label
# `gpu`).
set(gpu_trace_test_targets gpu_trace_tests gpu_trace_cli_tests)
add_library(fake_nccl SHARED ${CMAKE_CURRENT_LIST_DIR}/fake_nccl/fake_nccl.cpp)
target_include_directories(fake_nccl PRIVATE ${PROJECT_SOURCE_DIR})
add_executable(fake_nccl_job ${CMAKE_CURRENT_LIST_DIR}/fake_nccl/fake_nccl_job.cpp)
target_include_directories(fake_nccl_job PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(fake_nccl_job PRIVATE fake_nccl)
add_library(fake_nccl_plugin SHARED ${CMAKE_CURRENT_LIST_DIR}/fake_nccl/fake_plugin.cpp)
target_include_directories(fake_nccl_plugin PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(fake_nccl_plugin PRIVATE fake_nccl)
add_executable(fake_nccl_plugin_job ${CMAKE_CURRENT_LIST_DIR}/fake_nccl/fake_nccl_plugin_job.cpp)
target_link_libraries(fake_nccl_plugin_job PRIVATE ${CMAKE_DL_LIBS})
foreach(target ${gpu_trace_test_targets})
  if(TARGET ${target})
    target_link_libraries(${target} PRIVATE scalecast_capture_launcher)
    target_compile_definitions(${target} PRIVATE
      FAKE_NCCL_JOB="$<TARGET_FILE:fake_nccl_job>"
      FAKE_NCCL_PLUGIN_JOB="$<TARGET_FILE:fake_nccl_plugin_job>"
      FAKE_NCCL_PLUGIN="$<TARGET_FILE:fake_nccl_plugin>"
      FAKE_NCCL_LIBRARY="$<TARGET_FILE:fake_nccl>")
    add_dependencies(${target} fake_nccl_job fake_nccl_plugin_job fake_nccl_plugin scalecast_gpu_trace)
  endif()
endforeach()

# The capture library must come before the fake NCCL in the executable's load order (its NCCL
# functions are found first; the fake is "next"): keep both as linked, in this order.
add_executable(gpu_trace_nccl_tests ${CMAKE_CURRENT_LIST_DIR}/nccl/nccl_interpose_test.cpp)
target_link_libraries(gpu_trace_nccl_tests PRIVATE scalecast_gpu_trace_core GTest::gtest GTest::gtest_main
                      -Wl,--no-as-needed scalecast_gpu_trace fake_nccl -Wl,--as-needed)
scalecast_discover(gpu_trace_nccl_tests "gpu_trace;unit")

if(SCALECAST_HAVE_CUPTI)
  find_package(CUDAToolkit QUIET)  # its targets and variables are per directory
  # The CUPTI side on CPU: the capture library built from the same sources against a fake libcupti
  # (fake_cupti/) and a job that drives it (cupti_glue_test.cpp); under AddressSanitizer where
  # the compiler has it, so that reading freed memory in the flush at exit fails the test.
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -fsanitize=address)
  set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=address)
  check_cxx_source_compiles("int main() { return 0; }" SCALECAST_HAVE_ASAN)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  get_target_property(cupti_includes CUDA::cupti INTERFACE_INCLUDE_DIRECTORIES)
  add_library(fake_cupti SHARED ${CMAKE_CURRENT_LIST_DIR}/fake_cupti/fake_cupti.cpp)
  add_library(gpu_trace_fake_cupti SHARED ${PROJECT_SOURCE_DIR}/gpu_trace/nccl_interpose.cpp
                                          ${PROJECT_SOURCE_DIR}/gpu_trace/cupti_glue.cpp)
  target_link_libraries(gpu_trace_fake_cupti PRIVATE scalecast_gpu_trace_core fake_cupti ${CMAKE_DL_LIBS})
  add_executable(fake_cupti_job ${CMAKE_CURRENT_LIST_DIR}/fake_cupti/fake_cupti_job.cpp)
  # The capture library first: its NCCL functions come before the fake NCCL's.
  target_link_libraries(fake_cupti_job PRIVATE -Wl,--no-as-needed gpu_trace_fake_cupti fake_nccl fake_cupti -Wl,--as-needed)
  foreach(target fake_cupti gpu_trace_fake_cupti fake_cupti_job)
    target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR} ${cupti_includes})
    if(SCALECAST_HAVE_ASAN)
      target_compile_options(${target} PRIVATE -fsanitize=address -fno-omit-frame-pointer)
      target_link_options(${target} PRIVATE -fsanitize=address)
    endif()
  endforeach()
  foreach(target ${gpu_trace_test_targets})
    if(TARGET ${target})
      target_include_directories(${target} PRIVATE ${cupti_includes})
      target_compile_definitions(${target} PRIVATE FAKE_CUPTI_JOB="$<TARGET_FILE:fake_cupti_job>")
      add_dependencies(${target} fake_cupti_job)
    endif()
  endforeach()

  find_library(SCALECAST_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/lib)
  find_path(SCALECAST_NVTX3_INCLUDE nvtx3/nvToolsExt.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  if(SCALECAST_NCCL_LIBRARY AND SCALECAST_NVTX3_INCLUDE AND TARGET CUDA::cublas)
    add_executable(cuda_capture_job ${CMAKE_CURRENT_LIST_DIR}/gpu/cuda_capture_job.cpp)
    target_include_directories(cuda_capture_job PRIVATE ${PROJECT_SOURCE_DIR} ${SCALECAST_NVTX3_INCLUDE})
    target_link_libraries(cuda_capture_job PRIVATE CUDA::cudart CUDA::cublas ${SCALECAST_NCCL_LIBRARY} ${CMAKE_DL_LIBS})
    add_executable(gpu_trace_gpu_tests ${CMAKE_CURRENT_LIST_DIR}/gpu/capture_gpu_test.cpp)
    target_link_libraries(gpu_trace_gpu_tests PRIVATE scalecast_sim GTest::gtest GTest::gtest_main ${CMAKE_DL_LIBS})
    target_compile_definitions(gpu_trace_gpu_tests PRIVATE
      SCALECAST_BINARY="$<TARGET_FILE:scalecast>" CUDA_CAPTURE_JOB="$<TARGET_FILE:cuda_capture_job>")
    add_dependencies(gpu_trace_gpu_tests scalecast cuda_capture_job)
    scalecast_discover(gpu_trace_gpu_tests "gpu_trace;gpu;cli")
  else()
    message(STATUS "gpu_trace: no NCCL library, NVTX headers or cuBLAS: the GPU capture test is not built")
  endif()
endif()
