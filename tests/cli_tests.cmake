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

# Round trips of the subword baselines (trained small on the UD dev sentences; skipped without
# ../shared/data, failed without it in CI).
set(DEV_SENTENCES ${PROJECT_SOURCE_DIR}/../shared/data/corpus/dev_ud_sentences.txt)
function(morpheus_round_trip_test name)
  add_test(NAME cli.${name} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/round_trip.sh ${ARGN})
  set_tests_properties(cli.${name} PROPERTIES LABELS e2e SKIP_RETURN_CODE 77)
endfunction()
if(MORPHEUS_WITH_SPM)
  set(SPM $<TARGET_FILE:morpheus-spm>)
  morpheus_round_trip_test(spm_bpe_round_trip spm-bpe ${SPM} ${DEV_SENTENCES} 2000
    ${DEV_SENTENCES} ${TDATA}/round_trip_input.txt)
  morpheus_round_trip_test(spm_unigram_round_trip spm-unigram ${SPM} ${DEV_SENTENCES} 2000
    ${DEV_SENTENCES} ${TDATA}/round_trip_input.txt)
  morpheus_cli_test(spm_missing_model 1 --stderr-has "no spm.json"
    -- ${SPM} encode --model ${TDATA} ${TDATA}/round_trip_input.txt)
  morpheus_cli_test(spm_bad_type 1 --stderr-has "unknown --type"
    -- ${SPM} train --corpus ${TDATA}/round_trip_input.txt --type wordpiece --out /tmp/x)
endif()
if(MORPHEUS_WITH_TORCH)
  morpheus_round_trip_test(cbpe_round_trip cbpe ${M} ${DEV_SENTENCES} 4000
    ${DEV_SENTENCES} ${TDATA}/round_trip_input.txt)
  morpheus_cli_test(cbpe_missing_model 1 --stderr-has "no cbpe.json"
    -- ${M} cbpe encode --model ${TDATA} ${TDATA}/round_trip_input.txt)
  morpheus_cli_test(cbpe_train_needs_input 1 --stderr-has "exactly one of"
    -- ${M} cbpe train --vocab-size 300 --out /tmp/x)
endif()
