#include "plan/render.hpp"

#include <algorithm>

#include "common/text.hpp"

namespace cudoctor::plan {
namespace {

const char* kind_name(StepKind k) {
    switch (k) {
        case StepKind::symlink: return "symlink";
        case StepKind::write_file: return "write_file";
        case StepKind::edit_file: return "edit_file";
        case StepKind::remove_tree: return "remove_tree";
        case StepKind::make_folder: return "make_folder";
        case StepKind::command: return "command";
    }
    return "?";
}

const char* status_name(StepStatus s) {
    switch (s) {
        case StepStatus::not_run: return "not_run";
        case StepStatus::done: return "done";
        case StepStatus::failed: return "failed";
        case StepStatus::rolled_back: return "rolled_back";
        case StepStatus::rollback_failed: return "rollback_failed";
    }
    return "?";
}

std::string steps_text(std::size_t n) { return std::to_string(n) + (n == 1 ? " step" : " steps"); }

void indent(std::ostream& out, const std::string& block, std::string_view prefix) {
    for (auto line : text::lines(block)) out << prefix << line << "\n";
}

}  // namespace

std::string line_diff(std::string_view before, std::string_view after) {
    const auto a = text::lines(before), b = text::lines(after);
    constexpr std::size_t kMax = 2000;
    if (a.size() > kMax || b.size() > kMax)
        return "(" + std::to_string(a.size()) + " lines before, " + std::to_string(b.size()) + " after: too long to show)\n";
    // Longest common subsequence table, then a walk that emits '-' and '+' lines.
    std::vector<std::vector<std::uint16_t>> lcs(a.size() + 1, std::vector<std::uint16_t>(b.size() + 1, 0));
    for (std::size_t i = a.size(); i-- > 0;)
        for (std::size_t j = b.size(); j-- > 0;)
            lcs[i][j] = a[i] == b[j] ? static_cast<std::uint16_t>(lcs[i + 1][j + 1] + 1) : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    std::string out;
    std::size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
        if (i < a.size() && j < b.size() && a[i] == b[j]) {
            ++i, ++j;
        } else if (i < a.size() && (j == b.size() || lcs[i + 1][j] >= lcs[i][j + 1])) {
            out += "- " + std::string(a[i++]) + "\n";
        } else {
            out += "+ " + std::string(b[j++]) + "\n";
        }
    }
    return out;
}

std::string headline(const Plan& plan) {
    if (plan.steps.empty()) return "Plan: " + plan.title + " — nothing to do";
    return "Plan: " + plan.title + " (" + steps_text(plan.steps.size()) + ")";
}

void render_text(const Plan& plan, std::ostream& out) {
    out << headline(plan) << "\n";
    for (std::size_t i = 0; i < plan.steps.size(); ++i) {
        const Step& s = plan.steps[i];
        out << "  " << i + 1 << ". " << s.what << "\n";
        out << "     do:   " << s.shell << "\n";
        if (s.kind == StepKind::edit_file) indent(out, line_diff(s.before, s.content), "           ");
        out << "     undo: " << s.undo << "\n";
    }
    if (!plan.warnings.empty()) {
        out << "Warnings:\n";
        for (const auto& w : plan.warnings) out << "  ! " << w << "\n";
    }
    if (!plan.notes.empty()) {
        out << "Notes:\n";
        for (const auto& n : plan.notes) out << "  - " << n << "\n";
    }
    if (!plan.afterwards.empty()) {
        out << "Afterwards, check that it took:\n";
        for (const auto& a : plan.afterwards) out << "  $ " << a << "\n";
    }
    if (!plan.rollback.empty()) out << "To go back: " << plan.rollback << "\n";
}

nlohmann::json to_json(const Plan& plan) {
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& s : plan.steps) {
        nlohmann::json j{{"kind", kind_name(s.kind)}, {"what", s.what}, {"shell", s.shell}, {"undo", s.undo}};
        if (s.kind == StepKind::command) {
            j["argv"] = s.argv;
            j["needs_root"] = s.needs_root;
        } else {
            j["path"] = s.path;
        }
        if (s.kind == StepKind::symlink) j["target"] = s.target;
        if (s.kind == StepKind::write_file) j["content"] = s.content;
        if (s.kind == StepKind::edit_file) j["diff"] = line_diff(s.before, s.content);
        steps.push_back(std::move(j));
    }
    nlohmann::json j{{"title", plan.title}, {"steps", steps}, {"warnings", plan.warnings}, {"notes", plan.notes}};
    if (!plan.afterwards.empty()) j["afterwards"] = plan.afterwards;
    if (!plan.rollback.empty()) j["rollback"] = plan.rollback;
    return j;
}

void render_text(const ApplyResult& result, const Plan& plan, std::ostream& out) {
    if (!result.preflight.empty()) {
        out << "Nothing was changed: the plan cannot run as it is.\n";
        for (const auto& p : result.preflight) out << "  ✗ " << p << "\n";
        return;
    }
    for (std::size_t i = 0; i < result.steps.size() && i < plan.steps.size(); ++i) {
        const auto& o = result.steps[i];
        const char* mark = "  ";
        switch (o.status) {
            case StepStatus::done: mark = "✓ "; break;
            case StepStatus::failed: mark = "✗ "; break;
            case StepStatus::rolled_back: mark = "↺ "; break;
            case StepStatus::rollback_failed: mark = "!! "; break;
            case StepStatus::not_run: mark = "· "; break;
        }
        out << "  " << mark << i + 1 << ". " << plan.steps[i].what;
        if (o.status == StepStatus::rolled_back) out << " (rolled back)";
        if (o.status == StepStatus::not_run) out << " (not run)";
        out << "\n";
        if (!o.message.empty()) out << "       " << o.message << "\n";
    }
    if (result.ok()) {
        out << "Done: " << plan.steps.size() << (plan.steps.size() == 1 ? " step" : " steps") << " applied.\n";
    } else if (result.manual_undo.empty()) {
        out << "Stopped at step " << *result.failed_step + 1 << ": everything before it was rolled back; the machine is as it was.\n";
    } else {
        out << "Stopped at step " << *result.failed_step + 1 << ". To undo what was done, run:\n";
        for (const auto& u : result.manual_undo) out << "    " << u << "\n";
    }
}

std::string verdict_line(const ApplyResult& result, const Plan& plan) {
    if (!result.preflight.empty())
        return "Nothing was changed: " + plan.title + " cannot run as it is (" + std::to_string(result.preflight.size()) +
               (result.preflight.size() == 1 ? " problem)" : " problems)");
    if (result.ok()) return "Done: " + plan.title + " (" + steps_text(plan.steps.size()) + " applied)";
    const std::string stopped = "Stopped at step " + std::to_string(*result.failed_step + 1) + " of " + plan.title;
    if (result.manual_undo.empty()) return stopped + ": rolled back, the machine is as it was";
    return stopped + ": " + std::to_string(result.manual_undo.size()) + (result.manual_undo.size() == 1 ? " undo" : " undos") +
           " left to run by hand";
}

nlohmann::json to_json(const ApplyResult& result) {
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& o : result.steps) steps.push_back({{"status", status_name(o.status)}, {"message", o.message}});
    nlohmann::json j{{"ok", result.ok()},
                     {"preflight", result.preflight},
                     {"needs_root", result.needs_root},
                     {"steps", steps},
                     {"manual_undo", result.manual_undo}};
    j["failed_step"] = result.failed_step ? nlohmann::json(*result.failed_step + 1) : nlohmann::json(nullptr);
    return j;
}

}  // namespace cudoctor::plan
