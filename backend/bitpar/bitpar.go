// Package bitpar computes the recurrences the planner recognises as
// bit-parallel classes (plan.Special): the length of a longest common
// subsequence (Allison and Dix 1986, in the form of Hyyrö 2004), unit-cost
// Levenshtein distance (Myers 1999, with Hyyrö's blocks of words), and
// the insertion-deletion distance (m + n - 2*LCS). A column of the grid
// is held as bits of 64-bit words: one word operation advances 64 cells,
// where the scalar sweep advances one.
//
// The pattern is the sequence along the rows (A, the grid's rows-1
// characters): its cells of one column are the bits of the words, and
// the text (B) is read one character per column, left to right, so that
// the last row's value is known at every column (a semi-global answer is
// a reduction over it). A global answer needs only the last cell and all
// three recurrences are symmetric, so there the shorter sequence is made
// the pattern. Bits above the pattern's length in the last word are rows
// below the grid: additions carry towards higher bits (later rows) only,
// so they never change a real row, and the last row is read at its own
// bit.
//
// Only the answer is computed (no grid, no traceback): a traceback, a kept
// grid or `--no-special` runs the schedule.
package bitpar

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/dpgpu/dpgpu/plan"
)

// Result is what Solve found: the answer and where on the last row it is.
type Result struct {
	// Score is the answer: the last cell, or for a semi-global run the
	// best (min; max for LCS) over the last row.
	Score int64
	// At is the column of the last row the score was read from: len(b)
	// for a global run; for a semi-global run the first column (from the
	// left) that reaches the best.
	At int64
}

// Solve computes kind over pattern a (rows) and text b (columns): the grid
// has len(a)+1 rows and len(b)+1 columns. progress, when not nil, is
// called every so many columns with the columns of the grid done so far
// (in the orientation actually run, out of Columns(...)). It stops with
// ctx.Err() when ctx is cancelled.
func Solve(ctx context.Context, kind plan.SpecialKind, a, b []byte, semiGlobal bool, progress func(done, total int64)) (Result, error) {
	at0 := int64(len(b))
	if !semiGlobal && len(a) > len(b) {
		a, b = b, a
	}
	var s solver
	switch kind {
	case plan.BitLCS, plan.BitIndel:
		s = newLCS(a)
	case plan.BitLevenshtein:
		s = newLevenshtein(a)
	default:
		return Result{}, fmt.Errorf("bitpar: no solver for %q", kind)
	}
	m, n := int64(len(a)), int64(len(b))
	// value is the last row's cell at column j from the solver's running
	// count: LCS counts matches, Levenshtein holds the distance.
	value := func(j, count int64) int64 {
		if kind == plan.BitIndel {
			return m + j - 2*count
		}
		return count
	}
	count := s.start()
	best, at := value(0, count), int64(0)
	better := func(v int64) bool { return v < best }
	if kind == plan.BitLCS {
		better = func(v int64) bool { return v > best }
	}
	// Check ctx and report progress about every 64k word operations (tens
	// of microseconds).
	every := max(int64(1), int64(1<<16)/int64(max(s.words(), 1)))
	for j := int64(0); j < n; {
		end := min(n, j+every)
		for ; j < end; j++ {
			count += s.column(b[j])
			if semiGlobal {
				if v := value(j+1, count); better(v) {
					best, at = v, j+1
				}
			}
		}
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		if progress != nil {
			progress(j, n)
		}
	}
	if !semiGlobal {
		return Result{Score: value(n, count), At: at0}, nil
	}
	return Result{Score: best, At: at}, nil
}

// solver advances a column vector over the pattern by one text character.
type solver interface {
	// start is the running count at column 0.
	start() int64
	// column advances to the next column, reading text character c, and
	// returns how much the last row's count changed.
	column(c byte) int64
	words() int
}

// peq is the match masks of the pattern: for each character, the bits of
// the rows that hold it, in words. Only the characters the pattern holds
// have a mask; any other character matches nothing (zero).
type peq struct {
	w     int        // words per mask
	index [256]int32 // character -> mask number, -1 for none
	masks []uint64   // mask k is masks[k*w : (k+1)*w]
	zero  []uint64
}

func newPeq(a []byte) *peq {
	w := max((len(a)+63)/64, 1)
	p := &peq{w: w, zero: make([]uint64, w)}
	for k := range p.index {
		p.index[k] = -1
	}
	var n int32
	for _, c := range a {
		if p.index[c] < 0 {
			p.index[c] = n
			n++
		}
	}
	p.masks = make([]uint64, int(n)*w)
	for r, c := range a {
		p.masks[int(p.index[c])*w+r/64] |= 1 << (r % 64)
	}
	return p
}

