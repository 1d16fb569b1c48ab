# SPDX-License-Identifier: MIT
# The one version of the project: project(VERSION) plus `git describe` of the checkout when git
# and a .git are there (else empty), written into the generated core/version.cc. CMake runs
# again when HEAD or the index moves, so the description follows the checkout.
find_package(Git QUIET)
set(MORPHEUS_GIT_DESCRIBE "")
if(GIT_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --tags
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE MORPHEUS_GIT_DESCRIBE OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET)
  foreach(what HEAD index)
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --git-path ${what}
                    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                    OUTPUT_VARIABLE git_path OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(git_path AND NOT IS_ABSOLUTE ${git_path})
      set(git_path ${PROJECT_SOURCE_DIR}/${git_path})
    endif()
    if(git_path AND EXISTS ${git_path})
      set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                   ${git_path})
    endif()
  endforeach()
endif()
configure_file(${PROJECT_SOURCE_DIR}/core/version.cc.in ${PROJECT_BINARY_DIR}/core/version.cc
               @ONLY)
