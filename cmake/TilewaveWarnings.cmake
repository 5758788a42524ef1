# Warnings are errors-in-spirit: the tree stays at zero with -Wall -Wextra on g++-12 and clang-22.
add_library(tw_warnings INTERFACE)
target_compile_options(tw_warnings INTERFACE -Wall -Wextra)
option(TILEWAVE_WERROR "Treat warnings as errors" OFF)
if(TILEWAVE_WERROR)
  target_compile_options(tw_warnings INTERFACE -Werror)
endif()

# tw_header_library(NAME) : header-only INTERFACE library for a source folder.
function(tw_header_library name)
  add_library(${name} INTERFACE)
  target_include_directories(${name} INTERFACE
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/tilewave>)
  # The headers need C++20 (defaulted operator==, concepts): a consumer gets it from the
  # target, whatever its own CMAKE_CXX_STANDARD.
  target_compile_features(${name} INTERFACE cxx_std_20)
endfunction()

# tw_compiled_library(NAME SOURCES...) : static library for a source folder.
function(tw_compiled_library name)
  add_library(${name} STATIC ${ARGN})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/tilewave>)
  target_link_libraries(${name} PRIVATE $<BUILD_INTERFACE:tw_warnings>)
  target_compile_features(${name} PUBLIC cxx_std_20)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

# tw_folder_library(NAME DIR DEPS...) : the library of one source folder. Compiles every
# .cpp below DIR into a static library; a folder with no .cpp yet is header-only.
function(tw_folder_library name dir)
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${dir}/*.cpp)
  if(srcs)
    tw_compiled_library(${name} ${srcs})
    target_link_libraries(${name} PUBLIC ${ARGN})
  else()
    tw_header_library(${name})
    target_link_libraries(${name} INTERFACE ${ARGN})
  endif()
endfunction()

# LLVM as one shared library (static component libraries link far too slowly on 2 cores).
add_library(tw_llvm INTERFACE)
target_include_directories(tw_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
separate_arguments(TW_LLVM_DEFS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
target_compile_definitions(tw_llvm INTERFACE ${TW_LLVM_DEFS})
target_link_libraries(tw_llvm INTERFACE LLVM)
