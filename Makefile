# Front door: `make demo`, `make test`, `make bench`, `make install`, `make fuzz`.
# Installs missing Debian packages with apt-get when run as root, and names them otherwise.
.PHONY: all build test test-release test-asan test-fuzz test-slurm fuzz demo bench deps \
        deps-demo install format clean

# What the demo needs (the schedlab binary and gnuplot for its plots), then the rest:
# tests, benchmarks, the host programs, the man page, the headless browser of the
# report test, trace-cmd and KernelShark's library and sched plugin (which open the trace.dat
# schedlab writes), clang and its sanitizer and libFuzzer runtimes for the sanitizer build,
# xz (the compressed tbench recording of the replay tests).
DEMO_PACKAGES := cmake ninja-build g++ libfmt-dev libcli11-dev nlohmann-json3-dev \
                 pkg-config libtracefs-dev libtracecmd-dev libtraceevent-dev gnuplot-nox
DEB_PACKAGES := $(DEMO_PACKAGES) libgtest-dev libgmock-dev libbenchmark-dev rt-app x264 \
                dbench rt-tests help2man chromium trace-cmd libkshark-dev libjson-c-dev \
                kernelshark clang-14 libclang-rt-14-dev xz-utils
# Only for `make test-slurm` (a single-node Slurm on this machine).
SLURM_PACKAGES := slurm-wlm munge
BUILD := build
PREFIX ?= /usr/local
ASAN_BUILD := build-asan
CLANG_CC ?= clang-14
CLANG_CXX ?= clang++-14
# Each fuzz harness runs this long in `make test` (and `make fuzz`, which may be given more).
FUZZ_SECONDS ?= 60
JOBS ?= $(shell nproc)

all: build

deps: PACKAGES = $(DEB_PACKAGES)
deps-demo: PACKAGES = $(DEMO_PACKAGES)
deps deps-demo:
	@missing=$$(for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "Installing Debian packages:" $$missing; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else \
	    echo "Missing Debian packages:" $$missing; \
	    echo "Install them as root: apt-get install" $$missing; exit 1; \
	  fi; \
	fi

build: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

# Tests that run programs on the real kernel (tracefs recordings, timing measurements)
# run one at a time after the others, so that neither a second recorder nor the other
# tests' load disturbs what they measure.
HOST_TESTS := ^(HostRecord|HostBench|Validate|Calibrate|PrivateInstance|GlobalFallback|HostThreads|RecordCommand)\.
CTEST = ctest --output-on-failure
# Counts SCHED_DEADLINE jobs and timer ticks of a real 2 s run: under clang's sanitizers
# and coverage the runner's own threads are too slow for them (88 of 200 jobs on a quiet
# machine), so this one runs in the release build only.
TIMED_HOST_TESTS := ^HostRecord\.RecordAndHostRunMeasureTheRealKernelAndRestoreTracing$$
test-release: build
	$(CTEST) --test-dir $(BUILD) -j $(JOBS) -E '$(HOST_TESTS)'
	$(CTEST) --test-dir $(BUILD) -R '$(HOST_TESTS)'

# The tests again, built by clang with AddressSanitizer and UndefinedBehaviorSanitizer: the
# project builds with g++ (above) and clang alike. The same build has the libFuzzer
# harnesses of fuzz/.
test-asan: deps
	CC=$(CLANG_CC) CXX=$(CLANG_CXX) cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_C_FLAGS=-O1 -DCMAKE_CXX_FLAGS=-O1 -DSCHEDLAB_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	  $(CTEST) --test-dir $(ASAN_BUILD) -j $(JOBS) -E '$(HOST_TESTS)'
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp $(CTEST) --test-dir $(ASAN_BUILD) -R '$(HOST_TESTS)' \
	  -E '$(TIMED_HOST_TESTS)'

# Each libFuzzer harness for FUZZ_SECONDS on its seed corpus; fails on any crash,
# sanitizer report, timeout or out-of-memory (fuzz/run.sh).
test-fuzz: test-asan
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh $(ASAN_BUILD)

test: test-release test-asan test-fuzz

# Fuzzing alone (build, then run), e.g. `make fuzz FUZZ_SECONDS=600`.
fuzz: deps
	CC=$(CLANG_CC) CXX=$(CLANG_CXX) cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_C_FLAGS=-O1 -DCMAKE_CXX_FLAGS=-O1 -DSCHEDLAB_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh $(ASAN_BUILD)

# A sharded sweep as a job array on a single-node Slurm started for the test (Debian's
# slurm-wlm and munge; skipped with a message where they are missing or cannot start).
test-slurm: build
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(SLURM_PACKAGES)"
	tests/slurm/slurm_test.sh $(BUILD)/schedlab

# The headline experiment: E1 (x264 thread scaling, BFS against CFS 2.6.31) in simulation.
# Builds the schedlab binary only.
demo: deps-demo
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS) --target schedlab
	./$(BUILD)/schedlab reproduce E1 --quick --out results-demo --scenarios scenarios

# The binary, its man page and bash completion, and the scenarios, machines and
# experiments (PREFIX/share/schedlab, where the installed binary finds them).
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# Whole `schedlab run --json` processes: CPU seconds, switches per CPU second, ns per event
# and peak memory per policy, against the limit loop (bench/bench.sh; REPEATS runs each).
REPEATS ?= 5
bench: build
	bench/bench.sh $(BUILD) $(REPEATS)

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
