# Thin front over CMake: deps / build / run / test. Everything real lives in CMakeLists.txt.
BUILD ?= build
SAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)

.PHONY: all deps deps-test build build-bin run test test-asan lint lint-format fuzz fuzz-merge bench package install clean

all: build

# deps: what building and running need; deps-test adds what the test suite needs (GoogleTest,
# torch, OpenCV, Slurm, Ansible, zsh, fish, Lmod, direnv …). `scripts/deps.sh list` names them.
deps:
	@scripts/deps.sh build

deps-test:
	@scripts/deps.sh test

# The binary, its man page and completions, and the test suite.
build: deps-test
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDOCTOR_TESTS=ON >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The binary, its man page and completions, without the test suite (a fresh build folder is
# configured without it; one `make build` made keeps it): no test-only package is installed.
build-bin: deps
	@[ -f $(BUILD)/CMakeCache.txt ] || cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDOCTOR_TESTS=OFF >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

run: build-bin
	@$(BUILD)/cudoctor check

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer. Line tables (-g1)
# are all the sanitizers need for file:line in their reports, at a fraction of full -g's cost.
test-asan: deps-test
	@cmake -S . -B $(SAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCUDOCTOR_SANITIZE=ON \
	  -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_C_FLAGS_DEBUG=-g1 >/dev/null
	@cmake --build $(SAN_BUILD) -j $(JOBS)
	@cd $(SAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS)

# clang-format (every file we wrote is formatted) and clang-tidy (over the build's unity units,
# a few CPU-minutes); configurations in .clang-format and .clang-tidy. lint-format is the fast half.
lint: build
	@scripts/deps.sh lint
	@scripts/lint.sh all $(BUILD)

lint-format:
	@scripts/deps.sh lint
	@scripts/lint.sh format

# Real libFuzzer binaries (clang 14): build/fuzz/fuzz_<parser>; FUZZ_SECONDS each.
FUZZ_SECONDS ?= 30
fuzz: deps
	@scripts/deps.sh fuzz
	@CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DCUDOCTOR_FUZZ=ON -DCUDOCTOR_TESTS=OFF >/dev/null
	@cmake --build build-fuzz -j $(JOBS)
	@for f in build-fuzz/fuzz/fuzz_*; do p=$${f##*/fuzz_}; echo "== $$p"; \
	  mkdir -p build-fuzz/new-corpus/$$p; \
	  $$f -max_total_time=$(FUZZ_SECONDS) build-fuzz/new-corpus/$$p fuzz/corpus/$$p >/dev/null 2>&1 || exit 1; done

# Adds to fuzz/corpus/<parser>/ the inputs `make fuzz` found that reach code of ours the corpus
# does not: a build whose coverage counts only cudoctor's functions (fuzz/coverage_allowlist.txt)
# and new edges only (-use_counters=0), so a few dozen inputs a parser, not hundreds that only
# change hit counts or walk the JSON library. Commit what it adds; the suite replays it.
fuzz-merge:
	@CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz-merge -G Ninja -DCUDOCTOR_FUZZ=ON -DCUDOCTOR_TESTS=OFF \
	  -DCUDOCTOR_FUZZ_OWN_COVERAGE=ON >/dev/null
	@cmake --build build-fuzz-merge -j $(JOBS)
	@for f in build-fuzz-merge/fuzz/fuzz_*; do p=$${f##*/fuzz_}; [ -d build-fuzz/new-corpus/$$p ] || continue; \
	  n=$$(ls fuzz/corpus/$$p | wc -l); \
	  $$f -merge=1 -use_counters=0 fuzz/corpus/$$p build-fuzz/new-corpus/$$p >/dev/null 2>&1 || exit 1; \
	  echo "$$p: $$n -> $$(ls fuzz/corpus/$$p | wc -l) inputs"; done

# build/cudoctor_<version>_<arch>.deb from what `build` made (binary, man page, completions).
package: build
	@cd $(BUILD) && cpack -G DEB

# A normal FHS install (PREFIX=/usr/local by default; DESTDIR for staging).
PREFIX ?= /usr/local
install: build-bin
	@cmake --install $(BUILD) --prefix $(PREFIX)

# Every side-by-side measurement (check, fleet, explain, compare, verify-installer, arch, kernels)
# against its peer in the same loop; ONLY="check fleet" for some. Results in $(BUILD)/bench/.
bench: build
	@scripts/deps.sh bench
	@bench/run_all.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(SAN_BUILD) build-fuzz build-fuzz-merge
