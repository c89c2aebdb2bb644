// A machine image is inert: under --root nothing inside it is executed or loaded. The image here
// is a copy of a fixture machine in which every executable is a trap: programs are shell scripts
// and libraries are shared objects with a constructor, each writing a marker file outside the
// image when it runs or is loaded. Every command that accepts --root runs on it (plans printed,
// and one applied); afterwards no marker may exist.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "integration/run_cudoctor.hpp"
#include "support/mutable_root.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test::inert_image {
namespace {

namespace fs = std::filesystem;

bool is_executable_file(const fs::directory_entry& e) {
    std::error_code ec;
    if (!e.is_regular_file(ec) || e.is_symlink(ec)) return false;
    return (fs::status(e.path(), ec).permissions() & fs::perms::owner_exec) != fs::perms::none;
}

/// Replaces every executable regular file of `root` by a trap writing into `markers`.
/// Returns how many programs and libraries were replaced.
std::pair<int, int> plant_traps(const fs::path& root, const fs::path& markers, const fs::path& trap_library) {
    int programs = 0, libraries = 0;
    std::vector<fs::path> targets;
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied);
         it != fs::recursive_directory_iterator(); ++it) {
        if (it->is_symlink()) {
            if (it->is_directory()) it.disable_recursion_pending();
            continue;
        }
        if (is_executable_file(*it)) targets.push_back(it->path());
    }
    for (const auto& p : targets) {
        const std::string name = p.filename().string();
        fs::remove(p);
        if (name.find(".so") != std::string::npos) {
            fs::copy_file(trap_library, p);
            ++libraries;
        } else {
            std::ofstream(p) << "#!/bin/sh\necho \"$0\" >> '" << (markers / "ran").string() << "'\n";
            ++programs;
        }
        fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                               fs::perms::others_exec);
    }
    return {programs, libraries};
}

std::string markers_text(const fs::path& markers) {
    std::string out;
    for (const auto& e : fs::directory_iterator(markers)) {
        std::ifstream in(e.path());
        out += e.path().filename().string() + ": " + std::string(std::istreambuf_iterator<char>(in), {});
    }
    return out;
}

}  // namespace

TEST(InertImage, NoCommandRunsOrLoadsAnythingOfTheImage) {
    TempDir work;
    const fs::path markers = work.path() / "markers";
    fs::create_directories(markers);
    // The library trap: a constructor that records it was loaded.
    const auto source =
        work.write("trap.c",
                   "#include <stdio.h>\n__attribute__((constructor)) static void trap(void) {\n"
                   "  FILE* f = fopen(\"" +
                       (markers / "loaded").string() + "\", \"a\");\n  if (f) { fputs(\"a library of the image\\n\", f); fclose(f); }\n}\n");
    const fs::path trap_library = work.path() / "trap.so";
    const std::string cc = "cc -shared -fPIC -o '" + trap_library.string() + "' '" + source.string() + "' 2>&1";
    ASSERT_EQ(std::system(cc.c_str()), 0) << "cannot compile the library trap";

    MutableRoot root("ubuntu2204-rtx4060ti");
    // No file says the toolkit's version: `nvcc --version` would be the last resort.
    root.remove("/usr/local/cuda-12.4/version.json").remove("/usr/local/cuda-12.4/targets/x86_64-linux/include/cuda.h");
    const auto [programs, libraries] = plant_traps(root.path(), markers, trap_library);
    ASSERT_GT(programs, 3);   // nvcc, cuda-uninstaller, python3.10, gcc-N …
    ASSERT_GT(libraries, 5);  // libcuda, libnvidia-ml, libcudart, libcudnn …

    // The traps fire when run: the test can fail.
    ASSERT_EQ(std::system(("'" + (root.path() / "usr/local/cuda-12.4/bin/nvcc").string() + "' --version").c_str()), 0);
    ASSERT_FALSE(fs::is_empty(markers));
    for (const auto& e : fs::directory_iterator(markers)) fs::remove(e.path());

    const std::string r = root.path().string();
    const std::string w = (work.path() / "watch").string();
    const std::vector<std::vector<std::string>> commands = {
        {"check", "--root", r},
        {"check", "--root", r, "--json", "--python", "/usr/bin/python3.10"},
        {"list", "--root", r},
        {"use", "12.4", "--root", r},
        {"switch", "12.4", "--root", r},
        {"uninstall", "12.4", "--root", r},
        {"modulefile", "--all", "--root", r},
        {"plan", "--root", r, "--framework", "torch==2.4"},
        {"explain", "--root", r, "RuntimeError: CUDA error: no kernel image is available for execution on the device"},
        {"arch", "--root", r, "torch"},
        {"arch", "--root", r, "/usr/local/cuda-12.4/targets/x86_64-linux/lib"},
        {"opencv", "cmake", "--root", r},
        {"verify", "--root", r, "--level", "3"},
        {"verify", "--root", r, "--level", "2", "--compiler", "nvrtc"},
        {"watch", "--root", r, "--duration", "300ms", "--interval", "100ms", "--out", w},
        {"__complete", "toolkits", "--root", r},
        // Applied plans run this computer's ldconfig on the image, never a program of it (here a
        // runfile toolkit: its own cuda-uninstaller is left alone). Last: it changes the image.
        {"uninstall", "12.4", "--root", r, "--apply"},
    };
    for (const auto& args : commands) {
        const auto run = run_cudoctor(args, std::chrono::seconds(60));
        std::string line;
        for (const auto& a : args) line += (a == r ? std::string("IMAGE") : a) + " ";
        EXPECT_FALSE(run.timed_out) << line;
        EXPECT_NE(run.exit_code, 3) << line << run.err;  // never an internal error
        EXPECT_TRUE(fs::is_empty(markers)) << line << "ran or loaded something of the image:\n" << markers_text(markers);
        for (const auto& e : fs::directory_iterator(markers)) fs::remove(e.path());
    }
}

