package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// BenchmarkBatchNW is `dpgpu batch needleman-wunsch` one-vs-many on one
// worker: 150 bp against 150 bp records, the per-instance cost of issue #14.
func BenchmarkBatchNW(b *testing.B) {
	dir := b.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	seq := func(n int) string {
		s := make([]byte, n)
		for k := range s {
			s[k] = "ACGT"[r.IntN(4)]
		}
		return string(s)
	}
	q := []record{{name: "q", seq: seq(150)}}
	db := make([]record, 200)
	for k := range db {
		db[k] = record{name: fmt.Sprint("r", k), seq: seq(150)}
	}
	writeFASTA(b, filepath.Join(dir, "q.fa"), q)
	writeFASTA(b, filepath.Join(dir, "db.fa"), db)
	src, err := Resolve("needleman-wunsch")
	if err != nil {
		b.Fatal(err)
	}
	qa, _ := OpenBatchArg(filepath.Join(dir, "q.fa"))
	da, _ := OpenBatchArg(filepath.Join(dir, "db.fa"))
	b.ResetTimer()
	for b.Loop() {
		_, err := Batch(context.Background(), src, []*BatchArg{qa, da}, BatchOptions{Workers: 1}, func(*BatchResult) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(db))/1e3, "µs/instance")
}
