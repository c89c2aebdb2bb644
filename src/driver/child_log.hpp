#pragma once
// How an isolated child reports to verify: JSON lines, written as it goes. Before each call into
// a driver library the child writes {"call": name} and after it {"returned": name}; each fact is
// {"set": key, "value": v}; the last line is {"done": true}. A child that hangs or crashes has
// still sent everything up to that moment, and the open call names the culprit.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "host/isolated.hpp"

namespace cudoctor::driver {

/// The child's side.
class ChildLog {
  public:
    explicit ChildLog(const host::IsolatedWriter& writer) : m_writer(writer) {}
    void call(std::string_view name) const;
    void returned(std::string_view name) const;
    void set(std::string_view key, const nlohmann::json& value) const;
    void done() const;

  private:
    const host::IsolatedWriter& m_writer;
};

/// The parent's side: the facts the child set, and how it ended.
struct ChildAnswer {
    nlohmann::json facts = nlohmann::json::object();
    std::string in_flight;  ///< the call that never returned ("" when none)
    bool complete = false;  ///< the child wrote "done"
    host::IsolatedResult raw;
    std::chrono::milliseconds timeout{0};

    /// "cuInit hung: no answer within 2000 ms (killed)", "cuInit crashed with signal 11
    /// (SIGSEGV, Segmentation fault)", "exited with status 3 before answering"; "" when complete.
    [[nodiscard]] std::string trouble() const;
};

/// Reads the lines a child wrote. Lines that are not JSON are ignored (they cannot come from
/// ChildLog; a library may not write to this pipe).
ChildAnswer collect(const host::IsolatedResult& raw, std::chrono::milliseconds timeout);

/// Runs `fn` isolated (host::run_isolated) and collects its answer. Errc::io when no child could
/// be started.
Expected<ChildAnswer> run_child(const std::function<void(const ChildLog&)>& fn, std::chrono::milliseconds timeout);

/// Child side: dlopen (RTLD_NOW | RTLD_LOCAL) the first of `candidates` that loads; sets
/// "<prefix>tried" (the dlerror of each that failed) and "<prefix>library" (the real file the
/// loader chose). nullptr when none loads.
void* open_first(const ChildLog& log, const std::vector<std::string>& candidates, std::string_view prefix = "");

/// Child side: the function `name` in `handle`, or nullptr; a missing one is added to the
/// "missing" fact list.
void* find_symbol(const ChildLog& log, void* handle, const char* name, nlohmann::json& missing);

/// Parent side: the fact `key` of `facts` as a T, or nullopt when absent or of another type.
template <class T>
std::optional<T> fact(const nlohmann::json& facts, const char* key) {
    auto it = facts.find(key);
    if (it == facts.end()) return std::nullopt;
    try {
        return it->template get<T>();
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

/// Parent side: the "tried" fact as a list of lines.
std::vector<std::string> tried_list(const ChildAnswer& answer, std::string_view prefix = "");

}  // namespace cudoctor::driver
