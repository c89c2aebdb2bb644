// formats::parse_shell_rc and path_entries on literal start-up files: what a line sets, and the
// lines it must skip rather than guess (blocks, sourced files, commands, quotes it cannot close).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/shell_rc.hpp"

namespace shellrc_test {

using cudoctor::formats::parse_shell_rc;
using cudoctor::formats::path_entries;
using cudoctor::formats::ShellAssignment;

/// "NAME=value" for each assignment found, in order (for compact expectations).
std::vector<std::string> sets(std::string_view text, std::string_view home = "/home/dev") {
    std::vector<std::string> out;
    for (const auto& a : parse_shell_rc(text, home)) out.push_back(a.name + "=" + a.value);
    return out;
}

TEST(ShellrcParser, ReadsExportAndPlainAssignmentsWithTheirLines) {
    const auto found = parse_shell_rc(
        "# CUDA\n"
        "export PATH=/usr/local/cuda-12.4/bin:$PATH\n"
        "\n"
        "   LD_LIBRARY_PATH=/usr/local/cuda/lib64   # the runtime\n",
        "/home/dev");
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].line, 2);
    EXPECT_EQ(found[0].name, "PATH");
    EXPECT_EQ(found[0].value, "/usr/local/cuda-12.4/bin:$PATH");
    EXPECT_TRUE(found[0].exported);
    EXPECT_TRUE(found[0].keeps_old);
    EXPECT_EQ(found[1].line, 4);
    EXPECT_EQ(found[1].text, "LD_LIBRARY_PATH=/usr/local/cuda/lib64   # the runtime");
    EXPECT_EQ(found[1].value, "/usr/local/cuda/lib64");
    EXPECT_FALSE(found[1].exported);
    EXPECT_FALSE(found[1].keeps_old);
}

TEST(ShellrcParser, KeepsOldInEveryFormTheShellHas) {
    for (const char* line : {"export LD_LIBRARY_PATH=/x${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}", "export LD_LIBRARY_PATH=/x:$LD_LIBRARY_PATH",
                             "export LD_LIBRARY_PATH=\"/x:${LD_LIBRARY_PATH}\"", "LD_LIBRARY_PATH=${LD_LIBRARY_PATH-}:/x"}) {
        const auto found = parse_shell_rc(line, "");
        ASSERT_EQ(found.size(), 1u) << line;
        EXPECT_TRUE(found[0].keeps_old) << line;
    }
    // A variable whose name only starts like it is another variable.
    const auto other = parse_shell_rc("export LD_LIBRARY_PATH=/x:$LD_LIBRARY_PATH_OLD", "");
    ASSERT_EQ(other.size(), 1u);
    EXPECT_FALSE(other[0].keeps_old);
}

TEST(ShellrcParser, HomeAndQuotes) {
    EXPECT_EQ(sets("export PATH=~/bin:$HOME/.local/bin:${HOME}/x:$HOMEBREW/bin\n"),
              std::vector<std::string>{"PATH=/home/dev/bin:/home/dev/.local/bin:/home/dev/x:$HOMEBREW/bin"});
    EXPECT_EQ(sets("export CUDA_HOME=\"/usr/local/cuda-11.8\"\nexport CUDA_PATH='/usr/local/cuda-12.1'\n"),
              (std::vector<std::string>{"CUDA_HOME=/usr/local/cuda-11.8", "CUDA_PATH=/usr/local/cuda-12.1"}));
    // A system file has no home: $HOME stays as written.
    EXPECT_EQ(sets("PATH=$HOME/bin:$PATH\n", ""), std::vector<std::string>{"PATH=$HOME/bin:$PATH"});
    // A '$' inside single quotes is literal: a mistake or a trick, not read.
    EXPECT_TRUE(sets("export PATH='$PATH:/x'\n").empty());
}

TEST(ShellrcParser, SkipsWhatItDoesNotFollow) {
    const std::string rc =
        "case $- in\n"
        "    *i*) ;;\n"
        "      *) return;;\n"
        "esac\n"
        "if [ -d /usr/local/cuda-11.2 ]; then\n"
        "    export PATH=/usr/local/cuda-11.2/bin:$PATH\n"
        "fi\n"
        "use_cuda() {\n"
        "    export CUDA_HOME=/usr/local/cuda-$1\n"
        "}\n"
        "for d in /opt/*/bin; do PATH=$d:$PATH; done\n"
        ". ~/.cuda_env\n"
        "source /etc/profile.d/cuda.sh\n"
        "export PATH=$(cat ~/.path)\n"
        "export PATH=`cat ~/.path`\n"
        "export A=1 B=2\n"
        "X=1 make\n"
        "export CUDA_LAUNCH_BLOCKING=1; echo on\n"
        "export LD_LIBRARY_PATH=/a\\\n"
        "/b\n"
        "export MSG=\"two\n"
        "export PATH=/inside/a/string\n"
        "lines\"\n"
        "export -n PATH\n"
        "export LD_LIBRARY_PATH\n"
        "export CUDA_LAUNCH_BLOCKING=1\n";
    EXPECT_EQ(sets(rc), std::vector<std::string>{"CUDA_LAUNCH_BLOCKING=1"});
    EXPECT_EQ(parse_shell_rc(rc, "").back().line, 26);
}

