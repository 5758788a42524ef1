# tw_hip_bench(NAME SOURCE KERNEL_DIR_DEFINE): a benchmark executable that runs code objects
# compiled here by clang-22 (gfx1201 -O3) from the *.hip files of the calling folder's kernels/
# subfolder; the executable finds them through the compile definition KERNEL_DIR_DEFINE.
function(tw_hip_bench name source kernel_dir_define)
  set(kernel_dir ${CMAKE_CURRENT_BINARY_DIR}/kernels)
  file(MAKE_DIRECTORY ${kernel_dir})
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/kernels/*.hip)
  set(outs)
  foreach(src ${srcs})
    get_filename_component(kernel ${src} NAME_WE)
    set(out ${kernel_dir}/${kernel}.hsaco)
    add_custom_command(OUTPUT ${out}
      COMMAND ${TILEWAVE_CLANG} -x hip --offload-arch=gfx1201 --offload-device-only
              --no-gpu-bundle-output -nogpuinc -nogpulib -O3 -c ${src} -o ${out}
      DEPENDS ${src} COMMENT "${name} kernel ${kernel}" VERBATIM)
    list(APPEND outs ${out})
  endforeach()
  add_custom_target(${name}_kernels DEPENDS ${outs})
  add_executable(${name} ${source})
  target_link_libraries(${name} PRIVATE tw_runtime tw_warnings)
  target_compile_definitions(${name} PRIVATE ${kernel_dir_define}="${kernel_dir}")
  add_dependencies(${name} ${name}_kernels)
endfunction()
