#pragma once
// A fixture machine copied to a temporary folder so one test can change it: a file written or
// removed, an environment variable set. Each rule test is one such variation of a real fixture.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test {

class MutableRoot {
  public:
    /// A copy of CUDOCTOR_ROOTS_DIR/<scenario> (symbolic links kept as links).
    explicit MutableRoot(const std::string& scenario) {
        m_root = m_tmp.path() / scenario;
        std::filesystem::copy(std::string(CUDOCTOR_ROOTS_DIR) + "/" + scenario, m_root,
                              std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
    }
    const std::filesystem::path& path() const { return m_root; }

    MutableRoot& write(const std::string& machine_path, const std::string& content) {
        auto p = m_root / machine_path.substr(1);
        std::filesystem::create_directories(p.parent_path());
        std::filesystem::remove(p);  // a link is replaced, not written through
        std::ofstream(p, std::ios::binary) << content;
        return *this;
    }
    MutableRoot& remove(const std::string& machine_path) {
        std::filesystem::remove_all(m_root / machine_path.substr(1));
        return *this;
    }
    /// Removes every entry of a folder whose name starts with `prefix`.
    MutableRoot& remove_matching(const std::string& machine_dir, const std::string& prefix) {
        for (const auto& e : std::filesystem::directory_iterator(m_root / machine_dir.substr(1)))
            if (e.path().filename().string().starts_with(prefix)) std::filesystem::remove_all(e.path());
        return *this;
    }
    /// Rewrites a file with every line containing `needle` dropped.
    MutableRoot& drop_lines(const std::string& machine_path, const std::string& needle) {
        std::ifstream in(m_root / machine_path.substr(1));
        std::string line, kept;
        while (std::getline(in, line))
            if (line.find(needle) == std::string::npos) kept += line + "\n";
        return write(machine_path, kept);
    }
    /// Sets (or, with nullopt, unsets) a variable of the machine's environment.
    MutableRoot& env(const std::string& key, const std::optional<std::string>& value) {
        std::ifstream in(m_root / "proc/self/environ", std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        std::map<std::string, std::string> vars;
        std::string block = ss.str(), entry;
        for (char c : block + '\n') {
            if (c == '\n' || c == '\0') {
                if (auto eq = entry.find('='); eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
                entry.clear();
            } else {
                entry += c;
            }
        }
        if (value) vars[key] = *value;
        else vars.erase(key);
        std::string out;
        for (const auto& [k, v] : vars) out += k + "=" + v + "\n";
        return write("/proc/self/environ", out);
    }

    /// `cudoctor check --root <copy> --json`: the snapshot.
    nlohmann::json check() const {
        auto run = run_cudoctor({"check", "--root", m_root.string(), "--json"});
        if (run.exit_code != 0 && run.exit_code != 1) throw std::runtime_error("check failed: " + run.describe() + "\n" + run.err);
        return nlohmann::json::parse(run.out);
    }

  private:
    TempDir m_tmp;
    std::filesystem::path m_root;
};

}  // namespace cudoctor::test
