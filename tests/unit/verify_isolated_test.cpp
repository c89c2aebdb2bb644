// host::run_isolated: a function in a forked child with a time limit — answers, hangs, crashes
// and early exits each come back as what they are, and the parent lives on.
#include <csignal>

#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "host/isolated.hpp"

namespace cudoctor::host {
namespace {

using namespace std::chrono_literals;

TEST(Isolated, AnswerComesBackOverThePipe) {
    auto r = run_isolated([](const IsolatedWriter& w) { w.line("hello from " + std::to_string(::getpid())); }, 5000ms);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->end, IsolatedEnd::finished);
    EXPECT_TRUE(r->answer.starts_with("hello from ")) << r->answer;
    EXPECT_NE(r->answer, "hello from " + std::to_string(::getpid()) + "\n") << "it ran in this process, not a child";
    EXPECT_EQ(r->describe(5000ms), "finished");
}

TEST(Isolated, PrintedOutputIsCapturedNotLeaked) {
    auto r = run_isolated(
        [](const IsolatedWriter&) {
            std::printf("a library talking on stdout\n");
            std::fflush(stdout);
            std::fprintf(stderr, "and on stderr\n");
        },
        5000ms);
    ASSERT_TRUE(r);
    EXPECT_NE(r->output.find("a library talking on stdout"), std::string::npos) << r->output;
    EXPECT_NE(r->output.find("and on stderr"), std::string::npos) << r->output;
}

TEST(Isolated, HangIsKilledAtTheLimitAndKeepsWhatWasWritten) {
    const auto start = std::chrono::steady_clock::now();
    auto r = run_isolated(
        [](const IsolatedWriter& w) {
            w.line("before the hang");
            for (;;) ::pause();
        },
        // Long enough that a forked child of a big ASan binary on a loaded machine always writes
        // its line before the limit: the answer below must not depend on the machine's speed.
        2000ms);
    const auto took = std::chrono::steady_clock::now() - start;
    ASSERT_TRUE(r);
    EXPECT_EQ(r->end, IsolatedEnd::hung);
    EXPECT_EQ(r->answer, "before the hang\n");
    EXPECT_EQ(r->describe(2000ms), "hung: no answer within 2000 ms (killed)");
    EXPECT_LT(took, 10s);
}

TEST(Isolated, SegfaultIsReportedWithItsSignal) {
    auto r = run_isolated(
        [](const IsolatedWriter& w) {
            w.line("about to crash");
            // A real SIGSEGV without undefined behaviour: under UBSan a null store would be caught
            // and turned into exit(1) before it crashed. (The segfault stub library crashes for real.)
            std::raise(SIGSEGV);
        },
        5000ms);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->end, IsolatedEnd::crashed);
    EXPECT_EQ(r->signal, SIGSEGV);
    EXPECT_EQ(r->answer, "about to crash\n");
    EXPECT_EQ(r->describe(5000ms), "crashed with signal 11 (SIGSEGV, Segmentation fault)");
}

TEST(Isolated, AbortIsACrashToo) {
    auto r = run_isolated([](const IsolatedWriter&) { std::abort(); }, 5000ms);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->end, IsolatedEnd::crashed);
    EXPECT_EQ(r->signal, SIGABRT);
    EXPECT_EQ(signal_name(SIGABRT), "SIGABRT");
}

TEST(Isolated, ExitInsideTheLibraryIsAnEarlyExit) {
    auto r = run_isolated([](const IsolatedWriter&) { std::exit(3); }, 5000ms);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->end, IsolatedEnd::exited);
    EXPECT_EQ(r->exit_code, 3);
    EXPECT_EQ(r->describe(5000ms), "exited with status 3");
}

TEST(Isolated, GrandchildHoldingThePipeDoesNotHoldTheParent) {
    const auto start = std::chrono::steady_clock::now();
    auto r = run_isolated(
        [](const IsolatedWriter& w) {
            if (::fork() == 0) {  // a daemon the library leaves behind, with the pipe still open
                ::sleep(30);
                ::_exit(0);
            }
            w.line("done");
        },
        20000ms);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->end, IsolatedEnd::finished);
    EXPECT_EQ(r->answer, "done\n");
    EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
}

}  // namespace
}  // namespace cudoctor::host
