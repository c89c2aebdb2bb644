#include "installer/render.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "installer/disk.hpp"
#include "report/style.hpp"

namespace cudoctor::installer {
namespace {

report::Ink ink_of(CheckStatus s) {
    switch (s) {
        case CheckStatus::ok: return report::Ink::green;
        case CheckStatus::bad: return report::Ink::red;
        case CheckStatus::warning: return report::Ink::yellow;
        default: return report::Ink::dim;
    }
}

}  // namespace

void render_text(const VerifyReport& r, bool color, std::ostream& out) {
    const report::Painter painter(color);
    // The file's name, its kind (a server's error page, the installer's label), the parts of its
    // name and the fixes (which name the file) come from outside: each through the one escape
    // (a line as a whole cannot be: the painter writes ESC).
    const auto safe = [](std::string_view text) { return report::outside_text(text, report::Medium::terminal); };
    out << safe(r.path) << "  (" << human_bytes(r.size) << ", " << r.size << " bytes)\n";
    out << "  " << safe(r.kind_text) << "\n";
    if (!r.name.product.empty()) {
        out << "  names:";
        if (!r.name.cuda.empty()) out << " CUDA " << safe(r.name.cuda);
        if (!r.name.cudnn.empty()) out << " cuDNN " << safe(r.name.cudnn);
        if (!r.name.driver.empty()) out << " driver " << safe(r.name.driver);
        if (!r.name.arch.empty()) out << " (" << safe(r.name.arch) << ")";
        out << "\n";
    }
    for (const auto& c : r.checks) {
        if (c.name == "kind") continue;  // said above
        std::string status = to_string(c.status);
        status.resize(7, ' ');
        out << "  " << painter.paint(ink_of(c.status), status) << " " << safe(c.name) << ": " << safe(c.message) << "\n";
    }
    if (r.bytes_read) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "  (read once: %s in %.2f s)\n", human_bytes(r.bytes_read).c_str(), r.pass_seconds);
        out << buf;
    }
    out << painter.paint(r.is_good() ? report::Ink::bold_green : report::Ink::bold_red, "verdict: " + safe(r.summary)) << "\n";
    for (const auto& f : r.fixes) out << "  fix: " << safe(f) << "\n";
}

void render_json(const VerifyReport& r, std::ostream& out) {
    nlohmann::json j;
    j["file"] = r.path;
    j["size"] = r.size;
    j["kind"] = formats::to_string(r.kind);
    j["kind_text"] = r.kind_text;
    j["verdict"] = to_string(r.verdict);
    j["good"] = r.is_good();
    j["summary"] = r.summary;
    j["fixes"] = r.fixes;
    j["names"] = {{"product", r.name.product}, {"cuda", r.name.cuda}, {"driver", r.name.driver}, {"cudnn", r.name.cudnn}, {"arch", r.name.arch}};
    auto& checks = j["checks"] = nlohmann::json::array();
    for (const auto& c : r.checks) checks.push_back({{"name", c.name}, {"status", to_string(c.status)}, {"message", c.message}});
    if (r.makeself) {
        const auto& h = *r.makeself;
        nlohmann::json m{{"family", formats::to_string(h.family)},
                         {"version", h.makeself_version},
                         {"label", h.label},
                         {"script", h.script},
                         {"target_dir", h.target_dir},
                         {"header_lines", h.header_lines},
                         {"payload_offset", h.payload_offset},
                         {"compression", formats::to_string(h.compression)},
                         {"decompress_command", h.decompress_command}};
        if (h.total_size) m["total_size"] = *h.total_size;
        if (h.uncompressed_kib) m["uncompressed_kib"] = *h.uncompressed_kib;
        auto& payloads = m["payloads"] = nlohmann::json::array();
        for (const auto& p : h.payloads) {
            nlohmann::json pj{{"offset", p.offset}};
            pj["size"] = p.size ? nlohmann::json(*p.size) : nlohmann::json(nullptr);
            pj["md5"] = p.md5 ? nlohmann::json(*p.md5) : nlohmann::json(nullptr);
            pj["sha256"] = p.sha256 ? nlohmann::json(*p.sha256) : nlohmann::json(nullptr);
            pj["crc"] = p.crc ? nlohmann::json(*p.crc) : nlohmann::json(nullptr);
            payloads.push_back(pj);
        }
        j["makeself"] = m;
    }
    j["bytes_read"] = r.bytes_read;
    j["pass_seconds"] = r.pass_seconds;
    out << report::json_text(j) << "\n";
}

void ProgressBar::update(std::uint64_t done, std::uint64_t total) {
    if (!m_enabled || total == 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (m_drawn && now - m_last < std::chrono::milliseconds(100) && done < total) return;
    m_last = now;
    const int width = 30;
    const int filled = static_cast<int>(done * width / total);
    const double secs = std::chrono::duration<double>(now - m_start).count();
    char rate[48] = "";
    if (secs > 0.2) std::snprintf(rate, sizeof rate, "  %s/s", human_bytes(static_cast<std::uint64_t>(done / secs)).c_str());
    char line[160];
    std::snprintf(line, sizeof line, "\r[%s%s] %3d%%  %s of %s%s   ", std::string(filled, '#').c_str(),
                  std::string(width - filled, '.').c_str(), static_cast<int>(done * 100 / total), human_bytes(done).c_str(),
                  human_bytes(total).c_str(), rate);
    m_out << line << std::flush;
    m_drawn = true;
}

void ProgressBar::finish() {
    if (!m_drawn) return;
    m_out << "\r" << std::string(90, ' ') << "\r" << std::flush;
    m_drawn = false;
}

}  // namespace cudoctor::installer
