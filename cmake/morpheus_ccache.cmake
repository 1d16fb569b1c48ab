# SPDX-License-Identifier: MIT
# Uses ccache as the compiler launcher when MORPHEUS_CCACHE is ON and ccache is installed.
# CCACHE_BASEDIR makes paths relative, so fresh clones elsewhere (CI) hit the same cache.
if(MORPHEUS_CCACHE)
  find_program(MORPHEUS_CCACHE_PROGRAM ccache)
  if(MORPHEUS_CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER
        ${CMAKE_COMMAND} -E env
        "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
        "CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}" "CCACHE_NOHASHDIR=true"
        ${MORPHEUS_CCACHE_PROGRAM})
  else()
    message(STATUS "ccache not found: builds will not be cached (apt-get install ccache)")
  endif()
endif()
