#pragma once
// Real installers made at test time with the real tools: Debian's makeself (gzip, xz, no
// compression; MD5, SHA-256, CRC), tar + xz (a cuDNN-style .tar.xz), dpkg-deb (a .deb), and an
// archive in the layout NVIDIA's makeself fork writes. Then the ways a download goes wrong.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "integration/run_cudoctor.hpp"
#include "support/files.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test {

inline void spill(const std::filesystem::path& p, std::string_view bytes) { std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes; }

/// Runs a tool with a plain PATH; fails the test when it does not exit 0. Returns stdout.
inline std::string tool(const std::vector<std::string>& argv) {
    std::vector<std::string> args(argv.begin() + 1, argv.end());
    auto r = run_program(argv[0], args, {"PATH=/usr/bin:/bin", "TMPDIR=/tmp", "LC_ALL=C"}, std::chrono::seconds(60));
    EXPECT_EQ(r.exit_code, 0) << argv[0] << ": " << r.describe() << "\n" << r.err;
    return r.out;
}

/// A small folder to pack: an install script and some files with mixed, partly compressible
/// content (a few tens of KiB, so the compressed stream has several blocks of real data).
inline std::filesystem::path payload_dir(const TempDir& t, const std::string& name = "payload") {
    auto dir = t.path() / name;
    std::filesystem::create_directories(dir / "bin");
    t.write(name + "/install.sh", "#!/bin/sh\necho installed\n", true);
    std::string text, noise;
    for (int i = 0; i < 2000; ++i) text += "line " + std::to_string(i * 7919 % 1000) + " of the payload\n";
    std::uint32_t x = 12345;
    for (int i = 0; i < 20000; ++i) {
        x = x * 1103515245u + 12345u;
        noise += static_cast<char>(x >> 24);
    }
    t.write(name + "/share/readme.txt", text);
    t.write(name + "/bin/blob.bin", noise);
    return dir;
}

