# SPDX-License-Identifier: MIT
# Install script of the Python package (python/CMakeLists.txt sets MORPHEUS_PY_DIR, the build
# tree's package, MORPHEUS_PY_INSTALL_DIR, MORPHEUS_PY_PATHS_IN and MORPHEUS_STRIP before it
# runs). Copies the package to MORPHEUS_PY_INSTALL_DIR, or to $MORPHEUS_PY_INSTALL_DIR when set
# (setup.py: the wheel's morpheus/, which is then also the install prefix), and writes the
# installed copy's _paths.py: BIN_DIR = <prefix>/bin, relative to the package when inside it.
# file(INSTALL) adds $DESTDIR itself. `cmake --install --strip` strips the extensions as it strips
# the executables.
set(dest ${MORPHEUS_PY_INSTALL_DIR})
if(DEFINED ENV{MORPHEUS_PY_INSTALL_DIR})
  set(dest $ENV{MORPHEUS_PY_INSTALL_DIR})
endif()
file(INSTALL DESTINATION "${dest}" TYPE DIRECTORY FILES "${MORPHEUS_PY_DIR}/"
     PATTERN __pycache__ EXCLUDE PATTERN _paths.py EXCLUDE)
file(RELATIVE_PATH MORPHEUS_PY_BIN_DIR "${dest}" "${CMAKE_INSTALL_PREFIX}/bin")
if(MORPHEUS_PY_BIN_DIR MATCHES "^[.][.]")
  set(MORPHEUS_PY_BIN_DIR "${CMAKE_INSTALL_PREFIX}/bin")
endif()
configure_file("${MORPHEUS_PY_PATHS_IN}" "$ENV{DESTDIR}${dest}/_paths.py" @ONLY)
message(STATUS "Installing: $ENV{DESTDIR}${dest}/_paths.py (BIN_DIR = ${MORPHEUS_PY_BIN_DIR})")
if(CMAKE_INSTALL_DO_STRIP AND MORPHEUS_STRIP)
  file(GLOB extensions "$ENV{DESTDIR}${dest}/_*.so")
  foreach(so ${extensions})
    execute_process(COMMAND ${MORPHEUS_STRIP} --strip-unneeded ${so})
  endforeach()
endif()
