# Runs the real `tpcheck check`, `plan` and `matrix` on the pre-flight
# features: --model-config on the configs in tests/model_configs,
# suggestions, the matrix, --svg, and every bad input (one stderr line, exit 2).
#   cmake -DTPCHECK=<binary> -DGROUP=<group> -DCONFIGS=<tests/model_configs> -DWORK_DIR=<dir> -P this
# Groups: model_configs, suggestions, matrix, connectors, stages, pictures, bad_inputs.
cmake_minimum_required(VERSION 3.22)

foreach(required TPCHECK GROUP CONFIGS WORK_DIR)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "preflight_cli_test.cmake: -D${required}=... is required")
  endif()
endforeach()

include(${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)

# expect_output(STATUS REGEX... -- ARGS...): `tpcheck ARGS...` exits STATUS,
# prints nothing on stderr, and its stdout matches every REGEX.
function(expect_output expected_status)
  set(regexes "")
  set(args "")
  set(in_args FALSE)
  foreach(a ${ARGN})
    if(in_args)
      list(APPEND args "${a}")
    elseif(a STREQUAL "--")
      set(in_args TRUE)
    else()
      list(APPEND regexes "${a}")
    endif()
  endforeach()
  execute_process(COMMAND ${TPCHECK} ${args} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  list(JOIN args " " shown)
  set(failure "")
  if(NOT status STREQUAL "${expected_status}" OR NOT err STREQUAL "")
    set(failure "${shown}: status ${status} (expected ${expected_status}), stderr '${err}'")
  endif()
  foreach(regex ${regexes})
    if(failure STREQUAL "" AND NOT out MATCHES "${regex}")
      set(failure "${shown}: stdout does not match '${regex}':\n${out}")
    endif()
  endforeach()
  finish_check("${failure}")
endfunction()

# json_of(VAR ARGS...): the --json stdout of `tpcheck ARGS... --json`.
function(json_of var)
  execute_process(COMMAND ${TPCHECK} ${ARGN} --json OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${var} "${out}" PARENT_SCOPE)
endfunction()

# expect_json(JSON EXPECTED [LENGTH] PATH...): the value at PATH (or with
# LENGTH, the length of the array there) equals EXPECTED.
function(expect_json json expected)
  set(mode GET)
  set(path ${ARGN})
  list(GET path 0 first)
  if(first STREQUAL "LENGTH")
    set(mode LENGTH)
    list(REMOVE_AT path 0)
  endif()
  string(JSON got ERROR_VARIABLE error ${mode} "${json}" ${path})
  list(JOIN ARGN "." where)
  set(failure "")
  if(error OR NOT got STREQUAL "${expected}")
    set(failure "json ${where}: got '${got}' (${error}), expected '${expected}'")
  endif()
  finish_check("${failure}")
endfunction()

file(MAKE_DIRECTORY "${WORK_DIR}")

if(GROUP STREQUAL "model_configs")
  # Each committed config, the key vLLM takes its head count from and the count.
  set(expectations
    "llama-8kv.json|8 KV heads from num_key_value_heads|8 KV heads"
    "llama1-mha.json|32 KV heads from num_attention_heads \\(no KV head count: one KV head per attention head\\)|32 KV heads"
    "falcon-7b-mqa.json|1 KV head from multi_query = true \\(multi-query attention\\)|1 KV head"
    "falcon-40b-gqa.json|8 KV heads from num_kv_heads|8 KV heads"
    "chatglm2.json|2 KV heads from multi_query_group_num|2 KV heads"
    "dbrx.json|8 KV heads from attn_config.kv_n_heads|8 KV heads"
    "gemma3-multimodal.json|16 KV heads from text_config.num_key_value_heads|16 KV heads"
    "deepseek-v2-lite-mla.json|MLA from kv_lora_rank = 512 \\(one latent vector, which every rank holds\\)|MLA"
    # Hybrid models: their attention layers' KV heads, read as before (their
    # state lines are tests/cli/hybrid/'s).
    "nemotron-h-8b.json|8 KV heads from num_key_value_heads|8 KV heads"
    "nemotron-h-56b.json|8 KV heads from num_key_value_heads|8 KV heads"
    "granite-4.0-h-tiny.json|4 KV heads from num_key_value_heads|4 KV heads"
    "falcon-h1-7b.json|2 KV heads from num_key_value_heads|2 KV heads"
    "qwen3-next-80b-a3b.json|2 KV heads from num_key_value_heads|2 KV heads"
    "qwen3.5-397b-a17b.json|2 KV heads from text_config.num_key_value_heads|2 KV heads"
    "kimi-linear-48b-a3b.json|MLA from kv_lora_rank = 512 \\(one latent vector, which every rank holds\\)|MLA"
    "jamba-1.5-mini.json|8 KV heads from num_key_value_heads|8 KV heads"
    "falcon-mamba-7b.json|no KV heads: no attention layers|no attention")
  set(covered "")
  foreach(e ${expectations})
    string(REPLACE "|" ";" parts "${e}")
    list(GET parts 0 file)
    list(GET parts 1 said)
    list(GET parts 2 heads)
    list(APPEND covered "${file}")
    foreach(command check plan matrix)
      set(sizes --prefill-tp 4 --decode-tp 8)
      if(command STREQUAL "matrix")
        set(sizes --max-tp 4)
      endif()
      # plan/check exit 0 or 1 by the sizing; only the reading is checked here.
      execute_process(COMMAND ${TPCHECK} ${command} --model-config ${CONFIGS}/${file} ${sizes}
                      OUTPUT_VARIABLE out ERROR_VARIABLE err)
      set(failure "")
      if(NOT err STREQUAL "" OR NOT out MATCHES "^model config: [^\n]*/${file}: ${said}\n([a-z ]+: [^\n]*\n)*[a-z]+: [^\n]*${heads}")
        set(failure "${command} --model-config ${file}: stdout '${out}', stderr '${err}'")
      endif()
      finish_check("${failure}")
    endforeach()
  endforeach()
  # Every config shipped is read by some expectation above.
  file(GLOB shipped RELATIVE ${CONFIGS} ${CONFIGS}/*.json)
  foreach(file ${shipped})
    if(NOT file IN_LIST covered)
      string(APPEND failures "\n  ${CONFIGS}/${file} has no expectation")
    endif()
  endforeach()
  json_of(j check --model-config ${CONFIGS}/gemma3-multimodal.json --prefill-tp 4 --decode-tp 8)
  expect_json("${j}" "text_config.num_key_value_heads" model_config key)
  expect_json("${j}" "16" kv_heads)
  json_of(j plan --model-config ${CONFIGS}/deepseek-v2-lite-mla.json --prefill-tp 4 --decode-tp 8)
  expect_json("${j}" "kv_lora_rank" model_config key)
  expect_json("${j}" "512" model_config value)
  expect_json("${j}" "ON" mla)

elseif(GROUP STREQUAL "suggestions")
  # The manual's example (docs/sizing-a-deployment.md): 8 KV heads do not shard over 6 decode ranks.
  expect_output(1
    "^model config: [^\n]*llama-8kv.json: 8 KV heads from num_key_value_heads\nsizing: prefill TP 4, decode TP 6, 8 KV heads\n"
    "\n  nixl: rejects: ValueError: total_num_kv_heads 8 cannot be sharded over decode tp_size 6: one must divide the other\n"
    "\n  moriio \\(its head guard needs P == D or min\\(P, D\\) >= 8\\):\n    4 -> 4: keeps prefill TP 4, 1 reader per prefill rank, 1 copy per decode rank\n  [a-z]"
    "\n  nixl, mooncake, sglang, trtllm, trtllm-v2, general:\n    4 -> 4: keeps prefill TP 4[^\n]*\n    4 -> 8: keeps prefill TP 4, 2 readers per prefill rank, 1 copy per decode rank\n"
    "\ngeneral would serve 4 -> 6 for head counts both sides shard \\(1, 2, 12, 24, \\.\\.\\.\\) or MLA\ncheck: 7 checks, 7 rejected\n$"
    -- check --model-config ${CONFIGS}/llama-8kv.json --prefill-tp 4 --decode-tp 6)
  json_of(j check --model-config ${CONFIGS}/llama-8kv.json --prefill-tp 4 --decode-tp 6)
  expect_json("${j}" "heads_do_not_shard" checks 0 reason)
  expect_json("${j}" "1" LENGTH checks 0 suggestions)
  expect_json("${j}" "4" checks 0 suggestions 0 decode_tp)
  foreach(connector 1 2)  # nixl, mooncake: decode 4 or 8, keeping prefill
    expect_json("${j}" "4" checks ${connector} suggestions 0 decode_tp)
    expect_json("${j}" "8" checks ${connector} suggestions 1 decode_tp)
    expect_json("${j}" "prefill" checks ${connector} suggestions 1 keeps)
    expect_json("${j}" "2" checks ${connector} suggestions 1 readers_per_prefill_rank 0)
  endforeach()
  expect_json("${j}" "12" general_head_counts 2)
  expect_json("${j}" "20" max_gpus)
  # SPEC §11: NIXL refuses a larger prefill side that replicates heads.
  expect_output(1
    "\n  nixl: rejects: AssertionError at handshake: prefill TP 4 is larger than decode TP 2 and than the 2 KV heads"
    "\n  mooncake: accepts\n"
    -- check --prefill-tp 4 --decode-tp 2 --kv-heads 2)
  json_of(j check --prefill-tp 2 --decode-tp 1 --kv-heads 1 --connector nixl)
  expect_json("${j}" "nixl_replica_rule" checks 0 reason)
  expect_json("${j}" "AssertionError" checks 0 error)
  # A budget too small for any suggestion says so.
  expect_output(1 "\n  moriio \\(its head guard needs P == D or min\\(P, D\\) >= 8\\):\n    none within 9 GPUs\n"
    -- check --prefill-tp 3 --decode-tp 6 --kv-heads 8 --max-gpus 9)
  # An accepted sizing has nothing to suggest.
  expect_output(0 "^sizing: prefill TP 4, decode TP 8, 8 KV heads\n  nixl: accepts\ncheck: 1 checks, 0 rejected\n$"
    -- check --prefill-tp 4 --decode-tp 8 --kv-heads 8 --connector nixl)

elseif(GROUP STREQUAL "matrix")
  # 8 heads load on 1, 2, 4, 8, 16 ranks; MoRIIO's guard and NIXL's replica rule.
  expect_output(0
    "\nmoriio: 7 of 256 sizings accepted\n               1111111\nD     1234567890123456\nP  1  \\+gxgxxxgxxxxxxxg\n   2  g\\+xgxxxgxxxxxxxg\n   3  xxxxxxxxxxxxxxxx\n"
    "\nnixl: 21 of 256 sizings accepted\n"
    "\n   8  \\+\\+x\\+xxx\\+xxxxxxx\\+\n   9  xxxx"
    "\n  16  rrxrxxxrxxxxxxx\\+\n\nmooncake: 25 of 256"
    "\n  16  \\+\\+x\\+xxx\\+xxxxxxx\\+\n$"
    -- matrix --kv-heads 8 --max-tp 16)
  # 12 heads over sizes that do not divide each other.
  expect_output(0 "\nP 1  \\+\\+\\+\\+x\\+xx\n  2  \\+\\+\\.\\+x\\+xx\n  3  \\+\\.\\+\\.x\\+xx\n"
    -- matrix --kv-heads 12 --max-tp 8 --connector mooncake)
  json_of(j matrix --mla --max-tp 5)
  expect_json("${j}" "5" LENGTH connectors 0 rows)
  expect_json("${j}" "+++++" connectors 6 rows 2)
  expect_json("${j}" "general" connectors 6 name)
  expect_json("${j}" "not_divisible" legend ".")
  expect_json("${j}" "ON" mla)

elseif(GROUP STREQUAL "connectors")
  # SPEC §11, §14.1: SGLang runs what it cannot serve, and says which ranks fail.
  expect_output(1
    "\n  sglang: runs it, but cannot serve it: decode ranks 4 and 5 target prefill ranks 4 and 5, which do not exist \\(prefill TP is 4\\): their requests fail at the bootstrap lookup\n"
    "\ncheck: 1 checks, 0 rejected, 1 served wrongly\n$"
    -- check --prefill-tp 4 --decode-tp 6 --kv-heads 2 --connector sglang)
  expect_output(1
    "\n  sglang: runs it, but cannot serve it: prefill ranks 4 and 5 are targeted by no decode rank: they never receive a registration for a request and stall\n"
    -- check --prefill-tp 6 --decode-tp 4 --kv-heads 2 --connector sglang)
  expect_output(1 "\n  sglang: runs it, but cannot serve it: decode rank 4 targets prefill rank 2, which does not exist"
    -- check --prefill-tp 2 --decode-tp 5 --kv-heads 1 --connector sglang)
  expect_output(1 "\n  sglang: runs it, but cannot serve it: prefill ranks 15 to 18 are targeted by no decode rank"
    -- check --prefill-tp 19 --decode-tp 5 --kv-heads 1 --connector sglang)
  expect_output(0 "\n  sglang: accepts\ncheck: 1 checks, 0 rejected\n$" -- check --prefill-tp 4 --decode-tp 8 --kv-heads 2 --connector sglang)
  # SPEC §15.3: the C++ transceiver needs powers of two per DP group; the Python one runs anything.
  expect_output(1
    "\n  trtllm: rejects: ValueError: decode tp_size per attention-DP group 6 must be a power of two for TensorRT-LLM's C\\+\\+ transceiver\n"
    "\n  trtllm-v2: runs it, but cannot serve it: prefill TP 4 and decode TP 6 do not divide each other; the Python transceiver checks no divisibility"
    "\n  trtllm:\n    4 -> 4: keeps prefill TP 4, [^\n]*\n    4 -> 8: keeps prefill TP 4,"
    -- check --prefill-tp 4 --decode-tp 6 --kv-heads 2 --connector trtllm --connector trtllm-v2)
  expect_output(1 "\n  trtllm: rejects: ValueError: TensorRT-LLM's C\\+\\+ CacheFormatter does not serve MLA \\(MLACacheFormatter does, which this model does not cover\\)\n"
    -- check --prefill-tp 4 --decode-tp 8 --mla --connector trtllm)
  json_of(j check --prefill-tp 4 --decode-tp 6 --kv-heads 2)
  expect_json("${j}" "sglang" checks 3 name)
  expect_json("${j}" "ON" checks 3 accepts)
  expect_json("${j}" "targets_missing_prefill_ranks" checks 3 misserved)
  expect_json("${j}" "not_power_of_two" checks 4 reason)
  expect_json("${j}" "not_divisible" checks 5 misserved)
  expect_json("${j}" "4" rejected)
  expect_json("${j}" "2" misserved)
  # The matrix marks each: p, m, t, s, n.
  expect_output(0
    "\n  t  runs, but decode ranks target prefill ranks that do not exist \\(requests fail\\)\n"
    "\nsglang: 36 of 36 sizings accepted, 14 of them served wrongly\nD    123456\nP 1  \\+\\+\\+\\+\\+\\+\n  2  \\+\\+t\\+t\\+\n  3  \\+s\\+tt\\+\n  4  \\+\\+s\\+tt\n"
    "\ntrtllm: 9 of 36 sizings accepted\nD    123456\nP 1  \\+\\+p\\+pp\n  2  \\+\\+p\\+pp\n  3  pppppp\n"
    "\ntrtllm-v2: 36 of 36 sizings accepted, 14 of them served wrongly\n"
    -- matrix --kv-heads 1 --max-tp 6)
  expect_output(0 "\ntrtllm: 0 of 16 sizings accepted\nD    1234\nP 1  mmmm\n" -- matrix --mla --max-tp 4 --connector trtllm)
  # Attention DP: every size per group is 1, a power of two.
  expect_output(0 "^matrix: 1 KV head, attention DP on both sides, [^\n]*\n"
    "\ntrtllm: 16 of 16 sizings accepted\n" "\ntrtllm-v2: 16 of 16 sizings accepted\n"
    -- matrix --kv-heads 1 --max-tp 4 --prefill-adp --decode-adp)

elseif(GROUP STREQUAL "stages")
  # SPEC §15.4: the model's num_hidden_layers split evenly; which prefill stages each decode stage reads.
  expect_output(0
    "\npipeline: prefill 2 stages \\(16,16\\), decode 4 stages \\(8,8,8,8\\), 32 layers \\(num_hidden_layers\\)\n"
    "\n  decode stage 1 \\(layers .8, 16\\)\\) reads prefill stage 0\n  decode stage 2 \\(layers .16, 24\\)\\) reads prefill stage 1\n"
    "\nattention DP: off\n  trtllm: accepts\n  trtllm-v2: accepts\ncheck: 2 checks, 0 rejected\n$"
    -- check --model-config ${CONFIGS}/llama-8kv.json --prefill-tp 2 --decode-tp 4 --prefill-pp 2 --decode-pp 4)
  # Uneven splits: a decode stage across two prefill stages.
  expect_output(0 "\n  decode stage 1 \\(layers .10, 32\\)\\) reads prefill stages 0 to 1\n"
    -- check --model-config ${CONFIGS}/llama-8kv.json --prefill-tp 2 --decode-tp 4 --prefill-pp-layers 20,12 --decode-pp-layers 10,22)
  # An even split of 27 layers over 4 stages: the first ones take one more.
  expect_output(1 "\npipeline: prefill 4 stages \\(7,7,7,6\\), decode 1 stage \\(27\\), 27 layers \\(num_hidden_layers\\)\n"
    -- check --model-config ${CONFIGS}/deepseek-v2-lite-mla.json --prefill-tp 2 --decode-tp 4 --prefill-pp 4)
  # Attention DP makes 6 -> 3 a sizing the C++ transceiver accepts.
  expect_output(0 "\nattention DP: prefill \\(6 groups of TP 1\\) and decode \\(3 groups of TP 1\\)\n  trtllm: accepts\n"
    -- check --prefill-tp 6 --decode-tp 3 --kv-heads 8 --prefill-adp --decode-adp --connector trtllm)
  expect_output(1 "\n  trtllm: rejects: ValueError: decode tp_size per attention-DP group 3 must be a power of two"
    -- check --prefill-tp 6 --decode-tp 3 --kv-heads 1 --prefill-adp --connector trtllm)
  json_of(j check --prefill-tp 2 --decode-tp 4 --kv-heads 8 --prefill-pp-layers 3,1 --decode-adp)
  expect_json("${j}" "3" pipeline prefill_layers 0)
  expect_json("${j}" "4" pipeline decode_layers 0)
  expect_json("${j}" "ON" attention_dp decode)
  expect_json("${j}" "2" LENGTH checks)
  # The plan of each decode rank of each stage: layers and global prefill ranks.
  expect_output(0
    "\ndecode rank 2 \\(stage 1, TP rank 0\\) holds heads .0, 2\\) of layers .1, 3\\):\n"
    "  heads .0, 1\\) of layers .1, 2\\) from prefill rank 0 \\(stage 0, TP rank 0\\): heads 0\\.\\.1 of its page to heads 0\\.\\.1 of this page\n"
    "  heads .1, 2\\) of layers .2, 3\\) from prefill rank 5 \\(stage 1, TP rank 1\\): heads 0\\.\\.1 of its page to heads 1\\.\\.2 of this page\n"
    "\nprefill rank 4 \\(stage 1, TP rank 0\\): serves 1 decode rank \\(the requests it waits for\\)\n"
    -- plan --prefill-tp 4 --decode-tp 2 --kv-heads 4 --prefill-pp-layers 2,1 --decode-pp-layers 1,2)
  json_of(j plan --prefill-tp 4 --decode-tp 2 --kv-heads 4 --prefill-pp-layers 2,1 --decode-pp-layers 1,2 --decode-rank 0 --bytes-per-head 64)
  expect_json("${j}" "2" LENGTH decode)
  expect_json("${j}" "4" LENGTH decode 1 copies)
  expect_json("${j}" "5" decode 1 copies 3 prefill_rank)
  expect_json("${j}" "2" decode 1 copies 3 layers 0)
  expect_json("${j}" "64" decode 1 copies 1 dest_offset)
  expect_json("${j}" "2" prefill 0 serves)
  # Attention DP: a decode rank holds every head.
  expect_output(0 "^plan: prefill TP 4, decode TP 2, 8 KV heads\nattention DP: prefill \\(4 groups of TP 1\\) and decode \\(2 groups of TP 1\\)\n"
    "\ndecode rank 1 \\(stage 0, TP rank 1\\) holds heads .0, 8\\):\n  heads .0, 8\\) from prefill rank 0 "
    -- plan --prefill-tp 4 --decode-tp 2 --kv-heads 8 --prefill-adp --decode-adp --decode-rank 1)
  # A sizing the model rejects.
  expect_output(1 "^plan: ValueError: total_num_kv_heads 2 cannot be sharded over prefill tp_size 3: one must divide the other\n$"
    -- plan --prefill-tp 3 --decode-tp 2 --kv-heads 2 --decode-pp-layers 1)

elseif(GROUP STREQUAL "pictures")
  set(p "${WORK_DIR}/plan_4_6.svg")
  file(REMOVE "${p}")
  expect_output(0 "\nsvg: wrote [^\n]*plan_4_6.svg\n$"
    -- plan --prefill-tp 4 --decode-tp 6 --kv-heads 12 --svg ${p})
  if(NOT EXISTS "${p}")
    string(APPEND failures "\n  plan --svg wrote no ${p}")
  endif()
  expect_output(0 "\nsvg: wrote [^\n]*summary.svg, a summary: more than 16 ranks on a side are too many to draw one by one\n$"
    -- plan --prefill-tp 32 --decode-tp 48 --kv-heads 8 --svg ${WORK_DIR}/summary.svg)
  expect_output(0 "\nsvg: wrote [^\n]*m.svg\n$" -- matrix --kv-heads 8 --max-tp 4 --svg ${WORK_DIR}/m.svg)
  # A sizing the model rejects draws nothing.
  file(REMOVE "${WORK_DIR}/rejected.svg")
  expect_output(1 "^plan: ValueError: total_num_kv_heads 8 cannot be sharded"
    -- plan --prefill-tp 4 --decode-tp 6 --kv-heads 8 --svg ${WORK_DIR}/rejected.svg)
  if(EXISTS "${WORK_DIR}/rejected.svg")
    string(APPEND failures "\n  plan --svg drew a sizing the model rejects")
  endif()

elseif(GROUP STREQUAL "bad_inputs")
  set(bad ${CONFIGS}/bad)
  file(WRITE "${WORK_DIR}/empty.json" "")
  foreach(command check plan matrix)
    set(sizes --prefill-tp 4 --decode-tp 8)
    if(command STREQUAL "matrix")
      set(sizes "")
    endif()
    set(e "tpcheck ${command}: --model-config '")
    expect_usage_error("${e}[^']*missing.json': No such file or directory" ${command} --model-config ${WORK_DIR}/missing.json ${sizes})
    expect_usage_error("${e}[^']*': not a regular file" ${command} --model-config ${WORK_DIR} ${sizes})
    expect_usage_error("${e}[^']*empty.json': not JSON: parse error at line 1, column 1: [^\n]*" ${command} --model-config ${WORK_DIR}/empty.json ${sizes})
    expect_usage_error("${e}[^']*truncated.json': not JSON: parse error at line 4, column 1: [^\n]*" ${command} --model-config ${bad}/truncated.json ${sizes})
    expect_usage_error("${e}[^']*not-an-object.json': not a JSON object" ${command} --model-config ${bad}/not-an-object.json ${sizes})
    expect_usage_error("${e}[^']*no-head-key.json': no KV head count: none of kv_lora_rank, [^\n]*num_attention_heads" ${command} --model-config ${bad}/no-head-key.json ${sizes})
    expect_usage_error("${e}[^']*nested-without-heads.json': no KV head count: [^\n]* \\(looked in text_config\\)" ${command} --model-config ${bad}/nested-without-heads.json ${sizes})
    expect_usage_error("${e}[^']*negative-heads.json': num_key_value_heads must be a whole number from 1 to 1048576, got -8" ${command} --model-config ${bad}/negative-heads.json ${sizes})
    expect_usage_error("${e}[^']*absurd-heads.json': num_key_value_heads must be a whole number from 1 to 1048576, got 4294967296" ${command} --model-config ${bad}/absurd-heads.json ${sizes})
    expect_usage_error("${e}[^']*string-heads.json': num_key_value_heads must be a whole number from 1 to 1048576, got \"8\"" ${command} --model-config ${bad}/string-heads.json ${sizes})
    expect_usage_error("tpcheck ${command}: give exactly one of --kv-heads H, --mla and --model-config FILE" ${command} --kv-heads 8 --model-config ${CONFIGS}/llama-8kv.json ${sizes})
    expect_usage_error("tpcheck ${command}: give exactly one of --kv-heads H, --mla and --model-config FILE" ${command} ${sizes})
    expect_usage_error("tpcheck ${command}: --kv-heads takes a whole number from 1 to 1048576, got '-8'" ${command} --kv-heads -8 ${sizes})
    expect_usage_error("tpcheck ${command}: --kv-heads takes a whole number from 1 to 1048576, got '99999999999999999999'" ${command} --kv-heads 99999999999999999999 ${sizes})
    expect_usage_error("tpcheck ${command}: --model-config needs a value" ${command} ${sizes} --model-config)
  endforeach()
  foreach(command check plan)
    expect_usage_error("tpcheck ${command}: --prefill-tp takes a whole number from 1 to 1048576, got '-4'" ${command} --prefill-tp -4 --decode-tp 8 --kv-heads 8)
    expect_usage_error("tpcheck ${command}: --decode-tp takes a whole number from 1 to 1048576, got '0'" ${command} --prefill-tp 4 --decode-tp 0 --kv-heads 8)
    expect_usage_error("tpcheck ${command}: --decode-tp takes a whole number from 1 to 1048576, got '1048577'" ${command} --prefill-tp 4 --decode-tp 1048577 --kv-heads 8)
  endforeach()
  expect_usage_error("tpcheck check: --max-gpus takes a whole number from 2 to 2097152, got '-1'" check --prefill-tp 4 --decode-tp 6 --kv-heads 8 --max-gpus -1)
  expect_usage_error("tpcheck check: unknown option '--svg'" check --prefill-tp 4 --decode-tp 6 --kv-heads 8 --svg ${WORK_DIR}/x.svg)
  expect_usage_error("tpcheck plan: unknown option '--max-gpus'" plan --prefill-tp 4 --decode-tp 6 --kv-heads 8 --max-gpus 20)
  expect_usage_error("tpcheck matrix: --max-tp takes a whole number from 1 to 128, got '0'" matrix --kv-heads 8 --max-tp 0)
  expect_usage_error("tpcheck matrix: --max-tp takes a whole number from 1 to 128, got '100000'" matrix --kv-heads 8 --max-tp 100000)
  expect_usage_error("tpcheck matrix: unknown option '--prefill-tp'" matrix --kv-heads 8 --prefill-tp 4)
  # An --svg path that cannot be written: nothing is left behind.
  expect_usage_error("tpcheck matrix: --svg cannot write '/nonexistent-tpcheck-dir/m.svg': No such file or directory" matrix --kv-heads 8 --svg /nonexistent-tpcheck-dir/m.svg)
  expect_usage_error("tpcheck plan: --svg cannot write '/nonexistent-tpcheck-dir/p.svg': No such file or directory" plan --prefill-tp 4 --decode-tp 6 --kv-heads 12 --svg /nonexistent-tpcheck-dir/p.svg)
  expect_usage_error("tpcheck matrix: --svg cannot write '[^']*': Is a directory" matrix --kv-heads 8 --svg ${WORK_DIR})
  expect_usage_error("tpcheck plan: --svg needs a value" plan --prefill-tp 4 --decode-tp 6 --kv-heads 12 --svg "")
  expect_usage_error("tpcheck matrix: --svg given twice" matrix --kv-heads 8 --svg a.svg --svg b.svg)
  # Stage splits and attention DP (SPEC §15.4).
  foreach(command check plan)
    set(sizes --prefill-tp 2 --decode-tp 4 --kv-heads 8)
    expect_usage_error("tpcheck ${command}: --prefill-pp-layers takes layer counts separated by commas, each a whole number from 0 to 65536, got '2,x'" ${command} ${sizes} --prefill-pp-layers 2,x)
    expect_usage_error("tpcheck ${command}: --decode-pp-layers takes layer counts separated by commas, each a whole number from 0 to 65536, got '2,,2'" ${command} ${sizes} --decode-pp-layers 2,,2)
    expect_usage_error("tpcheck ${command}: --decode-pp-layers takes layer counts separated by commas, each a whole number from 0 to 65536, got '-1'" ${command} ${sizes} --decode-pp-layers -1)
    expect_usage_error("tpcheck ${command}: --prefill-pp-layers takes layer counts separated by commas, each a whole number from 0 to 65536, got '65537'" ${command} ${sizes} --prefill-pp-layers 65537)
    expect_usage_error("tpcheck ${command}: --prefill-pp-layers needs a value" ${command} ${sizes} --prefill-pp-layers)
    expect_usage_error("tpcheck ${command}: --prefill-pp-layers given twice" ${command} ${sizes} --prefill-pp-layers 2 --prefill-pp-layers 2)
    expect_usage_error("tpcheck ${command}: give at most one of --decode-pp and --decode-pp-layers" ${command} ${sizes} --decode-pp-layers 2 --decode-pp 2)
    expect_usage_error("tpcheck ${command}: --prefill-pp takes a whole number from 1 to 4096, got '0'" ${command} ${sizes} --prefill-pp 0)
    expect_usage_error("tpcheck ${command}: --prefill-pp splits the model's num_hidden_layers evenly: it needs --model-config \\(or give the layers with --prefill-pp-layers\\)" ${command} ${sizes} --prefill-pp 2)
    expect_usage_error("tpcheck ${command}: prefill pp stages hold 4 layers but decode pp stages hold 3: both sides must hold the same layers" ${command} ${sizes} --prefill-pp-layers 2,2 --decode-pp-layers 3)
    expect_usage_error("tpcheck ${command}: prefill pp stage 1 has 0 layers, must have at least one" ${command} ${sizes} --prefill-pp-layers 2,0)
    expect_usage_error("tpcheck ${command}: prefill pp stage 32 has 0 layers, must have at least one" ${command} --model-config ${CONFIGS}/llama-8kv.json --prefill-tp 2 --decode-tp 4 --prefill-pp 33)
    expect_usage_error("tpcheck ${command}: --prefill-pp-layers holds 24 layers but --model-config '[^']*llama-8kv.json' has num_hidden_layers = 32" ${command} --model-config ${CONFIGS}/llama-8kv.json --prefill-tp 2 --decode-tp 4 --prefill-pp-layers 16,8)
    expect_usage_error("tpcheck ${command}: --model-config '[^']*no-layer-count.json' has no num_hidden_layers to split: give --decode-pp-layers" ${command} --model-config ${bad}/no-layer-count.json --prefill-tp 2 --decode-tp 4 --decode-pp 2)
  endforeach()
  expect_usage_error("tpcheck check: pipeline stages and attention DP are modelled for trtllm and trtllm-v2 only, not for moriio" check --prefill-tp 2 --decode-tp 4 --kv-heads 8 --prefill-adp --connector moriio)
  expect_usage_error("tpcheck check: pipeline stages and attention DP are modelled for trtllm and trtllm-v2 only, not for sglang" check --prefill-tp 2 --decode-tp 4 --kv-heads 8 --decode-pp-layers 1,1 --connector trtllm --connector sglang)
  expect_usage_error("tpcheck matrix: attention DP is modelled for trtllm and trtllm-v2 only, not for nixl" matrix --kv-heads 8 --decode-adp --connector nixl)
  expect_usage_error("tpcheck matrix: unknown option '--prefill-pp-layers'" matrix --kv-heads 8 --prefill-pp-layers 2)
  expect_usage_error("tpcheck plan: --svg draws a tensor-parallel plan: it does not draw pipeline stages or attention DP \\(leave those out to draw the plan of one stage pair\\)" plan --prefill-tp 2 --decode-tp 4 --kv-heads 8 --prefill-adp --svg ${WORK_DIR}/s.svg)
  expect_usage_error("tpcheck check: unknown connector 'trt' \\(expected moriio, nixl, mooncake, sglang, trtllm, trtllm-v2 or general\\)" check --prefill-tp 2 --decode-tp 4 --kv-heads 8 --connector trt)
  file(GLOB leftovers "${WORK_DIR}/*.tmp*")
  if(leftovers)
    string(APPEND failures "\n  temporary files left behind: ${leftovers}")
  endif()

else()
  message(FATAL_ERROR "preflight_cli_test.cmake: unknown GROUP '${GROUP}'")
endif()

if(NOT failures STREQUAL "")
  message(FATAL_ERROR "tpcheck ${GROUP}: mismatches:${failures}")
endif()
message(STATUS "tpcheck ${GROUP}: ${checks} checks passed")
