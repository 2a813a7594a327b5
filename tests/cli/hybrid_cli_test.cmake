# `tpcheck check`, `plan` and `matrix` on hybrid models, exact (tests/cli/hybrid/):
#   cmake -DTPCHECK=<binary> -DSOURCE_DIR=<root> -DNAME=<example> -P this   one example against NAME.txt
#   cmake -DTPCHECK=<binary> -DSOURCE_DIR=<root> -DUPDATE=ON -P this       writes every NAME.txt anew
#   cmake -DTPCHECK=<binary> -DSOURCE_DIR=<root> -DWORK_DIR=<dir> -DGROUP=bad_inputs -P this
# An example's file holds its standard output, then "[exit N]"; its standard
# error must be empty; an example named *_json prints one JSON object. The bad inputs: every malformed recurrent config and
# state flag is one line on standard error, exit 2, and nothing written.
cmake_minimum_required(VERSION 3.22)
foreach(required TPCHECK SOURCE_DIR)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "hybrid_cli_test.cmake: -D${required}=... is required")
  endif()
endforeach()

if(GROUP STREQUAL "bad_inputs")
  include(${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)
  set(bad ${SOURCE_DIR}/tests/model_configs/bad)
  set(good ${SOURCE_DIR}/tests/model_configs)
  file(MAKE_DIRECTORY "${WORK_DIR}")
  # SPEC §16.5's bad configs, read by each command the same way (a "." in a
  # text stands for its ";", which would split the CMake list).
  set(configs
    "nemotron-h-half-keys.json|model_type nemotron_h: mamba2 needs mamba_num_heads, mamba_head_dim, n_groups, ssm_state_size and conv_kernel. missing: n_groups"
    "nemotron-h-negative-heads.json|mamba_num_heads must be a whole number from 1 to 1048576, got -128"
    "qwen3-next-zero-head-dim.json|linear_key_head_dim must be a whole number from 1 to 1048576, got 0"
    "nemotron-h-groups-contradict.json|mamba_num_heads and n_groups contradict each other: ValueError: num_heads 128 must be a multiple of n_groups 3"
    "qwen3-next-value-heads-contradict.json|linear_num_value_heads and linear_num_key_heads contradict each other: ValueError: linear_num_value_heads 24 must be a multiple of linear_num_key_heads 16"
    "granite-expand-contradicts.json|mamba_expand \\* hidden_size = 3072 differs from mamba_n_heads \\* mamba_d_head = 1536: the dims contradict each other"
    "nemotron-h-pattern-short.json|hybrid_override_pattern gives 3 layers but num_hidden_layers is 4"
    "kimi-linear-layer-past-count.json|linear_attn_config.kda_layers names layer 28, past num_hidden_layers 27 \\(its layers are 1-based\\)"
    "kimi-linear-layer-in-both.json|layer 4 \\(1-based\\) is in both linear_attn_config.kda_layers and .full_attn_layers: each layer must be in exactly one"
    "kimi-linear-layer-in-neither.json|layer 1 \\(1-based\\) is in neither linear_attn_config.kda_layers nor .full_attn_layers: each layer must be in exactly one"
    "jamba-period-without-offset.json|attn_layer_period needs attn_layer_offset"
    "zamba2-unknown-family.json|model_type 'zamba2' has recurrent layers \\(mamba_d_state\\), a family tpcheck does not model. it reads nemotron_h, [^\n]*, mamba and falcon_mamba")
  foreach(entry ${configs})
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 0 file)
    list(GET parts 1 said)
    foreach(command check plan matrix)
      set(sizes --prefill-tp 2 --decode-tp 4)
      if(command STREQUAL "matrix")
        set(sizes --max-tp 4)
      endif()
      expect_usage_error("tpcheck ${command}: --model-config '[^']*/${file}': ${said}" ${command} --model-config ${bad}/${file} ${sizes})
    endforeach()
    # Nothing written: a picture of a config that contradicts itself is not drawn.
    file(REMOVE "${WORK_DIR}/bad.svg")
    expect_usage_error("tpcheck plan: --model-config [^\n]*" plan --model-config ${bad}/${file} --prefill-tp 2 --decode-tp 4 --svg ${WORK_DIR}/bad.svg)
    if(EXISTS "${WORK_DIR}/bad.svg")
      string(APPEND failures "\n  plan --svg wrote a picture of ${file}")
    endif()
  endforeach()
  # The state flags.
  set(family --mamba2 8,2,1,3)
  foreach(command check plan matrix)
    set(sizes --prefill-tp 2 --decode-tp 4)
    if(command STREQUAL "matrix")
      set(sizes --max-tp 4)
    endif()
    set(e "tpcheck ${command}: ")
    expect_usage_error("${e}--mamba2 takes H,PH,G,N, each a whole number from 1 to 1048576, got '8,2,1'" ${command} ${sizes} --mamba2 8,2,1)
    expect_usage_error("${e}--mamba2 takes H,PH,G,N, each a whole number from 1 to 1048576, got '8,2,1,0'" ${command} ${sizes} --mamba2 8,2,1,0)
    expect_usage_error("${e}--gdn takes HK,DK,HV,DV, each a whole number from 1 to 1048576, got '16,128,32,-128'" ${command} ${sizes} --gdn 16,128,32,-128)
    expect_usage_error("${e}--kda takes H,DH, each a whole number from 1 to 1048576, got '32'" ${command} ${sizes} --kda 32)
    expect_usage_error("${e}--mamba1 takes I,N, each a whole number from 1 to 1048576, got '8,x'" ${command} ${sizes} --mamba1 8,x)
    expect_usage_error("${e}give one of --mamba2, --gdn, --kda and --mamba1" ${command} ${sizes} --kda 4,4 --mamba1 8,2)
    expect_usage_error("${e}--mamba2 given twice" ${command} ${sizes} ${family} ${family})
    expect_usage_error("${e}--mamba2: ValueError: num_heads 8 must be a multiple of n_groups 3" ${command} ${sizes} --mamba2 8,2,3,4)
    expect_usage_error("${e}--gdn: ValueError: linear_num_value_heads 3 must be a multiple of linear_num_key_heads 2" ${command} ${sizes} --gdn 2,4,3,4)
    expect_usage_error("${e}--conv-kernel takes a whole number from 2 to 1048576, got '1'" ${command} ${sizes} ${family} --conv-kernel 1)
    expect_usage_error("${e}--conv-window takes a whole number from 1 to 1048576, got '0'" ${command} ${sizes} ${family} --conv-window 0)
    expect_usage_error("${e}--prefill-num-spec takes a whole number from 0 to 1048576, got '-1'" ${command} ${sizes} ${family} --prefill-num-spec -1)
    expect_usage_error("${e}--decode-conv-state-bytes takes a whole number from 1 to 64, got '0'" ${command} ${sizes} ${family} --decode-conv-state-bytes 0)
    expect_usage_error("${e}--ssm-state-bytes takes a whole number from 1 to 64, got '65'" ${command} ${sizes} ${family} --ssm-state-bytes 65)
    expect_usage_error("${e}--conv-layout takes ds or sd, got 'xs'" ${command} ${sizes} ${family} --conv-layout xs)
    expect_usage_error("${e}--prefill-conv-layout needs a value" ${command} ${sizes} ${family} --prefill-conv-layout)
    expect_usage_error("${e}--conv-window given twice" ${command} ${sizes} ${family} --conv-window 3 --conv-window 3)
    expect_usage_error("${e}prefill side: --conv-window and --num-spec both give its conv window: give one" ${command} ${sizes} ${family} --conv-window 3 --num-spec 1)
    expect_usage_error("${e}decode side: --conv-window and --num-spec both give its conv window: give one" ${command} ${sizes} ${family} --decode-conv-window 3 --num-spec 1)
    expect_usage_error("${e}the state flags \\(--conv-kernel, --conv-window, ...\\) need a recurrent model: give a --model-config with them, or --mamba2, --gdn, --kda or --mamba1" ${command} ${sizes} --kv-heads 8 --conv-window 3)
    expect_usage_error("${e}the state flags [^\n]* need a recurrent model: --model-config '[^']*llama-8kv.json' has no recurrent layers; [^\n]*" ${command} ${sizes} --model-config ${good}/llama-8kv.json --conv-layout ds)
    expect_usage_error("${e}--conv-kernel: --model-config gives the conv kernel \\(conv_kernel = 4\\)" ${command} ${sizes} --model-config ${good}/nemotron-h-8b.json --conv-kernel 4)
    expect_usage_error("${e}--mamba2 describes a model without --model-config: give one or the other" ${command} ${sizes} --model-config ${good}/nemotron-h-8b.json ${family})
    expect_usage_error("${e}give exactly one of --kv-heads H, --mla and --model-config FILE" ${command} ${sizes} --mamba1 8,2 --mla --kv-heads 2)
  endforeach()
  expect_usage_error("tpcheck check: unknown option '--state-bytes'" check --prefill-tp 2 --decode-tp 4 ${family} --state-bytes ds)
  expect_usage_error("tpcheck matrix: unknown option '--state-bytes'" matrix ${family} --state-bytes ds)
  expect_usage_error("tpcheck plan: --state-bytes takes ds, sd or sglang, got 'dd'" plan --prefill-tp 2 --decode-tp 4 ${family} --state-bytes dd)
  expect_usage_error("tpcheck plan: --state-bytes prints a recurrent state's bytes: the model has none [^\n]*" plan --prefill-tp 2 --decode-tp 4 --kv-heads 8 --state-bytes ds)
  expect_usage_error("tpcheck plan: pipeline stages and attention DP are not modelled for a recurrent state \\(leave them out to plan one stage pair\\)" plan --prefill-tp 2 --decode-tp 4 ${family} --decode-adp)
  expect_usage_error("tpcheck check: pipeline stages and attention DP are not modelled for a recurrent state [^\n]*" check --prefill-tp 2 --decode-tp 4 --model-config ${good}/nemotron-h-8b.json --prefill-pp 2)
  expect_usage_error("tpcheck matrix: attention DP is not modelled for a recurrent state" matrix ${family} --prefill-adp)
  if(NOT failures STREQUAL "")
    message(FATAL_ERROR "hybrid bad inputs: mismatches:${failures}")
  endif()
  message(STATUS "hybrid bad inputs: ${checks} checks passed")
  return()
