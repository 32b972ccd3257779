# Two commands on a fresh Debian 12 machine (README):
#   make demo   install missing packages, build the two programs the demo runs (Release), run
#               pipelines/demo.yaml on generated data and print its report (tables; SVG plots of
#               the λ sweep)
#   make test   install missing packages (and chromium, which renders report.html in an e2e
#               test), build the programs and tests (Release), run the whole test suite, then
#               `make sanitize` and `make fuzz`
#   make bench  the Google Benchmarks of bench/ (Release, in the same build folder)
#   make sanitize  the unit, kernel and engine tests built with clang, ASan and UBSan
#   make fuzz      the libFuzzer targets (tests/fuzz), each for FUZZ_SECONDS
SHELL := /bin/bash
BUILD ?= build
JOBS ?= $(shell nproc)
# libspectra-dev and liblbfgspp-dev (headers) build only the two benchmarks that compare our
# Lanczos and box-constrained L-BFGS with them (bench/kernels/top_eigen_bench, box_fit_bench).
# ninja-build: CMake's generator for a new build folder, for less build overhead than recursive
# makefiles (an existing folder keeps the generator it was made with).
DEPS := cmake make ninja-build g++ pkg-config python3 ccache \
        libeigen3-dev libyaml-dev libyaml-cpp-dev libtbb-dev libfmt-dev libgtest-dev libgmock-dev \
        libbenchmark-dev libcli11-dev nlohmann-json3-dev libxxhash-dev zlib1g-dev libre2-dev \
        libspectra-dev liblbfgspp-dev \
        libgraphviz-dev libopenmpi-dev openmpi-bin
# Only `make test` needs these: a headless browser (tests/e2e/html_report_test.cpp), the JSON
# Schema validator that checks `seqflow schema` against every pipeline (tests/pipeline_schema_test.sh),
# pandas, which must read the long-format metrics table in one call (tests/e2e/report_test.cpp),
# and Slurm with munge, its authentication, for the one-node test cluster (tests/slurm/cluster.sh).
TEST_DEPS := chromium python3-yaml python3-jsonschema python3-pandas slurm-wlm munge

# `make sanitize` and `make fuzz` share one clang build (SANITIZE_BUILD): every library and test
# carries ASan, UBSan and libFuzzer's coverage hooks, so CI compiles the sources once for both.
# clang because libFuzzer is clang's; vptr is off because its one report is inside oneTBB's own
# header (tests/fuzz/README.md). llvm-14 brings llvm-symbolizer for the reports' stack traces.
# -O1 and line tables only, as the sanitizers' docs advise: file and line in every report, and a
# fifth less compile time than -O2 -g (16-24% a file measured) where CI builds everything twice.
SANITIZE_BUILD ?= build-sanitize
SANITIZE_DEPS := clang-14 libclang-rt-14-dev llvm-14
SANITIZE_FLAGS := -fsanitize=address,undefined,fuzzer-no-link -fno-sanitize=vptr -fno-omit-frame-pointer
# A UBSan report fails the test that makes it; leaks are reported at exit (LeakSanitizer).
SANITIZE_ENV := UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
                ASAN_SYMBOLIZER_PATH=/usr/bin/llvm-symbolizer-14
