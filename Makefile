# dpgpu — see README.md. Everything builds with CGO_ENABLED=0: the CUDA
# driver and NVRTC are loaded at run time where a GPU is present.
export CGO_ENABLED := 0
GO ?= go

.PHONY: build test test-compiled ci vet fmt-check fuzz device bench clean trust

build:
	$(GO) build -o dpgpu ./cmd/dpgpu

# The test command of the README; GPU tests skip where no CUDA driver is found.
test:
	$(GO) test -timeout 15m ./...

# Every test again with the CPU executor compiling every problem it can
# (backend/native; the plain test command runs the Go evaluator where a test
# builds the executor itself): needs a C++ compiler, several minutes.
test-compiled:
	DPGPU_CPU_CODE=c $(GO) test -timeout 30m ./...

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

ci: fmt-check vet test

# Fuzz the parser (FUZZTIME=5m for a long run); the seed corpus lives in
# dsl/testdata/fuzz/FuzzParse.
FUZZTIME ?= 60s
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME) ./dsl

# Replay the bad-input classes of the trust issue against a fresh build: fails
# on any panic, wrong exit status or leftover file.
trust:
	scripts/trust-replay.sh

# Build the binaries that scripts/device-check.sh runs on the GPU machine.
device:
	scripts/device-build.sh

clean:
	rm -rf dpgpu .device
