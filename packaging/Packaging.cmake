# Install layout and the Debian package (docs/packaging.md): `cpack -G DEB` in a release
# build directory, or `scripts/dev package`.
include(GNUInstallDirs)
set(POST_DATA_DESTINATION ${CMAKE_INSTALL_DATADIR}/post-studio)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/samples/graphs DESTINATION ${POST_DATA_DESTINATION}/samples
        FILES_MATCHING PATTERN "*.json")
# post_torch (python/) into Debian's path for Python modules of every python3 version.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/post_torch DESTINATION lib/python3/dist-packages
        FILES_MATCHING PATTERN "*.py" PATTERN "*.json")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/clusters/ DESTINATION ${POST_DATA_DESTINATION}/clusters
        FILES_MATCHING PATTERN "*.json")
# JSON Schemas of the native formats and of post-cli's --json outputs (docs/formats.md).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/schemas/ DESTINATION ${POST_DATA_DESTINATION}/schemas
        FILES_MATCHING PATTERN "*.schema.json")

# post-cli(1): the COMMAND OPTIONS section comes from the built CLI's --help.
find_program(POST_GZIP gzip)
set(POST_MAN_PAGE ${CMAKE_CURRENT_BINARY_DIR}/packaging/post-cli.1)
set(POST_MAN_OUTPUT ${POST_MAN_PAGE})
set(POST_MAN_COMMANDS
  COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:post-cli> -DTEMPLATE=${CMAKE_CURRENT_LIST_DIR}/post-cli.1.in
          -DOUTPUT=${POST_MAN_PAGE} -DPROJECT_VERSION=${PROJECT_VERSION} -P ${CMAKE_CURRENT_LIST_DIR}/MakeManPage.cmake)
if(POST_GZIP)
  set(POST_MAN_OUTPUT ${POST_MAN_PAGE}.gz)
  list(APPEND POST_MAN_COMMANDS COMMAND ${POST_GZIP} -n -9 -f -k ${POST_MAN_PAGE})
endif()
add_custom_command(
  OUTPUT ${POST_MAN_OUTPUT}
  ${POST_MAN_COMMANDS}
  DEPENDS post-cli ${CMAKE_CURRENT_LIST_DIR}/post-cli.1.in ${CMAKE_CURRENT_LIST_DIR}/MakeManPage.cmake
  COMMENT "Writing the post-cli man page"
  VERBATIM)
add_custom_target(post-cli-man ALL DEPENDS ${POST_MAN_OUTPUT})
install(FILES ${POST_MAN_OUTPUT} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# The maintainer the package and its changelog name: by default the maintainers' identity
# the project's commits carry (docs/packaging.md); a packager sets their own with
# -DPOST_PACKAGE_MAINTAINER="Name <address>".
set(POST_DEFAULT_MAINTAINER "Post Studio maintainers <maintainers@users.noreply.a-seed-d87bf940.example>")
set(POST_PACKAGE_MAINTAINER "${POST_DEFAULT_MAINTAINER}" CACHE STRING "Maintainer of the Debian package: Name <address>")
if(POST_PACKAGE_MAINTAINER STREQUAL "Post Studio maintainers <post-studio@localhost>") # the old default
  set(POST_PACKAGE_MAINTAINER "${POST_DEFAULT_MAINTAINER}" CACHE STRING "Maintainer of the Debian package: Name <address>" FORCE)
endif()

# /usr/share/doc/post-studio: the copyright file and the changelog (gzip -9n, as Debian wants).
set(POST_DOC_DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/post-studio)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/copyright DESTINATION ${POST_DOC_DESTINATION})
configure_file(${CMAKE_CURRENT_LIST_DIR}/changelog.in ${CMAKE_CURRENT_BINARY_DIR}/packaging/changelog @ONLY)
if(POST_GZIP)
  set(POST_CHANGELOG ${CMAKE_CURRENT_BINARY_DIR}/packaging/changelog.gz)
  add_custom_command(
    OUTPUT ${POST_CHANGELOG}
    COMMAND ${POST_GZIP} -n -9 -f -k ${CMAKE_CURRENT_BINARY_DIR}/packaging/changelog
    DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/packaging/changelog
    COMMENT "Compressing the changelog"
    VERBATIM)
  add_custom_target(post-changelog ALL DEPENDS ${POST_CHANGELOG})
  install(FILES ${POST_CHANGELOG} DESTINATION ${POST_DOC_DESTINATION})
