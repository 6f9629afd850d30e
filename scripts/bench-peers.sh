#!/usr/bin/env bash
# bench-peers.sh: dpgpu's CPU backend against plain single-threaded C programs
# (bench/cpu/*.c) on the same input files, whole process against whole process
# (issue #18, item 4). Builds the peers and dpgpu into a temporary directory,
# writes the instances, runs every pair RUNS times (interleaved, so that a
# slow spell of the machine hits both sides), checks that the answers agree
# and prints a table of median wall times and their ratio. Where the commands
# exist it adds parasail_aligner (nw_striped_32, as LCS) and edlib-aligner
# (unit edit distance) as further peers; they are never required.
#
#   scripts/bench-peers.sh            # full sizes (several minutes)
#   scripts/bench-peers.sh -q         # small sizes: under a minute
#   scripts/bench-peers.sh -n 5       # 5 runs per program
#
# Environment: CC (default gcc), GO (default go), DPGPU_DATA (the data
# directory with knapsack/ and tsplib/; default ../shared/data beside the
# repository). Exit status: 0 when every answer agrees, 1 when a program
# fails or two answers differ, 2 for bad usage, 130 when interrupted.
set -euo pipefail

usage() {
	cat <<'EOF'
usage: scripts/bench-peers.sh [-q] [-n RUNS]
  -q        quick: small instances (under a minute on 2 cores)
  -n RUNS   runs of each program per instance (default 3; the median is shown)
EOF
}

runs=3
quick=0
while getopts ":qn:h" opt; do
	case $opt in
	q) quick=1 ;;
	n) runs=$OPTARG ;;
	h) usage; exit 0 ;;
	:) echo "bench-peers: -$OPTARG needs a value" >&2; usage >&2; exit 2 ;;
	*) echo "bench-peers: unknown option -$OPTARG" >&2; usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -ne 0 ]; then
	echo "bench-peers: unexpected argument $1" >&2
	usage >&2
	exit 2
fi
if ! [[ $runs =~ ^[0-9]+$ ]] || [ "$runs" -lt 1 ] || [ "$runs" -gt 1000 ]; then
	echo "bench-peers: -n $runs: want a number of runs in 1..1000" >&2
	exit 2
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
data=${DPGPU_DATA:-$root/../shared/data}
cc=${CC:-gcc}
gocmd=${GO:-go}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-peers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'echo "bench-peers: interrupted" >&2; exit 130' INT TERM
bin=$tmp/bin
inst=$tmp/inst
mkdir -p "$bin" "$inst" "$tmp/out"

say() { echo "bench-peers: $*" >&2; }

# --- build -----------------------------------------------------------------
say "building the C peers ($cc -O3 -march=native) and dpgpu"
for p in knapsack01 lcs editdistance manhattan heldkarp matrixchain; do
	if ! "$cc" -O3 -march=native -o "$bin/$p" "$root/bench/cpu/$p.c" -lm; then
		say "building bench/cpu/$p.c failed"
		exit 1
	fi
done
if ! (cd "$root" && CGO_ENABLED=0 "$gocmd" build -o "$bin/dpgpu" ./cmd/dpgpu); then
	say "building dpgpu failed"
	exit 1
fi
dpgpu=$bin/dpgpu

# The scalar path of LCS and edit distance is what the C loops compare with;
# once dpgpu has a bit-parallel special case it also has --no-special.
special=()
if "$dpgpu" solve --help 2>&1 | grep -q -- '--no-special'; then
	special=(--no-special)
fi

# --- instances ---------------------------------------------------------------
if [ $quick = 1 ]; then
	seqlen=8000 city=2000 knap=knapPI_1_5000_1000_1 tsp=gr21 chain=300
else
	seqlen=20000 city=10000 knap=knapPI_1_10000_1000_1 tsp=fri26 chain=1000
fi
say "writing the instances"
(cd "$inst" && "$dpgpu" gen-data lcs --len "$seqlen" -o dna >/dev/null)
(cd "$inst" && "$dpgpu" gen-data manhattan --size "$city" -o "city_$city.txt" >/dev/null)
(cd "$inst" && "$dpgpu" gen-data ints --len "$((chain + 1))" --min 5 --max 100 -o "chain_$chain.txt" >/dev/null)