/// `makeself [flags] payload OUT LABEL ./install.sh`, run in the temp folder; returns OUT's path.
inline std::filesystem::path make_makeself(const TempDir& t, const std::string& out, std::vector<std::string> flags = {},
                                           const std::string& label = "Test Installer 1.0", const std::string& dir_name = "payload") {
    const auto dir = payload_dir(t, dir_name);
    std::vector<std::string> argv{"/usr/bin/makeself", "--quiet"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    auto file = t.path() / out;
    argv.insert(argv.end(), {dir.string(), file.string(), label, "./install.sh"});
    tool(argv);
    return file;
}

/// A cuDNN-style archive: tar cJf of a small tree.
inline std::filesystem::path make_tar_xz(const TempDir& t, const std::string& out) {
    const auto dir = payload_dir(t, "cudnn-linux-x86_64-9.3.0.75_cuda12-archive");
    auto file = t.path() / out;
    tool({"/usr/bin/tar", "-C", t.str(), "-cJf", file.string(), dir.filename().string()});
    return file;
}

/// A .deb built by dpkg-deb from a tiny package tree (xz-compressed data member).
inline std::filesystem::path make_deb(const TempDir& t, const std::string& out) {
    const auto root = payload_dir(t, "debroot");
    t.write("debroot/DEBIAN/control",
            "Package: cuda-repo-test\nVersion: 1.0-1\nArchitecture: amd64\nMaintainer: test <t@example.com>\n"
            "Description: a test package\n");
    std::filesystem::remove(root / "install.sh");
    auto file = t.path() / out;
    tool({"/usr/bin/dpkg-deb", "-Zxz", "--root-owner-group", "--build", root.string(), file.string()});
    return file;
}

/// An archive in the layout NVIDIA's fork "makeself 1.6.0-nv2" writes (formats.md 2.2, the
/// generator makeself.sh shipped in NVIDIA-Linux-x86_64-390.48): `#! /bin/sh`, CRCsum, MD5 and
/// skip on lines 2–4, the banner after the variables, the payload *on* line `skip`, to the end
/// of the file; CRC and MD5 computed as the generator does, by `cksum` and `md5sum` of
/// `tail -n +4`.
inline std::filesystem::path make_nvidia_fork(const TempDir& t, const std::string& out) {
    const auto dir = payload_dir(t, "NVIDIA-Linux-x86_64-550.54.14");
    const auto tgz = t.path() / "fork-payload.tar.gz";
    tool({"/bin/sh", "-c", "tar -C '" + t.str() + "' -cf - NVIDIA-Linux-x86_64-550.54.14 | gzip -9 > '" + tgz.string() + "'"});
    std::vector<std::string> stub = {
        "#! /bin/sh",
        "CRCsum=0000000000",
        "MD5=00000000000000000000000000000000",
        "skip=__SKIP__",
        "skip_decompress=__SKIP__",
        "size_decompress=0",
        "label=\"NVIDIA Accelerated Graphics Driver for Linux-x86_64 550.54.14\"",
        "version_string=550.54.14",
        "pkg_version=1",
        "script=./nvidia-installer",
        "targetdir=NVIDIA-Linux-x86_64-550.54.14",
        "scriptargs=\"\"",
        "keep=n",
        "add_this_kernel=n",
        "apply_patch=n",
        "TMPROOT=${TMPDIR:=/tmp}",
        "TARGET_OS=\"Linux\"",
        "TARGET_ARCH=\"x86_64\"",
        "",
        "#",
        "# NVIDIA Accelerated Graphics Driver for Linux-x86_64 550.54.14",
        "# Generated by Makeself 1.6.0-nv2",
        "# Do not edit by hand.",
        "",
        "# NVIDIA Driver Installation .run file",
        "if [ \"$1\" = \"--list\" ]; then",
        "    echo \"Target directory: $targetdir\"",
        "    tail -n +$skip $0  | gzip -cd | tar tvf - 2> /dev/null",
        "    exit 0;",
        "fi",
        "if (cd \"$location\"; tail -n +$skip $0; ) | gzip -cd | UnTAR | (while read a; do $echo -n \".\"; done; $echo; ); then",
        "    res=0;",
        "fi",
        "exit $res",
        "",
        "END_OF_STUB",
    };
    const auto skip = std::to_string(stub.size() + 1);  // the payload begins on the next line
    std::string header;
    for (auto line : stub) {
        if (auto at = line.find("__SKIP__"); at != std::string::npos) line.replace(at, 8, skip);
        header += line + "\n";
    }
    auto file = t.path() / out;
    spill(file, header + slurp(tgz));
    const auto crc = tool({"/bin/sh", "-c", "tail -n +4 '" + file.string() + "' | cksum | cut -d' ' -f1"});
    const auto md5 = tool({"/bin/sh", "-c", "tail -n +4 '" + file.string() + "' | md5sum | cut -b-32"});
    auto bytes = slurp(file);
    bytes.replace(bytes.find("CRCsum=0000000000"), 17, "CRCsum=" + crc.substr(0, crc.find('\n')));
    bytes.replace(bytes.find("MD5=00000000000000000000000000000000"), 36, "MD5=" + md5.substr(0, 32));
    spill(file, bytes);
    return file;
}

/// Damage: cut `n` bytes off the end.
inline void cut_tail(const std::filesystem::path& p, std::uint64_t n) {
    const auto size = std::filesystem::file_size(p);
    std::filesystem::resize_file(p, size - n);
}

/// Damage: flip one bit of the byte at `offset`.
inline void flip_bit(const std::filesystem::path& p, std::uint64_t offset, int bit = 3) {
    auto bytes = slurp(p);
    bytes[offset] = static_cast<char>(bytes[offset] ^ (1 << bit));
    spill(p, bytes);
}

/// Replaces the first `from` in the file with `to` (a header edit).
inline void edit(const std::filesystem::path& p, const std::string& from, const std::string& to) {
    auto bytes = slurp(p);
    const auto at = bytes.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    bytes.replace(at, from.size(), to);
    spill(p, bytes);
}

/// The value of `name="…"` in a makeself header.
inline std::string header_value(const std::filesystem::path& p, const std::string& name) {
    const auto bytes = slurp(p).substr(0, 65536);
    const auto at = bytes.find("\n" + name + "=\"");
    if (at == std::string::npos) return {};
    const auto start = at + name.size() + 3;
    return bytes.substr(start, bytes.find('"', start) - start);
}

}  // namespace cudoctor::test
