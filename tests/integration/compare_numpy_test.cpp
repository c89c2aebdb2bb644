// `cudoctor compare` against NumPy: dumps of every dtype written by NumPy and torch
// (tests/compare/make_dumps.py), and every number compare reports checked against the same
// metrics computed independently by NumPy in float64 — in each format (safetensors, .npz stored
// and deflated, folders of .npy).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"

using cudoctor::test::run_cudoctor;
using nlohmann::json;

namespace {

#define NEED_DATA() \
    if (std::string(CUDOCTOR_COMPARE_DATA).empty()) GTEST_SKIP() << "no numpy/torch: compare test data not built"

std::string dump_path(const std::string& name) { return std::string(CUDOCTOR_COMPARE_DATA) + "/" + name; }

json expected() {
    std::ifstream in(dump_path("expected.json"));
    return json::parse(in);
}

double num(const json& v) {
    if (v.is_string()) return v == "inf" ? INFINITY : v == "-inf" ? -INFINITY : NAN;
    return v.get<double>();
}

/// Runs compare --json on REF TEST, expects `exit_code`, returns the tensors by name.
std::map<std::string, json> compare_json(const std::string& ref, const std::string& test, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"compare", dump_path(ref), dump_path(test), "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_cudoctor(args);
    EXPECT_EQ(r.exit_code, 1) << r.describe() << "\n" << r.err;
    std::map<std::string, json> out;
    const json j = json::parse(r.out);
    for (const auto& t : j["tensors"]) out[t["name"]] = t;
    return out;
}

void check_against_numpy(const std::map<std::string, json>& got, const json& names) {
    const json want = expected()["tensors"];
    for (const auto& n : names) {
        const std::string name = n;
        SCOPED_TRACE(name);
        ASSERT_TRUE(got.count(name));
        const json& g = got.at(name);
        const json& w = want[name];
        EXPECT_EQ(g["status"], w["status"]);
        if (w.contains("compared") && !w["compared"].get<bool>()) {
            EXPECT_FALSE(g["compared"].get<bool>());
            continue;
        }
        // Maxima, counts and indices are exact; the sums agree to rounding (NumPy sums pairwise,
        // compare in blocks with compensation).
        EXPECT_EQ(num(g["max_abs"]), w["max_abs"].get<double>());
        EXPECT_EQ(num(g["max_rel"]), w["max_rel"].get<double>());
        const double rel = w["rel"].is_number() ? w["rel"].get<double>() : INFINITY;
        if (std::isfinite(rel)) EXPECT_NEAR(num(g["rel"]), rel, 1e-12 * rel + 1e-300);
        else EXPECT_EQ(num(g["rel"]), rel);
        EXPECT_NEAR(num(g["mean_abs"]), w["mean_abs"].get<double>(), 1e-12 * w["mean_abs"].get<double>() + 1e-300);
        EXPECT_EQ(g["mismatched"], w["mismatched"]);
        EXPECT_EQ(g["worst"]["index"], w["worst_index"]);
        EXPECT_EQ(num(g["worst"]["test"]), w["worst_test"].get<double>());
        EXPECT_EQ(num(g["worst"]["ref"]), w["worst_ref"].get<double>());
        EXPECT_EQ(g["worst_rel"]["index"], w["worst_rel_index"]);
        EXPECT_EQ(g["test"]["nan"], w["nan_test"]);
        EXPECT_EQ(g["ref"]["nan"], w["nan_ref"]);
        EXPECT_EQ(g["test"]["inf"], w["inf_test"]);
        EXPECT_EQ(g["ref"]["inf"], w["inf_ref"]);
        EXPECT_EQ(g["tolerance"]["rtol"], w["tolerance"]["rtol"]);
        EXPECT_EQ(g["tolerance"]["atol"], w["tolerance"]["atol"]);
        EXPECT_EQ(g["tolerance"]["rel"], w["tolerance"]["rel"]);
        EXPECT_EQ(g["test"]["dtype"], w["test_dtype"]);
        EXPECT_EQ(g["ref"]["dtype"], w["ref_dtype"]);
    }
}

}  // namespace

