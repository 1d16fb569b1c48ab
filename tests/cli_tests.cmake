# SPDX-License-Identifier: MIT
# End-to-end CLI tests: exit codes, messages and output formats of the real executables.
set(EXPECT ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect_exit.sh)
set(TDATA ${CMAKE_CURRENT_SOURCE_DIR}/data)
# Tests that read ../shared/data run under cli/shared_data.sh, which finds the directory when the
# test runs ($MORPHEUS_SHARED_DATA, or else <repo>/../shared/data, as tests/support does), puts it
# in place of "@SHARED@" in the arguments, and skips the test when a needed file is missing, or
# fails it when CI=true.
set(SHARED_DATA ${CMAKE_CURRENT_SOURCE_DIR}/cli/shared_data.sh)
set(DEV_SENTENCES @SHARED@/corpus/dev_ud_sentences.txt)

function(morpheus_cli_test name)
  add_test(NAME cli.${name} COMMAND ${EXPECT} ${ARGN})
  set_tests_properties(cli.${name} PROPERTIES LABELS e2e)
endfunction()

# morpheus_shared_cli_test(NAME REL_PATH EXPECT_EXIT_ARGS...): a morpheus_cli_test that needs
# REL_PATH of the shared data.
function(morpheus_shared_cli_test name rel)
  add_test(NAME cli.${name} COMMAND ${SHARED_DATA} ${rel} -- ${EXPECT} ${ARGN})
  set_tests_properties(cli.${name} PROPERTIES LABELS e2e SKIP_RETURN_CODE 77)
endfunction()

if(MORPHEUS_WITH_TORCH)
  set(M $<TARGET_FILE:morpheus-torch>)
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
  morpheus_cli_test(version 0 --stdout-has "morpheus ${PROJECT_VERSION}" -- ${M} --version)
  morpheus_cli_test(train_help_shows_dist_flags 0 --stdout-has --dist-timeout -- ${M} train --help)
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

# morpheus hybrid (tools/cmd_hybrid.cc). The tests of the released lexicons need
# <shared data>/hybrid.
if(MORPHEUS_WITH_TORCH)
  set(M $<TARGET_FILE:morpheus-torch>)
  set(HYBRID_LEX @SHARED@/hybrid)
  set(LEX_FILE hybrid/kokler.json)
  morpheus_cli_test(hybrid_help 0 --stdout-has segment -- ${M} hybrid --help)
  morpheus_cli_test(hybrid_no_action_is_usage_error 2 -- ${M} hybrid)
  morpheus_cli_test(hybrid_lexicon_required 2 --stderr-has lexicon -- ${M} hybrid encode)
  morpheus_cli_test(hybrid_missing_lexicon_dir 1 --stderr-has no_such_lexicon
    -- ${M} hybrid encode --lexicon ${TDATA}/no_such_lexicon ${TDATA}/hybrid_input.txt)
  # A malformed lexicon, written at configure time (lexicon files are never tracked).
  set(BAD_LEX ${CMAKE_CURRENT_BINARY_DIR}/hybrid_bad_lexicon)
  file(WRITE ${BAD_LEX}/kokler.json "{\n  \"<uppercase>\": 0,\n  \"<unknown>\" 1\n}\n")
  file(WRITE ${BAD_LEX}/ekler.json "{\n  \"lar\": 3\n}\n")
  file(WRITE ${BAD_LEX}/bpe_tokenler.json "{\n  \"k\": 4\n}\n")
  morpheus_cli_test(hybrid_malformed_lexicon 1 --stderr-has "kokler.json: line 3"
    -- ${M} hybrid encode --lexicon ${BAD_LEX} ${TDATA}/hybrid_input.txt)
  morpheus_shared_cli_test(hybrid_encode_file ${LEX_FILE}
    0 --stdout-has "0 227 20034 2 2656 10572"
    -- ${M} hybrid encode --lexicon ${HYBRID_LEX} ${TDATA}/hybrid_input.txt)
  morpheus_shared_cli_test(hybrid_encode_stdin ${LEX_FILE} 0 --stdin ${TDATA}/hybrid_input.txt
    --stdout-has "2611 9649 2 3101 20000 20023" -- ${M} hybrid encode --lexicon ${HYBRID_LEX} -)
  morpheus_shared_cli_test(hybrid_decode_reference ${LEX_FILE} 0 --stdout-has "Kitapı"
    -- ${M} hybrid decode --lexicon ${HYBRID_LEX} ${TDATA}/hybrid_ids.txt)
  morpheus_shared_cli_test(hybrid_decode_bad_id ${LEX_FILE}
    1 --stderr-has "line 2: \"abc\" is not a token id"
    -- ${M} hybrid decode --lexicon ${HYBRID_LEX} ${TDATA}/hybrid_bad_ids.txt)
  morpheus_shared_cli_test(hybrid_lossless_round_trip ${LEX_FILE}
    0 --stdout-has "Kitabı okudum ve HTTPServer"
    -- sh -c "${M} hybrid encode --lossless --lexicon ${HYBRID_LEX} ${TDATA}/hybrid_input.txt | ${M} hybrid decode --lossless --lexicon ${HYBRID_LEX} -")
  morpheus_shared_cli_test(hybrid_lossless_keeps_harflerle ${LEX_FILE}
    0 --stdout-has "saatlerde harflerle"
    -- sh -c "${M} hybrid encode --lossless --lexicon ${HYBRID_LEX} ${TDATA}/hybrid_input.txt | ${M} hybrid decode --lossless --lexicon ${HYBRID_LEX}")
  morpheus_shared_cli_test(hybrid_segment ${LEX_FILE} 0 --stdout-has "Kitab ı"
    -- ${M} hybrid segment --lexicon ${HYBRID_LEX} ${TDATA}/hybrid_words.txt)
  morpheus_shared_cli_test(hybrid_invalid_utf8 ${LEX_FILE}
    1 --stderr-has "line 2: invalid UTF-8 at byte 0"
    -- ${M} hybrid encode --lexicon ${HYBRID_LEX} ${TDATA}/invalid_utf8.txt)