# The sanitizer build leaves out the tests only the Release build runs (SEQFLOW_RELEASE_TESTS: real
# data and the papers' experiments, other programs' processes, ISA variants, speed guards, the
# method families written in Eigen expressions: homotopy, moments, classifier, multiview, optim), and
# `make sanitize` these tests that sit beside unit tests: the real-data readers and rewrite rules,
# the Ji experiment, and the test running every test pipeline twice (5 minutes under ASan).
SANITIZE_EXCLUDE := ^(RealData|RewriteRealData|JiExperiment|PipelineTests)\.
# ccache (Debian's, installed with the other build packages): a developer's rebuilds, and a clone
# in another folder of the same machine (a CI run after the session's own check) compiles nothing
# the cache holds. Paths are hashed relative to the clone (BASEDIR), and the folder is left out of
# the hash of objects with debug info (NOHASHDIR: a report's file and line may then name the folder
# of the clone that filled the cache).
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
# The test executables compile against a precompiled header (tests/testutil/CMakeLists.txt), which
# ccache caches only when told that its definitions and timestamps may be trusted.
export CCACHE_SLOPPINESS := pch_defines,time_macros,include_file_mtime,include_file_ctime
# Expanded when a recipe runs, after `deps` has installed ccache on a fresh machine.
CCACHE = $(shell command -v ccache 2>/dev/null)
LAUNCHER = $(if $(CCACHE),-DCMAKE_CXX_COMPILER_LAUNCHER=$(CCACHE))
# $(call generator,BUILD_FOLDER)
generator = $(if $(wildcard $(1)/CMakeCache.txt),,-G Ninja)
FUZZ_SECONDS ?= 30
FUZZ_TARGETS := pipeline_fuzz corpus_reader_fuzz artifact_fuzz rewrite_rules_fuzz

.PHONY: demo test deps test-deps configure build bench sanitize-deps sanitize-build sanitize fuzz

demo: configure
	cmake --build $(BUILD) -j $(JOBS) --target seqflow seqflow-datagen
	$(BUILD)/seqflow-datagen --out $(BUILD)/demo-data --seed 1
	$(BUILD)/seqflow run pipelines/demo.yaml --set demo_data=$(abspath $(BUILD))/demo-data --cache $(BUILD)/cache
	$(BUILD)/seqflow report out/demo/latest --plots

test: build test-deps
	cd $(BUILD) && ctest --output-on-failure -j 2 --timeout 900
	$(MAKE) sanitize
	$(MAKE) fuzz

sanitize-deps: deps
	$(call install_missing,$(SANITIZE_DEPS))

sanitize-build: sanitize-deps
	cmake -S . -B $(SANITIZE_BUILD) $(call generator,$(SANITIZE_BUILD)) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 $(LAUNCHER) \
	  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
	  -DSEQFLOW_RELEASE_TESTS=OFF -DSEQFLOW_FUZZ=ON "-DCMAKE_CXX_FLAGS=$(SANITIZE_FLAGS)"
	cmake --build $(SANITIZE_BUILD) -j $(JOBS)

sanitize: sanitize-build test-deps
	cd $(SANITIZE_BUILD) && $(SANITIZE_ENV) ctest --output-on-failure -j 2 --timeout 900 -E '$(SANITIZE_EXCLUDE)'

# Seeds from pipelines/, datasets/samples/ and the cache entries of a real run, then every target
# for FUZZ_SECONDS, two at a time; a crash fails the target and leaves its input in fuzz-out/.
fuzz: sanitize-build
	$(SANITIZE_ENV) bash tests/fuzz/run.sh $(SANITIZE_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

configure: deps
	cmake -S . -B $(BUILD) $(call generator,$(BUILD)) -DCMAKE_BUILD_TYPE=Release -DSEQFLOW_BUILD_BENCH=OFF $(LAUNCHER)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The Google Benchmarks and peer comparisons of bench/ (bench/RESULTS.md); no test runs them.
bench: deps
	cmake -S . -B $(BUILD) $(call generator,$(BUILD)) -DCMAKE_BUILD_TYPE=Release -DSEQFLOW_BUILD_BENCH=ON $(LAUNCHER)
	cmake --build $(BUILD) -j $(JOBS)

# apt-get only when something is missing (and sudo only when not root).
# $(call install_missing,PACKAGES)
define install_missing
	@missing=""; \
	for p in $(1); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing; \
	fi
endef

deps:
	$(call install_missing,$(DEPS))

test-deps: deps
	$(call install_missing,$(TEST_DEPS))
