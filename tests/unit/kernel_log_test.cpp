// The kernel-log reader on real driver reports copied from public bug reports
// (tests/watch_stubs/kernel_logs/*.log, each naming its source URL on its first line), in every
// form people save a kernel log in, and on broken input.
#include <gtest/gtest.h>

#include <string>

#include "formats/kernel_log.hpp"
#include "support/files.hpp"

using namespace cudoctor::formats;

namespace {

std::string real_log(const std::string& name) {
    auto text = cudoctor::test::slurp(std::string(CUDOCTOR_SOURCE_DIR) + "/tests/watch_stubs/kernel_logs/" + name);
    if (text.empty()) throw std::runtime_error("missing fixture " + name);
    return text;
}

}  // namespace

TEST(KernelLog, DmesgWithPidNameAndUnknownPid) {
    const auto events = parse_kernel_log(real_log("dmesg_xid31_62_45.log"));
    ASSERT_EQ(events.size(), 4u);
    const auto& mmu = events[0];
    EXPECT_EQ(mmu.kind, KernelEventKind::xid);
    EXPECT_EQ(mmu.code, 31);
    EXPECT_EQ(mmu.pci, "0000:0a:00");
    EXPECT_EQ(mmu.gpu_uuid, "GPU-760d0170-b7c5-6817-9414-6cc7112645de");
    EXPECT_EQ(mmu.pid, 13332);
    EXPECT_EQ(mmu.process, "cuda_plot_k32_v");
    EXPECT_TRUE(mmu.message.starts_with("Ch 00000010, intr 00000000. MMU Fault: ENGINE CE2")) << mmu.message;
    ASSERT_TRUE(mmu.uptime_s);
    EXPECT_DOUBLE_EQ(*mmu.uptime_s, 14328.198504);
    EXPECT_EQ(mmu.line, 3u);
    EXPECT_EQ(events[1].code, 62);
    EXPECT_FALSE(events[1].pid);
    EXPECT_EQ(events[1].process, "");
    EXPECT_EQ(events[2].code, 45);
    EXPECT_EQ(events[2].message, "Ch 00000008");
}

TEST(KernelLog, FallenOffTheBusWithAndWithoutXid) {
    const auto events = parse_kernel_log(real_log("dmesg_fallen_off_bus.log"));
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].kind, KernelEventKind::fallen_off_bus);
    EXPECT_EQ(events[0].pci, "0000:b3:00");
    EXPECT_EQ(events[0].line, 2u);
    ASSERT_TRUE(events[0].uptime_s);
    EXPECT_DOUBLE_EQ(*events[0].uptime_s, 1843.308145);
    EXPECT_EQ(events[1].kind, KernelEventKind::xid);
    EXPECT_EQ(events[1].code, 79);
    EXPECT_EQ(events[1].pci, "0000:44:00");
    EXPECT_EQ(events[1].message, "GPU has fallen off the bus");
    EXPECT_FALSE(events[1].uptime_s);
}

TEST(KernelLog, OldDriverFormsWithoutPid) {
    const auto events = parse_kernel_log(real_log("dmesg_xid31_13_32.log"));
    ASSERT_EQ(events.size(), 6u);
    EXPECT_EQ(events[0].code, 31);
    EXPECT_EQ(events[0].gpu_uuid, "GPU-8a47641b-dff6-f09f-618c-c3eb58fb430d");
    EXPECT_FALSE(events[0].pid);
    EXPECT_EQ(events[1].code, 13);
    EXPECT_EQ(events[1].message, "Graphics Exception: Class 0x0 Subchannel 0x0 Mismatch");
    EXPECT_EQ(events[5].code, 32);
}

TEST(KernelLog, SyslogAndJournalPrefixes) {
    const auto kern = parse_kernel_log(real_log("syslog_xid13.log"));
    ASSERT_EQ(kern.size(), 3u);
    EXPECT_EQ(kern[0].pci, "0000:01:00");  // the 2012 form, without "PCI:"
    EXPECT_EQ(kern[0].wall_time, "May  6 00:38:27");
    ASSERT_TRUE(kern[0].uptime_s);
    EXPECT_DOUBLE_EQ(*kern[0].uptime_s, 4909.92297);

    const auto journal = parse_kernel_log(real_log("journal_xid9.log"));
    ASSERT_EQ(journal.size(), 2u);
    EXPECT_EQ(journal[0].code, 9);
    EXPECT_EQ(journal[0].wall_time, "Nov 18 17:26:39");
    EXPECT_FALSE(journal[0].uptime_s);

    const auto syslog = parse_kernel_log(real_log("syslog_gpu_uuid_69.log"));
    ASSERT_EQ(syslog.size(), 4u);
    EXPECT_EQ(syslog[1].code, 69);
    EXPECT_EQ(syslog[1].gpu_uuid, "GPU-bc0fa0b9-cac2-f507-b715-9bebdb69c71e");
    EXPECT_EQ(syslog[3].code, 62);
}

