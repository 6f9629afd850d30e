#!/usr/bin/env bash
# trust-replay.sh — replay the bad-input classes of issue #16 against a
# fresh build of dpgpu, one small case per class, each in an empty
# directory, and fail on any panic or Go trace on stderr, any exit status
# other than the expected one, any raw control character echoed, or any
# file left behind (a hidden partial grid above all).
#
#   scripts/trust-replay.sh        # or: make trust
#
# Exit status: 0 when every case passed, 1 otherwise (the failures are
# listed). Needs bash, go, timeout and a POSIX userland; no GPU.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/dpgpu-trust.XXXXXX")
trap 'rm -rf "$work"' EXIT
DP=$work/bin/dpgpu
echo "building dpgpu"
(cd "$root" && CGO_ENABLED=0 go build -o "$DP" ./cmd/dpgpu) || { echo "trust: build failed"; exit 1; }

n=0 failed=0 failures=()
dir=
# begin NAME: a new empty directory for the next case, made current.
begin() {
	n=$((n + 1))
	name=$1
	dir=$work/case$n
	mkdir -p "$dir" && cd "$dir" || exit 1
}

# snap: remember what the case set up, before dpgpu runs.
snap() {
	ls -A >"$work/before"
}

fail() {
	failed=$((failed + 1))
	failures+=("$name: $1")
	echo "FAIL  $name: $1"
}

# check CODES [ALLOWED FILES...]: after a case ran (status in $rc, stderr in
# $work/err), the status must be one of CODES (e.g. "2" or "0|2"), stderr
# must hold no Go trace and no raw escape, and the directory only what was
# there before plus ALLOWED.
check() {
	local codes=$1
	shift
	if ! [[ "|$codes|" == *"|$rc|"* ]]; then
		fail "exit $rc, want $codes: $(head -c 300 "$work/err" | tr '\n' ' ')"
	elif grep -qE 'goroutine [0-9]+ \[|^panic:|internal error' "$work/err"; then
		fail "a crash on stderr: $(head -c 300 "$work/err" | tr '\n' ' ')"
	elif grep -q $'\x1b' "$work/err"; then
		fail "a raw escape character on stderr"
	else
		local f
		for f in $(ls -A); do
			grep -qxF -- "$f" "$work/before" && continue
			[[ " $* " == *" $f "* ]] && continue
			fail "left $f behind"
			return
		done
		echo "ok    $name (exit $rc)"
	fi
}

# want TEXT: stderr (or stdout) of the last case must contain TEXT.
want() {
	grep -qF -- "$1" "$work/err" "$work/out" || fail "output lacks '$1'"
}

# dp ARGS...: run dpgpu in the case directory, with a time limit.
dp() {
	snap
	timeout 120 "$DP" "$@" >"$work/out" 2>"$work/err"
	rc=$?
}