endif()

if(POST_BUILD_GUI)
  # post-studio(1), written by hand.
  if(POST_GZIP)
    set(POST_STUDIO_MAN ${CMAKE_CURRENT_BINARY_DIR}/packaging/post-studio.1.gz)
    add_custom_command(
      OUTPUT ${POST_STUDIO_MAN}
      COMMAND ${POST_GZIP} -n -9 -c ${CMAKE_CURRENT_LIST_DIR}/post-studio.1 > ${POST_STUDIO_MAN}
      DEPENDS ${CMAKE_CURRENT_LIST_DIR}/post-studio.1
      COMMENT "Compressing the post-studio man page")
    add_custom_target(post-studio-man ALL DEPENDS ${POST_STUDIO_MAN})
    install(FILES ${POST_STUDIO_MAN} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  else()
    install(FILES ${CMAKE_CURRENT_LIST_DIR}/post-studio.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  endif()
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/post-studio.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  # The MIME types the desktop entry declares that shared-mime-info lacks (dpkg's trigger
  # runs update-mime-database when the package is installed).
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/post-studio-mime.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages
          RENAME post-studio.xml)
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/post-studio.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/icons/post-studio.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  # The 256 px PNG is rendered from the SVG at build time.
  add_executable(render-icon ${CMAKE_CURRENT_LIST_DIR}/RenderIcon.cpp)
  target_link_libraries(render-icon PRIVATE Qt6::Gui Qt6::Svg)
  set(POST_ICON_PNG ${CMAKE_CURRENT_BINARY_DIR}/packaging/post-studio-256.png)
  add_custom_command(
    OUTPUT ${POST_ICON_PNG}
    # The tsan build's render-icon would stop on TSan reports inside Qt's own threads.
    COMMAND ${CMAKE_COMMAND} -E env "TSAN_OPTIONS=suppressions=${CMAKE_SOURCE_DIR}/scripts/tsan.supp ignore_noninstrumented_modules=1"
            $<TARGET_FILE:render-icon> ${CMAKE_CURRENT_LIST_DIR}/icons/post-studio.svg ${POST_ICON_PNG} 256
    DEPENDS render-icon ${CMAKE_CURRENT_LIST_DIR}/icons/post-studio.svg
    COMMENT "Rendering the 256 px icon"
    VERBATIM)
  add_custom_target(post-studio-icon ALL DEPENDS ${POST_ICON_PNG})
  install(FILES ${POST_ICON_PNG} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/256x256/apps RENAME post-studio.png)
endif()

set(CPACK_PACKAGE_NAME post-studio)
set(CPACK_PACKAGE_VENDOR "Post Studio")
set(CPACK_PACKAGE_CONTACT "${POST_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "find fast device placements for neural-network training")
# Lines of at most 80 characters (lintian: extended-description-line-too-long).
set(CPACK_PACKAGE_DESCRIPTION
    "Post Studio places the operations of a neural-network training step on the
GPUs and CPUs of a machine so that a step finishes early. It learns placements
with Post (cross-entropy minimisation plus PPO) on a fast simulator and
compares them with classical placers. Includes the desktop application
post-studio and the command-line tool post-cli.")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://github.com/poststudio/post-studio")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Library dependencies come from dpkg-shlibdeps; Qt's platform plugins (needed for any window)
# are loaded at run time, so no linker sees them. Fonts come with libqt6gui6 -> fontconfig.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
# post_torch (python/) is pure Python: python3 to import it, PyTorch and ONNX to use it.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3")
if(POST_BUILD_GUI)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins, python3")
endif()
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-torch, python3-onnx")
# cpack (and `ninja install`) package the build as it is (scripts/dev package builds first):
# otherwise cpack's "preinstall" step would build every target, tests and benchmarks included.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
include(CPack)

if(POST_BUILD_TESTS)
  add_test(NAME packaging/install_deb
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/install-test.sh ${CMAKE_BINARY_DIR} ${CMAKE_BUILD_TYPE} ${PROJECT_VERSION})
  # Skipped (77) off Release builds or without cpack/dpkg; serial because cpack re-installs the build.
  set_tests_properties(packaging/install_deb PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 RUN_SERIAL TRUE LABELS packaging)
endif()
