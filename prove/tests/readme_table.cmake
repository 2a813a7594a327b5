# The README's table of what `tpcheck prove` proves is the one the proof
# table generates (`tpcheck prove --list`): checked, not kept by hand.
# Usage: cmake -DTPCHECK=<tpcheck> -DREADME=<README.md> -P readme_table.cmake
execute_process(COMMAND ${TPCHECK} prove --list OUTPUT_VARIABLE table RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "tpcheck prove --list exited ${status}")
endif()
file(READ ${README} readme)
string(FIND "${readme}" "${table}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md does not hold the table `tpcheck prove --list` prints; paste it in:\n${table}")
endif()
