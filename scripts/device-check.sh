#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, after
# scripts/device-build.sh filled .device/ here: every GPU test binary, then
# the speed measurements, then a few command-line runs. Logs go to $OUT
# (or ./out); a short summary is printed last.
#
#   scripts/device-check.sh            # tests + benchmarks
#   scripts/device-check.sh tests      # tests only
#   scripts/device-check.sh perf       # benchmarks only
#   scripts/device-check.sh peers      # the hand-written reference kernels (bench/peers)
#   scripts/device-check.sh cli        # dpgpu solve with and without maintain
#   scripts/device-check.sh sass       # SASS of the cached strip kernels (after a run)
#   scripts/device-check.sh knapsack   # the knapsacks' kernels and bench (#13)
#   scripts/device-check.sh fixed      # a small LCS's fixed costs, a process each (#13 item 3)
#   DEVICE_DIR=dir scripts/device-check.sh   # binaries from dir instead of .device
#   DEVICE_TEST_TIMEOUT=550s scripts/device-check.sh tests   # each test binary's limit (default 300s;
#     the engine's GPU tests need more on a fresh machine, whose CUBIN cache is cold: build only it, with
#     DEVICE_PKGS=engine scripts/device-build.sh, and give it one call of its own)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
what=${1:-all}
DEV=${DEVICE_DIR:-.device}
export DPGPU_CACHE_DIR=${DPGPU_CACHE_DIR:-/tmp/dpgpu-cubin}
# On the device a GPU test that finds no GPU fails instead of skipping.
export DPGPU_REQUIRE_GPU=${DPGPU_REQUIRE_GPU:-1}
summary=()
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv >"$OUT/gpu.txt" 2>&1 || true

