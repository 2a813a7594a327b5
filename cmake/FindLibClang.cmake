# Finds libclang's C API headers (Debian's libclang-14-dev). tpcheck loads the
# library itself at run time (dlopen), so only the headers are needed to
# build. Defines LibClang_FOUND and the imported target LibClang::Headers.
find_path(LibClang_INCLUDE_DIR NAMES clang-c/Index.h
          PATHS /usr/lib/llvm-14/include /usr/lib/llvm-15/include /usr/lib/llvm-16/include)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(LibClang REQUIRED_VARS LibClang_INCLUDE_DIR)
if(LibClang_FOUND AND NOT TARGET LibClang::Headers)
  add_library(LibClang::Headers INTERFACE IMPORTED)
  set_target_properties(LibClang::Headers PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${LibClang_INCLUDE_DIR}")
endif()
mark_as_advanced(LibClang_INCLUDE_DIR)
