# One golden picture: runs `tpcheck ARGS --svg OUT` from the repository root
# and compares OUT byte for byte with the committed golden file.
#   cmake -DTPCHECK=<binary> -DSOURCE_DIR=<root> -DNAME=<name> -DARGS="<args>" -DOUT_DIR=<dir> -P this
# After a deliberate change to the pictures: scripts/update-svg-goldens [BUILD_DIR].
cmake_minimum_required(VERSION 3.22)
foreach(required TPCHECK SOURCE_DIR NAME ARGS OUT_DIR)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "golden_test.cmake: -D${required}=... is required")
  endif()
endforeach()
file(MAKE_DIRECTORY "${OUT_DIR}")
set(out "${OUT_DIR}/${NAME}.svg")
set(golden "${SOURCE_DIR}/tests/svg/golden/${NAME}.svg")
file(REMOVE "${out}")
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${TPCHECK} ${args} --svg ${out} WORKING_DIRECTORY ${SOURCE_DIR}
                RESULT_VARIABLE status OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT status STREQUAL "0" OR NOT EXISTS "${out}")
  message(FATAL_ERROR "tpcheck ${ARGS} --svg: status ${status}, stderr '${err}', no picture")
endif()
if(NOT EXISTS "${golden}")
  message(FATAL_ERROR "no golden file ${golden}: run scripts/update-svg-goldens")
endif()
file(READ "${out}" drawn)
file(READ "${golden}" expected)
if(NOT drawn STREQUAL expected)
  message(FATAL_ERROR "tpcheck ${ARGS} drew ${out}, which differs from ${golden}. "
                      "If the change is meant, look at both, then run scripts/update-svg-goldens and commit the result.")
endif()
# The same input draws the same bytes a second time.
execute_process(COMMAND ${TPCHECK} ${args} --svg ${out}.again WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_QUIET ERROR_QUIET)
file(READ "${out}.again" again)
if(NOT again STREQUAL drawn)
  message(FATAL_ERROR "tpcheck ${ARGS} drew different bytes on a second run")
endif()
message(STATUS "${NAME}: identical to its golden file")
