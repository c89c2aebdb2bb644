#include "plan/apply.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <set>

#include "common/text.hpp"
#include "host/files.hpp"

namespace cudoctor::plan {
namespace {

namespace fs = std::filesystem;

/// A step's failure message, or nullopt on success.
using Outcome = std::optional<std::string>;

std::string os_error(const std::string& what) { return what + ": " + std::strerror(errno); }

/// A step's outcome from an Expected: nothing on success, else its message.
Outcome outcome_of(const Expected<void>& done) { return done ? std::nullopt : Outcome(done.error().message); }

/// Where a machine path lives on this computer, with every folder above it resolved inside the
/// root (so a link in the image can never lead a write out of it).
Expected<std::string> host_target(const host::Host& host, const std::string& path) {
    auto real = host.resolve_parent(path);
    if (!real) return Unexpected<Error>(real.error());
    return host.host_path(*real);
}

bool is_directory_not_link(const std::string& hp) {
    struct stat st {};
    return ::lstat(hp.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool exists_no_follow(const std::string& hp) {
    struct stat st {};
    return ::lstat(hp.c_str(), &st) == 0;
}

/// argv[0] as this computer finds it: an absolute path, or the first match on PATH.
std::optional<std::string> find_program(const std::string& name) {
    if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? std::optional(name) : std::nullopt;
    const char* path = std::getenv("PATH");
    for (auto dir : text::split(path ? path : "/usr/sbin:/usr/bin:/sbin:/bin", ':')) {
        if (dir.empty()) continue;
        std::string candidate = std::string(dir) + "/" + name;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return std::nullopt;
}

/// The argv to run for a command step and the Host that runs it.
std::vector<std::string> command_argv(const host::Host& host, const Step& s) {
    if (!host.is_rooted() || s.rooted_args.empty()) return s.argv;
    std::vector<std::string> argv{s.argv.front()};
    for (auto a : s.rooted_args) {
        if (auto at = a.find("{root}"); at != std::string::npos) a.replace(at, 6, host.root());
        argv.push_back(std::move(a));
    }
    argv.insert(argv.end(), s.argv.begin() + 1, s.argv.end());
    return argv;
}

void preflight_step(const host::Host& host, const Step& s, std::size_t n, ApplyResult& r) {
    const std::string where = "step " + std::to_string(n + 1) + ": ";
    const bool am_root = ::geteuid() == 0;
    if (s.kind == StepKind::command) {
        if (s.argv.empty()) {
            r.preflight.push_back(where + "empty command");
            return;
        }
        if (host.is_rooted() && !s.runs_image_content.empty()) {
            r.preflight.push_back(where + "`" + shell_line(command_argv(host, s)) + "` " + s.runs_image_content + "; " +
                                  std::string(host::kNotRunInImage) + " (run the plan on that machine)");
        } else if (host.is_rooted() && !s.rooted_args.empty()) {
            if (!find_program(s.argv.front())) {
                r.preflight.push_back(where + s.argv.front() + " is not installed on this computer (needed to change the image)");
            } else if (s.needs_root && !am_root) {
                r.preflight.push_back(where + "`" + shell_line(command_argv(host, s)) + "` needs root");
                r.needs_root = true;
            }
        } else if (host.is_rooted()) {
            // A machine image is inert: none of its programs is ever run, so a step that needs one
            // is for the machine itself. The whole plan is refused before anything changes.
            r.preflight.push_back(where + "`" + s.shell + "` would run a program of the machine; " + std::string(host::kNotRunInImage) +
                                  " " + host.root() + " (run the plan on that machine)");
        } else {
            if (!find_program(s.argv.front())) r.preflight.push_back(where + s.argv.front() + " is not installed");
            else if (s.needs_root && !am_root) {
                r.preflight.push_back(where + "`" + s.shell + "` needs root");
                r.needs_root = true;
            }
        }
        return;
    }
    auto hp = host_target(host, s.path);
    if (!hp) {
        if (s.kind == StepKind::remove_tree && hp.error().code == Errc::not_found) return;  // already gone
        r.preflight.push_back(where + host.in_image(hp.error()).message);
        return;
    }
    // A path of the image is said to be one, so nobody looks for it on this computer.
    const auto said = [&](std::string text) { return host.in_image(Error{Errc::io, std::move(text)}).message; };
    const std::string dir = fs::path(*hp).parent_path().string();
    if (!is_directory_not_link(dir)) {
        if (s.kind != StepKind::remove_tree) r.preflight.push_back(where + said(host::dirname(s.path) + ": no such folder"));
        return;
    }
    if (::access(dir.c_str(), W_OK) != 0) {
        if (errno == EROFS) {
            r.preflight.push_back(where + said(host::dirname(s.path) + " is on a read-only filesystem"));
        } else if (!am_root) {
            r.preflight.push_back(where + said(host::dirname(s.path) + " is not writable") + ": run as root (sudo)");
            r.needs_root = true;
        } else {
            r.preflight.push_back(where + said(os_error(host::dirname(s.path))));
        }
        return;
    }
    if ((s.kind == StepKind::symlink || s.kind == StepKind::write_file) && is_directory_not_link(*hp))
        r.preflight.push_back(where + said(s.path + " is a folder") + "; cudoctor will not replace it");
    if (s.kind == StepKind::make_folder && exists_no_follow(*hp))
        r.preflight.push_back(where + said(s.path + " exists now, which it did not when the plan was made") + ": run the command again");
    if (s.kind == StepKind::edit_file) {
        auto now = host.read_file(s.path);
        if (!now) r.preflight.push_back(where + now.error().message);
        else if (*now != s.before)
            r.preflight.push_back(where + said(s.path + " changed since the plan was made") + ": run the command again");
    }
}

Outcome atomic_symlink(const std::string& hp, const std::string& target) {
    const std::string tmp = hp + ".cudoctor-new";
    ::unlink(tmp.c_str());
    if (::symlink(target.c_str(), tmp.c_str()) != 0) return os_error(tmp);
    if (::rename(tmp.c_str(), hp.c_str()) != 0) {
        auto e = os_error(hp);
        ::unlink(tmp.c_str());
        return e;
    }
    return std::nullopt;
}

/// The largest file a step may replace: its old bytes are kept in memory for undo.
constexpr std::size_t kMaxUndoBytes = 64u << 20;

/// What was there before a file step, so the step can be reversed.
struct Saved {
    enum class Kind { absent, link, file, moved } kind = Kind::absent;
    std::string link_target;
    std::string content;
    mode_t mode = 0644;
    std::string moved_to;  ///< remove_tree: where the tree waits until the plan ends
};

Outcome save_state(const std::string& hp, Saved& saved) {
    struct stat st {};
    if (::lstat(hp.c_str(), &st) != 0) return std::nullopt;  // absent
    if (S_ISLNK(st.st_mode)) {
        std::error_code ec;
        auto t = fs::read_symlink(hp, ec);
        if (ec) return hp + ": " + ec.message();
        saved.kind = Saved::Kind::link;
        saved.link_target = t.string();
        return std::nullopt;
    }
    if (S_ISREG(st.st_mode)) {
        auto data = host::read_capped(hp, kMaxUndoBytes);
        if (!data) return data.error().code == Errc::too_large ? hp + ": too large to keep for undo" : data.error().message;
        saved.kind = Saved::Kind::file;
        saved.content = std::move(*data);
        saved.mode = st.st_mode & 07777;
        return std::nullopt;
    }
    return hp + ": not a file or a link";
}

Outcome restore(const std::string& hp, const Saved& saved) {
    switch (saved.kind) {
        case Saved::Kind::absent:  // remove(3): a file or link, or an (emptied) folder a make_folder step made
            if (exists_no_follow(hp) && ::remove(hp.c_str()) != 0) return os_error(hp);
            return std::nullopt;
        case Saved::Kind::link: return atomic_symlink(hp, saved.link_target);
        case Saved::Kind::file: return outcome_of(host::write_atomically(hp, saved.content, saved.mode));
        case Saved::Kind::moved:
            if (::rename(saved.moved_to.c_str(), hp.c_str()) != 0) return os_error(saved.moved_to);
            return std::nullopt;
    }
    return std::nullopt;
}

std::string last_lines(const std::string& text, std::size_t n) {
    auto ls = text::lines(text);
    std::string out;
    for (std::size_t i = ls.size() > n ? ls.size() - n : 0; i < ls.size(); ++i) {
        if (!out.empty()) out += " | ";
        out += text::printable(ls[i], 200);
    }
    return out;
}

Outcome run_step(const host::Host& host, const Step& s, Saved& saved, const ApplyOptions& options) {
    if (s.kind == StepKind::command) {
        const auto argv = command_argv(host, s);
        // On an image only this computer's own programs run, given the image as an argument.
        if (host.is_rooted() && s.rooted_args.empty()) return std::string(host::kNotRunInImage);
        const bool real_program = host.is_rooted();
        auto run = real_program ? host::Host::real().run(argv, options.command_timeout) : host.run(argv, options.command_timeout);
        if (!run) return run.error().message;
        if (run->exit_code != 0) {
            const std::string tail = last_lines(run->err.empty() ? run->out : run->err, 3);
            return "`" + shell_line(argv) + "` exited with " + std::to_string(run->exit_code) + (tail.empty() ? "" : ": " + tail);
        }
        return std::nullopt;
    }
    auto hp = host_target(host, s.path);
    if (!hp) {
        if (s.kind == StepKind::remove_tree && hp.error().code == Errc::not_found) return std::nullopt;
        return host.in_image(hp.error()).message;
    }
    switch (s.kind) {
        case StepKind::symlink:
            if (auto e = save_state(*hp, saved)) return e;
            return atomic_symlink(*hp, s.target);
        case StepKind::write_file:
            if (auto e = save_state(*hp, saved)) return e;
            return outcome_of(host::write_atomically(*hp, s.content, s.mode));
        case StepKind::edit_file: {
            if (auto e = save_state(*hp, saved)) return e;
            if (saved.kind != Saved::Kind::file) return s.path + ": not a regular file";
            if (saved.content != s.before) return s.path + " changed since the plan was made";
            return outcome_of(host::write_atomically(*hp, s.content, saved.mode));
        }
        case StepKind::remove_tree: {
            if (!exists_no_follow(*hp)) return std::nullopt;
            // Moved aside in its own folder (same filesystem: one rename), deleted at the end.
            std::string aside = *hp + ".cudoctor-removed";
            for (int i = 1; exists_no_follow(aside); ++i) aside = *hp + ".cudoctor-removed." + std::to_string(i);
            if (::rename(hp->c_str(), aside.c_str()) != 0) return os_error(*hp);
            saved.kind = Saved::Kind::moved;
            saved.moved_to = aside;
            return std::nullopt;
        }
        case StepKind::make_folder:
            if (::mkdir(hp->c_str(), 0755) != 0) return os_error(*hp);
            return std::nullopt;
        case StepKind::command: break;
    }
    return std::nullopt;
}

}  // namespace

ApplyResult apply(const host::Host& host, const Plan& plan, const ApplyOptions& options) {
    ApplyResult r;
    r.steps.resize(plan.steps.size());
    // A step into a folder an earlier step makes is not checked for it: that folder's own step is.
    std::set<std::string> made;
    for (std::size_t i = 0; i < plan.steps.size(); ++i) {
        const Step& s = plan.steps[i];
        if (s.kind != StepKind::command && made.contains(host::dirname(s.path))) continue;
        preflight_step(host, s, i, r);
        if (s.kind == StepKind::make_folder) made.insert(s.path);
    }
    if (!r.preflight.empty()) return r;

    std::vector<Saved> saved(plan.steps.size());
    for (std::size_t i = 0; i < plan.steps.size(); ++i) {
        Outcome failure;
        if (options.fail_at && *options.fail_at == i + 1)
            failure = "injected failure (CUDOCTOR_PLAN_FAIL_AT=" + std::to_string(i + 1) + ")";
        else failure = run_step(host, plan.steps[i], saved[i], options);
        if (!failure) {
            r.steps[i].status = StepStatus::done;
            continue;
        }
        r.steps[i] = {StepStatus::failed, *failure};
        r.failed_step = i;
        // A file step that failed half way (its temporary file) is cleaned by its own code; the
        // steps before it are reversed, newest first.
        for (std::size_t j = i; j-- > 0;) {
            const Step& s = plan.steps[j];
            if (s.kind == StepKind::command) {
                r.manual_undo.push_back(s.undo);
                continue;
            }
            auto hp = host_target(host, s.path);
            Outcome undo_failure = hp ? restore(*hp, saved[j]) : Outcome(hp.error().message);
            if (undo_failure) {
                r.steps[j] = {StepStatus::rollback_failed, *undo_failure};
                r.manual_undo.push_back(s.undo);
            } else {
                r.steps[j].status = StepStatus::rolled_back;
            }
        }
        return r;
    }
    // Every step succeeded: the trees moved aside can go now.
    for (std::size_t i = 0; i < plan.steps.size(); ++i) {
        if (saved[i].kind != Saved::Kind::moved) continue;
        std::error_code ec;
        fs::remove_all(saved[i].moved_to, ec);
        if (ec) r.steps[i].message = "left " + saved[i].moved_to + " behind: " + ec.message();
    }
    return r;
}

}  // namespace cudoctor::plan