# refused NAME SOURCE [TEXT]: a case whose problem file f.dp (SOURCE, a
# printf format) `dpgpu solve -b cpu` must refuse with exit 2, saying TEXT.
refused() {
	begin "$1"
	# shellcheck disable=SC2059 # SOURCE is written with printf's escapes
	printf "$2" >f.dp
	dp solve -b cpu f.dp; check 2
	[ $# -lt 3 ] || want "$3"
}

# --- arithmetic: no silent wrong value (docs/language.md 6.1) ---
refused "int overflow" \
	'problem ovf\n4 x 1\ncell[i][j] = 1 when i == 0\n           | cell[i-1][j] * 100000 otherwise\n' "f.dp:4:"
refused "long overflow" \
	'problem ovf\ncell: long\n70 x 1\ncell[i][j] = 1 when i == 0\n           | cell[i-1][j] * 2 otherwise\n' "overflow"
refused "int intermediate chain" \
	'problem chain\n2 x 2\ncell[i][j] = (i + 1) * 2000000000 * 2000000000 / 2000000000 / 2000000000\n' "overflow"
refused "sentinel collision" \
	'problem sent\n3 x 1\ncell[i][j] = inf when i == 0\n           | 2147483646 + i otherwise\n' "overflow"
refused "NaN in a double cell" \
	'problem nan\ncell: double\n3 x 3\ncell[i][j] = 0.0 when i == 0\n           | cell[i-1][j] / cell[i-1][j] otherwise\n' "NaN"
refused "sqrt of a negative" \
	'problem nan\ncell: double\n2 x 2\ncell[i][j] = sqrt(0.0 - 1.0 - i)\n'
refused "division by zero" \
	'problem div\n3 x 3\ncell[i][j] = 1 when i == 0 || j == 0\n           | cell[i-1][j] / (i - j) otherwise\n' "division by zero"
refused "read outside the grid" \
	'problem oob\n3 x 3\ncell[i][j] = 1 when i == 0\n           | cell[i-1][j+1] otherwise\n' "outside"

# --- hostile inputs ---
begin "/dev/zero as the problem file"
dp check /dev/zero; check 2

begin "/dev/zero as an input"
dp solve -b cpu lcs --input A=@/dev/zero; check 2

begin "a directory as the problem file"
mkdir d.dp
dp check d.dp; check 2; want "directory"

begin "a 1M-term expression"
{ printf 'problem long\n2 x 2\ncell[i][j] = 1'; for _ in $(seq 1000); do printf '%.0s+1' $(seq 1000); done; printf '\n'; } >f.dp
dp check f.dp; check "0|2"

begin "control characters in a file name"
dp check "$(printf 'evil\033[2J.dp')"; check 2

begin "control characters in the source"
printf 'problem p\n3 x 3\ncell[i][j] = \033[2J nope\n' >f.dp
dp check f.dp; check 2; want '\x1b'

# --- flags ---
begin "--threads -1"
dp solve --threads -1 knapsack; check 2

begin "--backend foo"
dp solve --backend foo knapsack; check 2

begin "unknown command"
dp frobnicate; check 2

begin "--version"
dp --version; check 0; want "dpgpu version"

begin "--input NAME=1,2,3"
dp solve -b cpu knapsack --input wt=2,3,4,5,9 --input val=3,4,5,8,10; check 0; want "answer     26"

begin "--grid in a missing directory"
dp solve -b cpu --grid no/such/g.npy knapsack; check 2; want "does not exist"

begin "--grid in a read-only directory"
mkdir ro && chmod 555 ro
dp solve -b cpu --grid ro/g.npy knapsack
if [ "$(id -u)" = 0 ]; then rc=2; rm -f ro/g.npy; fi # root writes anywhere
check 2
chmod 755 ro

begin "--grid with another extension"
dp solve -b cpu --grid g.png knapsack; check 2

begin "traceback refused"
printf 'problem s\n3 x 3\ncell[i][j] = i + j\nanswer: sum(i in 0..ROWS-1: sum(j in 0..COLS-1: cell[i][j]))\n' >f.dp
dp solve -b cpu -T f.dp; check 2

# --- output errors ---
begin "stdout is /dev/full"
snap
timeout 60 "$DP" solve -b cpu knapsack >/dev/full 2>"$work/err"; rc=$?
echo >"$work/out"
check 1; want "no space"

begin "JSON to /dev/full"
snap
timeout 60 "$DP" check --json knapsack >/dev/full 2>"$work/err"; rc=$?
check 1

# --- gen-data flags ---
for bad in "lcs --ratio NaN" "lcs --planted -1" "lcs --len -5" "lcs --len 99999999999" "lcs --ext .png" \
	"knapsack --items 0" "knapsack --capacity 0" "knapsack --capacity -4" "manhattan --size 0" \
	"manhattan --size 1000000000" "manhattan -o no/such/m.txt" "frob"; do
	begin "gen-data $bad"
	# shellcheck disable=SC2086
	dp gen-data $bad; check 2
done

# --- interrupts: exit 130, no file left ---
# A run long enough to be interrupted: a 300000 x 300000 wavefront (9e10 cells:
# tens of seconds even as compiled code; 40000 x 40000 finished within the second).
big='problem big\n300000 x 300000\ncell[i][j] = 0 when i == 0 || j == 0\n           | max(cell[i-1][j], cell[i][j-1]) + 1 otherwise\n'
for sig in INT TERM; do
	begin "SIG$sig during a run"
	printf "$big" >f.dp
	snap
	"$DP" solve -b cpu -q f.dp >"$work/out" 2>"$work/err" &
	pid=$!
	sleep 1
	start=$(date +%s%N)
	kill -s "$sig" "$pid"
	wait "$pid"; rc=$?
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	check 130
	echo "      stopped $ms ms after SIG$sig"
	[ "$ms" -le 500 ] || fail "took $ms ms to stop after SIG$sig"
done

begin "SIGTERM during a run with --grid"
printf 'problem mid\n6000 x 6000\ncell[i][j] = 0 when i == 0 || j == 0\n           | max(cell[i-1][j], cell[i][j-1]) + 1 otherwise\n' >f.dp
snap
"$DP" solve -b cpu -q --grid g.npy f.dp >"$work/out" 2>"$work/err" &
pid=$!
sleep 0.3
kill -s TERM "$pid"
wait "$pid"; rc=$?
if [ "$rc" = 0 ]; then
	check 0 g.npy # finished before the signal: the grid is complete
else
	check 130
fi

begin "a partial grid left by SIGKILL is removed by the next run"
printf 'x' >".g.npy.dpgpu-partial-99999999-1"
dp solve -b cpu -q --grid g.npy knapsack; check 0 g.npy

echo
if [ "$failed" -gt 0 ]; then
	echo "trust: $failed of $n cases failed:"
	printf '  %s\n' "${failures[@]}"
	exit 1
fi
echo "trust: all $n cases passed"
