# Install rules and the Debian package (CPack), included last by the top-level
# CMakeLists.txt.
#
#   cmake --install build --prefix P     P/bin/tpcheck, P/bin/tpcheck-pre-commit,
#                                        P/share/tpcheck/conform/, P/share/doc/tpcheck/ (and the manual)
#   cpack --config build/CPackConfig.cmake -B OUT     OUT/tpcheck_<version>-1_<arch>.deb
#
# The binary carries everything it runs: conform's Python child (with its
# stand-ins for vLLM's classes) and the regression list are embedded at build
# time, so the installed tpcheck works from any directory without looking for
# files. share/tpcheck/conform/ holds copies of both to read (what tpcheck will
# run in a CI job; `tpcheck conform --print-child` prints the embedded one).
include(GNUInstallDirs)

# What is installed is tpcheck and files: installing or packaging builds
# nothing else (by default cpack would first build every target, the tests,
# fuzzers and benchmarks included). Build tpcheck before (`cmake --build
# build --target tpcheck`, or everything).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)

install(TARGETS tpcheck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The pre-commit hook's entry (.pre-commit-hooks.yaml): it runs the tpcheck
# installed beside it.
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/tpcheck-pre-commit DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_BINARY_DIR}/conform/tpcheck_conform_child.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/tpcheck/conform RENAME child.py)
install(FILES ${PROJECT_SOURCE_DIR}/conform/regression_calls.txt DESTINATION ${CMAKE_INSTALL_DATADIR}/tpcheck/conform)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/CHANGELOG.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The manual (docs/**/*.md), where the README's links find it.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md")

set(TPCHECK_PACKAGE_CONTACT "tpcheck maintainers <maintainers@users.noreply.a-seed-22e00251.example>"
    CACHE STRING "The Maintainer field of the Debian package")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tpcheck)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${TPCHECK_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "checks the tensor-parallel rank mapping of KV-cache connectors (prefill/decode disaggregation)")
set(CPACK_PACKAGE_DESCRIPTION
    "tpcheck holds a reference model of the rank mapping that KV-cache connectors use between prefill and decode
engines of different tensor-parallel sizes, checks its invariants exhaustively and with Z3, sizes deployments
(tpcheck check, plan, matrix), and runs a connector's own functions against the model (tpcheck conform:
vLLM's MoRIIO, NIXL and Mooncake connectors in Python; TensorRT-LLM's C++ transceiver, compiled and run), with
SARIF and Markdown reports for CI.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # tpcheck_<version>-<release>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# The shared libraries the binary links (libc, libstdc++, libgcc, libz3 when
# built with the prover), as dpkg-shlibdeps finds them; conform runs Python 3.9
# or later, and NIXL's tp_mapping.py needs numpy (conform skips what needs it
# without). Profile trtllm cuts C++ functions out with libclang (loaded at run
# time, not linked) and compiles them with a C++ compiler; its --fuzz needs
# clang with libFuzzer. Without them that profile says what is missing.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3 (>= 3.9)")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-numpy, libclang1-14, g++ | c++-compiler")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "clang-14, libclang-rt-14-dev")
include(CPack)