TEST(CompareNumpy, SafetensorsEveryDtypeMatchesNumpy) {
    NEED_DATA();
    const auto got = compare_json("dtypes_ref.safetensors", "dtypes_test.safetensors");
    const json e = expected();
    check_against_numpy(got, e["order"]);
    EXPECT_EQ(got.size(), e["order"].size());
}

TEST(CompareNumpy, NpzStoredMatchesNumpy) {
    NEED_DATA();
    check_against_numpy(compare_json("dtypes_ref.npz", "dtypes_test.npz"), expected()["numpy_names"]);
}

TEST(CompareNumpy, NpzCompressedAgainstNpyFolderMatchesNumpy) {
    NEED_DATA();
    check_against_numpy(compare_json("dtypes_ref_npy", "dtypes_test_compressed.npz"), expected()["numpy_names"]);
}

TEST(CompareNumpy, OrderIsTheDumpsUnlessSortedByName) {
    NEED_DATA();
    const auto r = run_cudoctor({"compare", dump_path("dtypes_ref.safetensors"), dump_path("dtypes_test.safetensors"), "--json"});
    const json j = json::parse(r.out);
    const json order = expected()["order"];
    ASSERT_EQ(j["tensors"].size(), order.size());
    for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(j["tensors"][i]["name"], order[i]);
    EXPECT_EQ(j["first_failure"], "f64");
    const auto sorted =
        run_cudoctor({"compare", dump_path("dtypes_ref.safetensors"), dump_path("dtypes_test.safetensors"), "--json", "--sort", "name"});
    const json s = json::parse(sorted.out);
    EXPECT_EQ(s["tensors"][0]["name"], "bf16");
    EXPECT_EQ(s["first_failure"], "bf16");
}

TEST(CompareNumpy, ThreadCountDoesNotChangeAnyNumber) {
    NEED_DATA();
    const auto one =
        run_cudoctor({"compare", dump_path("dtypes_ref.safetensors"), dump_path("dtypes_test.safetensors"), "--json", "--threads", "1"});
    const auto four =
        run_cudoctor({"compare", dump_path("dtypes_ref.safetensors"), dump_path("dtypes_test.safetensors"), "--json", "--threads", "4"});
    EXPECT_EQ(one.out, four.out);
}

TEST(CompareNumpy, TextTableMarksTheFirstFailure) {
    NEED_DATA();
    const auto r = run_cudoctor({"compare", dump_path("dtypes_ref.safetensors"), dump_path("dtypes_test.safetensors")});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    std::size_t marks = 0;
    for (std::size_t at = 0; (at = r.out.find("<- first failure", at)) != std::string::npos; ++at) ++marks;
    EXPECT_EQ(marks, 1u);
    const auto line_start = r.out.rfind('\n', r.out.find("<- first failure")) + 1;
    EXPECT_NE(r.out.substr(line_start, 40).find(" f64 "), std::string::npos) << r.out.substr(line_start, 120);
    EXPECT_NE(r.out.find("NaN: 2046 in TEST, 2046 in REF"), std::string::npos);  // every F16 NaN pattern, widened exactly
    EXPECT_NE(r.out.find("shape [35, 6] in TEST, [6, 35] in REF"), std::string::npos);
    EXPECT_EQ(r.out.find("\033["), std::string::npos);  // no colour off a terminal
}

TEST(CompareNumpy, ANegativeToleranceIsRefusedInOneShortLine) {
    // CLI11's NonNegativeNumber printed the largest double as a 300-digit number.
    for (const char* option : {"--rtol", "--atol", "--rel"}) {
        const auto r = run_cudoctor({"compare", "ref.npz", "test.npz", option, "-1"});
        EXPECT_EQ(r.exit_code, 2) << option;
        EXPECT_NE(r.err.find("'-1' is not a number ≥ 0"), std::string::npos) << r.err;
        EXPECT_LT(r.err.size(), 200u) << r.err;
    }
    EXPECT_NE(run_cudoctor({"compare", "ref.npz", "test.npz", "--rtol", "nan"}).err.find("'nan' is not a number ≥ 0"), std::string::npos);
}
