include(CMakePackageConfigHelpers)

# Headers install under <prefix>/include/tilewave/<folder>/..., so a consumer includes
# <layouts/layout.hpp> (or the umbrella <tilewave.hpp>) exactly as the source tree does.
foreach(dir layouts atoms dsl emit runtime kernels)
  if(EXISTS ${PROJECT_SOURCE_DIR}/${dir})
    install(DIRECTORY ${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tilewave/${dir}
            FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h" PATTERN "*.inc")
  endif()
endforeach()
install(FILES tilewave.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tilewave)

install(TARGETS tw_all tw_llvm ${TILEWAVE_LIBRARIES} EXPORT tilewaveTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tilewave)
install(TARGETS tilewave RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT tilewaveTargets NAMESPACE tilewave:: FILE tilewaveTargets.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tilewave)
configure_package_config_file(cmake/tilewaveConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/tilewaveConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tilewave)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tilewaveConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tilewaveConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/tilewaveConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tilewave)
