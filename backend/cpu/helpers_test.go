package cpu

import (
	"context"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/sema"
)

// load parses, checks and plans a `.dp` text.
func load(t testing.TB, name, src string) (*ir.Problem, *plan.Plan) {
	t.Helper()
	f, err := dsl.Parse(name, []byte(src))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	p, err := sema.Check(f, sema.Config{})
	if err != nil {
		t.Fatalf("check: %v\n%s", err, src)
	}
	pl, err := plan.Analyze(p)
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, src)
	}
	return p, pl
}

// solve runs a problem on the CPU executor.
func solve(t testing.TB, p *ir.Problem, pl *plan.Plan, opt backend.Options) (*backend.Result, error) {
	t.Helper()
	return New(opt.Threads).Run(context.Background(), p, pl, opt)
}

// tiny is a tuning that cuts even small grids into many tiles, batches
// and worker shares, at sizes that divide nothing.
var tiny = tuning{tileW: 7, tileH: 5, lanes: 3, lanesPerWorker: 4, kernelCells: 10}

// solveTiny runs a problem with the tiny tuning.
func solveTiny(t testing.TB, p *ir.Problem, pl *plan.Plan, opt backend.Options) (*backend.Result, error) {
	t.Helper()
	ex := New(opt.Threads)
	ex.tune = tiny
	return ex.Run(context.Background(), p, pl, opt)
}

// seeded returns a random source seeded from the time (or DPGPU_SEED),
// logging the seed so that a failure can be reproduced.
func seeded(t testing.TB) *rand.Rand {
	t.Helper()
	seed := time.Now().UnixNano()
	if s := os.Getenv("DPGPU_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("DPGPU_SEED: %v", err)
		}
		seed = v
	}
	t.Logf("seed %d (set DPGPU_SEED to repeat)", seed)
	return rand.New(rand.NewSource(seed))
}

func randString(r *rand.Rand, n int, alphabet string) string {
	b := make([]byte, n)
	for k := range b {
		b[k] = alphabet[r.Intn(len(alphabet))]
	}
	return string(b)
}

func randInts(r *rand.Rand, n, lo, hi int) []int {
	v := make([]int, n)
	for k := range v {
		v[k] = lo + r.Intn(hi-lo+1)
	}
	return v
}

func joinInts(v []int) string {
	parts := make([]string, len(v))
	for k, x := range v {
		parts[k] = strconv.Itoa(x)
	}
	return strings.Join(parts, ",")
}

func joinMatrix(m [][]int) string {
	rows := make([]string, len(m))
	for k, r := range m {
		rows[k] = joinInts(r)
	}
	return strings.Join(rows, " & ")
}