endif()

# Round trips of the subword baselines, trained small on the UD dev sentences of the shared data.
function(morpheus_round_trip_test name)
  add_test(NAME cli.${name} COMMAND ${SHARED_DATA} corpus/dev_ud_sentences.txt --
    ${CMAKE_CURRENT_SOURCE_DIR}/cli/round_trip.sh ${ARGN})
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

# morpheus eval on tiny gold files with a test-only awk segmenter (paths relative to the repo).
if(MORPHEUS_WITH_TORCH)
  set(EVAL_OUT ${CMAKE_CURRENT_BINARY_DIR}/cli_eval_out)
  add_test(NAME cli.eval_tiny_config COMMAND ${EXPECT} 0 --stderr-has "report.md"
    -- ${M} eval --config tests/data/eval/tiny_eval.json --out ${EVAL_OUT})
  set_tests_properties(cli.eval_tiny_config PROPERTIES LABELS e2e
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  morpheus_cli_test(eval_unknown_config_key 1 --stderr-has "unknown config key 'gold.bogus'"
    -- ${M} eval --config ${TDATA}/eval/tiny_eval.json --out ${EVAL_OUT}_bad --set gold.bogus=1)
  morpheus_cli_test(eval_missing_config 1 --stderr-has no_such.json -- ${M} eval --config no_such.json --out ${EVAL_OUT}_x)
  morpheus_cli_test(eval_needs_out 2 -- ${M} eval --config ${TDATA}/eval/tiny_eval.json)
  # configs/eval.json reads the main job's artifacts from {run_dir}.
  morpheus_cli_test(eval_needs_run_dir 1 --stderr-has "--run-dir"
    -- ${M} eval --config ${PROJECT_SOURCE_DIR}/configs/eval.json --out ${EVAL_OUT}_run)
  morpheus_cli_test(eval_missing_artifacts 1 --stderr-has "run scripts/main.sh first"
    -- ${M} eval --config ${PROJECT_SOURCE_DIR}/configs/eval.json
       --run-dir ${CMAKE_CURRENT_BINARY_DIR}/no_such_run --out ${EVAL_OUT}_run)
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
  # The whole config resolves, as for train: an unknown key in any section fails at once.
  morpheus_cli_test(prepare_set_unknown_model_key 1 --stderr-has "unknown config key 'model.dim'"
    -- ${M} prepare --corpus ${PREP}/corpus.txt --teacher ${PREP}/teacher.tsv
       --out ${CMAKE_CURRENT_BINARY_DIR}/cli_prepare_set --set model.dim=3)
  morpheus_cli_test(prepare_config_unknown_model_key 1
    --stderr-has "unknown config key 'model.char_dimm'"
    -- ${M} prepare --corpus ${PREP}/corpus.txt --teacher ${PREP}/teacher.tsv
       --config ${PREP}/bad_model_key.json --out ${CMAKE_CURRENT_BINARY_DIR}/cli_prepare_cfg)
  morpheus_cli_test(prepare_needs_out 2 -- ${M} prepare --corpus ${PREP}/corpus.txt)
endif()

# morpheus export|encode|decode|segment|boundaries|embed|neighbors on a 2-step tiny model (tools/torch/cmd_neural.cc).
# They run the torch-free front `morpheus` (it execs morpheus-torch for
# prepare/train/export/embed/neighbors).
if(MORPHEUS_WITH_TORCH)
  set(MF $<TARGET_FILE:morpheus>)
  add_test(NAME cli.neural_round_trip COMMAND ${SHARED_DATA} corpus/dev_ud_sentences.txt --
    ${CMAKE_CURRENT_SOURCE_DIR}/cli/neural_round_trip.sh ${MF} ${TDATA}/prepare
    ${PROJECT_SOURCE_DIR}/configs/tiny.json ${TDATA}/round_trip_input.txt ${DEV_SENTENCES})
  set_tests_properties(cli.neural_round_trip PROPERTIES LABELS e2e SKIP_RETURN_CODE 77)
  add_test(NAME cli.export_card COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/export_card.sh ${MF}
    ${TDATA}/prepare ${PROJECT_SOURCE_DIR}/configs/tiny.json)
  set_tests_properties(cli.export_card PROPERTIES LABELS e2e)
  add_test(NAME cli.embedding_parts COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/embedding_parts.sh
    ${MF} ${TDATA}/prepare ${PROJECT_SOURCE_DIR}/configs/tiny.json)
  set_tests_properties(cli.embedding_parts PROPERTIES LABELS e2e)
  add_test(NAME cli.segment_cache COMMAND ${SHARED_DATA} corpus/dev_ud_sentences.txt --
    ${CMAKE_CURRENT_SOURCE_DIR}/cli/segment_cache.sh ${MF} ${TDATA}/prepare
    ${PROJECT_SOURCE_DIR}/configs/tiny.json ${DEV_SENTENCES})
  set_tests_properties(cli.segment_cache PROPERTIES LABELS e2e SKIP_RETURN_CODE 77)
  morpheus_cli_test(cache_dump_missing_file 1 --stderr-has no_such.cache
    -- ${MF} cache dump no_such.cache)
  morpheus_cli_test(cache_dump_not_a_cache 1 --stderr-has "not a segmentation cache"
    -- ${MF} cache dump ${TDATA}/round_trip_input.txt)
  add_test(NAME cli.choose_threshold COMMAND ${SHARED_DATA} gold/mc2010_tur_trainset.tsv --
    env MORPHEUS_SHARED_DATA=@SHARED@ ${CMAKE_CURRENT_SOURCE_DIR}/cli/choose_threshold.sh ${MF}
    ${TDATA}/prepare ${PROJECT_SOURCE_DIR}/configs/tiny.json)
  set_tests_properties(cli.choose_threshold PROPERTIES LABELS e2e SKIP_RETURN_CODE 77)
  # The student study's diagnosis script (studies/boundary_breakdown.py) on UD types tune words.
  add_test(NAME cli.boundary_breakdown COMMAND ${SHARED_DATA} gold/ud_types_segmentation.tsv --
    ${CMAKE_CURRENT_SOURCE_DIR}/cli/boundary_breakdown.sh ${MF}
    @SHARED@/gold/ud_types_segmentation.tsv)
  set_tests_properties(cli.boundary_breakdown PROPERTIES LABELS e2e SKIP_RETURN_CODE 77)
  # Its objective ablation's summary (studies/objective_ablation_summary.py), the same words.
  add_test(NAME cli.objective_ablation_summary COMMAND ${SHARED_DATA}
    gold/ud_types_segmentation.tsv -- ${CMAKE_CURRENT_SOURCE_DIR}/cli/objective_ablation_summary.sh
    ${MF} @SHARED@/gold/ud_types_segmentation.tsv)
  set_tests_properties(cli.objective_ablation_summary PROPERTIES LABELS e2e SKIP_RETURN_CODE 77)
  morpheus_cli_test(neural_missing_model 1 --stderr-has "no morpheus.json"
    -- ${MF} encode --model ${TDATA} ${TDATA}/round_trip_input.txt)
  morpheus_cli_test(neural_bad_shard 1 --stderr-has "bad --shard"
    -- ${MF} encode --model ${TDATA} --shard 2/2 ${TDATA}/round_trip_input.txt)
  morpheus_cli_test(export_help_names_the_stream 0 --stdout-has "--merge-share"
    -- ${M} export --help)
  morpheus_cli_test(export_plain_share_out_of_range 2 --stderr-has "--word-initial-share"
    -- ${M} export-plain --words ${TDATA}/hybrid_words.txt --out /tmp/x --word-initial-share 1.5)
  morpheus_cli_test(export_plain_shares_leave_no_room 1 --stderr-has "leave part of the piece"
    -- ${M} export-plain --words ${TDATA}/hybrid_words.txt --out /tmp/x --word-initial-share 0.5
    --merge-share 0.6)
  add_test(NAME cli.stream_segment COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/stream_segment.sh
    $<TARGET_FILE:morpheus> ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli.stream_segment PROPERTIES LABELS e2e)
  add_test(NAME cli.publish_results COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/publish_results.sh
    ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli.publish_results PROPERTIES LABELS e2e)
  morpheus_cli_test(neural_export_needs_words 1 --stderr-has "exactly one of --words"
    -- ${M} export --checkpoint ${TDATA} --out /tmp/x)
  morpheus_cli_test(neural_embed_bad_ext 1 --stderr-has ".npy or .vec"
    -- ${MF} embed --model ${TDATA} --words ${TDATA}/hybrid_words.txt --out /tmp/x.txt)
  morpheus_cli_test(neural_embed_bad_device 1 --stderr-has "device"
    -- ${MF} embed --model ${TDATA} --words ${TDATA}/hybrid_words.txt --out /tmp/x.npy
    --device tpu)
  # neighbors --queries, index build and neighbors --faiss on generated vectors (no model).
  add_test(NAME cli.retrieval COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/retrieval.sh ${MF})
  set_tests_properties(cli.retrieval PROPERTIES LABELS e2e)
  # The language-model study end to end (studies/lm_study.sh) on a 2-step tiny model, the first
  # 600 npm corpus lines and a one-layer GPT; and the lm commands' widths and errors.
  add_test(NAME cli.lm_study COMMAND ${SHARED_DATA} corpus/dev_ud_sentences.txt hybrid/kokler.json
    -- ${CMAKE_CURRENT_SOURCE_DIR}/cli/lm_study.sh ${MF} ${TDATA}/prepare
    ${PROJECT_SOURCE_DIR}/configs/tiny.json)
  set_tests_properties(cli.lm_study PROPERTIES LABELS e2e SKIP_RETURN_CODE 77)
  morpheus_cli_test(lm_info_reference_widths 0 --stdout-has
    "{\"parameters\":58452240,\"vocab_size\":50000,\"width\":560}"
    -- ${M} lm info --config ${PROJECT_SOURCE_DIR}/configs/lm_paper.json --vocab-size 50000)
  morpheus_cli_test(lm_train_missing_ids 1 --stderr-has no_such.ids
    -- ${M} lm train --train no_such.ids --valid no_such.ids --valid-text no_such.txt
       --vocab-size 10 --out ${CMAKE_CURRENT_BINARY_DIR}/cli_lm_missing)
  morpheus_cli_test(lm_train_id_out_of_range 1 --stderr-has ">= vocabulary size 3"
    -- ${M} lm train --train ${TDATA}/hybrid_ids.txt --valid ${TDATA}/hybrid_ids.txt
       --valid-text ${TDATA}/hybrid_input.txt --vocab-size 3
       --out ${CMAKE_CURRENT_BINARY_DIR}/cli_lm_range)
  morpheus_cli_test(lm_check_lossy 0 --stdout-has "\"reversible\": false"
    -- ${M} lm check --text ${TDATA}/hybrid_input.txt --ids ${TDATA}/hybrid_ids.txt
       --decoded ${TDATA}/round_trip_input.txt --vocab-size 100000)
  morpheus_cli_test(lm_unknown_config_key 1 --stderr-has "lm.bogus"
    -- ${M} lm info --vocab-size 10 --set lm.bogus=1)
  morpheus_cli_test(front_help_lists_every_command 0 --stdout-has pretokenize -- ${MF} --help)
  morpheus_cli_test(front_unknown_command 2 -- ${MF} frobnicate)
endif()

# morpheus pack / pack merge (tools/cmd_pack.cc) on a tiny tokenizer (fixture pack_tokenizer):
# compressed inputs, workers, shards merged = the unsharded pack, kill -9, a full disk, bad input;
# and the same packed by a real single-node Slurm cluster (cli/slurm.sh, label slurm).
if(MORPHEUS_WITH_TORCH)
  set(PACK_TOK ${CMAKE_CURRENT_BINARY_DIR}/pack_tokenizer)
  add_test(NAME cli.pack_make_tokenizer COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/python/make_tokenizer.sh
    $<TARGET_FILE:morpheus> ${TDATA}/prepare ${PROJECT_SOURCE_DIR}/configs/tiny.json ${PACK_TOK})
  set_tests_properties(cli.pack_make_tokenizer PROPERTIES LABELS e2e FIXTURES_SETUP pack_tokenizer)
  add_test(NAME cli.pack COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/pack.sh $<TARGET_FILE:morpheus>
    ${PACK_TOK})
  set_tests_properties(cli.pack PROPERTIES LABELS e2e FIXTURES_REQUIRED pack_tokenizer)
  add_test(NAME cli.slurm COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/slurm.sh $<TARGET_FILE:morpheus>
    ${PACK_TOK} ${TDATA}/prepare ${PROJECT_SOURCE_DIR}/configs/tiny.json)
  set_tests_properties(cli.slurm PROPERTIES LABELS "e2e;slurm" FIXTURES_REQUIRED pack_tokenizer
    SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()

# Bad-input suite (tests/cli/bad_input.sh): every command × every fault, generated into
# a temp dir at test time. Torch-free commands run through `morpheus_nt` (the torch-free
# subcommands of `morpheus`, tests/cli/morpheus_nt_main.cc) so they run in the ASan job too.
# Labels: bad_input + fast (torch-free), bad_input + torch, bad_input + slow (the 50 MB line).
add_executable(morpheus_nt cli/morpheus_nt_main.cc)
morpheus_target_defaults(morpheus_nt)
target_link_libraries(morpheus_nt PRIVATE morpheus_tools_commands morpheus_tools_cli morpheus_core)

set(BAD_INPUT ${CMAKE_CURRENT_SOURCE_DIR}/cli/bad_input.sh)
set(BAD_FIX ${CMAKE_CURRENT_BINARY_DIR}/bad_input_fixtures)
set(TEXT_FAULTS empty no_newline crlf nul trunc_utf8 overlong surrogate stray_cont missing directory
  unreadable out_no_dir out_parent_file)
set(MODEL_FAULTS model_missing_file model_truncated model_bitflip model_empty_file model_not_dir)
set(CONFIG_FAULTS cfg_unknown_key cfg_wrong_type cfg_malformed cfg_missing cfg_directory
  cfg_invalid_utf8)
# morpheus_bad_input(BINARY LABEL FIXTURE COMMAND FAULT...)
function(morpheus_bad_input binary label fixture command)
  foreach(fault ${ARGN})
    set(name bad_input.${command}.${fault})
    add_test(NAME ${name} COMMAND ${BAD_INPUT} run ${binary} ${BAD_FIX} ${TDATA} ${command} ${fault})
    if(fault STREQUAL "long_line")
      set_tests_properties(${name} PROPERTIES LABELS "bad_input;slow" SKIP_RETURN_CODE 77)
    else()
      set_tests_properties(${name} PROPERTIES LABELS "bad_input;${label}" SKIP_RETURN_CODE 77)
    endif()
    if(fixture)
      set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED ${fixture})
    endif()
  endforeach()
endfunction()

set(NT $<TARGET_FILE:morpheus_nt>)
add_test(NAME bad_input.setup_nt COMMAND ${BAD_INPUT} setup-nt ${NT} ${BAD_FIX} ${TDATA})
set_tests_properties(bad_input.setup_nt PROPERTIES LABELS "bad_input;fast"
  FIXTURES_SETUP bad_input_nt)
foreach(command pretokenize hybrid-encode hybrid-segment cbpe-encode cbpe-segment cbpe-train prepare)
  morpheus_bad_input(${NT} fast bad_input_nt ${command} ${TEXT_FAULTS} long_line)
endforeach()
foreach(command hybrid-decode cbpe-decode)
  morpheus_bad_input(${NT} fast bad_input_nt ${command} ${TEXT_FAULTS} long_line)
endforeach()
foreach(command hybrid-encode cbpe-encode hybrid-decode cbpe-decode)
  morpheus_bad_input(${NT} fast bad_input_nt ${command} ${MODEL_FAULTS})
endforeach()
morpheus_bad_input(${NT} fast bad_input_nt prepare ${CONFIG_FAULTS})
morpheus_bad_input(${NT} fast "" eval ${CONFIG_FAULTS})

if(MORPHEUS_WITH_TORCH)
  set(M $<TARGET_FILE:morpheus-torch>)
  add_test(NAME bad_input.setup_torch COMMAND ${BAD_INPUT} setup-torch ${M} ${BAD_FIX} ${TDATA}
    ${PROJECT_SOURCE_DIR}/configs/tiny.json)
  set_tests_properties(bad_input.setup_torch PROPERTIES LABELS "bad_input;torch"
    FIXTURES_SETUP bad_input_torch)
  foreach(command encode segment embed decode)
    morpheus_bad_input(${M} torch bad_input_torch ${command} ${TEXT_FAULTS})
  endforeach()
  foreach(command encode segment decode)
    morpheus_bad_input(${M} torch bad_input_torch ${command} long_line)
  endforeach()
  foreach(command encode decode)
    morpheus_bad_input(${M} torch bad_input_torch ${command} ${MODEL_FAULTS})
  endforeach()
  morpheus_bad_input(${M} torch bad_input_torch info ${CONFIG_FAULTS})
  morpheus_bad_input(${M} torch bad_input_torch train ${CONFIG_FAULTS} data_missing_cache
    data_truncated_cache data_bitflip_cache)
  morpheus_bad_input(${M} torch bad_input_torch export ckpt_missing ckpt_truncated ckpt_bitflip)
endif()

# kill -9 during prepare, train and export, then rerun (tests/cli/kill9.sh; about 2 minutes).
if(MORPHEUS_WITH_TORCH)
  add_test(NAME cli.kill9_resume COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/kill9.sh
    $<TARGET_FILE:morpheus-torch> ${TDATA}/prepare ${PROJECT_SOURCE_DIR}/configs/tiny.json)
  set_tests_properties(cli.kill9_resume PROPERTIES LABELS "e2e;slow;torch" TIMEOUT 900)
endif()

# A missing shared data file skips a test, and fails it when CI=true: one data-needing gtest and
# the shell helper (cli/lib.sh through cli/shared_data.sh), each pointed at an empty shared data
# directory, once with CI=true and once without CI.
set(EMPTY_SHARED ${CMAKE_CURRENT_BINARY_DIR}/empty_shared_data)
file(MAKE_DIRECTORY ${EMPTY_SHARED})
set(DATA_GTEST $<TARGET_FILE:morpheus_core_tests>
  --gtest_filter=HybridLexiconTest.LoadsTheReleasedLexicons)
function(morpheus_ci_test name)
  add_test(NAME ci.${name} COMMAND ${EXPECT} ${ARGN})
  set_tests_properties(ci.${name} PROPERTIES LABELS fast)
endfunction()
morpheus_ci_test(missing_data_fails_gtest 1 --stdout-has "required in CI (CI=true) but missing"
  -- env CI=true MORPHEUS_SHARED_DATA=${EMPTY_SHARED} ${DATA_GTEST})
morpheus_ci_test(missing_data_skips_gtest_outside_ci 0 --stdout-has "[  SKIPPED ] 1 test"
  -- env -u CI MORPHEUS_SHARED_DATA=${EMPTY_SHARED} ${DATA_GTEST})
morpheus_ci_test(missing_data_fails_shell 1 --stdout-has "required in CI (CI=true) but missing"
  -- env CI=true MORPHEUS_SHARED_DATA=${EMPTY_SHARED} ${SHARED_DATA} corpus/dev_ud_sentences.txt
     -- true)
morpheus_ci_test(missing_data_skips_shell_outside_ci 77 --stdout-has "skipped: not available"
  -- env -u CI MORPHEUS_SHARED_DATA=${EMPTY_SHARED} ${SHARED_DATA} corpus/dev_ud_sentences.txt
     -- true)

# The device check (dev/gpu_check.sh) end to end on the CPU: a fixture prepared directory,
# device_check, tiny and paper training, export and segment with CUDA hidden, model-server speed;
# every CUDA row reads "skipped (no CUDA)". Needs bench/device_check.
if(MORPHEUS_WITH_TORCH AND MORPHEUS_BUILD_BENCH)
  add_test(NAME cli.gpu_check_smoke COMMAND ${EXPECT} 0 --stdout-has "skipped (no CUDA)"
    -- bash ${PROJECT_SOURCE_DIR}/dev/gpu_check.sh --smoke ${CMAKE_BINARY_DIR})
  set_tests_properties(cli.gpu_check_smoke PROPERTIES LABELS e2e TIMEOUT 300)
endif()