endif()
set(dir "${SOURCE_DIR}/tests/cli/hybrid")
file(STRINGS "${dir}/examples.txt" lines REGEX "^[a-z]")

# run_example(NAME ARGS VAR): what the example prints, as its file holds it.
function(run_example name args var)
  separate_arguments(argv UNIX_COMMAND "${args}")
  execute_process(COMMAND ${TPCHECK} ${argv} WORKING_DIRECTORY ${SOURCE_DIR}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT err STREQUAL "")
    message(FATAL_ERROR "tpcheck ${args}: standard error '${err}'")
  endif()
  set(${var} "${out}[exit ${status}]\n" PARENT_SCOPE)
endfunction()

set(found FALSE)
foreach(line ${lines})
  string(REGEX MATCH "^([a-z0-9_]+) *\\| *(.*)$" matched "${line}")
  set(example ${CMAKE_MATCH_1})
  set(args ${CMAKE_MATCH_2})
  if(UPDATE)
    run_example(${example} "${args}" printed)
    file(WRITE "${dir}/${example}.txt" "${printed}")
    message(STATUS "wrote ${dir}/${example}.txt")
  elseif(example STREQUAL NAME)
    set(found TRUE)
    run_example(${example} "${args}" printed)
    if(NOT EXISTS "${dir}/${example}.txt")
      message(FATAL_ERROR "no ${dir}/${example}.txt: write it with -DUPDATE=ON (see examples.txt)")
    endif()
    if(example MATCHES "_json$")
      # The --json output is one JSON object: CMake's parser reads it.
      string(REGEX REPLACE "\\[exit [0-9]+\\]\n$" "" object "${printed}")
      string(JSON members ERROR_VARIABLE json_error LENGTH "${object}")
      if(json_error)
        message(FATAL_ERROR "tpcheck ${args}: not JSON: ${json_error}")
      endif()
    endif()
    file(READ "${dir}/${example}.txt" expected)
    if(NOT printed STREQUAL expected)
      file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/${example}.printed.txt" "${printed}")
      message(FATAL_ERROR "tpcheck ${args} printed otherwise than ${dir}/${example}.txt:\n${printed}")
    endif()
    message(STATUS "${example}: as ${example}.txt")
  endif()
endforeach()
if(NOT UPDATE AND NOT found)
  message(FATAL_ERROR "no example ${NAME} in ${dir}/examples.txt")
endif()
