#pragma once
// What on a machine still names a toolkit's folder: loader configuration
// (/etc/ld.so.conf.d), update-alternatives links and their admin files, shell start-up files and
// environment-modules files. Read through the Host; unreadable files are skipped.
#include <string>
#include <string_view>
#include <vector>

#include "host/host.hpp"

namespace cudoctor::toolkits {

enum class RefKind { ld_so_conf, alternatives, shell_rc, modulefile };

/// One place that names a folder.
struct Reference {
    RefKind kind = RefKind::shell_rc;
    std::string file;  ///< machine path of the file or link
    int line = 0;      ///< 1-based line number; 0 for a symbolic link
    std::string text;  ///< the line as written, or "-> TARGET" for a link
};

/// Short name of a kind: "ld.so.conf.d", "alternatives", "shell rc", "modulefile".
const char* to_string(RefKind kind);

/// True when `line` names the folder `dir` as a whole path component: "/usr/local/cuda-12.4",
/// "/usr/local/cuda-12.4/bin" and "…cuda-12.4:" do; "/usr/local/cuda-12.41" and
/// "/usr/local/cuda-12.4.1" do not.
bool names_folder(std::string_view line, std::string_view dir);

/// Every file a reference may live in, found now: /etc/ld.so.conf(.d), /etc/alternatives/cuda*
/// and /var/lib/dpkg/alternatives/cuda*, the system and users' shell start-up files (from
/// /etc/passwd homes, /root and /home/*), and modulefiles under the usual module folders and
/// MODULEPATH. Scanned once; the result answers for every toolkit.
class ReferenceIndex {
  public:
    explicit ReferenceIndex(const host::Host& host);
    /// The references that name `dir` (a machine path), in file order.
    std::vector<Reference> naming(std::string_view dir) const;

    struct File {
        RefKind kind;
        std::string path;
        std::string content;      ///< text files
        std::string link_target;  ///< links (alternatives)
        bool is_link = false;
    };
    const std::vector<File>& files() const { return m_files; }

  private:
    void add_text(RefKind kind, const std::string& path);
    void walk_modules(const std::string& dir, int depth);
    const host::Host& m_host;
    std::vector<File> m_files;
};

}  // namespace cudoctor::toolkits
