package formats

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// Knapsack is a 0/1 knapsack instance in Pisinger's format.
type Knapsack struct {
	N        int
	Capacity int64
	Profits  []int64
	Weights  []int64
	Solution []int // an optimal 0/1 vector as published with the instance; nil when absent
}

// loadPisinger reads a Pisinger file as [profits 1xn, weights 1xn, capacity 1x1].
func loadPisinger(path string) ([]*Table, error) {
	file, f, err := openData(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	k, err := readPisinger(f, path)
	if err != nil {
		return nil, err
	}
	return []*Table{
		{Rows: 1, Cols: k.N, I: k.Profits},
		{Rows: 1, Cols: k.N, I: k.Weights},
		{Rows: 1, Cols: 1, I: []int64{k.Capacity}},
	}, nil
}

// ReadPisinger reads a knapsack instance in Pisinger's format: "n c", then
// n lines "profit weight", then optionally a line of n 0/1 values (an
// optimal solution, as the widely copied instance sets carry). Only the
// order of the numbers matters, not how they are split into lines: some
// copies split the first line in two.
func ReadPisinger(r io.Reader) (*Knapsack, error) {
	return readPisinger(r, "")
}

func readPisinger(r io.Reader, name string) (*Knapsack, error) {
	lr := newLineReader(r, name)
	var (
		vals  []int64
		lines []int
		toks  [][]byte
	)
	for {
		line, ok, err := lr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if isBlankOrComment(line) {
			continue
		}
		for _, t := range fields(toks[:0], line) {
			v, err := parseInt(t)
			if err != nil {
				return nil, errAt(name, lr.n, "%v", err)
			}
			vals = append(vals, v)
			lines = append(lines, lr.n)
		}
	}
	if len(vals) < 2 {
		return nil, errAt(name, 0, "expected a first line \"n capacity\"")
	}
	n64, capacity := vals[0], vals[1]
	if n64 < 1 {
		return nil, errAt(name, lines[0], "number of items %d must be at least 1", n64)
	}
	if capacity < 0 {
		return nil, errAt(name, lines[1], "capacity %d is negative", capacity)
	}
	rest := vals[2:]
	if n64 > int64(len(rest)/2) {
		return nil, errAt(name, lines[len(lines)-1], "expected %d items (profit weight), found %d numbers after the first line", n64, len(rest))
	}
	n := int(n64)
	k := &Knapsack{N: n, Capacity: capacity, Profits: make([]int64, n), Weights: make([]int64, n)}
	for i := 0; i < n; i++ {
		k.Profits[i], k.Weights[i] = rest[2*i], rest[2*i+1]
		if k.Weights[i] < 0 {
			return nil, errAt(name, lines[2+2*i+1], "item %d has a negative weight %d", i+1, k.Weights[i])
		}
	}
	sol := rest[2*n:]
	solLines := lines[2+2*n:]
	switch len(sol) {
	case 0:
		return k, nil
	case n:
		k.Solution = make([]int, n)
		for i, x := range sol {
			if x != 0 && x != 1 {
				return nil, errAt(name, solLines[i], "solution vector value %d for item %d is not 0 or 1", x, i+1)
			}
			k.Solution[i] = int(x)
		}
		return k, nil
	}
	return nil, errAt(name, solLines[0], "after the %d items expected nothing or a 0/1 solution vector of %d values, found %d values", n, n, len(sol))
}

// WritePisinger writes k in the format ReadPisinger reads, with the solution
// line when k.Solution is set.
func WritePisinger(w io.Writer, k *Knapsack) error {
	if k.N < 1 || len(k.Profits) != k.N || len(k.Weights) != k.N {
		return fmt.Errorf("writing knapsack: N = %d with %d profits and %d weights", k.N, len(k.Profits), len(k.Weights))
	}
	if k.Solution != nil && len(k.Solution) != k.N {
		return fmt.Errorf("writing knapsack: solution has %d values for %d items", len(k.Solution), k.N)
	}
	for i, x := range k.Solution {
		if x != 0 && x != 1 {
			return fmt.Errorf("writing knapsack: solution value %d for item %d is not 0 or 1", x, i+1)
		}
	}
	bw := bufio.NewWriter(w)
	var b []byte
	b = strconv.AppendInt(b[:0], int64(k.N), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, k.Capacity, 10)
	b = append(b, '\n')
	bw.Write(b)
	for i := 0; i < k.N; i++ {
		b = strconv.AppendInt(b[:0], k.Profits[i], 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, k.Weights[i], 10)
		b = append(b, '\n')
		bw.Write(b)
	}
	if k.Solution != nil {
		for i, x := range k.Solution {
			if i > 0 {
				bw.WriteByte(' ')
			}
			bw.WriteByte(byte('0' + x))
		}
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing knapsack: %w", err)
	}
	return nil
}
