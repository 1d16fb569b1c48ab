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

# morpheus prepare (tiny corpus with a ready teacher file, so no Morfessor run).
if(MORPHEUS_WITH_TORCH)
  set(PREP ${TDATA}/prepare)
  set(PREP_LEX --set prepare.root_lexicon=${PREP}/roots.txt
               --set prepare.suffix_lexicon=${PREP}/suffixes.txt)
  morpheus_cli_test(prepare_tiny 0 --stdout-has "\"types_changed\": 2"
    -- ${M} prepare --corpus ${PREP}/corpus.txt --teacher ${PREP}/teacher.tsv
       --out ${CMAKE_CURRENT_BINARY_DIR}/cli_prepare_tiny ${PREP_LEX})
  morpheus_cli_test(prepare_missing_corpus 1 --stderr-has no_such_corpus.txt
    -- ${M} prepare --corpus no_such_corpus.txt --out ${CMAKE_CURRENT_BINARY_DIR}/cli_prepare_x)
  morpheus_cli_test(prepare_malformed_teacher 1 --stderr-has "line 2"
    -- ${M} prepare --corpus ${PREP}/corpus.txt --teacher ${PREP}/bad_teacher.tsv
       --out ${CMAKE_CURRENT_BINARY_DIR}/cli_prepare_bad ${PREP_LEX})
  morpheus_cli_test(prepare_set_outside_section 1 --stderr-has "prepare.*"
    -- ${M} prepare --corpus ${PREP}/corpus.txt --teacher ${PREP}/teacher.tsv
       --out ${CMAKE_CURRENT_BINARY_DIR}/cli_prepare_set --set model.dim=3)
  morpheus_cli_test(prepare_needs_out 2 -- ${M} prepare --corpus ${PREP}/corpus.txt)
endif()
