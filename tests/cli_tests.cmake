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
  set(CONFIGS ${PROJECT_SOURCE_DIR}/configs)
  # One substring: expect_exit.sh checks a single --stdout-has; JSON keys are sorted.
  morpheus_cli_test(info_paper_counts 0 --stdout-has
    "{\"boundary_detector\":4108804,\"char_encoder\":2919968,\"char_vocab_size\":76,\"inference_total\":7440292,\"mlm_head\":7469836,\"segment_pooling\":411520,\"sgns\":38400000,"
    -- ${M} info --config ${CONFIGS}/paper.json --set model.char_vocab_size=76)
  morpheus_cli_test(info_tiny 0 --stdout-has inference_total -- ${M} info --config ${CONFIGS}/tiny.json)
  morpheus_cli_test(info_unknown_key 1 --stderr-has "model.bogus"
    -- ${M} info --config ${CONFIGS}/tiny.json --set model.bogus=1)
  morpheus_cli_test(info_bad_value 1 --stderr-has "num_heads = 7"
    -- ${M} info --config ${CONFIGS}/paper.json --set model.num_heads=7)
  morpheus_cli_test(info_missing_config 1 --stderr-has no_such.json -- ${M} info --config no_such.json)
endif()

if(MORPHEUS_WITH_SPM)
  morpheus_cli_test(spm_help 0 -- $<TARGET_FILE:morpheus-spm> --help)
endif()
