find_package(doctest CONFIG REQUIRED)
include(${doctest_DIR}/doctest.cmake)

# One doctest main shared by all suites (compiled once).
if(NOT TARGET tw_doctest_main)
  add_library(tw_doctest_main STATIC ${PROJECT_SOURCE_DIR}/tests/doctest_main.cpp)
  target_link_libraries(tw_doctest_main PUBLIC doctest::doctest)
  target_compile_definitions(tw_doctest_main PRIVATE
                             TILEWAVE_TEST_CACHE_DIR="${TILEWAVE_TEST_CACHE_DIR}")
endif()

# tw_test_suite(NAME SOURCES <files...> LIBS <targets...> [LABELS <labels...>])
# Builds one doctest executable and registers each TEST_CASE as a ctest test named
# NAME.<case>. Put slow sweeps in a suite with LABELS slow (CI still runs them).
function(tw_test_suite name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(test_${name} ${ARG_SOURCES})
  target_link_libraries(test_${name} PRIVATE tw_doctest_main tw_warnings ${ARG_LIBS})
  target_include_directories(test_${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  set(labels ${name})
  if(ARG_LABELS)
    list(APPEND labels ${ARG_LABELS})
  endif()
  doctest_discover_tests(test_${name} TEST_PREFIX "${name}." PROPERTIES LABELS "${name}"
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  if(ARG_LABELS)
    # doctest's discovery script splits property values on ';' (a second label was lost), so
    # the whole label list is set by a CTest include file that runs after the discovered tests.
    set(label_file ${CMAKE_CURRENT_BINARY_DIR}/test_${name}_labels.cmake)
    file(WRITE ${label_file} "if(test_${name}_TESTS)\n"
         "  set_tests_properties(\${test_${name}_TESTS} PROPERTIES LABELS \"${labels}\")\n"
         "endif()\n")
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${label_file})
  endif()
endfunction()

# tw_compile_fail_test(NAME SOURCE <file> EXPECT <regex> LIBS <targets...>)
# A test that passes only when compiling SOURCE fails with a diagnostic matching EXPECT.
function(tw_compile_fail_test name)
  cmake_parse_arguments(ARG "" "SOURCE;EXPECT" "LIBS" ${ARGN})
  add_library(compile_fail_${name} OBJECT EXCLUDE_FROM_ALL ${ARG_SOURCE})
  target_link_libraries(compile_fail_${name} PRIVATE ${ARG_LIBS})
  add_test(NAME compile_fail.${name}
    COMMAND ${CMAKE_COMMAND} --build ${PROJECT_BINARY_DIR} --target compile_fail_${name})
  set_tests_properties(compile_fail.${name} PROPERTIES WILL_FAIL FALSE
    PASS_REGULAR_EXPRESSION "${ARG_EXPECT}" LABELS "compile_fail" RESOURCE_LOCK build_tree)
endfunction()
