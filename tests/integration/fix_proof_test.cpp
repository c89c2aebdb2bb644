// Every fix `check` gives is proven, on every fixture machine. For each finding:
//   * a fix made of file operations and environment lines (ln, cp, tee into /etc, ldconfig,
//     export/unset, mkdir, rm, `apt-mark unhold` (dpkg's status file), and `sed -i` with the
//     line-edit scripts of fix_sed_script, run by the real sed) is carried out on a copy of the machine, and `check` runs again:
//     the finding is gone and no new warning or error appears;
//   * a fix that installs packages names only packages the KB's tables know for that machine's
//     distribution and release (`apt-get install`), and pip requirements that name wheels that
//     exist (a torch release × CUDA variant, a cuDNN wheel built for that CUDA major);
//   * anything else (a reboot, a BIOS setting, a command that only shows something) cannot be
//     checked either way: those findings are listed, and the list is pinned below so a new one
//     is a decision, not an accident.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "common/version.hpp"
#include "kb/kb.hpp"
#include "recipe/build_targets.hpp"
#include "support/fix_script.hpp"
#include "support/mutable_root.hpp"

namespace {

namespace fs = std::filesystem;
using cudoctor::Version;
using cudoctor::test::MutableRoot;
using cudoctor::test::ShellCommand;
using nlohmann::json;

std::vector<std::string> scenarios() {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(CUDOCTOR_ROOTS_DIR))
        if (e.is_directory()) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::map<std::string, std::string> environ_of(const fs::path& root) {
    std::ifstream in(root / "proc/self/environ", std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::map<std::string, std::string> vars;
    std::string entry;
    for (char c : ss.str() + '\n') {
        if (c == '\n' || c == '\0') {
            if (auto eq = entry.find('='); eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
            entry.clear();
        } else {
            entry += c;
        }
    }
    return vars;
}

/// The words of a command without `sudo` (and its -E) in front.
std::vector<std::string> without_sudo(std::vector<std::string> w) {
    while (!w.empty() && (w[0] == "sudo" || (w[0] == "-E" && w.size() > 1))) w.erase(w.begin());
    return w;
}

bool is_flag(const std::string& w) { return w.size() > 1 && w[0] == '-'; }

std::vector<std::string> operands(const std::vector<std::string>& w) {
    std::vector<std::string> out;
    for (std::size_t i = 1; i < w.size(); ++i)
        if (!is_flag(w[i])) out.push_back(w[i]);
    return out;
}

// --- packages -------------------------------------------------------------------------------

struct Machine {
    std::string os_id, os_version;
};

/// Whether package_names.tsv's repository is one this machine's distribution can install from.
std::optional<bool> repository_available(const std::string& repository, const Machine& m, const cudoctor::kb::Kb& kb) {
    if (repository == "distribution") return true;
    if (repository.starts_with("ubuntu")) return m.os_id == "ubuntu";
    if (repository.starts_with("debian")) return m.os_id == "debian";
    // NVIDIA's container toolkit repository: one source list for every apt distribution.
    if (repository == "nvidia container repo") return m.os_id == "ubuntu" || m.os_id == "debian";
    if (repository == "nvidia cuda repo") {
        const auto rel = kb.distro_release(m.os_id, m.os_version);
        return rel && !rel->cuda_repo.empty();
    }
    return std::nullopt;
}

/// An apt package name the KB's tables know for this machine, or why not. `name=` (the version
/// left to a variable read from `apt-cache madison` at run time) is checked by its name.
std::string check_apt_package(const std::string& package_in, const Machine& m, const cudoctor::kb::Kb& kb) {
    const bool version_at_run_time = package_in.ends_with("=");
    const std::string package = version_at_run_time ? package_in.substr(0, package_in.size() - 1) : package_in;
    // apt-get matches PKG=VERSION exactly or by a trailing '*' only: 'libc6=2.36*deb12*' is
    // "E: Version '2.36*deb12*' for 'libc6' was not found" (apt 2.6, Debian 12).
    if (const auto eq = package.find('='); eq != std::string::npos) {
        const auto star = package.find('*', eq);
        if (star != std::string::npos && star + 1 != package.size()) return package + ": apt matches '*' only at the end of a version";
    }
    std::set<std::string> branches;
    for (const auto& r : kb.toolkit_releases())
        if (r.driver_branch.starts_with("R")) branches.insert(r.driver_branch.substr(1));
    for (const auto& k : kb.kernel_module_table())
        if (k.driver_branch) branches.insert(std::to_string(*k.driver_branch));
    for (const auto& d : kb.distro_table())
        if (d.distro_driver_branch) branches.insert(std::to_string(*d.distro_driver_branch));
    std::set<std::string> cuda_minors;
    for (const auto& r : kb.toolkit_releases()) cuda_minors.insert(r.toolkit.truncated(2).str());

    for (const auto& t : kb.package_table()) {
        if (t.pulls_driver == std::nullopt) continue;  // a URL or a command, not a package
        // The template as a regex, each placeholder a named capture in order.
        std::string re;
        std::vector<std::string> names;
        const std::string text = version_at_run_time ? t.text.substr(0, t.text.find('=')) : t.text;
        for (std::size_t i = 0; i < text.size(); ++i) {
            const auto& tt = text;
            if (tt[i] == '{') {
                const auto close = tt.find('}', i);
                names.push_back(tt.substr(i + 1, close - i - 1));
                re += names.back() == "flavour"  ? "([a-z0-9-]+)"
                      : names.back() == "cudnn"  ? "([0-9.]+)"
                      : names.back() == "kernel" ? "([0-9][0-9a-z.+~-]*)"
                                                 : "([0-9]+)";
                i = close;
            } else if (std::string(".+*?()[]^$|\\").find(tt[i]) != std::string::npos) {
                re += '\\';
                re += tt[i];
            } else {
                re += tt[i];
            }
        }
        std::smatch match;
        if (!std::regex_match(package, match, std::regex(re))) continue;
        std::map<std::string, std::string> v;
        for (std::size_t k = 0; k < names.size(); ++k) v[names[k]] = match[k + 1];
        const auto available = repository_available(t.repository, m, kb);
        if (!available) return "package_names.tsv repository '" + t.repository + "' is not known to this test";
        if (!*available)
            return package + " (" + t.name + ") comes from " + t.repository + ", which " + m.os_id + " " + m.os_version + " lacks";
        if (v.count("branch") && !branches.count(v["branch"])) return package + ": no driver branch " + v["branch"] + " in the KB";
        if (v.count("major") && v.count("minor")) {
            const std::string cuda = v["major"] + "." + v["minor"];
            if (!cuda_minors.count(cuda)) return package + ": no CUDA " + cuda + " in cuda_driver.tsv";
            if (t.repository == "nvidia cuda repo") {
                const auto rel = kb.distro_release(m.os_id, m.os_version);
                const auto repo = kb.cuda_repository(rel->cuda_repo);
                if (repo && !repo->publishes(*Version::parse(cuda)))
                    return package + ": " + rel->cuda_repo + " does not publish CUDA " + cuda;
            }
        }
        if (v.count("major") && !v.count("minor")) {
            bool any = false;
            for (const auto& c : cuda_minors) any = any || c.starts_with(v["major"] + ".");
            if (!any) return package + ": no CUDA " + v["major"] + ".x in cuda_driver.tsv";
        }
        if (v.count("cudnn")) {
            const auto cudnn = Version::parse(v["cudnn"]);
            if (!cudnn || kb.cudnn_builds(*cudnn).empty()) return package + ": no cuDNN " + v["cudnn"] + " in cudnn_cuda.tsv";
        }
        return "";
    }
    return package + ": in no package_names.tsv template";
}

/// A pip requirement naming a wheel that exists, or why not ("" when it does). `index` is the
/// --index-url of the command ("" for PyPI).
std::string check_pip_requirement(const std::string& req, const std::string& index, const cudoctor::kb::Kb& kb) {
    static const std::regex form(R"(([A-Za-z0-9_.-]+)(\[([a-z0-9,-]+)\])?(==([0-9][0-9A-Za-z.*+]*))?)");
    std::smatch m;
    if (!std::regex_match(req, m, form)) return "'" + req + "' is no requirement this test reads";
    const std::string name = m[1], extra = m[3], pinned = m[5];
    const std::string release = pinned.substr(0, pinned.find_first_of("+*"));
    const auto version = Version::parse(release.ends_with(".") ? release.substr(0, release.size() - 1) : release);
    static const std::regex cudnn_wheel(R"(nvidia-cudnn-cu([0-9]+))");
    std::smatch w;
    if (std::regex_match(name, w, cudnn_wheel)) {
        const int cuda_major = std::stoi(w[1]);
        if (pinned.empty()) return kb.newest_cudnn_for(Version({cuda_major})) ? "" : "no cuDNN is built for CUDA " + std::string(w[1]);
        if (!version) return "'" + req + "': unreadable version";
        for (const auto& row : kb.cudnn_table())
            if (row.cudnn_first.major() == version->major() && row.covers_cuda(Version({cuda_major}))) return "";
        return "'" + req + "': there is no cuDNN " + std::to_string(version->major()) + " built for CUDA " + std::string(w[1]);
    }
    if (name == "torch") {
        const auto slash = index.rfind('/');
        const std::string variant = index.empty() ? "" : index.substr(slash + 1);
        if (pinned.empty() && !variant.empty() && variant != "cpu") {
            for (const auto& w : kb.torch_table())
                if (w.variant == variant) return "";
            return "no torch wheel of " + variant + " in pytorch_cuda.tsv";
        }
        if (!version) return pinned.empty() ? "" : "'" + req + "': unreadable version";
        if (variant.empty() || variant == "cpu") return kb.torch_wheels(*version).empty() ? "no torch " + release + " in the KB" : "";
        return kb.torch_wheel(*version, variant) ? "" : "no torch " + release + " " + variant + " wheel in pytorch_cuda.tsv";
    }
    if (name == "tensorflow") {
        if (extra == "and-cuda" && version && !cudoctor::recipe::tensorflow_has_and_cuda(*version))
            return "'" + req + "': the [and-cuda] extra starts with 2.14";
        return "";
    }
    if (name == "jax") {
        if (!version || extra.empty()) return "";
        for (const auto& b : kb.jax_builds(*version))
            if (b.extra == extra) return "";
        return "'" + req + "': no jax[" + extra + "] for that release in jax_cuda.tsv";
    }
    return "'" + req + "': a wheel the KB has no table for";
}

// --- one fix --------------------------------------------------------------------------------

struct Verdict {
    bool file_steps = false;                ///< something to carry out on a copy
    bool installs = false;                  ///< apt or pip installs (checked by name, not carried out)
    std::vector<std::string> unprovable;    ///< commands neither applied nor checked
    std::vector<std::string> wrong;         ///< packages or wheels that do not exist, unreadable lines
    std::vector<std::string> apply_errors;  ///< file steps that could not be carried out
};

bool run_ldconfig(const fs::path& root) {
    const std::string prefix = ::geteuid() == 0 ? "" : "unshare -r ";
    const std::string cmd = prefix + "ldconfig -r '" + root.string() + "' 2>/dev/null";
    return std::system(cmd.c_str()) == 0;
}

/// What `apt-mark unhold PKG…` does to dpkg's selection state: "hold ok installed" becomes
/// "install ok installed" in those packages' stanzas of the copy's /var/lib/dpkg/status. False
/// when the file cannot be read or written.
bool unhold_in_copy(const fs::path& root, const std::set<std::string>& packages) {
    const fs::path file = root / "var/lib/dpkg/status";
    std::ifstream in(file);
    if (!in) return false;
    std::string line, out, package;
    while (std::getline(in, line)) {
        if (line.empty()) package.clear();
        else if (line.starts_with("Package:")) package = line.substr(line.find_first_not_of(' ', 8));
        else if (line.starts_with("Status: hold ") && packages.count(package)) line = "Status: install " + line.substr(13);
        out += line + "\n";
    }
    in.close();
    std::error_code ec;
    fs::remove(file, ec);  // a link is replaced, not written through
    std::ofstream(file, std::ios::trunc) << out;
    return !ec;
}

/// Reads (and with `root`, carries out) a fix, line by line.
Verdict walk_fix(const std::string& fix, std::map<std::string, std::string> env, const Machine& machine, MutableRoot* root) {
    Verdict v;
    const auto& kb = cudoctor::kb::Kb::builtin();
    std::istringstream lines(fix);
    std::string line;
    while (std::getline(lines, line)) {
        // VAR=$(apt-cache madison PKG | …): the exact version of a package read from the
        // repository at run time. The package must be one the tables know; the version is not.
        static const std::regex madison(R"(^\s*([A-Za-z_][A-Za-z0-9_]*)=\$\(apt-cache madison ([a-z0-9.+-]+) .*)");
        if (std::smatch mm; std::regex_match(line, mm, madison)) {
            v.installs = true;
            if (auto why = check_apt_package(mm[2].str() + "=", machine, kb); !why.empty()) v.wrong.push_back(why);
            env[mm[1]] = "";
            continue;
        }
        const auto commands = cudoctor::test::parse_shell_line(line, env);
        if (!commands) {
            v.unprovable.push_back(line);
            continue;
        }
        std::string piped;  // what the previous command of a pipeline printed
        for (std::size_t ci = 0; ci < commands->size(); ++ci) {
            const auto& c = (*commands)[ci];
            const auto w = without_sudo(c.words);
            if (w.empty()) continue;
            // An interpreter named by its path (/usr/bin/python3, ~/venv/bin/python) is that program.
            const std::string cmd = w[0].substr(w[0].rfind('/') + 1);
            const auto ops = operands(w);
            std::string printed;
            if (cmd == "export" || cmd == "unset") {
                v.file_steps = true;
                for (std::size_t k = 1; k < w.size(); ++k) {
                    const auto eq = w[k].find('=');
                    if (cmd == "export" && eq == std::string::npos) continue;  // export NAME: already set or not
                    const std::string key = w[k].substr(0, eq);
                    if (cmd == "export") env[key] = w[k].substr(eq + 1);
                    else env.erase(key);
                    if (root) root->env(key, cmd == "export" ? std::optional(env[key]) : std::nullopt);
                }
            } else if (cmd == "ln" && ops.size() == 2) {
                v.file_steps = true;
                if (root) {
                    const fs::path link = root->path() / ops[1].substr(1);
                    std::error_code ec;
                    fs::remove(link, ec);
                    fs::create_symlink(ops[0], link, ec);
                    if (ec) v.apply_errors.push_back(line + ": " + ec.message());
                }
            } else if (cmd == "cp" && ops.size() >= 2) {
                v.file_steps = true;
                if (root) {
                    const fs::path dest = root->path() / ops.back().substr(1);
                    for (std::size_t k = 0; k + 1 < ops.size(); ++k) {
                        const fs::path pattern = ops[k];
                        const fs::path dir = root->path() / pattern.parent_path().string().substr(1);
                        const std::string glob = pattern.filename().string();
                        std::size_t copied = 0;
                        std::error_code ec;
                        for (const auto& e : fs::directory_iterator(dir, ec)) {
                            const std::string n = e.path().filename().string();
                            if (!std::regex_match(n, std::regex(std::regex_replace(std::regex_replace(glob, std::regex(R"([.+()^$|\\[\]{}])"),
                                                                                                      R"(\$&)"),
                                                                                   std::regex(R"(\*)"), ".*"))))
                                continue;
                            fs::copy(e.path(), fs::is_directory(dest) ? dest / n : dest,
                                     fs::copy_options::copy_symlinks | fs::copy_options::overwrite_existing, ec);
                            if (ec) v.apply_errors.push_back(line + ": " + ec.message());
                            ++copied;
                        }
                        if (!copied) v.apply_errors.push_back(line + ": nothing matches " + pattern.string());
                    }
                }
            } else if ((cmd == "printf" || cmd == "echo") && c.piped_into_next) {
                printed = cmd == "printf" ? cudoctor::test::printf_text(w.size() > 1 ? w[1] : "") : (w.size() > 1 ? w[1] : "") + "\n";
            } else if (cmd == "tee" && ops.size() == 1) {
                v.file_steps = true;
                if (root) {
                    const bool append = std::find(w.begin(), w.end(), "-a") != w.end();
                    const fs::path file = root->path() / ops[0].substr(1);
                    fs::create_directories(file.parent_path());
                    std::ofstream(file, append ? std::ios::app : std::ios::trunc) << piped;
                }
            } else if (cmd == "mkdir" && !ops.empty()) {
                v.file_steps = true;
                if (root)
                    for (const auto& d : ops) fs::create_directories(root->path() / d.substr(1));
            } else if (cmd == "rm" && !ops.empty()) {
                v.file_steps = true;
                if (root)
                    for (const auto& f : ops) fs::remove_all(root->path() / f.substr(1));
            } else if (cmd == "sed" && w.size() == 4 && w[1] == "-i" && cudoctor::test::fix_sed_script(w[2]) && w[3].starts_with('/')) {
                // One line of a start-up file changed, commented out or deleted: the real sed on the copy's file.
                v.file_steps = true;
                if (root && !cudoctor::test::run_sed_in_place(w[2], (root->path() / w[3].substr(1)).string()))
                    v.apply_errors.push_back(line + ": sed failed on the copy");
            } else if (cmd == "ldconfig" && w.size() == 1) {
                v.file_steps = true;
                if (root && !run_ldconfig(root->path())) v.apply_errors.push_back("ldconfig -r failed");
            } else if (cmd == "wget" && !ops.empty()) {
                // Only NVIDIA's keyring package is fetched by a fix: its URL is the template's for this machine.
                const auto rel = kb.distro_release(machine.os_id, machine.os_version);
                const auto url = rel ? kb.package_name("cuda_keyring_url", {{"distro", rel->cuda_repo}, {"arch", "x86_64"}}) : std::nullopt;
                if (!url || ops.back() != *url) v.wrong.push_back(ops.back() + ": not the cuda_keyring_url of this machine's repository");
            } else if ((cmd == "dpkg" && w.size() == 3 && w[1] == "-i" && w[2].starts_with("cuda-keyring_")) || cmd == "cudoctor" ||
                       (cmd == "nvcc" && w.size() == 2 && w[1] == "--version")) {
                // installs what the wget line fetched / prints a plan or a report: changes nothing to prove
            } else if (cmd == "apt-mark" && ops.size() >= 2 && ops[0] == "hold") {
                for (std::size_t k = 1; k < ops.size(); ++k)
                    if (auto why = check_apt_package(ops[k] + "=", machine, kb); !why.empty()) v.wrong.push_back(why);
            } else if (cmd == "apt-mark" && ops.size() >= 2 && ops[0] == "unhold") {
                // Lifting a hold is a change of dpkg's status file: carried out on the copy.
                v.file_steps = true;
                if (root && !unhold_in_copy(root->path(), std::set<std::string>(ops.begin() + 1, ops.end())))
                    v.apply_errors.push_back(line + ": the copy's /var/lib/dpkg/status could not be rewritten");
            } else if ((cmd == "apt-get" || cmd == "apt") && ops.size() >= 1 && ops[0] == "update") {
                // nothing to prove
            } else if ((cmd == "apt-get" || cmd == "apt") && ops.size() >= 2 && ops[0] == "install") {
                v.installs = true;
                for (std::size_t k = 1; k < ops.size(); ++k)
                    if (auto why = check_apt_package(ops[k], machine, kb); !why.empty()) v.wrong.push_back(why);
            } else if (cmd == "pip" || cmd == "pip3" ||
                       ((cmd == "python3" || cmd == "python") && w.size() > 2 && w[1] == "-m" && w[2] == "pip")) {
                const std::size_t first = cmd.starts_with("pip") ? 1 : 3;
                if (w.size() <= first || w[first] != "install") {
                    v.unprovable.push_back(line);
                    continue;
                }
                std::string index;
                std::vector<std::string> reqs;
                for (std::size_t k = first + 1; k < w.size(); ++k) {
                    if (w[k] == "--index-url" || w[k] == "--extra-index-url" || w[k] == "-f") {
                        if (k + 1 < w.size()) index = w[++k];
                    } else if (!is_flag(w[k])) {
                        reqs.push_back(w[k]);
                    }
                }
                v.installs = true;
                for (const auto& r : reqs)
                    if (auto why = check_pip_requirement(r, index, kb); !why.empty()) v.wrong.push_back(why);
            } else {
                v.unprovable.push_back(line);
            }
            piped = printed;
        }
    }
    return v;
}

std::map<std::string, int> counts_of(const json& findings, bool serious_only) {
    std::map<std::string, int> n;
    for (const auto& f : findings)
        if (!serious_only || f["severity"] == "warning" || f["severity"] == "error") ++n[f["id"].get<std::string>()];
    return n;
}

json check_root(const fs::path& root) {
    const auto run = cudoctor::test::run_cudoctor({"check", "--root", root.string(), "--json"});
    if (run.exit_code != 0 && run.exit_code != 1) return json();
    return json::parse(run.out);
}

}  // namespace

TEST(FixProof, EveryFixOnEveryFixtureMachine) {
    std::vector<std::string> unprovable, failures;
    std::size_t proven = 0, names_checked = 0, findings_seen = 0;
    for (const auto& scenario : scenarios()) {
        const fs::path original = fs::path(CUDOCTOR_ROOTS_DIR) / scenario;
        const json before = check_root(original);
        if (before.is_null()) continue;  // not a machine check can read (its own tests say why)
        const Machine machine{before["platform"].value("os_id", ""), before["platform"].value("os_version", "")};
        const auto all_before = counts_of(before["findings"], false);
        const auto serious_before = counts_of(before["findings"], true);
        for (const auto& f : before["findings"]) {
            ++findings_seen;
            const std::string id = f["id"], where = scenario + " " + id;
            const std::string fix = f.value("fix", "");
            const Verdict read = walk_fix(fix, environ_of(original), machine, nullptr);
            for (const auto& w : read.wrong) failures.push_back(where + ": " + w);
            // Only a fix made entirely of file and environment steps can be carried out here; one
            // that also installs packages (which a copy cannot do) is checked by its names.
            if (!read.file_steps || read.installs || !read.unprovable.empty()) {
                if (read.installs) ++names_checked;
                if (!read.unprovable.empty() || fix.empty())
                    unprovable.push_back(where + (read.installs ? " (packages checked; also: " + read.unprovable.front() + ")" : ""));
                else if (!read.installs) unprovable.push_back(where + (fix.empty() ? " (no fix)" : " (advice: nothing to carry out)"));
                continue;
            }
            // File and environment steps: carry them out on a copy and look again.
            MutableRoot copy(scenario);
            const Verdict applied = walk_fix(fix, environ_of(copy.path()), machine, &copy);
            for (const auto& e : applied.apply_errors) failures.push_back(where + ": " + e);
            const json after = check_root(copy.path());
            if (after.is_null()) {
                failures.push_back(where + ": check cannot read the machine after the fix");
                continue;
            }
            const auto all_after = counts_of(after["findings"], false);
            if (all_after.count(id) && all_after.at(id) >= all_before.at(id))
                failures.push_back(where + ": still reported after its fix was applied");
            for (const auto& [other, n] : counts_of(after["findings"], true))
                if (!serious_before.count(other) || n > serious_before.at(other))
                    failures.push_back(where + ": its fix brings a new " + other);
            ++proven;
        }
    }
    std::string list;
    for (const auto& u : unprovable) list += "  " + u + "\n";
    std::cout << findings_seen << " findings on " << scenarios().size() << " machines: " << proven << " fixes applied and checked again, "
              << names_checked << " checked by package and wheel names, " << unprovable.size() << " not provable:\n"
              << list;
    for (const auto& f : failures) ADD_FAILURE() << f;
    EXPECT_GT(proven, 0u);
    // The fixes nothing here can prove, pinned: a new one is a decision, not an accident. A reboot
    // or a module reload (the running kernel is not in an image), advice without a command, and
    // ld.so.conf.d lines whose owner (a package or the user) only the user can pick.
    std::vector<std::string> pinned_list;
    for (const auto& u : unprovable) pinned_list.push_back(u.substr(0, u.find(" (")));
    EXPECT_EQ(pinned_list, (std::vector<std::string>{
                               // A container's start options and its host's driver are not in its image:
                               // advice to start it otherwise, or to change the host.
                               "docker-cuda124-old-host-driver container-driver-too-old",
                               "docker-no-compute-cap container-no-compute-capability",
                               "driver-mismatch driver-library-mismatch",
                               "nouveau nouveau-loaded",
                               "nouveau gpu-without-driver",
                               "server-three-toolkits smi-cuda-version-is-not-toolkit",
                               "server-three-toolkits multiple-cudart-on-loader-path",
                               "toolkits-repo-driver smi-cuda-version-is-not-toolkit",
                               "toolkits-repo-driver multiple-cudart-on-loader-path",
                               // A driver newer than the distribution's CUDA 11.5 toolkit: advice only.
                               // Driver 535 held under CUDA 12.4: the driver upgrade's package names are
                               // checked, its reboot is not provable; nvidia-smi's limit is advice. (The
                               // hold's own fix, apt-mark unhold, is carried out on the copy.)
                               "ubuntu2204-apt-driver-hold driver-too-old-for-toolkit",
                               "ubuntu2204-apt-driver-hold smi-cuda-version-is-not-toolkit",
                               "ubuntu2204-distro-cuda-toolkit smi-cuda-version-is-not-toolkit",
                               "ubuntu2204-distro-nvcc-wins smi-cuda-version-is-not-toolkit",
                               // It follows from distro-cuda-toolkit-old (whose PATH fix is proven);
                               // its own fix installs CUDA 11.8 (names checked) and edits ~/.bashrc.
                               "ubuntu2204-distro-nvcc-wins gpu-arch-unsupported-by-toolkit",
                               // The toolkit's package name is checked (nvidia container repo); its
                               // repository key and list come from curl, and Docker restarts.
                               "ubuntu2204-docker-no-ctk container-toolkit-missing",
                               // dkms autoinstall and modprobe need the machine's running kernel (its
                               // headers package name is checked, by the KB's template, above).
                               "ubuntu2204-kernel-upgrade driver-module-not-built-for-kernel",
                               "ubuntu2204-kernel-upgrade gpu-without-driver",
                               "ubuntu2404-cuda118 smi-cuda-version-is-not-toolkit",
                               "vmware-no-gpu vm-without-gpu-passthrough",
                           }));
}
