package formats

import (
	"bufio"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/sbinet/npyio/npy"
)

// The benchmarks load files of realistic size, made fresh in a temporary
// directory: a bacterial-genome-sized FASTA file, a 1000x1000 text matrix,
// and a 4M-element .npy array. They report throughput in MB/s of file.

func benchFile(b *testing.B, name string, write func(w *bufio.Writer)) (string, int64) {
	b.Helper()
	p := filepath.Join(b.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	write(w)
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	return p, st.Size()
}

func benchLoad(b *testing.B, path string, size int64, opt Options, n int) {
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		tab, err := Load(path, opt)
		if err != nil {
			b.Fatal(err)
		}
		if tab.Len() != n {
			b.Fatalf("%d values, want %d", tab.Len(), n)
		}
	}
}

func BenchmarkLoadFASTA5M(b *testing.B) {
	const n = 5_000_000
	rng := rand.New(rand.NewPCG(1, 1))
	path, size := benchFile(b, "g.fa", func(w *bufio.Writer) {
		w.WriteString(">chr synthetic\n")
		for i := 0; i < n; i++ {
			w.WriteByte("ACGT"[rng.IntN(4)])
			if i%80 == 79 {
				w.WriteByte('\n')
			}
		}
		w.WriteByte('\n')
	})
	benchLoad(b, path, size, Options{Char: true}, n)
}

func BenchmarkLoadText1000x1000(b *testing.B) {
	const r, c = 1000, 1000
	rng := rand.New(rand.NewPCG(2, 2))
	path, size := benchFile(b, "m.txt", func(w *bufio.Writer) {
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				if j > 0 {
					w.WriteByte(' ')
				}
				w.WriteString(strconv.FormatInt(rng.Int64N(1_000_000), 10))
			}
			w.WriteByte('\n')
		}
	})
	benchLoad(b, path, size, Options{}, r*c)
}

func BenchmarkLoadNpy4M(b *testing.B) {
	const n = 4 << 20
	data := make([]float64, n)
	for i := range data {
		data[i] = float64(i) * 0.5
	}
	path, size := benchFile(b, "a.npy", func(w *bufio.Writer) {
		if err := npy.Write(w, data); err != nil {
			b.Fatal(err)
		}
	})
	benchLoad(b, path, size, Options{Float: true}, n)
}
