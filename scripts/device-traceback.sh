#!/usr/bin/env bash
# Runs on the GPU machine (after scripts/device-build.sh here, with the
# genomes copied into .device/data): the linear-memory traceback of two
# bacterial genomes (#12), timed, its PAF line re-scored against the
# sequences by bench/rescore, and the score-only run for the ratio.
#
#   cp ../shared/data/dna/*.fasta .device/data/   # here, before carrying .device
#   CGO_ENABLED=0 go build -o .device/rescore ./bench/rescore
#   scripts/device-traceback.sh                   # there; MEM=4G T=500 to change
set -u
cd "$(dirname "$0")/.."
D=${DEVICE_DIR:-.device}
export DPGPU_CACHE_DIR=${DPGPU_CACHE_DIR:-/tmp/dpgpu-cache}
O=${OUT:-out}; mkdir -p "$O"
E=${A:-$D/data/ecoli_K12_MG1655_NC_000913.3.fasta}
S=${B:-$D/data/salmonella_LT2_GCF_000006945.1.fasta}
/usr/bin/time -f "score only: %e s %M kB" "$D/dpgpu" solve -b cuda -q needleman-wunsch "$E" "$S" 2>&1 | grep -E "^answer|^time|score only"
DPGPU_TRACE=1 timeout "${T:-500}" /usr/bin/time -f "traceback: %e s %M kB" "$D/dpgpu" solve -b cuda -q needleman-wunsch "$E" "$S" \
	--format paf --traceback-memory "${MEM:-4G}" >"$O/traceback.paf" 2>"$O/traceback.err"
echo "traceback rc=$?"; grep -v "dpgpu trace" "$O/traceback.err" | tail -3
grep -c "dpgpu trace" "$O/traceback.err" | sed 's/$/ runs (forward pass, bands, sub-bands)/'
[ -s "$O/traceback.paf" ] && "$D/rescore" "$E" "$S" <"$O/traceback.paf"
