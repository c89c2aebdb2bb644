#include "plan/plan.hpp"

#include "common/text.hpp"

namespace cudoctor::plan {

bool Plan::touches_system() const {
    for (const auto& s : steps) {
        if (s.kind == StepKind::command) {
            if (s.needs_root) return true;
        } else if (!s.path.starts_with("/home/")) {
            return true;
        }
    }
    return false;
}

std::string shell_line(const std::vector<std::string>& argv) {
    std::string line;
    for (const auto& a : argv) {
        if (!line.empty()) line += ' ';
        line += text::shell_quote(a);
    }
    return line;
}

Step make_symlink(const host::Host& host, std::string path, std::string target, std::string what) {
    Step s;
    s.kind = StepKind::symlink;
    const auto q = text::shell_quote(path);
    const auto new_link = text::shell_quote(path + ".cudoctor-new");
    s.shell = "ln -sfn " + text::shell_quote(target) + " " + new_link + " && mv -T " + new_link + " " + q;
    if (auto old = host.read_link(path)) {
        s.undo = "ln -sfn " + text::shell_quote(*old) + " " + new_link + " && mv -T " + new_link + " " + q;
    } else if (host.lstat(path)) {
        s.undo = "restore " + path + " from a backup (it was not a link)";
    } else {
        s.undo = "rm " + q;
    }
    s.path = std::move(path);
    s.target = std::move(target);
    s.what = std::move(what);
    return s;
}

Step write_file(const host::Host& host, std::string path, std::string content, std::string what, unsigned mode) {
    Step s;
    s.kind = StepKind::write_file;
    s.shell = "write " + std::to_string(text::lines(content).size()) + " lines to " + text::shell_quote(path);
    s.undo = host.lstat(path) ? "restore the previous " + path + " (cudoctor keeps it in memory until the plan ends)"
                              : "rm " + text::shell_quote(path);
    s.path = std::move(path);
    s.content = std::move(content);
    s.mode = mode;
    s.what = std::move(what);
    return s;
}

Step edit_file(std::string path, std::string before, std::string after, std::string what) {
    Step s;
    s.kind = StepKind::edit_file;
    s.shell = "edit " + text::shell_quote(path) + " (the lines below)";
    s.undo = "put back the lines marked '-' below in " + path;
    s.path = std::move(path);
    s.before = std::move(before);
    s.content = std::move(after);
    s.what = std::move(what);
    return s;
}

Step remove_tree(std::string path, std::string what, std::string undo) {
    Step s;
    s.kind = StepKind::remove_tree;
    s.shell = "rm -rf " + text::shell_quote(path);
    s.path = std::move(path);
    s.what = std::move(what);
    s.undo = std::move(undo);
    return s;
}

Step make_folder(std::string path, std::string what) {
    Step s;
    s.kind = StepKind::make_folder;
    s.shell = "mkdir " + text::shell_quote(path);
    s.undo = "rmdir " + text::shell_quote(path);
    s.path = std::move(path);
    s.what = std::move(what);
    return s;
}

Step run_command(std::vector<std::string> argv, std::string what, std::string undo, bool needs_root, std::vector<std::string> rooted_args) {
    Step s;
    s.kind = StepKind::command;
    s.shell = shell_line(argv);
    s.argv = std::move(argv);
    s.what = std::move(what);
    s.undo = std::move(undo);
    s.needs_root = needs_root;
    s.rooted_args = std::move(rooted_args);
    return s;
}

}  // namespace cudoctor::plan
