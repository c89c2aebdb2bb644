// explain's answers that were wrong (issue #19): a cuDNN wheel that does not exist, PATH exports
// for a command run under sudo, "2 matching lines" for one line, an apt line printed twice. Each
// reads a message with the built-in catalog and ties it to a Snapshot literal.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "explain/explain.hpp"
#include "explain/render.hpp"
#include "support/rule_cases.hpp"

namespace cudoctor::test::rule_cases {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::vector<explain::Cause> read_log(std::string_view text) {
    auto rows = explain::load_catalog(std::nullopt);
    EXPECT_TRUE(rows) << rows.error().message;
    auto reader = explain::Reader::create(std::move(*rows));
    EXPECT_TRUE(reader) << reader.error().message;
    reader->feed(text);
    reader->finish();
    return reader->causes();
}

std::vector<explain::Cause> explain_on(std::string_view text, const snapshot::Snapshot& snap) {
    auto causes = read_log(text);
    explain::tie_to_machine(causes, snap, kb::Kb::builtin());
    return causes;
}

const explain::Cause* find(const std::vector<explain::Cause>& causes, std::string_view id) {
    auto it = std::find_if(causes.begin(), causes.end(), [&](const explain::Cause& c) { return c.id == id; });
    return it == causes.end() ? nullptr : &*it;
}

std::string fix_text(const explain::Cause& c) {
    std::string out;
    for (const auto& f : c.fix) out += f + "\n";
    return out;
}

std::string render(const std::vector<explain::Cause>& causes, std::size_t lines) {
    std::ostringstream out;
    explain::RenderContext ctx;
    ctx.lines = lines;
    explain::render_text(causes, ctx, out);
    return out.str();
}

/// gpu_machine() with a CUDA 13.0 toolkit as /usr/local/cuda, nvcc on PATH.
snapshot::Snapshot cuda13_machine() {
    auto s = gpu_machine("580.65.06");
    s.toolkits = {toolkit("13.0.48")};
    s.toolkits.front().is_default = true;
    s.environment.cuda_symlink = s.toolkits.front().path;
    put_first_on_path(s, s.toolkits.front());
    return s;
}

std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

// --- missing cuDNN: a wheel that exists ---------------------------------------------------------

TEST(ExplainAnswers, CudnnEightOnACuda13MachineNamesAWheelThatExists) {
    // There is no cuDNN 8 for CUDA 13 (no nvidia-cudnn-cu13 8.x wheel); cuDNN 8 was built for CUDA 11 and 12.
    const auto causes = explain_on("OSError: libcudnn.so.8: cannot open shared object file: No such file or directory\n", cuda13_machine());
    const auto* c = find(causes, "missing-cudnn");
    ASSERT_NE(c, nullptr);
    const std::string fix = fix_text(*c);
    EXPECT_THAT(fix, HasSubstr("nvidia-cudnn-cu12==8.*")) << fix;
    EXPECT_THAT(fix, Not(HasSubstr("cu13==8"))) << fix;
}

TEST(ExplainAnswers, CudnnNineOnACuda13MachineKeepsTheMachinesCuda) {
    const auto causes =
        explain_on("ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory\n", cuda13_machine());
    const auto* c = find(causes, "missing-cudnn");
    ASSERT_NE(c, nullptr);
    const std::string fix = fix_text(*c);
    EXPECT_THAT(fix, HasSubstr("nvidia-cudnn-cu13==9.*")) << fix;
    EXPECT_THAT(fix, HasSubstr("libcudnn9-cuda-13")) << fix;  // recipe::cudnn_install, NVIDIA's repository
}

// --- sudo's secure_path --------------------------------------------------------------------------

TEST(ExplainAnswers, SudoNvccCommandNotFoundIsSudosSecurePathNotAMissingExport) {
    auto s = cuda13_machine();
    const auto causes = explain_on("$ sudo nvcc --version\nsudo: nvcc: command not found\n", s);
    const auto* sudo = find(causes, "sudo-path-lost");
    ASSERT_NE(sudo, nullptr);
    EXPECT_EQ(sudo->confidence, "high");
    EXPECT_TRUE(sudo->consequence_of.empty());
    const std::string fix = fix_text(*sudo);
    EXPECT_THAT(fix, HasSubstr("sudo /usr/local/cuda-13.0/bin/nvcc"));
    EXPECT_THAT(fix, HasSubstr("sudo env \"PATH=$PATH\""));
    EXPECT_THAT(fix, Not(HasSubstr("export PATH")));
    // nvcc-not-found (the same line) follows from it and does not tell the user to export PATH either.
    const auto* nvcc = find(causes, "nvcc-not-found");
    ASSERT_NE(nvcc, nullptr);
    EXPECT_EQ(nvcc->consequence_of, "sudo-path-lost");
    EXPECT_THAT(fix_text(*nvcc), Not(HasSubstr("export PATH")));
}

TEST(ExplainAnswers, SudoMakeBeforeNvccNotFoundNamesSudo) {
    const auto causes = read_log(
        "user@host:~/src$ sudo make\n[sudo] password for user: \nnvcc -c kernel.cu -o kernel.o\n"
        "/bin/sh: 1: nvcc: not found\n");
    const auto* sudo = find(causes, "sudo-path-lost");
    ASSERT_NE(sudo, nullptr);
    EXPECT_EQ(sudo->confidence, "medium");
    ASSERT_NE(find(causes, "nvcc-not-found"), nullptr);
    EXPECT_EQ(find(causes, "nvcc-not-found")->consequence_of, "sudo-path-lost");
}

TEST(ExplainAnswers, SudoAloneOrBesideAPackageManagerIsNoCause) {
    EXPECT_EQ(find(read_log("$ sudo make install\n[sudo] password for user: \ninstall -m 755 tool /usr/local/bin\n"), "sudo-path-lost"),
              nullptr);
    const auto causes = read_log("$ sudo apt-get install nvidia-cuda-toolkit\n$ nvcc --version\nnvcc: command not found\n");
    EXPECT_EQ(find(causes, "sudo-path-lost"), nullptr);
    EXPECT_NE(find(causes, "nvcc-not-found"), nullptr);
}

TEST(ExplainAnswers, NoNvccOnTheMachineContradictsSudo) {
    auto s = gpu_machine();
    const auto causes = explain_on("sudo: nvcc: command not found\n", s);
    const auto* sudo = find(causes, "sudo-path-lost");
    ASSERT_NE(sudo, nullptr);
    EXPECT_TRUE(std::any_of(sudo->evidence.begin(), sudo->evidence.end(), [](const explain::Fact& f) { return f.verdict == "contradicts"; }));
}

// --- counting lines ------------------------------------------------------------------------------

TEST(ExplainAnswers, OneLineIsOneMatchingLine) {
    // Lines that two catalog rows of one cause match.
    for (const char* line :
         {"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 22.78 GiB. GPU 0 has a total capacity of 31.47 GiB of which "
          "12.73 GiB is free.",
          "CUDA error: 35 (0x23) cudaErrorInsufficientDriver : CUDA driver version is insufficient for CUDA runtime version",
          "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'; dlerror: "
          "libcudart.so.11.0: cannot open shared object file: No such file or directory",
          "sudo: nvcc: command not found"}) {
        SCOPED_TRACE(line);
        const auto causes = read_log(line);
        ASSERT_FALSE(causes.empty());
        for (const auto& c : causes) EXPECT_EQ(c.match_count, 1u) << c.id;
        EXPECT_THAT(render(causes, 1), Not(HasSubstr("matching lines"))) << render(causes, 1);
    }
}

TEST(ExplainAnswers, ManyLinesAreCountedOnce) {
    std::string log;
    for (int i = 0; i < 3; ++i) log += "sudo: nvcc: command not found\n";
    const auto causes = read_log(log);
    const auto* sudo = find(causes, "sudo-path-lost");
    ASSERT_NE(sudo, nullptr);
    EXPECT_EQ(sudo->match_count, 3u);
    EXPECT_TRUE(sudo->match_count_exact);
}

// --- gcc-too-new-for-toolkit: one apt line -------------------------------------------------------

TEST(ExplainAnswers, GccFixInstallsTheOlderGccOnce) {
    auto s = gpu_machine();
    s.platform.gcc_default = 13;
    s.platform.gcc_installed = {13};
    s.toolkits = {toolkit("12.1.105")};
    s.toolkits.front().max_gcc = 12;
    s.toolkits.front().max_gcc_source = "host_config.h";
    const auto causes = explain_on(
        "/usr/local/cuda/include/crt/host_config.h:132:2: error: #error -- unsupported GNU version! gcc versions later than 12 are "
        "not supported!\n",
        s);
    const auto* c = find(causes, "gcc-too-new-for-toolkit");
    ASSERT_NE(c, nullptr);
    const std::string fix = fix_text(*c);
    EXPECT_EQ(count_of(fix, "apt-get install"), 1u) << fix;
    EXPECT_THAT(fix, HasSubstr("g++-12")) << fix;
}

// --- the platform causes, tied to the machine's facts (issue #21) --------------------------------

std::string evidence_text(const explain::Cause& c) {
    std::string out;
    for (const auto& f : c.evidence) out += f.verdict + ": " + f.text + "\n";
    return out;
}

TEST(ExplainAnswers, KilledBuildGetsTheJobCountThatFitsThisMachine) {
    const std::string log = "c++: fatal error: Killed signal terminated program cc1plus\ncompilation terminated.\n";
    // 16 cores, 12 GiB available: memory decides, 4 jobs of 3 GiB (host::parallel_jobs).
    auto causes = read_log(log);
    explain::tie_to_machine(causes, gpu_machine(), kb::Kb::builtin(), host::BuildResources{12582912, "MemAvailable", 16, "x"});
    const auto* c = find(causes, "build-oom-killed");
    ASSERT_NE(c, nullptr);
    ASSERT_FALSE(c->fix.empty());
    EXPECT_THAT(c->fix.front(), HasSubstr("MAX_JOBS=4")) << fix_text(*c);
    EXPECT_THAT(c->fix.front(), HasSubstr("make -j4"));
    EXPECT_EQ(count_of(fix_text(*c), "MAX_JOBS="), 1u) << "the general 'fewer jobs' step is replaced, not repeated";
    EXPECT_THAT(evidence_text(*c), HasSubstr("16 cores, 12.0 GiB available memory / 3 GiB per nvcc job → 4 parallel jobs"));
    // A saved snapshot carries no memory: the general advice stays, no number is made up.
    auto saved = read_log(log);
    explain::tie_to_machine(saved, gpu_machine(), kb::Kb::builtin());
    const auto* g = find(saved, "build-oom-killed");
    ASSERT_NE(g, nullptr);
    EXPECT_THAT(fix_text(*g), Not(HasSubstr("MAX_JOBS=4")));
    EXPECT_THAT(fix_text(*g), HasSubstr("free GiB / 3"));
}

TEST(ExplainAnswers, AptKeyErrorIsConfirmedByTheSourceWhoseKeyringIsGone) {
    auto s = ubuntu_machine();
    s.platform.apt_sources = {nvidia_source("ubuntu2204")};
    s.platform.apt_sources.front().signed_by_missing = true;
    const std::string log =
        "W: GPG error: https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64  InRelease: The following signatures "
        "couldn't be verified because the public key is not available: NO_PUBKEY A4B469963BF863CC\n";
    const auto causes = explain_on(log, s);
    const auto* c = find(causes, "apt-repo-error");
    ASSERT_NE(c, nullptr);
    EXPECT_THAT(evidence_text(*c), HasSubstr("confirms: /etc/apt/sources.list.d/cuda-ubuntu2204-x86_64.list:1 names the keyring "
                                             "/usr/share/keyrings/cuda-archive-keyring.gpg, which is not on this machine"));
    EXPECT_EQ(c->confidence, "high");
    // The keyring there: the source is only context, nothing confirms.
    s.platform.apt_sources.front().signed_by_missing = false;
    s.platform.apt_keyrings = {"/usr/share/keyrings/cuda-archive-keyring.gpg"};
    const auto ok = explain_on(log, s);
    const auto* k = find(ok, "apt-repo-error");
    ASSERT_NE(k, nullptr);
    EXPECT_THAT(evidence_text(*k), Not(HasSubstr("confirms:")));
    EXPECT_THAT(evidence_text(*k), HasSubstr("NVIDIA keyrings here: /usr/share/keyrings/cuda-archive-keyring.gpg"));
}

TEST(ExplainAnswers, ContainerErrorIsReadAgainstTheContainerToolkit) {
    const std::string log = "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].\n";
    auto s = gpu_machine();
    s.platform.docker_installed = true;
    const auto missing = explain_on(log, s);
    const auto* c = find(missing, "container-gpu-unavailable");
    ASSERT_NE(c, nullptr);
    EXPECT_THAT(evidence_text(*c), HasSubstr("confirms: the NVIDIA Container Toolkit is not installed here"));
    // Installed but not registered with Docker: the one command that registers it.
    s.platform.container_toolkit_version = "1.16.2-1";
    const auto unregistered = explain_on(log, s);
    const auto* u = find(unregistered, "container-gpu-unavailable");
    ASSERT_NE(u, nullptr);
    EXPECT_THAT(evidence_text(*u), HasSubstr("NVIDIA Container Toolkit here: 1.16.2-1"));
    EXPECT_THAT(evidence_text(*u), HasSubstr("sudo nvidia-ctk runtime configure --runtime=docker"));
    EXPECT_THAT(evidence_text(*u), Not(HasSubstr("confirms:")));
    // No Docker and no toolkit (a plain workstation): nothing to say about containers.
    const auto plain = explain_on(log, gpu_machine());
    const auto* p = find(plain, "container-gpu-unavailable");
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(p->evidence.empty()) << evidence_text(*p);
}

TEST(ExplainAnswers, DkmsFailureIsConfirmedByItsMakeLog) {
    auto s = ubuntu_machine();
    s.platform.dkms = {{"nvidia", "550.54.14", "6.5.0-27-generic", false, "nvidia/nv.c:42:10: fatal error: linux/foo.h: No such file"}};
    const auto causes = explain_on("Error! Bad return status for module build on kernel: 6.5.0-27-generic (x86_64)\n", s);
    const auto* c = find(causes, "dkms-build-failed");
    ASSERT_NE(c, nullptr);
    EXPECT_THAT(evidence_text(*c), HasSubstr("confirms: /var/lib/dkms/nvidia/550.54.14/build/make.log here: nvidia/nv.c:42:10"));
}

TEST(ExplainAnswers, RunfileRefusalNamesTheMissingCompiler) {
    auto s = ubuntu_machine();
    s.platform.c_compiler.clear();
    const auto causes = explain_on(
        "ERROR: Unable to find the development tool `cc` in your path; please make sure that you have the "
        "package 'gcc' installed.\n",
        s);
    const auto* c = find(causes, "runfile-installer-refused");
    ASSERT_NE(c, nullptr);
    EXPECT_THAT(evidence_text(*c), HasSubstr("confirms: no C compiler on PATH here"));
}

}  // namespace cudoctor::test::rule_cases
