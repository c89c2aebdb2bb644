# CPack: `make package` (cpack -G DEB in the build folder) writes cudoctor_<version>_<arch>.deb.
# The knowledge-base tables are inside the binary, so the package is the binary, the man page,
# the completions and the docs. Dependencies are read by dpkg-shlibdeps from the libraries the
# binary really links (libc6, libstdc++6, libfmt9, libre2-9, libssl3, zlib1g, liblzma5, libzstd1).
set(CUDOCTOR_MAINTAINER "cudoctor developers <cudoctor@localhost>"
    CACHE STRING "Maintainer field of the .deb (Name <email>)")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME cudoctor)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${CUDOCTOR_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "doctor and manager for a machine's NVIDIA CUDA stack")
set(CPACK_PACKAGE_DESCRIPTION
    "cudoctor inspects the NVIDIA CUDA stack of a machine or machine image: GPU, driver, toolkits, \
cuDNN, Python frameworks and the environment that decides which of them a program gets. It says \
what is wrong and how to fix it, explains CUDA error messages, checks which GPU architectures a \
binary carries, verifies installers, and manages several toolkits side by side. Changes to the \
machine are printed as a plan and applied only when asked.")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CUDOCTOR_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion, man-db")
include(CPack)