if [ "$what" = all ] || [ "$what" = tests ]; then
	for t in "$DEV"/*.test; do
		name=$(basename "$t" .test)
		start=$(date +%s)
		# A test binary runs in its package's directory (testdata is relative).
		case $name in
		cuda | gpu) dir=backend/$name ;;
		peers) dir=bench/peers ;;
		*) dir=$name ;;
		esac
		bin=$(cd "$(dirname "$t")" && pwd)/$(basename "$t")
		log=$(cd "$OUT" && pwd)/test-$name.log
		(cd "$dir" && "$bin" -test.v -test.timeout ${DEVICE_TEST_TIMEOUT:-300s}) >"$log" 2>&1
		rc=$?
		secs=$(( $(date +%s) - start ))
		pass=$(grep -c -- '--- PASS' "$OUT/test-$name.log")
		fail=$(grep -c -- '--- FAIL' "$OUT/test-$name.log")
		skip=$(grep -c -- '--- SKIP' "$OUT/test-$name.log")
		summary+=("test $name: rc=$rc pass=$pass fail=$fail skip=$skip (${secs}s)")
		if [ "$fail" != 0 ] || [ "$rc" != 0 ]; then
			grep -B2 -A12 -- '--- FAIL\|panic:' "$OUT/test-$name.log" | head -80
		fi
	done
fi

if [ "$what" = all ] || [ "$what" = perf ]; then
	start=$(date +%s)
	DPGPU_TRACE=1 DPGPU_PERF=1 "$DEV"/gpu.test -test.run 'TestPerf' -test.v -test.timeout 500s >"$OUT/perf.log" 2>&1
	rc=$?
	summary+=("perf: rc=$rc ($(( $(date +%s) - start ))s)")
	grep -E '^(problem|lcs|knapsack|interval|ratio|maintain wall|host:|dpgpu trace.*staging|bitpar)' "$OUT/perf.log" | tee "$OUT/perf-table.txt"
fi

if [ -x "$DEV"/peers.test ] && { [ "$what" = all ] || [ "$what" = peers ]; }; then
	start=$(date +%s)
	bin=$(cd "$DEV" && pwd)/peers.test
	(cd bench/peers && DPGPU_PEERS=1 "$bin" -test.run 'TestPeerPerf' -test.v -test.timeout 500s) >"$OUT/peers.log" 2>&1
	rc=$?
	summary+=("peers: rc=$rc ($(( $(date +%s) - start ))s)")
	grep -E '^\s*(kernel|lcs|nussinov|matrixchain)' "$OUT/peers.log" | tee "$OUT/peers-table.txt"
fi

if [ -x "$DEV"/dpgpu ] && { [ "$what" = all ] || [ "$what" = cli ]; }; then
	# dpgpu solve of LCS 32,768^2 with and without the grid kept (each
	# twice: the first run fills the CUBIN cache).
	tmp=$(mktemp -d)
	for n in a b; do
		head -c 3000000 /dev/urandom | tr -dc 'ACGT' | head -c 32768 >"$tmp/$n.txt"
		while [ "$(wc -c <"$tmp/$n.txt")" -lt 32768 ]; do
			head -c 3000000 /dev/urandom | tr -dc 'ACGT' | head -c 32768 >"$tmp/$n.txt"
		done
	done
	# The first pair fills the CUBIN cache; the medians are of the other ten.
	for m in 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1; do
		flag=""
		[ "$m" = 1 ] && flag=--maintain
		start=$(date +%s.%N)
		DPGPU_TRACE=1 "$DEV"/dpgpu solve --backend cuda -q $flag lcs "$tmp/a.txt" "$tmp/b.txt" >>"$OUT/cli.log" 2>&1
		echo "cli lcs 32768^2 maintain $m: rc=$? $(awk "BEGIN{print $(date +%s.%N) - $start}") s wall" >>"$OUT/cli.log"
	done
	grep "cli lcs\|answer\|error" "$OUT/cli.log" | tee -a "$OUT/perf-table.txt"
	for m in 0 1; do
		grep "cli lcs 32768^2 maintain $m:" "$OUT/cli.log" | tail -n +2 | awk '{print $(NF-2)}' | sort -n | awk -v m=$m '{v[NR]=$1} END {print "cli median maintain " m ": " v[int((NR+1)/2)] " s"}'
	done | tee -a "$OUT/perf-table.txt"
	rm -rf "$tmp"
fi

if [ "$what" = knapsack ]; then
	# The knapsacks (#13): the 0/1 knapsack's line kernels (kernel time,
	# CUDA events) and the bounded and unbounded ones through dpgpu bench.
	start=$(date +%s)
	bin=$(cd "$DEV" && pwd)/gpu.test
	(cd backend/gpu && DPGPU_PERF=1 DPGPU_PERF_ONLY='(light 1M|heavy 1M|light 50k) auto$' "$bin" -test.run TestPerfLineSweep -test.v -test.timeout 300s) >"$OUT/knapsack.log" 2>&1
	"$DEV"/dpgpu bench -b cuda --reps 5 knapsack-bounded knapsack-unbounded >>"$OUT/knapsack.log" 2>&1
	summary+=("knapsack: $(( $(date +%s) - start ))s")
	grep -E 'perf_test.go:[0-9]+: +(light|heavy)|knapsack-' "$OUT/knapsack.log" | tee "$OUT/knapsack-table.txt"
fi

if [ -x "$DEV"/dpgpu ] && [ "$what" = fixed ]; then
	# The fixed costs of a small run (#13 item 3): LCS 16,384^2, a process
	# each, the scalar kernel and the default (bit-parallel); the first
	# run of each fills the CUBIN cache.
	tmp=$(mktemp -d)
	"$DEV"/dpgpu gen-data lcs -n 16384 -o "$tmp/l" >/dev/null
	for flag in --no-special ""; do
		for k in 0 1 2 3 4 5; do
			DPGPU_TRACE=1 "$DEV"/dpgpu solve -b cuda $flag lcs "$tmp/l_a.fa" "$tmp/l_b.fa" 2>&1 | grep -E 'trace lcs|^time' | sed "s/^/fixed ${flag:-default} $k: /"
		done
	done | tee "$OUT/fixed.txt"
	rm -rf "$tmp"
fi

PATH=$PATH:/usr/local/cuda/bin
if [ "$what" = profile ]; then
	# One strip kernel under Nsight Compute, and its SASS.
	DPGPU_PROFILE=1 DPGPU_CUBIN_OUT="$OUT/strip.cubin" "$DEV"/gpu.test -test.run TestPerfProfile -test.v >"$OUT/profile-run.log" 2>&1
	cuobjdump -res-usage -sass "$OUT/strip.cubin" >"$OUT/strip-sass.txt" 2>&1
	if command -v ncu >/dev/null; then
		DPGPU_PROFILE=1 timeout 240 ncu -k dp_strip -s 1 -c 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
			--section Occupancy --section LaunchStats --section InstructionStats \
			"$DEV"/gpu.test -test.run TestPerfProfile >"$OUT/ncu.txt" 2>&1
		DPGPU_PROFILE=1 timeout 240 ncu -k dp_strip -s 1 -c 1 --section SourceCounters --page source --print-source sass --csv \
			"$DEV"/gpu.test -test.run TestPerfProfile >"$OUT/ncu-source.csv" 2>&1
	else
		echo "no ncu" >"$OUT/ncu.txt"
	fi
	rm -f "$OUT/strip.cubin" "$OUT/strip.cubin.cu"
	summary+=("profile: see ncu.txt, strip-sass.txt")
fi
if [ "$what" = sass ] && command -v cuobjdump >/dev/null; then
	for f in $(grep -l dp_strip "$DPGPU_CACHE_DIR"/*.cubin 2>/dev/null | head -20); do
		echo "==== $f" >>"$OUT/sass.txt"
		cuobjdump -res-usage -sass "$f" >>"$OUT/sass.txt" 2>&1
	done
fi

echo "==== summary ===="
printf '%s\n' "${summary[@]}"
