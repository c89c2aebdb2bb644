// Text and Markdown views of a verify report. (JSON is report.cpp's to_json_text.)
#include <string>

#include <fmt/format.h>

#include "verify/report.hpp"

namespace cudoctor::verify {
namespace {

const char* colour_of(Status s) {
    switch (s) {
        case Status::pass: return "\033[32m";
        case Status::fail: return "\033[31m";
        case Status::skip: return "\033[33m";
    }
    return "";
}

void indented(std::ostream& out, std::string_view label, const std::string& text, std::string_view pad) {
    if (text.empty()) return;
    std::size_t start = 0;
    bool first = true;
    while (start <= text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        out << pad << (first ? label : std::string(label.size(), ' ')) << text.substr(start, end - start) << "\n";
        first = false;
        start = end + 1;
    }
}

std::string escape_cell(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '|') out += "\\|";
        else if (c == '\n') out += "<br>";
        else out += c;
    }
    return out;
}

}  // namespace

void render_text(const Report& report, bool color, std::ostream& out) {
    const char* reset = color ? "\033[0m" : "";
    const char* bold = color ? "\033[1m" : "";
    out << bold << "cudoctor verify" << reset << (report.root != "/" && !report.root.empty() ? " (machine image " + report.root + ")" : "")
        << "\n";
    for (const auto& o : report.overrides) out << "  override active: " << o << "\n";
    for (const auto& level : report.levels) {
        out << "\n" << bold << "Level " << level.number << " — " << level.title << reset << "\n";
        for (const auto& step : level.steps) {
            out << "  " << (color ? colour_of(step.status) : "") << to_string(step.status) << reset << "  " << step.title << "\n";
            indented(out, "", step.reason, "        ");
            for (const auto& d : step.details) out << "        " << d.key << ": " << d.value << "\n";
            if (step.status == Status::fail) {
                indented(out, "cause: ", step.cause + (step.rule.empty() ? "" : " [" + step.rule + "]"), "        ");
                indented(out, "fix:   ", step.fix, "        ");
            }
        }
    }
    const Step* failed = first_failure(report);
    out << "\n" << bold << (failed ? "FAIL" : "PASS") << reset;
    if (failed) out << ": first broken link: " << failed->title;
    else out << ": every step that applies passed";
    out << "\n";
}

void render_markdown(const Report& report, std::ostream& out) {
    const Step* failed = first_failure(report);
    out << "### cudoctor verify: " << (failed ? "FAIL" : "PASS") << "\n\n";
    if (failed) out << "First broken link: **" << escape_cell(failed->title) << "**\n\n";
    for (const auto& o : report.overrides) out << "> override active: `" << o << "`\n\n";
    for (const auto& level : report.levels) {
        out << "#### Level " << level.number << " — " << level.title << "\n\n| | step | result |\n|---|---|---|\n";
        for (const auto& step : level.steps)
            out << "| " << to_string(step.status) << " | " << escape_cell(step.title) << " | " << escape_cell(step.reason) << " |\n";
        out << "\n";
        for (const auto& step : level.steps) {
            if (step.status != Status::fail) continue;
            out << "**" << escape_cell(step.title) << "** — " << step.cause << (step.rule.empty() ? "" : " (`" + step.rule + "`)") << "\n\n";
            if (!step.fix.empty()) out << "```sh\n" << step.fix << "\n```\n\n";
        }
        bool any_details = false;
        for (const auto& step : level.steps) any_details |= !step.details.empty();
        if (!any_details) continue;
        out << "<details><summary>details</summary>\n\n";
        for (const auto& step : level.steps)
            for (const auto& d : step.details) out << "- " << step.id << " · " << d.key << ": `" << d.value << "`\n";
        out << "\n</details>\n\n";
    }
}

}  // namespace cudoctor::verify
