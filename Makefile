# Two commands on a fresh Debian 12 machine (README):
#   make demo   install missing packages, build the two programs the demo runs (Release), run
#               pipelines/demo.yaml on generated data and print its report (tables; SVG plots of
#               the λ sweep)
#   make test   install missing packages (and chromium, which renders report.html in an e2e
#               test), build everything (Release), run the whole test suite
SHELL := /bin/bash
BUILD ?= build
JOBS ?= $(shell nproc)
# libspectra-dev and liblbfgspp-dev (headers) build only the two benchmarks that compare our
# Lanczos and box-constrained L-BFGS with them (bench/kernels/top_eigen_bench, box_fit_bench).
DEPS := cmake make g++ pkg-config python3 \
        libeigen3-dev libyaml-cpp-dev libtbb-dev libfmt-dev libgtest-dev libgmock-dev \
        libbenchmark-dev libcli11-dev nlohmann-json3-dev libxxhash-dev zlib1g-dev \
        libspectra-dev liblbfgspp-dev \
        libgraphviz-dev libopenmpi-dev openmpi-bin
# Only `make test` needs these: a headless browser (tests/e2e/html_report_test.cpp), the JSON
# Schema validator that checks `seqflow schema` against every pipeline (tests/pipeline_schema_test.sh),
# and Slurm with munge, its authentication, for the one-node test cluster (tests/slurm/cluster.sh).
TEST_DEPS := chromium python3-yaml python3-jsonschema slurm-wlm munge

.PHONY: demo test deps test-deps configure build

demo: configure
	cmake --build $(BUILD) -j $(JOBS) --target seqflow seqflow-datagen
	$(BUILD)/seqflow-datagen --out $(BUILD)/demo-data --seed 1
	$(BUILD)/seqflow run pipelines/demo.yaml --set demo_data=$(abspath $(BUILD))/demo-data \
	  --cache $(BUILD)/cache --out $(BUILD)/demo-out
	$(BUILD)/seqflow report $(BUILD)/demo-out --plots

test: build test-deps
	cd $(BUILD) && ctest --output-on-failure -j 2 --timeout 900

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: configure
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
