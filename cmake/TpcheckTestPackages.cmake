# Tests, properties and benchmarks are options, and their packages are
# looked for, never REQUIRED: tpcheck and the fuzz targets build without
# GoogleTest, RapidCheck and Google Benchmark (a ClusterFuzzLite image has
# none of them; -DCMAKE_DISABLE_FIND_PACKAGE_<Pkg>=ON configures as if
# missing). What is left out is said once, at the end of the configure
# (tpcheck_report_skipped).
option(TPCHECK_BUILD_TESTS "Build the tests and the RapidCheck properties (GoogleTest, RapidCheck)" ON)
option(TPCHECK_BUILD_BENCH "Build the benchmarks (Google Benchmark)" ON)

set(TPCHECK_SKIPPED "")
set(TPCHECK_HAVE_GTEST OFF)
set(TPCHECK_HAVE_RAPIDCHECK OFF)
set(TPCHECK_HAVE_BENCHMARK OFF)

if(TPCHECK_BUILD_TESTS)
  find_package(GTest)
  find_package(rapidcheck)
  if(GTest_FOUND)
    set(TPCHECK_HAVE_GTEST ON)
    include(GoogleTest)
  else()
    list(APPEND TPCHECK_SKIPPED "the GoogleTest binaries (labels unit, prove's differential): GoogleTest not found (libgtest-dev)")
  endif()
  # The properties are GoogleTest tests too.
  if(rapidcheck_FOUND AND GTest_FOUND)
    set(TPCHECK_HAVE_RAPIDCHECK ON)
  else()
    list(APPEND TPCHECK_SKIPPED "the RapidCheck properties (label property), the shrink and registry tests: RapidCheck or GoogleTest not found (librapidcheck-dev, libgtest-dev)")
  endif()
else()
  list(APPEND TPCHECK_SKIPPED "every test and the RapidCheck properties: TPCHECK_BUILD_TESTS is OFF")
endif()

if(TPCHECK_BUILD_BENCH)
  find_package(benchmark)
  if(benchmark_FOUND)
    set(TPCHECK_HAVE_BENCHMARK ON)
  else()
    list(APPEND TPCHECK_SKIPPED "the benchmarks (bench/) and the registry test: Google Benchmark not found (libbenchmark-dev)")
  endif()
else()
  list(APPEND TPCHECK_SKIPPED "the benchmarks (bench/) and the registry test: TPCHECK_BUILD_BENCH is OFF")
endif()

# One line per part left out, so a build without them is never a surprise.
function(tpcheck_report_skipped)
  foreach(skipped IN LISTS TPCHECK_SKIPPED)
    message(STATUS "tpcheck: not built: ${skipped}")
  endforeach()
endfunction()
