# Installs the build tree into a scratch prefix, then configures, builds and runs a small
# outside project that uses find_package(tilewave), once per compiler in COMPILERS (a
# ;-separated list, e.g. g++ and clang++-22). The project sets no CMAKE_CXX_STANDARD: the
# exported target carries C++20. LAUNCHER (optional, ccache) is the consumer's compiler
# launcher: ccache hashes the source and every header it includes from the prefix, so an
# installed header that changed or went missing is a miss and is compiled (or fails) as
# without it. Run by ctest (consumer.find_package). The consumer program compiles into
# CACHE_DIR (the build's test compile cache) unless TILEWAVE_CACHE_DIR is set.
if(CACHE_DIR AND "$ENV{TILEWAVE_CACHE_DIR}" STREQUAL "")
  set(ENV{TILEWAVE_CACHE_DIR} ${CACHE_DIR})
endif()
set(prefix ${WORK_DIR}/prefix)
set(launcher_arg "")
if(LAUNCHER)
  set(launcher_arg -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${prefix}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install into ${prefix} failed (${rc})")
endif()
string(REPLACE "," ";" compilers "${COMPILERS}")
foreach(cxx ${compilers})
  get_filename_component(tag ${cxx} NAME)
  set(build ${WORK_DIR}/build-${tag})
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/consumer/project -B ${build}
                          -G Ninja -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${cxx} ${launcher_arg}
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configuring the consumer project with ${cxx} failed (${rc})")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} -j 2 RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "building the consumer project with ${cxx} failed (${rc})")
  endif()
  execute_process(COMMAND ${build}/consumer RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  message(STATUS "consumer (${cxx}) printed: ${out}")
  if(NOT rc EQUAL 0 OR NOT out MATCHES "consumer ok")
    message(FATAL_ERROR "the consumer program built with ${cxx} failed (${rc}): ${out}")
  endif()
endforeach()