TEST(ShellrcParser, UbuntusDefaultsAndCondasInitBlockSetNothingAtTopLevel) {
    const std::string rc =
        "case $- in\n    *i*) ;;\n      *) return;;\nesac\n"
        "HISTSIZE=1000\n"
        "[ -x /usr/bin/lesspipe ] && eval \"$(SHELL=/bin/sh lesspipe)\"\n"
        "case \"$TERM\" in xterm-color|*-256color) color_prompt=yes;; esac\n"
        "PS1='${debian_chroot:+($debian_chroot)}\\u@\\h:\\w\\$ '\n"
        "alias ls='ls --color=auto'\n"
        "# >>> conda initialize >>>\n"
        "__conda_setup=\"$('/home/dev/miniconda3/bin/conda' 'shell.bash' 'hook' 2> /dev/null)\"\n"
        "if [ $? -eq 0 ]; then\n    eval \"$__conda_setup\"\nelse\n"
        "    if [ -f \"/home/dev/miniconda3/etc/profile.d/conda.sh\" ]; then\n"
        "        . \"/home/dev/miniconda3/etc/profile.d/conda.sh\"\n    else\n"
        "        export PATH=\"/home/dev/miniconda3/bin:$PATH\"\n    fi\nfi\n"
        "unset __conda_setup\n# <<< conda initialize <<<\n"
        "export PATH=/usr/local/cuda-12.4/bin${PATH:+:${PATH}}\n";
    EXPECT_EQ(sets(rc), (std::vector<std::string>{"HISTSIZE=1000", "PATH=/usr/local/cuda-12.4/bin${PATH:+:${PATH}}"}));
}

TEST(ShellrcParser, HereDocumentBodiesAreNotTheShellsLines) {
    EXPECT_EQ(sets("cat > ~/.cuda_env <<'EOF'\n"
                   "export PATH=/usr/local/cuda-11.2/bin:$PATH\n"
                   "EOF\n"
                   "cat <<-END >> /tmp/x\n"
                   "\texport LD_LIBRARY_PATH=/x\n"
                   "\tEND\n"
                   "grep x <<< \"$PATH\"\n"
                   "export CUDA_LAUNCH_BLOCKING=1\n"),
              std::vector<std::string>{"CUDA_LAUNCH_BLOCKING=1"});
    // A here-document whose delimiter never comes hides the rest of the file.
    EXPECT_TRUE(sets("cat <<EOF\nexport CUDA_LAUNCH_BLOCKING=1\n").empty());
}

TEST(ShellrcParser, HostileBytesNeverCrashAndAreSkipped) {
    std::string binary;
    for (int i = 0; i < 4096; ++i) binary += static_cast<char>((i * 37) & 0xff);
    EXPECT_TRUE(sets(binary).empty());
    EXPECT_TRUE(sets(std::string("export PATH=/x\xff\xfe:$PATH\n")).empty());  // not ASCII: not understood
    EXPECT_TRUE(sets(std::string("export PATH=/x\0y\n", 16)).empty());
    EXPECT_TRUE(sets("export PATH=\"unclosed\n").empty());
    EXPECT_TRUE(sets("fi\nfi\ndone\n}\nexport CUDA_LAUNCH_BLOCKING=1\n").size() == 1);  // stray closers do not hide later lines
    // A long file of the same line: every line read, no quadratic blow-up expected at this size.
    std::string many;
    for (int i = 0; i < 20000; ++i) many += "export CUDA_LAUNCH_BLOCKING=1\n";
    EXPECT_EQ(parse_shell_rc(many, "").size(), 20000u);
}

TEST(ShellrcParser, PathEntriesKnowTheOldValue) {
    const auto e = path_entries("/usr/local/cuda-12.4/bin${PATH:+:${PATH}}", "PATH");
    ASSERT_EQ(e.size(), 2u);
    EXPECT_EQ(e[0].dir, "/usr/local/cuda-12.4/bin");
    EXPECT_TRUE(e[1].old_value);
    const auto appended = path_entries("$PATH:/usr/local/cuda/bin:/opt/x", "PATH");
    ASSERT_EQ(appended.size(), 3u);
    EXPECT_TRUE(appended[0].old_value);
    EXPECT_EQ(appended[1].dir, "/usr/local/cuda/bin");
    EXPECT_EQ(appended[2].dir, "/opt/x");
    const auto head = path_entries("${PATH:+${PATH}:}/usr/local/cuda/bin", "PATH");
    ASSERT_EQ(head.size(), 2u);
    EXPECT_TRUE(head[0].old_value);
    EXPECT_EQ(head[1].dir, "/usr/local/cuda/bin");
    // Another variable's value is a folder as written; an empty entry is dropped.
    const auto other = path_entries("$CUDA_HOME/bin::${PATH}", "PATH");
    ASSERT_EQ(other.size(), 2u);
    EXPECT_EQ(other[0].dir, "$CUDA_HOME/bin");
    EXPECT_TRUE(other[1].old_value);
}

}  // namespace shellrc_test
