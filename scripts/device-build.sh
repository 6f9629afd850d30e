#!/usr/bin/env bash
# Builds, on this machine, what scripts/device-check.sh runs on the GPU
# machine: a test binary for every package with GPU tests and the dpgpu
# command, all with CGO_ENABLED=0, into .device/ (carry it to the device).
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=0 GOOS=linux GOARCH=amd64
DEV=${DEVICE_DIR:-.device}
mkdir -p "$DEV"
for pkg in ${DEVICE_PKGS:-backend/cuda backend/gpu codegen heldkarp bench/peers engine}; do
	name=$(basename "$pkg")
	go test -c -ldflags="-s -w" -o "$DEV/$name.test" "./$pkg"
done
if go build -ldflags="-s -w" -o "$DEV/dpgpu" ./cmd/dpgpu 2>"$DEV/dpgpu-build.log"; then
	rm -f "$DEV/dpgpu-build.log"
else
	echo "device-build: cmd/dpgpu does not build (see $DEV/dpgpu-build.log); the CLI checks will be skipped" >&2
	rm -f "$DEV/dpgpu"
fi
ls -l "$DEV"
