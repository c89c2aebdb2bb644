// cudoctor plan: a working version set for this GPU and project, and the install steps in order.
// Probes this machine (or --root), derives the set backwards from the framework, checks the
// machine as the plan would leave it with check's own rules, and prints text, JSON or a script.
// Nothing is ever run.
#include <memory>

#include <nlohmann/json.hpp>

#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "commands/machine.hpp"
#include "kb/kb.hpp"
#include "recipe/derive.hpp"
#include "recipe/projected.hpp"
#include "recipe/render.hpp"
#include "recipe/request.hpp"
#include "recipe/target.hpp"
#include "report/style.hpp"
#include "rules/rules.hpp"

namespace cudoctor::commands {
namespace {

struct PlanOptions {
    std::optional<std::string> framework;
    std::optional<std::string> cuda;
    std::optional<std::string> gpu;
    std::optional<std::string> os;
    std::vector<std::string> needs;
    bool offline = false;
    bool fresh = false;
    MachineOptions machine;
    bool json = false;
    std::string format = "text";
    bool quiet = false;  ///< main's -q/--quiet: the recipe in one line (JSON and the script are kept whole)
};

ExitStatus usage_error(const PlanOptions& options, std::ostream& out, std::ostream& err, const Error& e) {
    return report_error(e, options.json || options.format == "json", "plan", out, err);
}

Expected<recipe::Request> make_request(const PlanOptions& o) {
    recipe::Request r;
    if (o.framework) {
        auto fw = recipe::parse_framework(*o.framework);
        if (!fw) return Unexpected<Error>(fw.error());
        r.framework = *fw;
    }
    if (o.cuda) {
        auto v = Version::parse(*o.cuda);
        if (!v || v->str() != *o.cuda) return fail(Errc::usage, "--cuda '" + *o.cuda + "' is not a version like 12.4");
        r.cuda = *v;
    }
    r.gpu = o.gpu;
    r.os = o.os;
    for (const auto& n : o.needs) {
        if (n == "nvcc") r.need_nvcc = true;
        else if (n == "cudnn") r.need_cudnn = true;
        else if (n == "opencv") r.need_opencv = true;
        else return fail(Errc::usage, "--need '" + n + "': expected nvcc, cudnn or opencv");
    }
    r.offline = o.offline;
    r.fresh = o.fresh;
    return r;
}

ExitStatus run_plan(const PlanOptions& options, std::ostream& out, std::ostream& err) {
    auto request = make_request(options);
    if (!request) return usage_error(options, out, err, request.error());
    auto machine = open_machine(options.machine, {.probe = Probe::all});
    if (!machine) return usage_error(options, out, err, machine.error());
    const kb::Kb& kb = machine->kb;
    const auto& snap = machine->snap;

    auto target = recipe::make_target(snap, *request, kb);
    if (!target) return usage_error(options, out, err, target.error());
    auto plan = recipe::derive_plan(*request, *target, kb);
    if (!plan) return usage_error(options, out, err, plan.error());

    // The machine as the plan leaves it, judged by check's rules: a plan check would fault is a bug.
    recipe::Prediction prediction;
    if (!plan->refused && !request->gpu && !request->os && !request->fresh) {
        prediction.evaluated = true;
        for (const auto& f : rules::evaluate(recipe::projected_snapshot(snap, *plan, kb), kb))
            if (f.severity == snapshot::Severity::error) prediction.errors.push_back(f.title);
    }

    if (options.json || options.format == "json") out << report::json_text(recipe::to_json(*plan, *request, prediction)) << "\n";
    else if (options.format == "script") recipe::render_script(*plan, *request, out);
    else if (options.quiet) out << recipe::verdict_line(*plan, *request, prediction) << "\n";
    else recipe::render_text(*plan, *request, prediction, out);
    return plan->refused ? ExitStatus::problems : ExitStatus::healthy;
}

}  // namespace

Command add_plan_command(CLI::App& app) {
    auto options = std::make_shared<PlanOptions>();
    auto* cmd = app.add_subcommand("plan",
                                   "a working version set (framework → CUDA → driver → gcc/cuDNN) for this GPU and OS, "
                                   "and the install steps in order (printed, never run)");
    cmd->add_option("--framework", options->framework,
                    "what the project needs: torch==2.4, tensorflow==2.15, jax==0.4.30, or PEP 440 specifiers: 'torch>=2.3,<2.6', 'jax~=0.4.30'");
    cmd->add_option("--cuda", options->cuda, "a CUDA toolkit version (12.4, or 12 for any 12.x)");
    cmd->add_option("--gpu", options->gpu, "plan for this GPU instead of this machine's: \"RTX 4060 Ti\" or a compute capability (8.9)");
    cmd->add_option("--os", options->os,
                    "plan for this OS instead of this machine's: ubuntu-22.04, ubuntu-24.04, debian-12, wsl-ubuntu-22.04");
    cmd->add_option("--need", options->needs, "also a system nvcc, cudnn or opencv (nvcc + cuDNN) (repeatable)");
    cmd->add_flag("--offline", options->offline, "the machine has no network: runfiles and archives brought on other media");
    cmd->add_flag("--fresh", options->fresh, "plan as for a clean install: ignore the driver, toolkits and cuDNN installed here");
    add_machine_options(cmd, options->machine);
    cmd->add_flag("--json", options->json, "print the plan as JSON (same as --format json)");
    cmd->add_option("--format", options->format, "text, json, or script (a commented bash script; plan never runs it)")
        ->check(CLI::IsMember({"text", "json", "script"}));
    return {cmd, [options](const Output& o) {
                options->quiet = o.quiet;
                return run_plan(*options, o.out, o.err);
            }};
}

}  // namespace cudoctor::commands
