// The second core's worker: every task runs once, by the worker or by whoever takes its result
// first, and a dropped result never leaves its task running past its poster.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/worker.hpp"

using cudoctor::Pending;
using cudoctor::Worker;
using namespace std::chrono_literals;

namespace {

/// Waits (a bounded while) until `flag` is set; false if it never was.
bool wait_for(const std::atomic<bool>& flag) {
    for (int i = 0; i < 20000 && !flag.load(); ++i) std::this_thread::sleep_for(100us);
    return flag.load();
}

}  // namespace

TEST(CommonWorker, EveryTaskGivesItsOwnResultOnce) {
    for (const bool threaded : {false, true}) {
        Worker worker(threaded);
        std::atomic<int> runs{0};
        std::vector<Pending<int>> results;
        for (int i = 0; i < 200; ++i)
            results.push_back(worker.post([i, &runs] {
                ++runs;
                return i * i;
            }));
        for (int i = 0; i < 200; ++i) {
            ASSERT_TRUE(results[i].valid());
            EXPECT_EQ(results[i].get(), i * i);
            EXPECT_FALSE(results[i].valid());
        }
        EXPECT_EQ(runs.load(), 200) << (threaded ? "threaded" : "inline");
    }
}

TEST(CommonWorker, ATaskRunsOnTheWorkerWhileThePosterGoesOn) {
    if (!cudoctor::second_cpu_available()) GTEST_SKIP() << "one CPU: the worker runs nothing on a thread of its own";
    Worker worker;
    std::atomic<bool> begun{false};
    std::atomic<bool> release{false};
    auto pending = worker.post([&] {
        begun = true;
        while (!release.load()) std::this_thread::sleep_for(100us);  // the poster must let it end
        return std::this_thread::get_id();
    });
    ASSERT_TRUE(wait_for(begun));  // begun without get(): on the worker's thread
    release = true;
    EXPECT_NE(pending.get(), std::this_thread::get_id());
}

TEST(CommonWorker, ATaskNotBegunIsRunByItsTaker) {
    // The worker is held on a first task: the second has not begun when its result is asked
    // for, so it runs in the caller (a busy second CPU never holds the first up).
    Worker worker(true);
    std::atomic<bool> begun{false};
    std::atomic<bool> release{false};
    auto first = worker.post([&] {
        begun = true;
        while (!release.load()) std::this_thread::sleep_for(100us);
        return 1;
    });
    std::atomic<int> second_runs{0};
    auto second = worker.post([&] {
        ++second_runs;
        return std::this_thread::get_id();
    });
    if (cudoctor::second_cpu_available()) {
        ASSERT_TRUE(wait_for(begun));
    }
    EXPECT_EQ(second.get(), std::this_thread::get_id());
    release = true;
    EXPECT_EQ(first.get(), 1);
    EXPECT_EQ(second_runs.load(), 1);  // the worker skips it when it comes to it
}

TEST(CommonWorker, AnExceptionComesBackThroughGet) {
    for (const bool threaded : {false, true}) {
        Worker worker(threaded);
        auto failing = worker.post([]() -> int { throw std::runtime_error("no such file"); });
        auto fine = worker.post([] { return 7; });
        EXPECT_THROW(
            {
                try {
                    failing.get();
                } catch (const std::runtime_error& e) {
                    EXPECT_STREQ(e.what(), "no such file");
                    throw;
                }
            },
            std::runtime_error);
        EXPECT_EQ(fine.get(), 7);  // the worker goes on after a task that threw
    }
}

TEST(CommonWorker, ADroppedResultDoesNotOutliveItsTask) {
    // A task may use its poster's stack: dropping its Pending waits for it when it has begun,
    // and keeps it from ever running when it has not. A task that ran after its drop would
    // read the value written after it.
    for (const bool threaded : {false, true}) {
        std::atomic<int> ran{0};
        std::atomic<int> late{0};
        {
            Worker worker(threaded);
            for (int i = 0; i < 200; ++i) {
                int on_stack = i;
                {
                    auto dropped = worker.post([&, i] {
                        std::this_thread::sleep_for(20us);
                        ++ran;
                        if (on_stack != i) ++late;
                        return 0;
                    });
                    if (i % 2 == 0) std::this_thread::sleep_for(50us);  // some begun before their drop, some not
                }
                on_stack = -1;
            }
        }
        EXPECT_EQ(late.load(), 0) << (threaded ? "threaded" : "inline");
        if (!threaded) {
            EXPECT_EQ(ran.load(), 0);  // inline: nothing runs before get(), so nothing ran
        }
    }
}

TEST(CommonWorker, TasksLeftAtTheEndRunAtTheirGet) {
    std::vector<Pending<int>> later;
    {
        Worker worker(true);
        std::atomic<bool> begun{false};
        std::atomic<bool> release{false};
        later.push_back(worker.post([&] {
            begun = true;
            while (!release.load()) std::this_thread::sleep_for(100us);
            return 1;
        }));
        for (int i = 2; i <= 5; ++i) later.push_back(worker.post([i] { return i; }));
        if (cudoctor::second_cpu_available()) {
            ASSERT_TRUE(wait_for(begun));
        }
        release = true;
    }  // the worker ends: what it had not begun is left to the results' holders
    for (int i = 0; i < 5; ++i) EXPECT_EQ(later[i].get(), i + 1);
}
