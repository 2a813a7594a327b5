# Runs the real `tpcheck eval` binary and compares its output and exit status
# exactly: cmake -DTPCHECK=<binary> -DGROUP=<group> -DWORK_DIR=<dir> -P this.
#
# Groups: known_values, modelled_errors, usage_errors, batch. Every mismatch
# is collected and reported together, so one run shows all of them. Expected
# texts are the SPEC's, written out literally.
cmake_minimum_required(VERSION 3.22)

foreach(required TPCHECK GROUP WORK_DIR)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "eval_cli_test.cmake: -D${required}=... is required")
  endif()
endforeach()

include(${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)

# expect_outcome(EXPECTED ARGS...): `tpcheck eval ARGS...` prints EXPECTED and
# one newline on stdout, nothing on stderr, and exits 0 (a value and a modelled
# error are both outcomes).
function(expect_outcome expected)
  execute_process(COMMAND ${TPCHECK} eval ${ARGN}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  list(JOIN ARGN " " shown)
  set(failure "")
  if(NOT status STREQUAL "0" OR NOT out STREQUAL "${expected}\n" OR NOT err STREQUAL "")
    set(failure "eval ${shown}: status ${status}, stdout '${out}', stderr '${err}'; expected status 0, stdout '${expected}'")
  endif()
  finish_check("${failure}")
endfunction()

# expect_batch(NAME STATUS INPUT EXPECTED): `tpcheck eval --batch` on INPUT
# prints exactly EXPECTED and exits STATUS.
function(expect_batch name expected_status input expected)
  set(input_file "${WORK_DIR}/eval_batch_${name}.txt")
  file(WRITE "${input_file}" "${input}")
  execute_process(COMMAND ${TPCHECK} eval --batch INPUT_FILE "${input_file}"
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(failure "")
  if(NOT status STREQUAL "${expected_status}" OR NOT out STREQUAL "${expected}")
    set(failure "batch ${name}: status ${status}, stdout:\n${out}\nstderr: '${err}'\nexpected status ${expected_status}, stdout:\n${expected}")
  endif()
  finish_check("${failure}")
endfunction()

file(MAKE_DIRECTORY "${WORK_DIR}")

if(GROUP STREQUAL "known_values")
  # §1
  foreach(r 0 1 2 3)
    expect_outcome("${r}" remote_rank ${r} 4 4)
  endforeach()
  set(row 0 0 1 1 2 2 3 3)
  foreach(r RANGE 7)
    list(GET row ${r} mapped)
    expect_outcome("${mapped}" remote_rank ${r} 8 4)
  endforeach()
  set(row 0 2 4 6)
  foreach(r RANGE 3)
    list(GET row ${r} mapped)
    expect_outcome("${mapped}" remote_rank ${r} 4 8)
  endforeach()
  # §2
  expect_outcome("3" general_rank 2 4 6)
  expect_outcome("2" general_rank 5 8 4)
  # §3
  expect_outcome("2" tp_ratio 8 4)
  expect_outcome("-2" tp_ratio 4 8)
  expect_outcome("[0, 1]" window 0 2 4)
  expect_outcome("[1]" window 3 4 2)
  expect_outcome("[0, 1]" window 0 1 2)
  expect_outcome("[1]" window 2 4 2)
  # §4
  expect_outcome("(2, 4)" heads 1 4 8)
  expect_outcome("(2, 3)" heads 5 8 4)
  # §5
  expect_outcome("None" kv_heads_guard 4 4 8 0)
  expect_outcome("None" kv_heads_guard 8 4 4 0)
  expect_outcome("None" kv_heads_guard 4 8 4 0)
  expect_outcome("None" kv_heads_guard 2 4 4 1)
  expect_outcome("None" kv_heads_guard 0 0 5 0)
  expect_outcome("None" kv_heads_guard_strict 4 8 4 0)
  # §6: H=2, P=4, D=2: d0 reads p0, d1 reads p2; P=4, D=6, H=12: two sources for d1.
  expect_outcome("[(0, 0, 1)]" plan 0 4 2 2 0)
  expect_outcome("[(2, 1, 2)]" plan 1 4 2 2 0)
  expect_outcome("[(0, 2, 3), (1, 3, 4)]" plan 1 4 6 12 0)
  expect_outcome("[(3, 0, 1)]" plan 5 4 6 0 1)
  # §7
  expect_outcome("0" readers 3 4 2 2 0)
  expect_outcome("2" readers 0 4 6 2 0)
  expect_outcome("2" single_readers 1 4 8)
  expect_outcome("1" single_readers 0 8 4)
  expect_outcome("0" single_readers 3 4 2)
  # §8
  expect_outcome("7" port_offset 0 7 16)
  expect_outcome("16" port_offset 1 0 16)
  expect_outcome("53" port_offset 3 5 16)
  expect_outcome("1" host_index 5 8 2)
  # int64 extremes and beyond
  expect_outcome("9223372036854775805" general_rank 9223372036854775806 9223372036854775807 9223372036854775806)
  expect_outcome("85070591730234615856620279821087277055" port_offset 9223372036854775807 9223372036854775806 9223372036854775807)
  expect_outcome("-9223372036854775808" tp_ratio 1 9223372036854775808)
  expect_outcome("36893488147419103230" remote_rank 18446744073709551615 18446744073709551616 36893488147419103232)
  expect_outcome("340282366920938463463374607431768211457" port_offset 18446744073709551616 1 18446744073709551616)
  expect_outcome("2" remote_rank +5 008 04)

  # §15.4: stage splits and attention DP from eval's options, anywhere among the arguments.
  expect_outcome("(1, 2)" prefill_stages 2 --prefill-pp-layers 16,16 --decode-pp-layers 8,8,8,8)
  expect_outcome("(0, 2)" --prefill-pp-layers 2,1 --decode-pp-layers 1,2 decode_stages 0)
  expect_outcome("[(3, 6, 8, 16, 24)]" stage_plan 2 3 0 2 4 8 0 --prefill-pp-layers 16,16 --decode-pp-layers 8,8,8,8)
  expect_outcome("[(0, 0, 1, 1, 2), (1, 1, 2, 1, 2), (4, 0, 1, 2, 3), (5, 1, 2, 2, 3)]"
    stage_plan 1 0 0 4 2 4 0 --prefill-pp-layers 2,1 --decode-pp-layers 1,2)
  expect_outcome("[2, 3, 6, 7]" stage_window 0 1 0 4 2 --prefill-pp-layers 1,1)
  expect_outcome("[(2, 4), (6, 8)]" stage_window_spans 0 1 0 4 2 --prefill-pp-layers 1,1)
  expect_outcome("[10, 11, 14, 15]" stage_served 1 1 0 2 4 --prefill-pp-layers 16,16 --decode-pp-layers 8,8,8,8)
  expect_outcome("[3, 7]" stage_window 0 1 3 4 2 --prefill-adp --prefill-pp-layers 1,1)
  expect_outcome("(2, 1)" duplicate_head_factors 8 2 4 0)
  expect_outcome("(1, 1)" duplicate_head_factors 8 2 4 0 --prefill-adp)
  expect_outcome("False" whole_block_copy_allowed 1 4 2 0)
  expect_outcome("True" whole_block_copy_allowed 4 8 2 0)
  expect_outcome("None" trtllm_accepts 6 3 8 0 --prefill-adp --decode-adp)
  expect_outcome("None" trtllm-v2_accepts 6 4 2 0)
  expect_outcome("(4, 5)" sglang_target_ranks 4 4 6)
  # Without options each side is one stage of one layer: the plan of §6 on layer 0.
  expect_outcome("[(0, 2, 3, 0, 1), (1, 3, 4, 0, 1)]" stage_plan 0 1 0 4 6 12 0)
  expect_outcome("[9223372036854775806, 18446744073709551613]"
    stage_window 0 9223372036854775806 0 9223372036854775807 9223372036854775807 --prefill-pp-layers 1,1 --decode-pp-layers 2)

elseif(GROUP STREQUAL "modelled_errors")
  expect_outcome("ValueError: local tp_size 6 must be a multiple of remote tp_size 4 for heterogeneous-TP P/D" remote_rank 0 6 4)
  expect_outcome("ValueError: remote tp_size 6 must be a multiple of local tp_size 4 for heterogeneous-TP P/D" remote_rank 0 4 6)
  expect_outcome("ValueError: local_tp_rank 5 must be in [0, 4)" remote_rank 5 4 6)
  expect_outcome("ValueError: TP sizes must be positive" remote_rank -1 0 6)
  expect_outcome("ValueError: TP sizes must be positive" general_rank -1 0 6)
  expect_outcome("AssertionError: Local tensor parallel size 6 is not divisible by remote tensor parallel size 4." tp_ratio 6 4)
  expect_outcome("AssertionError: Remote tensor parallel size 6 is not divisible by local tensor parallel size 4." tp_ratio 4 6)
  expect_outcome("AssertionError: Remote tensor parallel size 6 is not divisible by local tensor parallel size 4." window 0 4 6)
  expect_outcome("NotImplementedError: MoRIIO heterogeneous TP requires replicated KV heads on both prefill and decode. Got total_num_kv_heads=4, local_tp_size=4, remote_tp_size=2." kv_heads_guard 4 2 4 0)
  expect_outcome("NotImplementedError: MoRIIO heterogeneous TP requires replicated KV heads on both prefill and decode. Got total_num_kv_heads=4, local_tp_size=2, remote_tp_size=4." kv_heads_guard 2 4 4 0)
  expect_outcome("ValueError: TP sizes and total_num_kv_heads must be positive" kv_heads_guard 0 4 4 0)
  expect_outcome("ValueError: TP sizes and total_num_kv_heads must be positive" kv_heads_guard_strict 0 0 5 0)
  expect_outcome("ValueError: TP sizes must be positive" single_readers 0 0 4)
  expect_outcome("ValueError: producer_tp_rank 4 must be in [0, 4)" single_readers 4 4 8)
  expect_outcome("ValueError: consumer tp_size 6 must be a multiple of producer tp_size 4 for heterogeneous-TP P/D" single_readers 0 4 6)
  expect_outcome("ValueError: producer tp_size 6 must be a multiple of consumer tp_size 4 for heterogeneous-TP P/D" single_readers 0 6 4)
  expect_outcome("ValueError: tp_size must be positive" port_offset 0 0 0)
  expect_outcome("ValueError: tp_rank 16 must be in [0, 16)" port_offset 0 16 16)
  expect_outcome("ValueError: dp_rank -1 must be non-negative" port_offset -1 0 16)
  expect_outcome("ValueError: tp_size must be positive" port_offset -1 -1 -1)
  # Project texts where the SPEC is silent.
  expect_outcome("ValueError: total_num_kv_heads 6 cannot be sharded over tp_size 4: one must divide the other" heads 0 4 6)
  expect_outcome("ValueError: decode_tp_rank 4 must be in [0, 4)" plan 4 4 4 4 0)
  expect_outcome("ValueError: tp_size 6 does not spread evenly over num_hosts 4" host_index 0 6 4)
  # --model runs one instantiation; the narrow one wraps nothing it accepts.
  expect_outcome("51205" --model int16 port_offset 200 5 256)
  expect_outcome("-9223372036854775808" --model cpp_int tp_ratio 1 9223372036854775808)
  # Beyond int64.
  expect_outcome("ValueError: local_tp_rank -9223372036854775809 must be in [0, 4)" remote_rank -9223372036854775809 4 4)
  expect_outcome("ValueError: remote tp_size 27670116110564327424 must be a multiple of local tp_size 18446744073709551616 for heterogeneous-TP P/D" remote_rank 0 18446744073709551616 27670116110564327424)

  # The model's own texts for a stage split (SPEC §15.4, project texts).
  expect_outcome("ValueError: prefill pp stage 1 has 0 layers, must have at least one" prefill_stages 0 --prefill-pp-layers 1,0 --decode-pp-layers 1)
  expect_outcome("ValueError: prefill pp stages hold 4 layers but decode pp stages hold 3: both sides must hold the same layers"
    prefill_stages 0 --prefill-pp-layers 2,2 --decode-pp-layers 3)
  expect_outcome("ValueError: decode pp_stage 2 must be in [0, 2)" prefill_stages 2 --decode-pp-layers 1,1)
  expect_outcome("ValueError: prefill dp_group 1 must be in [0, 1)" stage_window 0 0 1 4 2)
  expect_outcome("ValueError: prefill tp_size per attention-DP group 3 must be a power of two for TensorRT-LLM's C++ transceiver"
    trtllm_accepts 3 2 1 0)

elseif(GROUP STREQUAL "usage_errors")
  # Project texts; the SPEC asks for exit 2 and one line.
  expect_usage_error("tpcheck eval: expected OP ARGS\\.\\.\\. or --batch \\(see tpcheck eval --help\\)" eval)
  expect_usage_error("tpcheck eval: unknown operation 'nope'" eval nope 1 2)
  expect_usage_error("tpcheck eval: usage: remote_rank r L R \\(3 arguments, got 2\\)" eval remote_rank 5 8)
  expect_usage_error("tpcheck eval: usage: plan d P D H MLA \\(5 arguments, got 6\\)" eval plan 0 4 4 4 0 0)
  expect_usage_error("tpcheck eval: argument R of remote_rank is not a decimal integer of at most 4300 digits: 'x'" eval remote_rank 5 8 x)
  expect_usage_error("tpcheck eval: argument L of tp_ratio is not a decimal integer of at most 4300 digits: '1\\.5'" eval tp_ratio 1.5 2)
  expect_usage_error("tpcheck eval: argument MLA of plan must be 0 or 1, got '2'" eval plan 0 4 4 4 2)
  expect_usage_error("tpcheck eval: argument MLA of readers must be 0 or 1, got '-1'" eval readers 0 4 4 4 -1)
  expect_usage_error("tpcheck eval: --batch takes no further arguments" eval --batch extra)
  expect_usage_error("tpcheck eval: --model expects int16, int64 or cpp_int" eval --model int32 tp_ratio 1 2)
  expect_usage_error("tpcheck eval: --model expects int16, int64 or cpp_int" eval --model)
  expect_usage_error("tpcheck eval: argument L = 32768 does not fit in int16" eval --model int16 tp_ratio 32768 1)
  string(REPEAT "7" 4301 too_long)
  expect_usage_error("tpcheck eval: argument L of tp_ratio is not a decimal integer of at most 4300 digits: '7+'" eval tp_ratio ${too_long} 1)
  # --help is no error.
  math(EXPR checks "${checks} + 1")
  execute_process(COMMAND ${TPCHECK} eval --help RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status STREQUAL "0" OR NOT out MATCHES "\n  plan d P D H MLA\n" OR NOT out MATCHES "\n  host_index q T HOSTS\n")
    string(APPEND failures "\n  eval --help: status ${status}, stdout '${out}'")
  endif()

  # Eval's stage options (SPEC §15.4).
  expect_usage_error("tpcheck eval: window reads no --prefill-adp" eval window 0 2 4 --prefill-adp)
  expect_usage_error("tpcheck eval: prefill_stages reads no --decode-adp" eval prefill_stages 0 --decode-adp)
  expect_usage_error("tpcheck eval: --prefill-pp-layers takes layer counts separated by commas, each a whole number from 0 to 65536, got '1,a'" eval prefill_stages 0 --prefill-pp-layers 1,a)
  expect_usage_error("tpcheck eval: --decode-pp-layers needs a value" eval prefill_stages 0 --decode-pp-layers)
  expect_usage_error("tpcheck eval: --prefill-pp-layers given twice" eval prefill_stages 0 --prefill-pp-layers 1 --prefill-pp-layers 1)
  expect_usage_error("tpcheck eval: usage: stage_plan s d c P D H MLA \\[--prefill-pp-layers C,C,\\.\\.\\.\\] \\[--decode-pp-layers C,C,\\.\\.\\.\\] \\[--prefill-adp\\] \\[--decode-adp\\] \\(7 arguments, got 2\\)" eval stage_plan 0 1)
  expect_usage_error("tpcheck eval: argument PREFILL_PP_LAYERS = 40,40 does not fit in int64: a stage split takes a bit per layer and stage \\(--model cpp_int holds any\\)" eval --model int64 prefill_stages 0 --prefill-pp-layers 40,40)
elseif(GROUP STREQUAL "batch")
  # One output line per input line, in order; a bad line in the middle prints
  # "UsageError: ..." in its place (project text) and makes the status 2.
  expect_batch(with_bad_line 2
    "remote_rank 5 8 4\ntp_ratio 4 6\nremote_rank 5 8\nnope\n\nkv_heads_guard 4 2 4 0\nplan 1 4 6 12 0\nport_offset 0 0 0\n"
    "2\nAssertionError: Remote tensor parallel size 6 is not divisible by local tensor parallel size 4.\nUsageError: usage: remote_rank r L R (3 arguments, got 2)\nUsageError: unknown operation 'nope'\nUsageError: empty line: expected OP ARGS...\nNotImplementedError: MoRIIO heterogeneous TP requires replicated KV heads on both prefill and decode. Got total_num_kv_heads=4, local_tp_size=4, remote_tp_size=2.\n[(0, 2, 3), (1, 3, 4)]\nValueError: tp_size must be positive\n")
  # Modelled errors are outcomes: status 0. A last line without a newline and
  # CRLF line ends still count as lines.
  expect_batch(all_outcomes 0
    "remote_rank 0 4 6\r\nwindow 0 2 4\r\nremote_rank 18446744073709551615 18446744073709551616 36893488147419103232\nsingle_readers 3 4 2"
    "ValueError: remote tp_size 6 must be a multiple of local tp_size 4 for heterogeneous-TP P/D\n[0, 1]\n36893488147419103230\n0\n")
  expect_batch(empty_input 0 "" "")
  # Many lines keep their order.
  set(input "")
  set(expected "")
  foreach(i RANGE 1 200)
    math(EXPR r "${i} % 8")
    math(EXPR mapped "${r} / 2")
    string(APPEND input "remote_rank ${r} 8 4\n")
    string(APPEND expected "${mapped}\n")
  endforeach()
  expect_batch(two_hundred_lines 0 "${input}" "${expected}")

else()
  message(FATAL_ERROR "eval_cli_test.cmake: unknown GROUP '${GROUP}'")
endif()

if(NOT failures STREQUAL "")
  message(FATAL_ERROR "tpcheck eval ${GROUP}: mismatches:${failures}")
endif()
message(STATUS "tpcheck eval ${GROUP}: ${checks} checks passed")
