#!/usr/bin/env bash
# Runs on the GPU machine (after scripts/device-build.sh here, with the
# genomes copied into .device/data): the linear-memory traceback of two
# bacterial genomes (#12), timed against the score-only run, each twice
# (the first run of a fresh machine compiles its programs: a cold NVRTC
# cache; the second finds them), the PAF lines re-scored against the
# sequences by bench/rescore and compared with each other; then each
# budget in MEMS once more, warm. A summary of each traceback's
# DPGPU_TRACE lines follows its figures: the forward pass's kernel, the
# blocks entered (and how many were computed ahead of the walk), their
# kernels, and the walk.
#
#   cp ../shared/data/dna/*.fasta .device/data/   # here, before carrying .device
#   CGO_ENABLED=0 go build -o .device/rescore ./bench/rescore
#   scripts/device-traceback.sh                   # there; MEM=4G MEMS="6G" STRIPS="1x8 2x4" T=300 to change
set -u
cd "$(dirname "$0")/.."
D=${DEVICE_DIR:-.device}
export DPGPU_CACHE_DIR=${DPGPU_CACHE_DIR:-/tmp/dpgpu-cache}
O=${OUT:-out}; mkdir -p "$O"
E=${A:-$D/data/ecoli_K12_MG1655_NC_000913.3.fasta}
S=${B:-$D/data/salmonella_LT2_GCF_000006945.1.fasta}
score() {
	/usr/bin/time -f "score only ($1): %e s %M kB" "$D/dpgpu" solve -b cuda -q needleman-wunsch "$E" "$S" 2>&1 | grep -E "^time|score only"
}
# traceback NAME MEM: one run, its figures and the summary of its trace.
traceback() {
	DPGPU_TRACE=1 timeout "${T:-300}" /usr/bin/time -f "traceback $1 ($2): %e s %M kB" "$D/dpgpu" solve -b cuda -q needleman-wunsch "$E" "$S" \
		--format paf --traceback-memory "$2" >"$O/$1.paf" 2>"$O/$1.err"
	echo "traceback $1 rc=$?"; grep -v "dpgpu trace" "$O/$1.err" | tail -3
	awk '
		/dpgpu trace .*: generate/ && !fwd { if (match($0, /kernel [0-9.]+ ms/)) { fwd = substr($0, RSTART + 7, RLENGTH - 10); } }
		/checkpoint block/ { blocks++; if ($0 ~ /computed ahead/) ahead++
			if (match($0, /run [0-9.]+ ms/)) run += substr($0, RSTART + 4, RLENGTH - 7)
			if (match($0, /wait [0-9.]+ ms/)) wait += substr($0, RSTART + 5, RLENGTH - 8) }
		/traceback walk/ { if (match($0, /tree[^,]* [0-9.]+ ms/)) { s = substr($0, RSTART, RLENGTH); sub(/ ms$/, "", s); sub(/.* /, "", s); walk = s } }
		END { printf "  forward kernel %.1f s; %d blocks entered, %d computed ahead; blocks run in the walk %.1f s, waited for %.1f s; walk %.1f s\n", fwd / 1e3, blocks, ahead, run / 1e3, wait / 1e3, walk / 1e3 }
	' "$O/$1.err"
	[ -s "$O/$1.paf" ] && "$D/rescore" "$E" "$S" <"$O/$1.paf"
}
score cold
traceback cold "${MEM:-4G}"
traceback warm "${MEM:-4G}"
score warm
cmp -s "$O/cold.paf" "$O/warm.paf" && echo "cold and warm PAF equal" || echo "cold and warm PAF DIFFER"
for m in ${MEMS:-}; do
	traceback "mem$m" "$m"
	cmp -s "$O/warm.paf" "$O/mem$m.paf" && echo "PAF at $m equal" || echo "PAF at $m DIFFERS"
done
# Blocks swept with other strips (rows a lane x warps a block; the default
# 4x8 makes a block of 91,474 rows 90 strips): STRIPS="1x8 2x4".
for st in ${STRIPS:-}; do
	DPGPU_DEVICE_GRID_STRIP=$st traceback "strip$st" "${MEM:-4G}"
	cmp -s "$O/warm.paf" "$O/strip$st.paf" && echo "PAF with strips $st equal" || echo "PAF with strips $st DIFFERS"
done
