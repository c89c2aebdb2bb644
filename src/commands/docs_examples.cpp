// The examples every subcommand's --help ends with (and the man page's EXAMPLES section). One
// table, so a test can parse each line against the real option tree (broken_examples).
#include <array>
#include <string_view>

#include "commands/docs.hpp"

namespace cudoctor::commands {
namespace {

struct Examples {
    std::string_view command;
    std::string_view text;  ///< lines "  cudoctor …  # what it does"
};

constexpr std::array<Examples, 19> k_examples = {{
    {"check",
     "  cudoctor check                          # this machine: what is installed, what is wrong\n"
     "  cudoctor check --markdown               # ready to paste into a GitHub issue\n"
     "  cudoctor check --json > snapshot.json   # a snapshot to compare or send\n"
     "  cudoctor check --root /mnt/image        # a machine image or container root\n"
     "  cudoctor check --fail-on warning        # exit 1 on warnings too (CI)"},
    {"rules",
     "  cudoctor rules                          # every rule check applies\n"
     "  cudoctor rules --json                   # the same, for tools"},
    {"explain",
     "  cudoctor explain \"CUDA error: no kernel image is available for execution on the device\"\n"
     "  cudoctor explain --log build.log      # a whole log: pip, cmake, pytest, a traceback\n"
     "  cudoctor explain --log error.txt --no-machine   # only read the log"},
    {"arch",
     "  cudoctor arch torch                     # which GPUs the installed PyTorch can run on\n"
     "  cudoctor arch ./my_kernels.so --gpu 8.9 # would an RTX 4090 run it?\n"
     "  cudoctor arch /usr/lib/python3/dist-packages --json"},
    {"kernels",
     "  cudoctor kernels ./my_ext.so            # each kernel, demangled, with its SASS and PTX targets\n"
     "  cudoctor kernels /usr/local/cuda/lib64 --totals   # kernels per library, one line each\n"
     "  cudoctor kernels torch --json"},
    {"verify",
     "  cudoctor verify                         # driver → toolkit → cuDNN → frameworks, level by level\n"
     "  cudoctor verify --level 1               # only the driver and the GPU\n"
     "  cudoctor verify --json > verify.json"},
    {"verify-installer",
     "  cudoctor verify-installer cuda_12.4.1_550.54.15_linux.run\n"
     "  cudoctor verify-installer cudnn.tar.xz --sha256 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
    {"list", "  cudoctor list                           # every toolkit, where it is, who refers to it"},
    {"use",
     "  cudoctor use 12.4                       # print the shell code that switches this shell\n"
     "  eval \"$(cudoctor use 12.4)\"             # switch this shell (or: cudoctor init)"},
    {"init", "  cudoctor init bash >> ~/.bashrc         # then `cudoctor use 12.4` switches the shell directly"},
    {"switch",
     "  cudoctor switch 12.4                    # show the plan: /usr/local/cuda → 12.4, what it breaks\n"
     "  sudo cudoctor switch 12.4 --apply       # do it"},
    {"modulefile",
     "  cudoctor modulefile 12.4                # an Environment Modules (Tcl) modulefile\n"
     "  cudoctor modulefile --all --lmod        # Lua modulefiles for every toolkit"},
    {"uninstall",
     "  cudoctor uninstall 11.8                 # show the removal plan (never the driver)\n"
     "  sudo cudoctor uninstall 11.8 --apply    # do it"},
    {"plan",
     "  cudoctor plan --framework torch==2.4    # versions and install steps for this GPU and OS\n"
     "  cudoctor plan --cuda 12.4 --json"},
    {"compare",
     "  cudoctor compare ref.safetensors test.safetensors   # layer by layer, first failing layer\n"
     "  cudoctor compare ref.npz test.npz --json"},
    {"inventory",
     "  cudoctor inventory ref.safetensors      # operators, their layers, what needs attention\n"
     "  cudoctor inventory ref.safetensors --markdown"},
    {"opencv",
     "  cudoctor opencv cmake                   # the CMake command for OpenCV with CUDA on this machine\n"
     "  cudoctor opencv log cmake.log           # why a configure found no CUDA or cuDNN\n"
     "  cudoctor opencv check                   # is the installed cv2 built with CUDA, and does it run"},
    {"watch",
     "  cudoctor watch --pid 4242                # memory, clocks, temperature and errors of a running job\n"
     "  cudoctor watch -- python train.py       # run it and watch it"},
    {"fleet",
     "  cudoctor fleet snapshots/               # many machines' check --json, grouped by finding\n"
     "  cudoctor fleet snapshots/ --markdown"},
}};

}  // namespace

void add_default_examples(CLI::App& app) {
    for (const auto& e : k_examples) {
        // A command this tree does not have (a run builds only the command it runs) is skipped,
        // found without get_subcommand's exception.
        const auto found = app.get_subcommands([&](CLI::App* s) { return s->get_name() == e.command; });
        if (found.empty()) continue;
        CLI::App* sub = found.front();
        const std::string own = sub->get_footer();
        if (own.empty()) sub->footer("Examples:\n" + std::string(e.text));
        else if (examples_in(own).empty()) sub->footer(own + "\n\nExamples:\n" + std::string(e.text));  // keep the command's note
    }
}

}  // namespace cudoctor::commands
