# SPDX-License-Identifier: MIT
# morpheus_target_defaults(<target> [TORCH_FREE]): warnings, sanitizers and include root for
# every project target. Torch-free targets get the stricter conversion warnings.
set(MORPHEUS_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual
    -Wimplicit-fallthrough -Wmissing-declarations)

function(morpheus_target_defaults target)
  cmake_parse_arguments(ARG "TORCH_FREE" "" "" ${ARGN})
  target_compile_options(${target} PRIVATE ${MORPHEUS_WARNINGS})
  if(ARG_TORCH_FREE)
    target_compile_options(${target} PRIVATE -Wconversion -Wsign-conversion)
  endif()
  if(MORPHEUS_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(MORPHEUS_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer
                                             -fno-sanitize-recover=all)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
  if(MORPHEUS_TSAN)
    target_compile_options(${target} PRIVATE -fsanitize=thread -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=thread)
  endif()
  if(CMAKE_CXX_COMPILER_LAUNCHER AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -fpch-preprocess)
  endif()
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR})
endfunction()

# morpheus_torch_target(<target>): LibTorch targets share the PCH built for morpheus_model.
# They compile with OpenMP: ATen's at::parallel_for is a header template whose `omp parallel`
# pragma is ignored without -fopenmp, so our own parallel kernels would run on one thread.
function(morpheus_torch_target target)
  morpheus_target_defaults(${target})
  target_link_libraries(${target} PUBLIC ${TORCH_LIBRARIES} OpenMP::OpenMP_CXX)
  if(NOT target STREQUAL "morpheus_model")
    target_precompile_headers(${target} REUSE_FROM morpheus_model)
  endif()
endfunction()