func (p *peq) of(c byte) []uint64 {
	k := p.index[c]
	if k < 0 {
		return p.zero
	}
	return p.masks[int(k)*p.w : int(k+1)*p.w]
}

// lcs is Hyyrö's LCS: bit r of V is 1 when the LCS does not grow from
// row r to row r+1 in the current column, so the zeros count the LCS of
// the pattern and the text so far. V' = (V + (V & M)) | (V &^ M): a carry
// out of the last row means the last row's LCS grew by one.
type lcs struct {
	p *peq
	v []uint64
	// topPad: the bits above the pattern in the last word, kept at one
	// (and never matched) so that a carry out of the last row runs
	// through them and out of the word.
}

func newLCS(a []byte) *lcs {
	s := &lcs{p: newPeq(a)}
	s.v = make([]uint64, s.p.w)
	for k := range s.v {
		s.v[k] = ^uint64(0)
	}
	if len(a) == 0 {
		// No rows: the vector is all padding, and a carry must never
		// come out of it.
		s.v = s.v[:0]
	}
	return s
}

func (s *lcs) start() int64 { return 0 }
func (s *lcs) words() int   { return len(s.v) }

func (s *lcs) column(c byte) int64 {
	m := s.p.of(c)
	v := s.v
	m = m[:len(v)]
	var carry uint64
	for k, x := range v {
		u := x & m[k]
		sum, cout := bits.Add64(x, u, carry)
		v[k] = sum | (x &^ u)
		carry = cout
	}
	return int64(carry)
}

// levenshtein is Myers' bit-vector edit distance with Hyyrö's blocks: Pv
// and Mv are the rows where the distance grows and shrinks down the
// current column; each word passes the horizontal difference of its last
// row (-1, 0, +1) to the next. The first row is j (a horizontal +1 into
// the first word); the last row's distance is kept from the last word's
// horizontal difference at the pattern's last bit.
type levenshtein struct {
	p      *peq
	pv, mv []uint64
	m      int64
	shift  uint // the bit of the pattern's last row in the last word
}

func newLevenshtein(a []byte) *levenshtein {
	s := &levenshtein{p: newPeq(a), m: int64(len(a))}
	w := s.p.w
	if len(a) == 0 {
		w = 0
	}
	s.pv, s.mv = make([]uint64, w), make([]uint64, w)
	for k := range s.pv {
		s.pv[k] = ^uint64(0)
	}
	if len(a) > 0 {
		s.shift = uint((len(a) - 1) % 64)
	}
	return s
}

func (s *levenshtein) start() int64 { return s.m }
func (s *levenshtein) words() int   { return len(s.pv) }

func (s *levenshtein) column(c byte) int64 {
	n := len(s.pv)
	if n == 0 {
		return 1 // row 0 is j
	}
	eqs := s.p.of(c)[:n]
	pvs, mvs := s.pv, s.mv[:n]
	// The horizontal difference passed down, as two bits: hp (+1) and hn
	// (-1), never both. Row 0 is j: +1 into the first word.
	hp, hn := uint64(1), uint64(0)
	for k := 0; k < n-1; k++ {
		pv, mv, eq := pvs[k], mvs[k], eqs[k]
		xv := eq | mv
		eq |= hn
		xh := (((eq & pv) + pv) ^ pv) | eq
		ph := mv | ^(xh | pv)
		mh := pv & xh
		hpo, hno := ph>>63, mh>>63
		ph = ph<<1 | hp
		mh = mh<<1 | hn
		pvs[k] = mh | ^(xv | ph)
		mvs[k] = ph & xv
		hp, hn = hpo, hno
	}
	// The last word: its difference is read at the pattern's last row.
	k := n - 1
	pv, mv, eq := pvs[k], mvs[k], eqs[k]
	xv := eq | mv
	eq |= hn
	xh := (((eq & pv) + pv) ^ pv) | eq
	ph := mv | ^(xh | pv)
	mh := pv & xh
	d := int64(ph>>s.shift&1) - int64(mh>>s.shift&1)
	ph = ph<<1 | hp
	mh = mh<<1 | hn
	pvs[k] = mh | ^(xv | ph)
	mvs[k] = ph & xv
	return d
}
