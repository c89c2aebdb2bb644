#include "toolkits/alternatives.hpp"

#include <charconv>

#include "common/text.hpp"

namespace cudoctor::toolkits {

const AltChoice* Alternative::best() const {
    const AltChoice* b = nullptr;
    for (const auto& c : choices)
        if (!b || c.priority > b->priority) b = &c;
    return b;
}

Expected<Alternative> parse_alternative(std::string_view name, std::string_view text) {
    auto ls = text::lines(text);
    Alternative alt;
    alt.name = std::string(name);
    const std::string where = "alternatives/" + std::string(name) + ": ";
    if (ls.size() < 2) return fail(Errc::truncated, where + "ends before its link line");
    alt.status = std::string(text::trim(ls[0]));
    if (alt.status != "auto" && alt.status != "manual") return fail(Errc::parse, where + "status is not auto or manual");
    alt.link = std::string(ls[1]);
    if (!alt.link.starts_with('/')) return fail(Errc::parse, where + "the link is not an absolute path");
    std::size_t i = 2;
    while (i < ls.size() && !ls[i].empty()) {
        if (i + 1 >= ls.size()) return fail(Errc::truncated, where + "a slave has no link");
        alt.slaves.emplace_back(std::string(ls[i]), std::string(ls[i + 1]));
        i += 2;
    }
    ++i;  // the blank line after the slaves
    while (i < ls.size() && !ls[i].empty()) {
        if (i + 1 >= ls.size()) return fail(Errc::truncated, where + "a choice has no priority");
        AltChoice c;
        c.path = std::string(ls[i]);
        auto p = text::trim(ls[i + 1]);
        auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), c.priority);
        if (ec != std::errc() || end != p.data() + p.size()) return fail(Errc::parse, where + "priority of " + c.path + " is not a number");
        i += 2;
        for (std::size_t s = 0; s < alt.slaves.size(); ++s, ++i) c.slave_paths.emplace_back(i < ls.size() ? std::string(ls[i]) : "");
        alt.choices.push_back(std::move(c));
    }
    return alt;
}

std::string format_alternative(const Alternative& alt) {
    std::string out = alt.status + "\n" + alt.link + "\n";
    for (const auto& [n, l] : alt.slaves) out += n + "\n" + l + "\n";
    out += "\n";
    for (const auto& c : alt.choices) {
        out += c.path + "\n" + std::to_string(c.priority) + "\n";
        for (std::size_t s = 0; s < alt.slaves.size(); ++s) out += (s < c.slave_paths.size() ? c.slave_paths[s] : "") + "\n";
    }
    out += "\n";
    return out;
}

std::vector<Alternative> read_cuda_alternatives(const host::Host& host) {
    std::vector<Alternative> out;
    for (const auto& f : host.glob("/var/lib/dpkg/alternatives", "cuda*")) {
        auto data = host.read_file(f, 1u << 20);
        if (!data) continue;
        auto alt = parse_alternative(host::basename(f), *data);
        if (!alt) continue;
        if (auto t = host.read_link("/etc/alternatives/" + alt->name)) alt->current = *t;
        out.push_back(std::move(*alt));
    }
    return out;
}

}  // namespace cudoctor::toolkits
