# cmake --install: the libraries, their public headers and a CMake package, so that a game's
# own build can say
#
#   find_package(RadixSweep 0.1 CONFIG REQUIRED)
#   target_link_libraries(game PRIVATE RadixSweep::physics)
#
# with a plain C++ compiler. Components: engine, sort and physics are always there; render
# and scenes when the renderer was built (RSW_BUILD_RENDER); RadixSweep_<component>_FOUND says
# which. The demo executable radixsweep installs with them.
include(CMakePackageConfigHelpers)

set(RSW_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/RadixSweep)
set(RSW_PACKAGE_COMPONENTS engine sort physics)
set(rsw_installed_targets rsw_engine rsw_sort rsw_physics)
set(rsw_installed_headers
  ${PROJECT_SOURCE_DIR}/engine/include/
  ${PROJECT_SOURCE_DIR}/sort/include/
  ${PROJECT_SOURCE_DIR}/physics/include/)
if(TARGET rsw_render)
  list(APPEND RSW_PACKAGE_COMPONENTS render)
  # rsw_glad is the render library's private GLAD loader: installed only because a static
  # render library passes it on to the link.
  list(APPEND rsw_installed_targets rsw_render rsw_glad)
  list(APPEND rsw_installed_headers ${PROJECT_SOURCE_DIR}/render/include/)
endif()
if(TARGET rsw_scenes)
  list(APPEND RSW_PACKAGE_COMPONENTS scenes)
  list(APPEND rsw_installed_targets rsw_scenes)
  list(APPEND rsw_installed_headers ${PROJECT_SOURCE_DIR}/scenes/include/)
endif()
install(TARGETS radixsweep RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(TARGETS ${rsw_installed_targets}
  EXPORT RadixSweepTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY
    ${rsw_installed_headers}
    ${PROJECT_BINARY_DIR}/engine/include/  # the generated rsw/engine/build_info.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.hpp")
install(EXPORT RadixSweepTargets
  NAMESPACE RadixSweep::
  DESTINATION ${RSW_INSTALL_CMAKEDIR})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/RadixSweepConfig.cmake.in
  ${PROJECT_BINARY_DIR}/RadixSweepConfig.cmake
  INSTALL_DESTINATION ${RSW_INSTALL_CMAKEDIR})
# 0.x: a minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/RadixSweepConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
    ${PROJECT_BINARY_DIR}/RadixSweepConfig.cmake
    ${PROJECT_BINARY_DIR}/RadixSweepConfigVersion.cmake
  DESTINATION ${RSW_INSTALL_CMAKEDIR})
