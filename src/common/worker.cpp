#include "common/worker.hpp"

#include <pthread.h>
#include <sched.h>

namespace cudoctor {
namespace {

/// The CPUs this process may use, but the one the caller runs on; false when there is none.
bool other_cpus(cpu_set_t& set) {
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) != 0) return false;
    const int here = ::sched_getcpu();
    if (here >= 0 && here < CPU_SETSIZE) CPU_CLR(here, &set);
    return CPU_COUNT(&set) > 0;
}

}  // namespace

bool second_cpu_available() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) != 0) return std::thread::hardware_concurrency() > 1;
    return CPU_COUNT(&set) > 1;
}

Worker::~Worker() {
    {
        const std::lock_guard lock(m_mutex);
        m_stopping = true;
        m_jobs.clear();  // not begun: whoever holds their Pending runs them at get()
    }
    m_wake.notify_one();
    if (m_thread.joinable()) m_thread.join();
}

void Worker::enqueue(std::function<void()> job) {
    std::unique_lock lock(m_mutex);
    if (!m_thread.joinable()) {
        try {
            m_thread = std::thread([this] { run(); });
        } catch (const std::system_error&) {
            m_threaded = false;  // no thread to be had (a process at its limit): tasks run at get()
            return;
        }
        // Moved off this CPU before it first runs. Where that fails, it runs where Linux puts it.
        if (cpu_set_t set; other_cpus(set)) ::pthread_setaffinity_np(m_thread.native_handle(), sizeof set, &set);
    }
    m_jobs.push_back(std::move(job));
    lock.unlock();
    m_wake.notify_one();
}

void Worker::run() {
    for (;;) {
        std::function<void()> job;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stopping || !m_jobs.empty(); });
            if (m_jobs.empty()) return;  // stopping, and nothing left to run
            job = std::move(m_jobs.front());
            m_jobs.pop_front();
        }
        job();
    }
}

}  // namespace cudoctor
