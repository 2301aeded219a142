# libfaultline: the C API over the matcher, with the default pack embedded.
# Included from the top level after the default pack's rule exists.
set(_fl_runtime_sources
  ${PROJECT_SOURCE_DIR}/libcore/api_pack.cpp
  ${PROJECT_SOURCE_DIR}/libcore/api_scanner.cpp
  ${PROJECT_SOURCE_DIR}/libcore/api_diagnoser.cpp
  ${PROJECT_SOURCE_DIR}/libcore/diagnosis.cpp
  ${PROJECT_SOURCE_DIR}/libcore/entry_page.cpp
  ${PROJECT_SOURCE_DIR}/libcore/evidence.cpp
  ${PROJECT_SOURCE_DIR}/libcore/growbuf.cpp
  ${PROJECT_SOURCE_DIR}/libcore/json_writer.cpp
  ${PROJECT_SOURCE_DIR}/libcore/partial.cpp
  ${PROJECT_SOURCE_DIR}/libcore/report_json.cpp
  ${PROJECT_SOURCE_DIR}/libcore/report_text.cpp
  ${PROJECT_SOURCE_DIR}/libcore/line_text.cpp
  ${PROJECT_SOURCE_DIR}/libcore/platform/file_map.cpp
  ${PROJECT_SOURCE_DIR}/libcore/version.cpp
  ${PROJECT_SOURCE_DIR}/libcore/default_pack.S)
set_source_files_properties(${PROJECT_SOURCE_DIR}/libcore/default_pack.S PROPERTIES
  COMPILE_DEFINITIONS FL_DEFAULT_PACK_PATH=${FAULTLINE_DEFAULT_PACK}
  OBJECT_DEPENDS ${FAULTLINE_DEFAULT_PACK})

foreach(_kind IN ITEMS shared static)
  if(_kind STREQUAL "shared")
    set(_target faultline_core)
    add_library(${_target} SHARED ${_fl_runtime_sources})
    set_target_properties(${_target} PROPERTIES OUTPUT_NAME faultline
      VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
    # Only fl_ symbols leave the library: hidden by default, and nothing
    # re-exported from the static matcher or libstdc++.
    target_link_options(${_target} PRIVATE -Wl,--exclude-libs,ALL -Wl,--no-undefined)
  else()
    set(_target faultline_static)
    add_library(${_target} STATIC ${_fl_runtime_sources})
    set_target_properties(${_target} PROPERTIES OUTPUT_NAME faultline)
  endif()
  add_dependencies(${_target} faultline_default_pack)
  enable_language(ASM)
  target_include_directories(${_target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:include>)
  target_include_directories(${_target} PRIVATE ${PROJECT_SOURCE_DIR}/libcore)
  target_compile_features(${_target} PUBLIC cxx_std_20)
  target_compile_options(${_target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fno-exceptions -fno-rtti>)
  target_compile_definitions(${_target} PRIVATE FAULTLINE_BUILDING)
  set_target_properties(${_target} PROPERTIES POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_sources(${_target} PRIVATE $<TARGET_OBJECTS:faultline_matcher>)
  target_include_directories(${_target} PRIVATE $<TARGET_PROPERTY:faultline_matcher,INCLUDE_DIRECTORIES>)
  add_dependencies(${_target} faultline_matcher)
  target_link_libraries(${_target} PRIVATE $<BUILD_INTERFACE:faultline_warnings>)
endforeach()
set_target_properties(faultline_core PROPERTIES EXPORT_NAME core)
set_target_properties(faultline_static PROPERTIES EXPORT_NAME static)
add_library(faultline::core ALIAS faultline_core)
add_library(faultline::static ALIAS faultline_static)

# Install: header, both libraries, a CMake package (find_package(faultline),
# targets faultline::core and faultline::static) and a pkg-config file.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(TARGETS faultline_core faultline_static EXPORT faultlineTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/faultline.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT faultlineTargets NAMESPACE faultline:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/faultline)
configure_package_config_file(${PROJECT_SOURCE_DIR}/libcore/faultlineConfig.cmake.in
  ${CMAKE_BINARY_DIR}/faultlineConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/faultline)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/faultlineConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/faultlineConfig.cmake ${CMAKE_BINARY_DIR}/faultlineConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/faultline)
file(RELATIVE_PATH FL_PC_PREFIX_FROM_PCDIR "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(${PROJECT_SOURCE_DIR}/libcore/faultline.pc.in ${CMAKE_BINARY_DIR}/faultline.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/faultline.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
