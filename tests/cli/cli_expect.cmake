# What the command-line test scripts share (included by them, run with
# cmake -P): the failure list, a check counter and expect_usage_error.
set(failures "")
set(checks 0)

# Called at the end of each check function (a macro, so it runs in the
# function's scope): counts the check and, when FAILURE is set, records it in
# the script's scope.
macro(finish_check failure)
  math(EXPR checks "${checks} + 1")
  set(checks "${checks}" PARENT_SCOPE)
  if(NOT "${failure}" STREQUAL "")
    set(failures "${failures}\n  ${failure}" PARENT_SCOPE)
  endif()
endmacro()

# expect_usage_error(REGEX ARGS...): `tpcheck ARGS...` exits 2 with exactly
# one line on stderr matching REGEX and nothing on stdout.
function(expect_usage_error regex)
  execute_process(COMMAND ${TPCHECK} ${ARGN}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  list(JOIN ARGN " " shown)
  string(REGEX MATCHALL "\n" newlines "${err}")
  list(LENGTH newlines lines)
  set(failure "")
  if(NOT status STREQUAL "2" OR NOT out STREQUAL "" OR NOT lines EQUAL 1 OR NOT err MATCHES "^${regex}\n$")
    set(failure "${shown}: status ${status}, stdout '${out}', stderr '${err}'; expected status 2 and one stderr line matching '${regex}'")
  endif()
  finish_check("${failure}")
endfunction()