# The load average before and after: other work on the machine stretches
# wall times (the cpu columns much less), so the table says how quiet it was.
loadavg() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown; }
load_before=$(loadavg)

# --- measuring ---------------------------------------------------------------
failed=0
rows=()

# timed NAME CMD...: runs CMD once with stdout to $tmp/out/NAME.out, appends
# "wall cpu" seconds (cpu = user + system, of the process and its children)
# to $tmp/out/NAME.times. A failing command is reported and returns 1.
timed() {
	local name=$1
	shift
	local TIMEFORMAT='%3R %3U %3S' t
	if ! { time "$@" >"$tmp/out/$name.out" 2>"$tmp/out/$name.err"; } 2>"$tmp/out/$name.t"; then
		say "$name failed: $*"
		sed 's/^/    /' "$tmp/out/$name.err" | tail -n 5 >&2
		return 1
	fi
	t=$(tail -n 1 "$tmp/out/$name.t")
	awk '{ printf "%s %.3f\n", $1, $2 + $3 }' <<<"$t" >>"$tmp/out/$name.times"
}

# median COLUMN FILE: the median of a column of numbers.
median() {
	if [ ! -s "$2" ]; then
		echo -
		return
	fi
	sort -g -k"$1,$1" "$2" | awk -v c="$1" '{ v[NR] = $c } END {
		if (NR % 2) printf "%.3f", v[(NR + 1) / 2]; else printf "%.3f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# answer NAME KIND: the answer a run printed. dpgpu: its "answer" line;
# peer: the first line; parasail: the score column of its CSV; edlib: "#0: N".
answer() {
	case $2 in
	dpgpu) awk '$1 == "answer" { print $2; exit }' "$tmp/out/$1.out" ;;
	peer) head -n 1 "$tmp/out/$1.out" ;;
	parasail) awk -F, 'NR == 1 { print $5 }' "$tmp/out/parasail.csv" ;;
	edlib) awk '$1 == "#0:" { print $2; exit }' "$tmp/out/$1.out" ;;
	esac
}

# pair PROBLEM SIZE -- DPGPU_ARGS -- PEER_KIND PEER_CMD... [-- PEER_KIND PEER_CMD...]:
# runs dpgpu and each peer RUNS times, interleaved, and adds one table row
# per peer. Every run's answer must equal the first dpgpu answer.
pair() {
	local problem=$1 size=$2
	shift 3
	local dargs=()
	while [ "$1" != -- ]; do dargs+=("$1"); shift; done
	shift
	local -a kinds=() cmds=()
	local cur=""
	while [ $# -gt 0 ]; do
		if [ "$1" = -- ]; then
			cmds+=("$cur"); cur=""; shift; continue
		fi
		if [ -z "$cur" ]; then kinds+=("$1"); cur="$2"; shift 2; continue; fi
		cur="$cur"$'\x1f'"$1"
		shift
	done
	cmds+=("$cur")
	rm -f "$tmp"/out/*
	say "$problem $size: $runs runs each"
	local want="" got r k ok=1
	for ((r = 1; r <= runs; r++)); do
		if ! timed dpgpu "$dpgpu" solve -b cpu -t 1 -q "${dargs[@]}"; then ok=0; break; fi
		got=$(answer dpgpu dpgpu)
		[ -n "$want" ] || want=$got
		if [ -z "$got" ] || [ "$got" != "$want" ]; then
			say "$problem: dpgpu answered '$got', earlier '$want'"
			ok=0
		fi
		for k in "${!kinds[@]}"; do
			local -a cmd
			IFS=$'\x1f' read -r -a cmd <<<"${cmds[$k]}"
			if ! timed "peer$k" "${cmd[@]}"; then ok=0; continue; fi
			got=$(answer "peer$k" "${kinds[$k]}")
			if [ "$got" != "$want" ]; then
				say "$problem: ${kinds[$k]} (${cmd[0]##*/}) answered '$got', dpgpu '$want'"
				ok=0
			fi
		done
	done
	local dm dc pm pc ratio label
	dm=$(median 1 "$tmp/out/dpgpu.times")
	dc=$(median 2 "$tmp/out/dpgpu.times")
	for k in "${!kinds[@]}"; do
		pm=$(median 1 "$tmp/out/peer$k.times")
		pc=$(median 2 "$tmp/out/peer$k.times")
		ratio=$(awk -v a="$dm" -v b="$pm" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2fx", a / b }')
		case ${kinds[$k]} in
		peer) label="C: bench/cpu" ;;
		parasail) label="parasail nw_striped_32" ;;
		edlib) label="edlib (bit-parallel)" ;;
		esac
		[ $ok = 1 ] || ratio="FAILED"
		rows+=("$problem|$size|$label|$dm|$pm|$ratio|$dc|$pc|${want:--}")
	done
	[ $ok = 1 ] || failed=1
}

