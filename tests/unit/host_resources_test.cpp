// The build-machine facts behind `opencv cmake -j N` and explain's killed builds: CPU lists,
// /proc/meminfo, the job count.
#include <gtest/gtest.h>

#include "host/resources.hpp"

namespace cudoctor::host {
namespace {

TEST(HostResources, CpuLists) {
    EXPECT_EQ(count_cpu_list("0-15\n"), 16u);
    EXPECT_EQ(count_cpu_list("0"), 1u);
    EXPECT_EQ(count_cpu_list("0,2-3,8"), 4u);
    EXPECT_EQ(count_cpu_list(""), std::nullopt);
    EXPECT_EQ(count_cpu_list("3-1"), std::nullopt);
    EXPECT_EQ(count_cpu_list("a-b"), std::nullopt);
    EXPECT_EQ(count_cpu_list("0-4294967295"), std::nullopt);
}

TEST(HostResources, Meminfo) {
    const std::string meminfo = "MemTotal:       16318384 kB\nMemFree:         1000000 kB\nMemAvailable:   12582912 kB\n";
    EXPECT_EQ(meminfo_kib(meminfo, "MemTotal"), 16318384u);
    EXPECT_EQ(meminfo_kib(meminfo, "MemAvailable"), 12582912u);
    EXPECT_EQ(meminfo_kib(meminfo, "Mem"), std::nullopt);
    EXPECT_EQ(meminfo_kib("MemTotal: lots kB\n", "MemTotal"), std::nullopt);
}

TEST(HostResources, JobsFromMemoryAndCores) {
    std::string why;
    // 16 cores, 12 GiB available: memory decides (4 jobs of 3 GiB), not the cores.
    EXPECT_EQ(parallel_jobs({12582912, "MemAvailable", 16, "x"}, why), 4u);
    EXPECT_EQ(why, "16 cores, 12.0 GiB available memory / 3 GiB per nvcc job");
    // 4 cores, 64 GiB: the cores decide.
    EXPECT_EQ(parallel_jobs({64ull << 20, "MemTotal", 4, "x"}, why), 4u);
    // 2 GiB: still one job.
    EXPECT_EQ(parallel_jobs({2ull << 20, "MemAvailable", 8, "x"}, why), 1u);
    // Nothing known: one job.
    EXPECT_EQ(parallel_jobs({}, why), 1u);
    EXPECT_EQ(why, "cores unknown, memory unknown (no /proc/meminfo)");
}

}  // namespace
}  // namespace cudoctor::host
