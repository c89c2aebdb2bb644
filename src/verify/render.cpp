// Text and Markdown views of a verify report. (JSON is report.cpp's to_json_text.)
#include <string>

#include <fmt/format.h>

#include "report/style.hpp"
#include "verify/report.hpp"

namespace cudoctor::verify {
namespace {

report::Ink ink_of(Status s) {
    switch (s) {
        case Status::pass: return cudoctor::report::Ink::green;
        case Status::fail: return cudoctor::report::Ink::red;
        case Status::skip: return cudoctor::report::Ink::yellow;
    }
    return cudoctor::report::Ink::dim;
}

std::string safe(std::string_view text) { return cudoctor::report::outside_text(text, cudoctor::report::Medium::terminal); }

void indented(std::ostream& out, std::string_view label, const std::string& text, std::string_view pad) {
    if (text.empty()) return;
    std::size_t start = 0;
    bool first = true;
    while (start <= text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        out << pad << (first ? label : std::string(label.size(), ' ')) << safe(std::string_view(text).substr(start, end - start)) << "\n";
        first = false;
        start = end + 1;
    }
}

}  // namespace

void render_text(const Report& report, bool color, std::ostream& out) {
    const cudoctor::report::Painter painter(color);
    out << painter.paint(cudoctor::report::Ink::bold, "cudoctor verify")
        << (report.root != "/" && !report.root.empty() ? " (machine image " + safe(report.root) + ")" : "") << "\n";
    for (const auto& o : report.overrides) out << "  override active: " << safe(o) << "\n";
    for (const auto& level : report.levels) {
        out << "\n" << painter.paint(cudoctor::report::Ink::bold, fmt::format("Level {} — {}", level.number, level.title)) << "\n";
        for (const auto& step : level.steps) {
            out << "  " << painter.paint(ink_of(step.status), to_string(step.status)) << "  " << safe(step.title) << "\n";
            indented(out, "", step.reason, "        ");
            for (const auto& d : step.details) out << "        " << d.key << ": " << safe(d.value) << "\n";
            if (step.status == Status::fail) {
                indented(out, "cause: ", step.cause + (step.rule.empty() ? "" : " [" + step.rule + "]"), "        ");
                indented(out, "fix:   ", step.fix, "        ");
            }
        }
    }
    const Step* failed = first_failure(report);
    out << "\n" << painter.paint(cudoctor::report::Ink::bold, verdict_of(report));
    if (failed) out << ": first broken link: " << safe(failed->title);
    else if (!verified_anything(report)) out << ": " << nothing_verified(report);
    else out << ": every step that applies passed";
    out << "\n";
}

void render_markdown(const Report& report, std::ostream& out) {
    const Step* failed = first_failure(report);
    out << "### cudoctor verify: " << verdict_of(report) << "\n\n";
    if (!failed && !verified_anything(report)) out << cudoctor::report::markdown_cell(nothing_verified(report)) << "\n\n";
    if (failed) out << "First broken link: **" << cudoctor::report::markdown_cell(failed->title) << "**\n\n";
    for (const auto& o : report.overrides) out << "> override active: " << cudoctor::report::markdown_code(o) << "\n\n";
    for (const auto& level : report.levels) {
        out << "#### Level " << level.number << " — " << level.title << "\n\n| | step | result |\n|---|---|---|\n";
        for (const auto& step : level.steps)
            out << "| " << to_string(step.status) << " | " << cudoctor::report::markdown_cell(step.title) << " | "
                << cudoctor::report::markdown_cell(step.reason) << " |\n";
        out << "\n";
        for (const auto& step : level.steps) {
            if (step.status != Status::fail) continue;
            out << "**" << cudoctor::report::markdown_cell(step.title) << "** — " << cudoctor::report::markdown_cell(step.cause)
                << (step.rule.empty() ? "" : " (" + cudoctor::report::markdown_code(step.rule) + ")") << "\n\n";
            if (!step.fix.empty()) out << cudoctor::report::markdown_block(step.fix, "sh") << "\n";
        }
        bool any_details = false;
        for (const auto& step : level.steps) any_details |= !step.details.empty();
        if (!any_details) continue;
        out << "<details><summary>details</summary>\n\n";
        for (const auto& step : level.steps)
            for (const auto& d : step.details)
                out << "- " << step.id << " · " << cudoctor::report::markdown_cell(d.key) << ": "
                    << cudoctor::report::markdown_code(d.value) << "\n";
        out << "\n</details>\n\n";
    }
}

}  // namespace cudoctor::verify
