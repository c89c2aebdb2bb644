# CPack: `make package` (cpack -G DEB in the build folder) writes cudoctor_<version>_<arch>.deb.
# The knowledge-base tables are inside the binary, so the package is the binary, the man page,
# the completions, the systemd units and the docs. Dependencies are read by dpkg-shlibdeps from
# the libraries the binary really links (libc6, libstdc++6, libfmt9, libre2-9, zlib1g, liblzma5,
# libzstd1, liblz4-1, libvectorscan5, libsimdjson14), and one more is named here: libcrypto is
# opened at run time on the first digest (src/installer/digest_sinks.cpp), so dpkg-shlibdeps
# cannot see it; its package (libssl3 on Debian 12) is the one dpkg says holds the libcrypto
# built against. `lintian` on the .deb: no errors (tests/packaging/deb_install.sh).
#
# The default address is the one the project's commits carry; a distributor sets their own
# (-DCUDOCTOR_MAINTAINER="Name <address>"). lintian refuses a host like "localhost".
set(CUDOCTOR_MAINTAINER "cudoctor maintainers <maintainers@users.noreply.a-seed-4b752610.example>"
    CACHE STRING "Maintainer field of the .deb (Name <email>)")
# A build folder configured before keeps the old default in its cache: replace that one.
if(CUDOCTOR_MAINTAINER STREQUAL "cudoctor developers <cudoctor@localhost>")
  set(CUDOCTOR_MAINTAINER "cudoctor maintainers <maintainers@users.noreply.a-seed-4b752610.example>"
      CACHE STRING "Maintainer field of the .deb (Name <email>)" FORCE)
endif()

# What the package ships beside the binary, man page and completions (installed by `make install`
# too): the changelog (gzipped with -9n, as lintian wants), the docs and their
# examples, and the timer that writes metrics for prometheus-node-exporter (lib/systemd/system
# under the prefix: /usr/lib/systemd/system in the .deb, /usr/local/lib/systemd/system for
# `make install`; systemd reads both). The timer is not enabled: the .deb has no maintainer scripts.
set(CUDOCTOR_CHANGELOG ${PROJECT_BINARY_DIR}/packaging/changelog)
configure_file(${PROJECT_SOURCE_DIR}/packaging/changelog.in ${CUDOCTOR_CHANGELOG} @ONLY)
add_custom_command(
  OUTPUT ${CUDOCTOR_CHANGELOG}.gz
  COMMAND ${CUDOCTOR_GZIP} -9 -n -k -f ${CUDOCTOR_CHANGELOG}
  DEPENDS ${CUDOCTOR_CHANGELOG}
  VERBATIM)
add_custom_target(cudoctor_changelog ALL DEPENDS ${CUDOCTOR_CHANGELOG}.gz)
install(FILES ${CUDOCTOR_CHANGELOG}.gz DESTINATION ${CMAKE_INSTALL_DOCDIR})
file(GLOB CUDOCTOR_DOC_PAGES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${CUDOCTOR_DOC_PAGES} DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/examples DESTINATION ${CMAKE_INSTALL_DOCDIR}
        FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/systemd/cudoctor-check.service
              ${PROJECT_SOURCE_DIR}/packaging/systemd/cudoctor-check.timer
        DESTINATION lib/systemd/system)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME cudoctor)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${CUDOCTOR_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "doctor and manager for a machine's NVIDIA CUDA stack")
# The long description, broken into lines of at most 80 characters for dpkg and lintian.
string(JOIN "\n" CPACK_PACKAGE_DESCRIPTION
  "cudoctor inspects the NVIDIA CUDA stack of a machine or machine image: GPU,"
  "driver, toolkits, cuDNN, Python frameworks and the environment that decides"
  "which of them a program gets. It says what is wrong and how to fix it,"
  "explains CUDA error messages, checks which GPU architectures a binary carries,"
  "verifies installers, and manages several toolkits side by side. Changes to the"
  "machine are printed as a plan and applied only when asked."
  ""
  "For fleets it writes Prometheus metrics for the textfile collector of"
  "prometheus-node-exporter (a systemd timer, not enabled on installation, does so"
  "every 15 minutes), compares many machines' snapshots, and serves as a Slurm"
  "health check.")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CUDOCTOR_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The libraries opened on first use (src/common/shared_library.hpp) are in no DT_NEEDED entry, so
# dpkg-shlibdeps cannot see them: each is declared here, as its package's shlibs file words the
# dependency ("libzstd1 (>= 1.5.2)"), from the library behind the development link the build
# used; nothing where dpkg does not know the file.
find_program(CUDOCTOR_DPKG_QUERY dpkg-query)
function(cudoctor_depend_on_opened library stem major)
  if(NOT CUDOCTOR_DPKG_QUERY OR NOT library)
    return()
  endif()
  file(REAL_PATH "${library}" real)
  execute_process(COMMAND ${CUDOCTOR_DPKG_QUERY} -S "${real}" OUTPUT_VARIABLE owner RESULT_VARIABLE rc
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT rc EQUAL 0 AND real MATCHES "^/usr(/lib.*)$")
    # A merged /usr: dpkg knows zlib1g's and liblzma5's files by their /lib names.
    execute_process(COMMAND ${CUDOCTOR_DPKG_QUERY} -S "${CMAKE_MATCH_1}" OUTPUT_VARIABLE owner RESULT_VARIABLE rc
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  endif()
  if(NOT rc EQUAL 0 OR NOT owner MATCHES "^([a-z0-9][a-z0-9.+-]*)(:[a-z0-9-]+)?: ")
    return()
  endif()
  set(package "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
  set(dependency "${CMAKE_MATCH_1}")
  execute_process(COMMAND ${CUDOCTOR_DPKG_QUERY} --control-path "${package}" shlibs OUTPUT_VARIABLE shlibs_path
                  RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND EXISTS "${shlibs_path}")
    file(STRINGS "${shlibs_path}" lines REGEX "^${stem} ${major} ")
    if(lines)
      list(GET lines 0 line)
      string(REGEX REPLACE "^${stem} ${major} " "" dependency "${line}")
    endif()
  endif()
  list(APPEND cudoctor_opened_depends "${dependency}")
  set(cudoctor_opened_depends "${cudoctor_opened_depends}" PARENT_SCOPE)
endfunction()
set(cudoctor_opened_files "${OPENSSL_CRYPTO_LIBRARY}")
foreach(name IN LISTS OPENED_LIBRARIES)  # pkg-config's -l names: z, lzma, zstd, lz4, hs
  find_library(cudoctor_opened_${name} NAMES ${name} HINTS ${OPENED_LIBRARY_DIRS})
  list(APPEND cudoctor_opened_files "${cudoctor_opened_${name}}")
endforeach()
foreach(library IN LISTS cudoctor_opened_files)
  if(CMAKE_READELF AND EXISTS "${library}")
    # The soname says the shlibs line: "libz.so.1" is "libz 1 …".
    file(REAL_PATH "${library}" real)
    execute_process(COMMAND ${CMAKE_READELF} -d "${real}" OUTPUT_VARIABLE dynamic ERROR_QUIET)
    if(dynamic MATCHES "Library soname: \\[(lib[^]]*)\\.so\\.([0-9]+)\\]")
      cudoctor_depend_on_opened("${real}" "${CMAKE_MATCH_1}" "${CMAKE_MATCH_2}")
    endif()
  endif()
endforeach()
if(cudoctor_opened_depends)
  list(JOIN cudoctor_opened_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "pci.ids")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion, man-db, prometheus-node-exporter")
include(CPack)
