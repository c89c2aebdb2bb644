#!/bin/sh
# Installs the Debian/Ubuntu packages cudoctor needs (only the missing ones); safe to run again.
# Needs root or sudo for apt-get.
#   build: what building and running the binary need (`make run`, `make install`);
#   test:  build + what the test suite needs (`make build`, `make test`): GoogleTest, the
#          programs the tests run for real (torch, OpenCV, Slurm, Ansible, shells, Lmod and
#          environment-modules' Tcl modulecmd, direnv, makeself …);
#   fuzz:  clang 14 with its libFuzzer runtime;  lint: clang-format and clang-tidy 14;
#   bench: the peers `make bench` measures against (ripgrep, pigz, numpy, python3-zstandard).
set -eu
# Building: compiler, CMake + Ninja, and the libraries cudoctor links. Running: pci.ids names GPUs.
BUILD="build-essential cmake ninja-build pkg-config libcli11-dev libfmt-dev nlohmann-json3-dev \
zlib1g-dev liblzma-dev libzstd-dev liblz4-dev libssl-dev libre2-dev libsimdjson-dev libvectorscan-dev pci.ids"
TEST="libgtest-dev libgmock-dev git man-db libxml2-utils makeself time python3-numpy python3-torch \
python3-opencv tcl lmod zsh fish direnv ansible-core slurm-wlm prometheus prometheus-node-exporter lintian"
case "${1:-build}" in
  build) PACKAGES=$BUILD ;;
  test) PACKAGES="$BUILD $TEST" ;;
  fuzz) PACKAGES="clang-14 libclang-rt-14-dev" ;;
  lint) PACKAGES="clang-format-14 clang-tidy-14" ;;
  bench) PACKAGES="$BUILD ripgrep pigz python3-numpy python3-torch python3-zstandard time" ;;
  list) echo "build: $BUILD"; echo "test: $TEST (and environment-modules unpacked into /opt/environment-modules)"; exit 0 ;;
  *) echo "usage: $0 [build|test|fuzz|lint|bench|list]" >&2; exit 2 ;;
esac
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# Debian's environment-modules conflicts with lmod: the tests load modulefiles with both, so the
# Tcl modulecmd is unpacked beside lmod (not installed) into /opt/environment-modules.
modulecmd=/opt/environment-modules/usr/lib/x86_64-linux-gnu/modulecmd.tcl
need_modulecmd=""
[ "${1:-build}" = test ] && [ ! -f "$modulecmd" ] && need_modulecmd=yes
[ -z "$missing" ] && [ -z "$need_modulecmd" ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
if [ -n "$missing" ]; then
  echo "cudoctor: installing missing Debian packages:$missing"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
if [ -n "$need_modulecmd" ]; then
  echo "cudoctor: unpacking environment-modules' modulecmd.tcl into /opt/environment-modules"
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download -qq environment-modules) && $SUDO dpkg-deb -x "$tmp"/environment-modules_*.deb /opt/environment-modules
  rm -rf "$tmp"
fi
