#pragma once
// A second thread for work whose inputs are known before its result is needed: `check` lists
// the system library folder and reads the package logs on the second core while the first
// probes run on the first.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>

namespace cudoctor {

/// Whether this process may run on more than one CPU (its affinity mask, as taskset sets it;
/// not the machine's count): with one, a second thread only takes turns with the first.
bool second_cpu_available();

/// A task posted to a Worker, and its result.
template <class T>
class Pending {
  public:
    Pending() = default;
    Pending(Pending&&) noexcept = default;
    Pending& operator=(Pending&& other) noexcept {
        if (this != &other) {
            settle();
            m_state = std::move(other.m_state);
        }
        return *this;
    }
    Pending(const Pending&) = delete;
    Pending& operator=(const Pending&) = delete;
    /// One dropped without get() does not outlive its task: a task not begun never runs, one
    /// running is waited for (a task may use what its poster's stack holds, until get()).
    ~Pending() { settle(); }

    /// False for a default-made one, and once get() has been called.
    bool valid() const { return m_state != nullptr; }
    /// The task's result (or the exception it threw): when the worker has begun the task, once
    /// it ends; when it has not (its CPU busy with other work), the task is run here, now, and
    /// the worker skips it. Either way it runs once. Call it once.
    T get() {
        auto state = std::move(m_state);
        if (!state->begun.exchange(true)) state->task();
        return state->result.get();
    }

  private:
    friend class Worker;
    void settle() {
        if (m_state && m_state->begun.exchange(true)) m_state->result.wait();
        m_state.reset();
    }
    struct State {
        explicit State(std::packaged_task<T()> t) : task(std::move(t)), result(task.get_future()) {}
        std::atomic<bool> begun{false};
        std::packaged_task<T()> task;
        std::future<T> result;
    };
    explicit Pending(std::shared_ptr<State> state) : m_state(std::move(state)) {}
    std::shared_ptr<State> m_state;
};

/// Runs the tasks posted to it one after another, in the order posted, on one thread of its
/// own, started at the first post on another CPU than the poster's (left to itself, Linux runs a
/// new thread on its parent's CPU for milliseconds first: on #25's 2-core VM a 2 ms task then
/// ended after the parent's own 2 ms). A task must not touch what the poster keeps using (a
/// Host with its cache, a Snapshot being filled): it gets copies of its inputs and returns its
/// output. post() is for one thread (the owner's). While its thread lives, a fork()ed child
/// must only exec (as Host::run's does): it would inherit locks the thread held. The destructor
/// skips the tasks not begun, waits for the one running, and joins.
class Worker {
  public:
    /// `threaded` false: no thread; each task runs at its get() (the same results): for one
    /// CPU, and for tests.
    explicit Worker(bool threaded = second_cpu_available()) : m_threaded(threaded) {}
    ~Worker();
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;

    /// Whether tasks go to a thread of their own (false: each runs at its get()).
    bool threaded() const { return m_threaded; }

    template <class Task>
    Pending<std::invoke_result_t<Task&>> post(Task task) {
        using Result = std::invoke_result_t<Task&>;
        using State = typename Pending<Result>::State;
        auto state = std::make_shared<State>(std::packaged_task<Result()>(std::move(task)));
        if (m_threaded)
            enqueue([state] {
                if (!state->begun.exchange(true)) state->task();  // else its owner took it first
            });
        return Pending<Result>(std::move(state));
    }

  private:
    void enqueue(std::function<void()> job);
    void run();

    bool m_threaded;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::function<void()>> m_jobs;
    bool m_stopping = false;
    std::thread m_thread;
};

}  // namespace cudoctor