TEST(KernelLog, OpenModuleAndRowRemapper) {
    const auto open = parse_kernel_log(real_log("dmesg_xid31_open_595.log"));
    ASSERT_EQ(open.size(), 1u);
    EXPECT_EQ(open[0].pid, 13705);
    EXPECT_EQ(open[0].process, "UnrealEditor");
    EXPECT_EQ(open[0].gpu_uuid, "GPU-4e391288-897c-ba5d-6944-dfbea55ebcfa");
    const auto remap = parse_kernel_log(real_log("row_remap_63.log"));
    ASSERT_EQ(remap.size(), 1u);
    EXPECT_EQ(remap[0].code, 63);
    EXPECT_EQ(remap[0].pci, "0000:10:1c");
    EXPECT_EQ(remap[0].message, "Row Remapper: New row marked for remapping, reset gpu to activate.");
}

TEST(KernelLog, OtherSourcesOfTheSameLine) {
    // /dev/kmsg record, journalctl -o short-iso, dmesg -T, Talos: the same Xid line behind each.
    const std::string xid = "NVRM: Xid (PCI:0000:01:00): 79, pid=4242, name=python3, GPU has fallen off the bus.";
    auto kmsg = parse_kernel_line("4,1234,5678901234,-;" + xid);
    ASSERT_TRUE(kmsg);
    EXPECT_DOUBLE_EQ(*kmsg->uptime_s, 5678.901234);
    auto iso = parse_kernel_line("2024-01-12T10:00:00+0000 gpu7 kernel: " + xid);
    ASSERT_TRUE(iso);
    EXPECT_EQ(iso->wall_time, "2024-01-12T10:00:00+0000");
    auto human = parse_kernel_line("[Mon Jan 12 10:00:00 2024] " + xid);
    ASSERT_TRUE(human);
    EXPECT_EQ(human->wall_time, "Mon Jan 12 10:00:00 2024");
    auto talos = parse_kernel_line("192.168.11.119: kern: warning: [2026-04-22T21:27:51.291660856Z]: " + xid);
    ASSERT_TRUE(talos);
    EXPECT_EQ(talos->wall_time, "2026-04-22T21:27:51.291660856Z");
    for (const auto* e : {&*kmsg, &*iso, &*human, &*talos}) {
        EXPECT_EQ(e->code, 79);
        EXPECT_EQ(e->pid, 4242);
        EXPECT_EQ(e->process, "python3");
        EXPECT_EQ(e->message, "GPU has fallen off the bus.");
    }
}

TEST(KernelLog, FriendsOfXid) {
    // Message texts as the driver prints them (nvidia kernel module sources); SXid form from
    // NVIDIA's Xid catalogue.
    auto sxid =
        parse_kernel_line("nvidia-nvswitch3: SXid (PCI:0000:86:00.0): 12028, Non-fatal, Link 43 egress non-posted PRIV error (First)");
    ASSERT_TRUE(sxid);
    EXPECT_EQ(sxid->kind, KernelEventKind::sxid);
    EXPECT_EQ(sxid->code, 12028);
    EXPECT_EQ(sxid->pci, "0000:86:00.0");
    auto init = parse_kernel_line("[    5.1] NVRM: RmInitAdapter failed! (0x26:0xffff:1601)");
    ASSERT_TRUE(init);
    EXPECT_EQ(init->kind, KernelEventKind::rm_init_failed);
    auto api = parse_kernel_line("NVRM: API mismatch: the client has the version 535.104.05, but");
    ASSERT_TRUE(api);
    EXPECT_EQ(api->kind, KernelEventKind::api_mismatch);
    auto bus = parse_kernel_line("NVRM: GPU at PCI:0000:01:00: GPU has fallen off the bus.");
    ASSERT_TRUE(bus);
    EXPECT_EQ(bus->kind, KernelEventKind::fallen_off_bus);
    EXPECT_EQ(bus->pci, "0000:01:00");
}

TEST(KernelLog, BrokenInputIsSkippedNotFatal) {
    EXPECT_TRUE(parse_kernel_log("").empty());
    EXPECT_TRUE(parse_kernel_log("NVRM: Xid (PCI:0000:01:00): , no number\n").empty());
    EXPECT_TRUE(parse_kernel_log("NVRM: Xid (PCI:0000:01:00): 123456, too long\n").empty());
    EXPECT_TRUE(parse_kernel_log("NVRM: Xid (PCI:0000:01:00").empty());
    EXPECT_TRUE(parse_kernel_log("NVRM: Xid (PCI:0000:01:00): 79x").empty());
    EXPECT_TRUE(parse_kernel_log("[ 12.5 NVRM: loading module\n").empty());
    // Control bytes and invalid UTF-8 in the message become '?'.
    auto e = parse_kernel_line(std::string("NVRM: Xid (PCI:0000:01:00): 13, bad \x01\xff bytes"));
    ASSERT_TRUE(e);
    EXPECT_EQ(e->message.find('\x01'), std::string::npos);
    // A hostile line of megabytes costs its length and keeps capped texts.
    std::string huge = "[ 1.0] NVRM: Xid (PCI:0000:01:00): 13, " + std::string(5u << 20, 'A') + "\n";
    auto events = parse_kernel_log(huge);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_LE(events[0].message.size(), 300u);
    // The event cap holds.
    std::string many;
    for (int i = 0; i < 50; ++i) many += "NVRM: Xid (PCI:0000:01:00): 45, Ch 1\n";
    EXPECT_EQ(parse_kernel_log(many, 10).size(), 10u);
}
