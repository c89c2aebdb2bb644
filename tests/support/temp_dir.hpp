#pragma once
// A temporary folder for one test, removed with everything in it at the end of the test.
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>

namespace cudoctor::test {

class TempDir {
  public:
    TempDir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "cudoctor-test-XXXXXX").string();
        if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
        m_path = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        if (!m_path.empty()) std::filesystem::remove_all(m_path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    TempDir(TempDir&& other) noexcept : m_path(std::exchange(other.m_path, {})) {}
    TempDir& operator=(TempDir&&) = delete;

    const std::filesystem::path& path() const { return m_path; }
    std::string str() const { return m_path.string(); }

    /// Writes `content` to `relative` (parents created); returns the full path.
    std::filesystem::path write(std::string_view relative, std::string_view content, bool executable = false) const {
        auto p = m_path / std::string(relative);
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << content;
        if (executable)
            std::filesystem::permissions(p, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                                std::filesystem::perms::group_exec);
        return p;
    }
    /// A symbolic link at `relative` pointing to `target` (stored as given).
    void link(std::string_view relative, std::string_view target) const {
        auto p = m_path / std::string(relative);
        std::filesystem::create_directories(p.parent_path());
        std::filesystem::create_symlink(std::string(target), p);
    }
    void mkdir(std::string_view relative) const { std::filesystem::create_directories(m_path / std::string(relative)); }

  private:
    std::filesystem::path m_path;
};

}  // namespace cudoctor::test
