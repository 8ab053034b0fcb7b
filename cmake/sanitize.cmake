# The hardening build (build/asan): the core and the GoogleTest suite under
# ASan+UBSan, and the libFuzzer targets of tests/fuzz. Included from the top
# CMakeLists.txt when POSENC_SANITIZE or POSENC_FUZZ is ON; clang only (libFuzzer
# and clang's UBSan runtime). Only the AVX2 variant of the kernels is built here:
# the scalar variant is covered by build/native.
#
# CTest tests registered here:
#   asan.gtest                 the whole GoogleTest binary once (one CTest test, so
#                              CTest counts stay comparable; gtest reports each failure)
#   fuzz.<target>              a bounded, deterministic libFuzzer run (-runs=POSENC_FUZZ_RUNS
#                              -seed=POSENC_FUZZ_SEED) from the committed corpus tests/fuzz/corpus/<target>,
#                              so the same commit always gets the same verdict (new inputs go to a
#                              temporary directory). Open-ended fuzzing is `npm run fuzz` (scripts/fuzz.sh).
#   fuzz.<target>.regressions  every input in tests/fuzz/regressions/<target> and the corpus, once
# Every tests/fuzz/fuzz_*.cpp is a target.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "POSENC_SANITIZE / POSENC_FUZZ need clang (configure with CXX=clang++-14); "
                      "got ${CMAKE_CXX_COMPILER_ID}")
endif()

set(POSENC_FUZZ_RUNS 20000 CACHE STRING "Executions of each fuzz.<target> CTest test (env POSENC_FUZZ_RUNS overrides)")
set(POSENC_FUZZ_SEED 1 CACHE STRING "libFuzzer -seed of each fuzz.<target> CTest test")

# -O1 keeps the sanitized suite fast enough; frame pointers give readable reports.
# Every UBSan finding is fatal (no recover), so a report fails the test that hit it.
set(POSENC_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined)
add_compile_options(-O1 -g -fno-omit-frame-pointer ${POSENC_SANITIZER_FLAGS})
add_link_options(${POSENC_SANITIZER_FLAGS})

posenc_core_library(posenc_core ON)
if(POSENC_FUZZ)
  # Coverage feedback for libFuzzer inside the core; the sanitizer runtime supplies
  # no-op callbacks when the test binary links without libFuzzer.
  target_compile_options(posenc_core PRIVATE -fsanitize=fuzzer-no-link)
endif()

enable_testing()
find_package(GTest REQUIRED)
file(GLOB POSENC_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/cpp/*.cpp)
add_executable(posenc_tests_asan ${POSENC_TEST_SOURCES})
target_link_libraries(posenc_tests_asan PRIVATE posenc_core GTest::gtest_main)
# Less the CheckerDetectsAWrongGradient cases (among the slowest under ASan, which multiplies their many forwards):
# they test the gradient checker itself, run in both native suites, and reach no code the ASan suite's own gradient
# checks do not.
add_test(NAME asan.gtest COMMAND posenc_tests_asan --gtest_brief=1 --gtest_filter=-*CheckerDetectsAWrongGradient*)
# Leaks fail the run too (LeakSanitizer is on by default with ASan on Linux).
set_tests_properties(asan.gtest PROPERTIES
  ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0;UBSAN_OPTIONS=print_stacktrace=1;POSENC_SOURCE_DIR=${CMAKE_SOURCE_DIR}"
  TIMEOUT 900)

if(POSENC_FUZZ)
  set(fuzz_dir ${CMAKE_SOURCE_DIR}/tests/fuzz)
  file(GLOB fuzz_sources CONFIGURE_DEPENDS ${fuzz_dir}/fuzz_*.cpp)
  foreach(source IN LISTS fuzz_sources)
    get_filename_component(target ${source} NAME_WE)
    add_executable(${target} ${source})
    target_link_libraries(${target} PRIVATE posenc_core)
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer)
    target_link_options(${target} PRIVATE -fsanitize=fuzzer)
    add_test(NAME fuzz.${target}
             COMMAND bash ${fuzz_dir}/run-fuzz.sh check $<TARGET_FILE:${target}> ${target}
                     ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR} ${POSENC_FUZZ_RUNS} ${POSENC_FUZZ_SEED})
    add_test(NAME fuzz.${target}.regressions
             COMMAND bash ${fuzz_dir}/run-fuzz.sh replay $<TARGET_FILE:${target}> ${target}
                     ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
    set_tests_properties(fuzz.${target} PROPERTIES TIMEOUT 600)
    set_tests_properties(fuzz.${target}.regressions PROPERTIES TIMEOUT 300)
  endforeach()
  # Writes the structured seed corpus (scripts/fuzz-seeds.sh); not part of `all`.
  add_executable(posenc_fuzz_seeds EXCLUDE_FROM_ALL ${fuzz_dir}/make_seeds.cpp)
  target_link_libraries(posenc_fuzz_seeds PRIVATE posenc_core)
endif()
