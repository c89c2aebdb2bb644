#include "fleet/hostlist.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>

namespace cudoctor::fleet {
namespace {

struct Group {
    std::string prefix;
    std::size_t width = 0;  ///< digits of a zero-padded number, 0 when not padded
    std::vector<std::uint64_t> numbers;
};

}  // namespace

std::string compress_hostlist(const std::vector<std::string>& names) {
    std::vector<Group> groups;
    std::map<std::pair<std::string, std::size_t>, std::size_t> index;
    std::vector<std::string> plain;
    std::vector<std::pair<bool, std::size_t>> order;  // (is group, which)
    for (const auto& name : names) {
        std::size_t start = name.size();
        while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9') --start;
        const std::size_t digits = name.size() - start;
        // No number, or one too long for 64 bits: the name stays whole.
        if (digits == 0 || digits > 18) {
            order.emplace_back(false, plain.size());
            plain.push_back(name);
            continue;
        }
        const std::size_t width = (name[start] == '0' && digits > 1) ? digits : 0;
        auto key = std::make_pair(name.substr(0, start), width);
        auto [it, fresh] = index.try_emplace(key, groups.size());
        if (fresh) {
            groups.push_back({key.first, width, {}});
            order.emplace_back(true, it->second);
        }
        groups[it->second].numbers.push_back(std::stoull(name.substr(start)));
    }
    auto pad = [](std::uint64_t n, std::size_t width) {
        std::string s = std::to_string(n);
        if (s.size() < width) s.insert(0, width - s.size(), '0');
        return s;
    };
    std::string out;
    for (const auto& [is_group, which] : order) {
        if (!out.empty()) out += ",";
        if (!is_group) {
            out += plain[which];
            continue;
        }
        auto nums = groups[which].numbers;
        std::sort(nums.begin(), nums.end());
        nums.erase(std::unique(nums.begin(), nums.end()), nums.end());
        const std::size_t width = groups[which].width;
        if (nums.size() == 1) {
            out += groups[which].prefix + pad(nums[0], width);
            continue;
        }
        out += groups[which].prefix + "[";
        for (std::size_t i = 0; i < nums.size();) {
            std::size_t j = i;
            while (j + 1 < nums.size() && nums[j + 1] == nums[j] + 1) ++j;
            if (i) out += ",";
            out += pad(nums[i], width);
            if (j > i) out += "-" + pad(nums[j], width);
            i = j + 1;
        }
        out += "]";
    }
    return out;
}

}  // namespace cudoctor::fleet