skip() { say "skipping $1: $2"; rows+=("$1|-|skipped: $2|-|-|-|-|-|-"); }

k=$data/knapsack/$knap
if [ -f "$k" ]; then
	items=$(awk 'NR == 1 { print $1 " items, C = " $2; exit }' "$k")
	pair "knapsack 0/1" "$knap ($items)" -- knapsack "$k" -- peer "$bin/knapsack01" "$k"
else
	skip "knapsack 0/1" "$k not found (set DPGPU_DATA)"
fi

a=$inst/dna_a.fa b=$inst/dna_b.fa
lcspeers=(peer "$bin/lcs" "$a" "$b")
if command -v parasail_aligner >/dev/null; then
	# LCS as a global alignment: match 1, mismatch 0, free gaps. parasail
	# takes the query from stdin, the database from -f, and writes a CSV.
	lcspeers+=(-- parasail bash -c 'exec parasail_aligner -a nw_striped_32 -x -d -M 1 -X 0 -o 0 -e 0 -t 1 -f "$1" -g "$2" <"$0"' "$a" "$b" "$tmp/out/parasail.csv")
else
	say "parasail_aligner not found (Debian package parasail): no parasail row"
fi
pair "lcs" "${seqlen} x ${seqlen} DNA" -- lcs "$a" "$b" "${special[@]}" -- "${lcspeers[@]}"

edpeers=(peer "$bin/editdistance" -s 1 "$a" "$b")
if command -v edlib-aligner >/dev/null; then
	edpeers+=(-- edlib edlib-aligner -m NW "$a" "$b")
else
	say "edlib-aligner not found (Debian package edlib-aligner): no edlib row"
fi
pair "edit distance (unit)" "${seqlen} x ${seqlen} DNA" -- editdistance "$a" "$b" --set sub=1 "${special[@]}" -- "${edpeers[@]}"

m=$inst/city_$city.txt
pair "manhattan tourist" "${city} x ${city} (gen-data)" -- manhattan "$m" -- peer "$bin/manhattan" "$m"
rm -f "$m" # about 0.6 GB at full size

c=$inst/chain_$chain.txt
pair "matrix chain" "n = $chain (gen-data ints)" -- matrix-chain "$c" -- peer "$bin/matrixchain" "$c"

t=$data/tsplib/$tsp.tsp
if [ -f "$t" ]; then
	pair "tsp held-karp" "$tsp" -- tsp "$t" -- peer "$bin/heldkarp" "$t"
else
	skip "tsp held-karp" "$t not found (set DPGPU_DATA)"
fi

# --- the table ---------------------------------------------------------------
rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$root" status --porcelain 2>/dev/null | head -n 1)" ]; then rev="$rev+changes"; fi
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || echo unknown)
echo "dpgpu $rev, $(nproc) cores ($cpu), $("$cc" --version | head -n 1), $(date -u +%Y-%m-%d)"
echo "load average $load_before before, $(loadavg) after"
echo "whole process, median of $runs runs; dpgpu solve -b cpu -t 1 -q ${special[*]:-}; ratio = dpgpu / peer wall time"
echo
echo "| problem | size | peer | dpgpu median s | peer median s | ratio | dpgpu cpu s | peer cpu s | answer |"
echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for row in "${rows[@]}"; do
	echo "| ${row//|/ | } |"
done
if [ $failed = 1 ]; then
	say "some runs failed or disagreed (see above)"
	exit 1
fi