TEST(InertImage, VerifySaysWhatItDidNotLoadAndVerifiesNothing) {
    const std::string r = std::string(CUDOCTOR_ROOTS_DIR) + "/ubuntu2204-rtx4060ti";
    const auto run = run_cudoctor({"verify", "--root", r, "--level", "3"});
    EXPECT_EQ(run.exit_code, 0) << run.err;  // nothing failed: nothing was tried
    EXPECT_NE(run.out.find("SKIP  the driver API answers (libcuda.so.1: cuInit)\n        not loaded: inside a machine image"), std::string::npos)
        << run.out;
    EXPECT_NE(run.out.find("not run: inside a machine image (/usr/local/cuda-12.4/bin/nvcc)"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("SKIP: nothing verified: a machine image is inert"), std::string::npos) << run.out;
    const auto quiet = run_cudoctor({"-q", "verify", "--root", r});
    EXPECT_TRUE(quiet.out.starts_with("SKIP: nothing verified")) << quiet.out;
    const auto json = run_cudoctor({"verify", "--root", r, "--json"});
    EXPECT_NE(json.out.find("\"verdict\": \"SKIP\""), std::string::npos) << json.out;
}

TEST(InertImage, AnImagesRecordedEnvironmentCannotNameALibraryToLoad) {
    // The image's /proc/self/environ is the machine's environment (PATH, LD_LIBRARY_PATH…), but
    // CUDOCTOR_DRIVER_LIBRARY_PATH is cudoctor's own knob: from an image it would load anything.
    MutableRoot root("ubuntu2204-rtx4060ti");
    const std::string stubs = std::string(CUDOCTOR_STUBS_DIR) + "/healthy";
    fs::create_directories(root.path() / "proc/self");
    std::ofstream(root.path() / "proc/self/environ") << "PATH=/usr/bin" << '\0' << "CUDOCTOR_DRIVER_LIBRARY_PATH=" << stubs << '\0';
    const auto run = run_cudoctor({"verify", "--root", root.path().string(), "--level", "1", "--json"});
    EXPECT_EQ(run.out.find("\"overrides\": [\n    \"CUDOCTOR_DRIVER"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("not loaded: inside a machine image"), std::string::npos) << run.out;
}

TEST(InertImage, UninstallOnAnImageLeavesTheRunfileUninstallerAlone) {
    MutableRoot root("toolkits-repo-driver");
    const auto run = run_cudoctor({"uninstall", "11.8", "--root", root.path().string()});
    EXPECT_EQ(run.out.find("cuda-uninstaller --silent"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("/usr/local/cuda-11.8/bin/cuda-uninstaller not run: inside a machine image"), std::string::npos) << run.out;
}

TEST(InertImage, DpkgIsNotLetRunAPackagesMaintainerScriptsOfTheImage) {
    // `dpkg --root IMAGE --purge` runs each package's prerm/postrm in a chroot of the image, as
    // root: the image's code. A plan that would is refused before anything changes.
    TempDir work;
    MutableRoot root("toolkits-repo-driver");
    const fs::path script = root.path() / "var/lib/dpkg/info/cuda-nvcc-12-4.postrm";
    std::ofstream(script) << "#!/bin/sh\ntouch '" << (work.path() / "ran").string() << "'\n";
    fs::permissions(script, fs::perms::owner_all);
    const auto run = run_cudoctor({"uninstall", "12.4", "--root", root.path().string(), "--apply"});
    EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
    EXPECT_NE(run.out.find(
                  "would run maintainer scripts of the image (/var/lib/dpkg/info/cuda-nvcc-12-4.postrm); not run: inside a machine image"),
              std::string::npos)
        << run.out;
    EXPECT_NE(run.out.find("Nothing was changed"), std::string::npos) << run.out;
    EXPECT_TRUE(fs::exists(root.path() / "usr/local/cuda-12.4/bin/nvcc"));
    EXPECT_FALSE(fs::exists(work.path() / "ran"));
}

TEST(InertImage, ErrorsAboutAPathOfTheImageSaySo) {
    MutableRoot root("toolkits-repo-driver");
    const std::string r = root.path().string();
    const std::string inside = " (inside the image " + fs::canonical(root.path()).string() + ")";
    auto mod = run_cudoctor({"modulefile", "12.4", "--root", r, "--dir", "/opt/nowhere", "--apply"});
    EXPECT_EQ(mod.exit_code, 2);
    EXPECT_NE(mod.out.find("/opt: No such file or directory" + inside), std::string::npos) << mod.out;
    auto use = run_cudoctor({"use", "/opt/none", "--root", r});
    EXPECT_NE(use.err.find("no CUDA toolkit at /opt/none" + inside), std::string::npos) << use.err;
    auto py = run_cudoctor({"check", "--root", r, "--python", "/nonexistent/python"});
    EXPECT_EQ(py.exit_code, 2);
    EXPECT_NE(py.err.find("--python /nonexistent/python: no such file" + inside), std::string::npos) << py.err;
}

}  // namespace cudoctor::test::inert_image
