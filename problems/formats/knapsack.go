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
	k, err := loadData(path, func(r io.Reader, size int64) (*Knapsack, error) {
		return readPisinger(r, path, size)
	})
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
	return readPisinger(r, "", 0)
}

// pisingerValue is a value of a Pisinger file and the line it is on, kept
// for a message about it.
type pisingerValue struct {
	v    int64
	line int
}

// readPisinger reads the numbers in one pass straight into the arrays the
// header sizes; size is the file's size when known (a hint, see
// lineReader). What is wrong is reported in the same order whatever the
// order of the faults in the file: a value that does not parse, then the
// header, the count of items, their weights, the solution vector.
func readPisinger(r io.Reader, name string, size int64) (*Knapsack, error) {
	lr := newLineReader(r, name, size)
	var (
		head     [2]pisingerValue // n and capacity
		count    int64            // values read, the header's included
		last     int              // line of the last value
		k        = &Knapsack{}
		sol      []int
		sols     int64          // values after the items
		solLine  int            // line of the first of them
		negative *pisingerValue // the first negative weight, v = item
		badSol   *pisingerValue // the first solution value that is not 0/1, v = index
		row      []int64
		err      error
	)
	for line := range lr.dataLines() {
		if row, err = appendInts(row[:0], line, false); err != nil {
			return nil, lr.errorf("%v", err)
		}
		for _, v := range row {
			switch i := count - 2; {
			case count < 2:
				head[count] = pisingerValue{v, lr.n}
				if count == 1 && head[0].v >= 1 {
					c := lr.capFor(head[0].v)
					k.Profits, k.Weights = make([]int64, 0, c), make([]int64, 0, c)
				}
			case i/2 < head[0].v:
				if i%2 == 0 {
					k.Profits = grow(k.Profits, 1)
					k.Profits = append(k.Profits, v)
					break
				}
				if v < 0 && negative == nil {
					negative = &pisingerValue{i/2 + 1, lr.n}
				}
				k.Weights = grow(k.Weights, 1)
				k.Weights = append(k.Weights, v)
			default:
				if sols == 0 {
					solLine = lr.n
				}
				if v != 0 && v != 1 && badSol == nil {
					badSol = &pisingerValue{sols, lr.n}
				}
				if sols < head[0].v {
					sol = append(sol, int(v))
				}
				sols++
			}
			count++
			last = lr.n
		}
	}
	if lr.err != nil {
		return nil, lr.err
	}
	if count < 2 {
		return nil, errAt(name, 0, "expected a first line \"n capacity\"")
	}
	n64, capacity := head[0].v, head[1].v
	if n64 < 1 {
		return nil, errAt(name, head[0].line, "number of items %d must be at least 1", n64)
	}
	if capacity < 0 {
		return nil, errAt(name, head[1].line, "capacity %d is negative", capacity)
	}
	if rest := count - 2; n64 > rest/2 {
		return nil, errAt(name, last, "expected %d items (profit weight), found %d numbers after the first line", n64, rest)
	}
	if negative != nil {
		i := negative.v - 1
		return nil, errAt(name, negative.line, "item %d has a negative weight %d", i+1, k.Weights[i])
	}
	k.N, k.Capacity = int(n64), capacity
	switch sols {
	case 0:
		return k, nil
	case n64:
		if badSol != nil {
			return nil, errAt(name, badSol.line, "solution vector value %d for item %d is not 0 or 1", sol[badSol.v], badSol.v+1)
		}
		k.Solution = sol
		return k, nil
	}
	return nil, errAt(name, solLine, "after the %d items expected nothing or a 0/1 solution vector of %d values, found %d values", n64, n64, sols)
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
