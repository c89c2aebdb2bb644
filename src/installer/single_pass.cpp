#include "installer/single_pass.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

namespace cudoctor::installer {

void RangeSink::consume(std::uint64_t offset, std::string_view bytes) {
    const std::uint64_t from = std::max(offset, m_begin);
    std::uint64_t to = offset + bytes.size();
    if (m_end) to = std::min(to, *m_end);
    if (from >= to) return;
    on_bytes(bytes.substr(static_cast<std::size_t>(from - offset), static_cast<std::size_t>(to - from)));
    m_seen += to - from;
}

void RangeSink::finish(std::uint64_t end) { on_end(!m_end || end >= *m_end); }

namespace {

constexpr std::size_t kChunkSize = 4u << 20;
constexpr std::size_t kChunks = 16;

struct Chunk {
    std::unique_ptr<char[]> data{new char[kChunkSize]};
    std::uint64_t offset = 0;
    std::size_t size = 0;
    std::atomic<int> refs{0};
};

/// Chunks ready to be filled, handed back by the last sink that used one.
class Pool {
  public:
    Pool() {
        for (std::size_t i = 0; i < kChunks; ++i) m_all.push_back(std::make_unique<Chunk>());
        for (auto& c : m_all) m_free.push_back(c.get());
    }
    Chunk* take() {
        std::unique_lock lock(m_mutex);
        m_cv.wait(lock, [&] { return !m_free.empty(); });
        auto* c = m_free.back();
        m_free.pop_back();
        return c;
    }
    void give_back(Chunk* c) {
        {
            std::lock_guard lock(m_mutex);
            m_free.push_back(c);
        }
        m_cv.notify_one();
    }

  private:
    std::vector<std::unique_ptr<Chunk>> m_all;
    std::vector<Chunk*> m_free;
    std::mutex m_mutex;
    std::condition_variable m_cv;
};

/// One sink on its own thread, fed from a queue; a null chunk ends it.
class Worker {
  public:
    Worker(ByteSink* sink, Pool& pool) : m_sink(sink), m_pool(pool), m_thread([this] { loop(); }) {}
    ~Worker() {
        if (m_thread.joinable()) m_thread.join();
    }
    void push(Chunk* c) {
        {
            std::lock_guard lock(m_mutex);
            m_queue.push_back(c);
        }
        m_cv.notify_one();
    }
    void close(std::uint64_t end) {
        m_end = end;
        push(nullptr);
        m_thread.join();
    }

  private:
    void loop() {
        while (true) {
            Chunk* c;
            {
                std::unique_lock lock(m_mutex);
                m_cv.wait(lock, [&] { return !m_queue.empty(); });
                c = m_queue.front();
                m_queue.pop_front();
            }
            if (!c) break;
            m_sink->consume(c->offset, std::string_view(c->data.get(), c->size));
            if (c->refs.fetch_sub(1) == 1) m_pool.give_back(c);
        }
        m_sink->finish(m_end);
    }

    ByteSink* m_sink;
    Pool& m_pool;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::deque<Chunk*> m_queue;
    std::uint64_t m_end = 0;  // written before the closing push, read after it is popped
    std::thread m_thread;
};

}  // namespace

PassResult run_single_pass(int fd, std::uint64_t size, const std::vector<ByteSink*>& sinks, const ProgressFn& progress) {
    const auto start = std::chrono::steady_clock::now();
    PassResult result;
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    Pool pool;
    std::vector<std::unique_ptr<Worker>> workers;
    workers.reserve(sinks.size());
    for (auto* s : sinks) workers.push_back(std::make_unique<Worker>(s, pool));

    std::uint64_t offset = 0;
    while (true) {
        Chunk* c = pool.take();
        std::size_t filled = 0;
        while (filled < kChunkSize) {
            const auto n = ::pread(fd, c->data.get() + filled, kChunkSize - filled, static_cast<off_t>(offset + filled));
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) {
                result.error = Error{Errc::io, "read error at byte " + std::to_string(offset + filled) + ": " + std::strerror(errno)};
                break;
            }
            if (n == 0) break;
            filled += static_cast<std::size_t>(n);
        }
        if (filled == 0) {
            pool.give_back(c);
            break;
        }
        c->offset = offset;
        c->size = filled;
        c->refs = static_cast<int>(workers.size());
        offset += filled;
        if (workers.empty()) pool.give_back(c);
        for (auto& w : workers) w->push(c);
        if (progress) progress(offset, size);
        if (result.error || filled < kChunkSize) break;
    }
    for (auto& w : workers) w->close(offset);
    result.bytes_read = offset;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

}  // namespace cudoctor::installer
