# SPDX-License-Identifier: MIT
# End-to-end CLI tests: exit codes, messages and output formats of the real executables.
set(EXPECT ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect_exit.sh)
set(TDATA ${CMAKE_CURRENT_SOURCE_DIR}/data)

function(morpheus_cli_test name)
  add_test(NAME cli.${name} COMMAND ${EXPECT} ${ARGN})
  set_tests_properties(cli.${name} PROPERTIES LABELS e2e)
endfunction()

if(MORPHEUS_WITH_TORCH)
  set(M $<TARGET_FILE:morpheus>)
  morpheus_cli_test(help 0 --stdout-has pretokenize -- ${M} --help)
  morpheus_cli_test(no_command_is_usage_error 2 -- ${M})
  morpheus_cli_test(unknown_flag_is_usage_error 2 -- ${M} --bogus)
  morpheus_cli_test(unknown_command_is_usage_error 2 -- ${M} frobnicate)
  morpheus_cli_test(pretokenize_file 0 --stdout-has [\"apostrophe\",\"'\"]
    -- ${M} pretokenize ${TDATA}/pretokenize_input.txt)
  morpheus_cli_test(pretokenize_stdin 0 --stdin ${TDATA}/pretokenize_input.txt
    --stdout-has [\"letter\",\"İSTANBUL\"] -- ${M} pretokenize)
  morpheus_cli_test(pretokenize_missing_file 1 --stderr-has no_such_file.txt
    -- ${M} pretokenize no_such_file.txt)
  morpheus_cli_test(pretokenize_directory 1 --stderr-has "is a directory" -- ${M} pretokenize ${TDATA})
  morpheus_cli_test(pretokenize_invalid_utf8 1 --stderr-has "line 2"
    -- ${M} pretokenize ${TDATA}/invalid_utf8.txt)
  morpheus_cli_test(pretokenize_allow_invalid 0 --stdout-has [\"invalid\",195]
    -- ${M} pretokenize --allow-invalid ${TDATA}/invalid_utf8.txt)
  morpheus_cli_test(device_cpu 0 --stdout-has \"cpu\" -- ${M} device --device cpu)
  morpheus_cli_test(device_unknown 1 --stderr-has "unknown device" -- ${M} device --device tpu)
endif()

if(MORPHEUS_WITH_SPM)
  morpheus_cli_test(spm_help 0 -- $<TARGET_FILE:morpheus-spm> --help)
endif()

# morpheus eval on tiny gold files with a test-only awk segmenter (paths relative to the repo).
if(MORPHEUS_WITH_TORCH)
  set(EVAL_OUT ${CMAKE_CURRENT_BINARY_DIR}/cli_eval_out)
  add_test(NAME cli.eval_tiny_config COMMAND ${EXPECT} 0 --stderr-has "report.md"
    -- ${M} eval --config tests/data/eval/tiny_eval.json --out ${EVAL_OUT})
  set_tests_properties(cli.eval_tiny_config PROPERTIES LABELS e2e
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  morpheus_cli_test(eval_unknown_config_key 1 --stderr-has "unknown config key 'gold.bogus'"
    -- ${M} eval --config ${TDATA}/eval/tiny_eval.json --out ${EVAL_OUT}_bad --set gold.bogus=1)
  morpheus_cli_test(eval_missing_config 2 -- ${M} eval --config no_such.json --out ${EVAL_OUT}_x)
  morpheus_cli_test(eval_needs_out 2 -- ${M} eval --config ${TDATA}/eval/tiny_eval.json)
endif()
