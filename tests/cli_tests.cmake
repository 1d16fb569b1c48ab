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

# morpheus hybrid (tools/cmd_hybrid.cc). Tests that need the released lexicons run only when
# ../shared/data/hybrid (or $MORPHEUS_SHARED_DATA/hybrid) exists.
if(MORPHEUS_WITH_TORCH)
  set(M $<TARGET_FILE:morpheus>)
  if(DEFINED ENV{MORPHEUS_SHARED_DATA})
    set(HYBRID_LEX $ENV{MORPHEUS_SHARED_DATA}/hybrid)
  else()
    set(HYBRID_LEX ${PROJECT_SOURCE_DIR}/../shared/data/hybrid)
  endif()
  morpheus_cli_test(hybrid_help 0 --stdout-has segment -- ${M} hybrid --help)
  morpheus_cli_test(hybrid_no_action_is_usage_error 2 -- ${M} hybrid)
  morpheus_cli_test(hybrid_lexicon_required 2 --stderr-has lexicon -- ${M} hybrid encode)
  morpheus_cli_test(hybrid_missing_lexicon_dir 1 --stderr-has no_such_lexicon
    -- ${M} hybrid encode --lexicon ${TDATA}/no_such_lexicon ${TDATA}/hybrid_input.txt)
  morpheus_cli_test(hybrid_malformed_lexicon 1 --stderr-has "kokler.json: line 3"
    -- ${M} hybrid encode --lexicon ${TDATA}/hybrid_bad_lexicon ${TDATA}/hybrid_input.txt)
  if(EXISTS ${HYBRID_LEX}/kokler.json)
    morpheus_cli_test(hybrid_encode_file 0 --stdout-has "0 227 20034 2 2656 10572"
      -- ${M} hybrid encode --lexicon ${HYBRID_LEX} ${TDATA}/hybrid_input.txt)
    morpheus_cli_test(hybrid_encode_stdin 0 --stdin ${TDATA}/hybrid_input.txt
      --stdout-has "2611 9649 2 3101 20000 20023" -- ${M} hybrid encode --lexicon ${HYBRID_LEX} -)
    morpheus_cli_test(hybrid_decode_reference 0 --stdout-has "Kitapı"
      -- ${M} hybrid decode --lexicon ${HYBRID_LEX} ${TDATA}/hybrid_ids.txt)
    morpheus_cli_test(hybrid_decode_bad_id 1 --stderr-has "line 2: \"abc\" is not a token id"
      -- ${M} hybrid decode --lexicon ${HYBRID_LEX} ${TDATA}/hybrid_bad_ids.txt)
    morpheus_cli_test(hybrid_lossless_round_trip 0 --stdout-has "Kitabı okudum ve HTTPServer"
      -- sh -c "${M} hybrid encode --lossless --lexicon ${HYBRID_LEX} ${TDATA}/hybrid_input.txt | ${M} hybrid decode --lossless --lexicon ${HYBRID_LEX} -")
    morpheus_cli_test(hybrid_lossless_keeps_harflerle 0 --stdout-has "saatlerde harflerle"
      -- sh -c "${M} hybrid encode --lossless --lexicon ${HYBRID_LEX} ${TDATA}/hybrid_input.txt | ${M} hybrid decode --lossless --lexicon ${HYBRID_LEX}")
    morpheus_cli_test(hybrid_segment 0 --stdout-has "Kitab ı"
      -- ${M} hybrid segment --lexicon ${HYBRID_LEX} ${TDATA}/hybrid_words.txt)
    morpheus_cli_test(hybrid_invalid_utf8 1 --stderr-has "line 2: invalid UTF-8 at byte 0"
      -- ${M} hybrid encode --lexicon ${HYBRID_LEX} ${TDATA}/invalid_utf8.txt)
  elseif("$ENV{CI}" STREQUAL "true")
    # In CI the shared data must be present: fail instead of silently dropping the tests above.
    morpheus_cli_test(hybrid_lexicons_present 0 -- test -f ${HYBRID_LEX}/kokler.json)
  endif()
endif()
