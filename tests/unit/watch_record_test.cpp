// The watch folder's CSV round trip, the Xid table, and the summary built from a record.
#include <gtest/gtest.h>

#include <fstream>

#include "support/temp_dir.hpp"
#include "watch/launched.hpp"
#include "watch/sample_log.hpp"
#include "watch/summary.hpp"
#include "watch/xid_catalog.hpp"

using namespace cudoctor;
using namespace cudoctor::watch;

TEST(WatchRecord, CsvCellsRoundTrip) {
    for (std::string text : {"plain", "with, comma", "with \"quotes\"", " padded ", "", "NVRM: Xid (PCI:0000:01:00): 79, pid=1"}) {
        const auto row = csv_cell("a") + "," + csv_cell(text) + "," + csv_cell("z");
        const auto cells = split_csv_row(row);
        ASSERT_EQ(cells.size(), 3u) << row;
        EXPECT_EQ(cells[1], text) << row;
    }
    EXPECT_EQ(csv_cell("line\nbreak"), "line?break");  // one row is one line
}

TEST(WatchRecord, WrittenRowsReadBackAndAFolderIsNeverReused) {
    cudoctor::test::TempDir dir;
    const auto out = dir.str() + "/w";
    {
        auto log = SampleLog::create(out, {{"kernel_log", "/var/log/kern.log"}});
        ASSERT_TRUE(log) << log.error().message;
        GpuReading g;
        g.index = 1;
        g.name = "NVIDIA A100-SXM4-80GB";
        g.pci = "00000000:07:00.0";
        g.memory_used = 123456789;
        g.temperature_c = 61;
        ASSERT_TRUE(log->gpu(12.5, "2025-01-12T10:00:12.500Z", g));
        ASSERT_TRUE(log->process(12.5, "2025-01-12T10:00:12.500Z", {1, 4242, 1000, "python, the 3rd"}));
        ASSERT_TRUE(
            log->event({13, "2025-01-12T10:00:13.000Z", "xid", 79, "0000:07:00", 4242, "python3", "Xid 79: GPU has fallen off the bus."}));
        auto again = SampleLog::create(out, {});
        ASSERT_FALSE(again);
        EXPECT_EQ(again.error().code, Errc::usage);
    }
    auto record = read_watch_dir(out);
    ASSERT_TRUE(record) << record.error().message;
    EXPECT_TRUE(record->warnings.empty());
    ASSERT_EQ(record->gpus.size(), 1u);
    EXPECT_EQ(record->gpus[0].gpu.memory_used, 123456789u);
    EXPECT_FALSE(record->gpus[0].gpu.power_mw);  // not given: an empty cell, not a zero
    ASSERT_EQ(record->processes.size(), 1u);
    EXPECT_EQ(record->processes[0].process.name, "python, the 3rd");
    ASSERT_EQ(record->events.size(), 1u);
    EXPECT_EQ(record->events[0].pid, 4242);

    auto xids = XidCatalog::load(std::nullopt);
    ASSERT_TRUE(xids) << xids.error().message;
    const auto s = summarise(*record, *xids, out);
    ASSERT_EQ(s.reports.size(), 1u);
    EXPECT_EQ(s.reports[0].gpu, 1u);
    ASSERT_TRUE(s.reports[0].info);
    EXPECT_EQ(s.reports[0].info->meaning, "GPU has fallen off the bus");
    EXPECT_TRUE(s.problems());
    EXPECT_EQ(to_json(s)["driver_reports"][0]["xid"]["action"], "RESTART_BM");
    const auto svg = memory_svg(s);
    EXPECT_NE(svg.find("Xid 79"), std::string::npos);
}

TEST(WatchRecord, XidTable) {
    auto xids = XidCatalog::load(std::nullopt);
    ASSERT_TRUE(xids) << xids.error().message;
    EXPECT_GE(xids->size(), 50u);
    EXPECT_NE(xids->source().find("docs.nvidia.com/deploy/xid-errors"), std::string::npos);
    for (int code : {13, 31, 43, 45, 48, 63, 64, 74, 79, 92, 94, 95, 109, 119, 120}) EXPECT_TRUE(xids->find(code)) << code;
    EXPECT_EQ(xids->find(31)->meaning, "GPU memory page fault");
    EXPECT_EQ(xids->find(48)->cause, "memory");
    EXPECT_FALSE(xids->find(1));
    auto bad = XidCatalog::parse("x.tsv",
                                 "# source: a test table of at least twenty characters\ncode\tmnemonic\tmeaning\tcause\taction\tadvice\n"
                                 "13\tM\tMeaning\tgremlins\tRESTART_APP\tdo\n");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().message, "x.tsv:3: column cause: unknown cause 'gremlins'");
    EXPECT_FALSE(XidCatalog::load(std::string("/nonexistent/kb")));
}

TEST(WatchRecord, PciAddressesAndCudaErrorLines) {
    EXPECT_TRUE(same_pci("0000:18:00", "00000000:18:00.0"));
    EXPECT_TRUE(same_pci("0000:b3:00", "00000000:B3:00.0"));
    EXPECT_FALSE(same_pci("0000:18:00", "00000000:19:00.0"));
    EXPECT_FALSE(same_pci("garbage", "00000000:19:00.0"));
    EXPECT_TRUE(is_cuda_error_line("RuntimeError: CUDA error: an illegal memory access was encountered"));
    EXPECT_TRUE(is_cuda_error_line("CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle)`"));
    EXPECT_TRUE(is_cuda_error_line("RuntimeError: CUDA error: device-side assert triggered"));
    EXPECT_FALSE(is_cuda_error_line("epoch 3: loss 0.1"));
    EXPECT_FALSE(is_cuda_error_line("CUDA error: no error"));
}
