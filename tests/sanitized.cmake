# The `sanitized` suite (TILEWAVE_SANITIZE=ON, scripts/test.sh --sanitize): the unit tests of
# every parser of outside data, built with ASan + UBSan (halt on the first report). Kept small
# so its build and run fit in CI beside the full suite: layouts, the MMA atom layouts (GCC 12
# -fsanitize=null once broke its constant expressions), the code-object loader and the kept
# fuzz inputs, .npy, the compile cache and the emu --arg parsers.
set(src ${CMAKE_CURRENT_SOURCE_DIR})
file(GLOB layout_tests CONFIGURE_DEPENDS ${src}/layouts/*.cpp)
set(kernel_dir ${CMAKE_CURRENT_BINARY_DIR}/kernels)
file(MAKE_DIRECTORY ${kernel_dir})
set(kernels)
foreach(name core_globals fuzz_body)
  set(out ${kernel_dir}/${name}.gfx1201.O3.hsaco)
  add_custom_command(OUTPUT ${out}
    COMMAND ${TILEWAVE_CLANG} -x hip --offload-arch=gfx1201 --offload-device-only
            --no-gpu-bundle-output -nogpuinc -nogpulib -O3 -I${src}/runtime/emu/kernels
            -c ${src}/runtime/emu/kernels/${name}.hip -o ${out}
    DEPENDS ${src}/runtime/emu/kernels/${name}.hip VERBATIM)
  list(APPEND kernels ${out})
endforeach()
add_custom_target(tw_sanitized_kernels DEPENDS ${kernels})

tw_test_suite(sanitized
  SOURCES ${layout_tests}
          ${src}/atoms/test_mma_layouts.cpp
          ${src}/runtime/emu/test_code_object_hostile.cpp
          ${src}/runtime/emu/test_fuzz_findings.cpp
          ${src}/tools/test_npy.cpp
          ${src}/tools/test_emu_args.cpp
          ${PROJECT_SOURCE_DIR}/tools/tilewave/emu_args.cpp
          ${src}/emit/test_cache.cpp
          ${PROJECT_SOURCE_DIR}/emit/cache_key.cpp
          ${PROJECT_SOURCE_DIR}/emit/disk_cache.cpp
          ${PROJECT_SOURCE_DIR}/emit/memory_cache.cpp
          ${PROJECT_SOURCE_DIR}/emit/subprocess.cpp
  LIBS tw_layouts tw_atoms tw_runtime tw_llvm fmt::fmt)
target_include_directories(test_sanitized PRIVATE ${PROJECT_SOURCE_DIR}/tools)
# Only core_globals and fuzz_body are built here: the loader tests use the gfx1201 -O3 variant.
target_compile_definitions(test_sanitized PRIVATE TW_TEST_KERNEL_DIR="${kernel_dir}"
                           TW_TEST_FUZZ_DIR="${src}/fuzz")
add_dependencies(test_sanitized tw_sanitized_kernels)
