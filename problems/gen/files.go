package gen

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dpgpu/dpgpu/problems/formats"
)

// WriteSequence writes seq to path in the format its extension names:
// FASTA (.fa, .fasta, .fna; one record with the given header) or plain text
// (.txt: the letters and a newline). Both are what `char 1x? A = @"path"`
// and `args: A, B` read.
func WriteSequence(path, header, seq string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".fa", ".fasta", ".fna":
		return writeFile(path, func(w io.Writer) error { return formats.WriteFASTA(w, header, seq) })
	case ".txt":
		return writeFile(path, func(w io.Writer) error {
			_, err := io.WriteString(w, seq+"\n")
			return err
		})
	}
	return fmt.Errorf("writing %s: unknown sequence format %q (want .fa, .fasta, .fna or .txt)", path, filepath.Ext(path))
}

// WriteKnapsack writes k to path in Pisinger's format, which
// `args: (val, wt, cap) = pisinger` reads.
func WriteKnapsack(path string, k *formats.Knapsack) error {
	return writeFile(path, func(w io.Writer) error { return formats.WritePisinger(w, k) })
}

// WriteCounts writes the counts of a bounded knapsack to path as a text file
// of one line of whitespace-separated numbers: a 1xn vector for `cnt`.
func WriteCounts(path string, counts []int64) error { return WriteInts(path, counts) }

// WriteInts writes vals to path as a text file of one line of
// whitespace-separated numbers, which an integer input (`int 1x? a`) reads
// as a 1xn vector.
func WriteInts(path string, vals []int64) error {
	return writeFile(path, func(w io.Writer) error {
		var buf []byte
		for i, c := range vals {
			if i > 0 {
				buf = append(buf, ' ')
			}
			buf = strconv.AppendInt(buf, c, 10)
		}
		buf = append(buf, '\n')
		_, err := w.Write(buf)
		return err
	})
}

// WriteManhattan writes an n x n city (as Manhattan returns it) to path in
// the manhattan format, which `args: (down, right) = manhattan` reads.
func WriteManhattan(path string, n int, down, right []int64) error {
	return writeFile(path, func(w io.Writer) error { return formats.WriteManhattan(w, n, n, down, right) })
}

// writeFile writes a file through write atomically: into a temporary file
// beside path that is renamed into place only once complete, so that an
// interrupted or failed run never leaves half an instance behind.
func writeFile(path string, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err = write(bw); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// CreateTemp makes the file 0600; an instance is ordinary data.
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
