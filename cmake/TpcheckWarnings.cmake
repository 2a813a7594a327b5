# The project's warnings, one place for every target: -Wall -Wextra always;
# -Werror only when TPCHECK_WERROR is ON (CI turns it on, like LLVM's
# LLVM_ENABLE_WERROR), so that a user's newer or older compiler, or a fuzzing
# service's flags, cannot stop the build on a warning nobody here has seen.
option(TPCHECK_WERROR "Treat compiler warnings as errors (CI builds with it ON)" OFF)

set(TPCHECK_WARNING_FLAGS -Wall -Wextra)
if(TPCHECK_WERROR)
  list(APPEND TPCHECK_WARNING_FLAGS -Werror)
endif()
# GCC 12 reports -Wrestrict inside libstdc++'s own std::string code when it
# inlines deeply (Release's -O3): GCC bugs 105329 and 105651, fixed in GCC 13.
# Only that warning, only on GCC 12.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
   AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  list(APPEND TPCHECK_WARNING_FLAGS -Wno-restrict)
endif()
# GCC 12 at -O3 (Release) also reports -Wmaybe-uninitialized and
# -Warray-bounds inside Boost's cpp_int (its inline limb storage, seen through
# deep inlining: a copy of a cpp_int "out of the bounds" of the object that
# holds it, in lib/src/heads.cpp since cpp_int's floor_div divides once):
# false positives in a header we do not own. They stay warnings, shown, but do
# not stop a TPCHECK_WERROR build.
if(TPCHECK_WERROR AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  list(APPEND TPCHECK_WARNING_FLAGS -Wno-error=maybe-uninitialized -Wno-error=array-bounds)
endif()

# tpcheck_warnings(TARGET...): the project's warning flags on each target.
function(tpcheck_warnings)
  foreach(target ${ARGN})
    target_compile_options(${target} PRIVATE ${TPCHECK_WARNING_FLAGS})
  endforeach()
endfunction()
