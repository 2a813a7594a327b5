# Finds Z3's C and C++ API (Debian's libz3-dev ships no CMake package file).
# Defines Z3_FOUND, Z3_VERSION and the imported target Z3::Z3.
find_path(Z3_INCLUDE_DIR NAMES z3++.h)
find_library(Z3_LIBRARY NAMES z3)
if(Z3_INCLUDE_DIR AND EXISTS "${Z3_INCLUDE_DIR}/z3_version.h")
  file(STRINGS "${Z3_INCLUDE_DIR}/z3_version.h" z3_version_lines REGEX "#define Z3_(MAJOR|MINOR|BUILD)_(VERSION|NUMBER) ")
  foreach(part MAJOR MINOR BUILD)
    string(REGEX REPLACE ".*#define Z3_${part}_(VERSION|NUMBER) +([0-9]+).*" "\\2" z3_${part} "${z3_version_lines}")
  endforeach()
  set(Z3_VERSION "${z3_MAJOR}.${z3_MINOR}.${z3_BUILD}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Z3 REQUIRED_VARS Z3_LIBRARY Z3_INCLUDE_DIR VERSION_VAR Z3_VERSION)
if(Z3_FOUND AND NOT TARGET Z3::Z3)
  add_library(Z3::Z3 UNKNOWN IMPORTED)
  set_target_properties(Z3::Z3 PROPERTIES IMPORTED_LOCATION "${Z3_LIBRARY}"
                                          INTERFACE_INCLUDE_DIRECTORIES "${Z3_INCLUDE_DIR}")
endif()
mark_as_advanced(Z3_INCLUDE_DIR Z3_LIBRARY)
