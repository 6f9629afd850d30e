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
// A long pattern is shared among cores (parallel.go): its words are cut
// into strips and the text into chunks of columns, and a strip advances
// over a chunk once the strip below it has, reading the bits that leave
// the lower strip's top word at every column of the chunk.
//
// Only the answer is computed (no grid, no traceback): a traceback, a kept
// grid or `--no-special` runs the schedule.
package bitpar

import (
	"context"
	"fmt"
	"math/bits"
	"runtime"

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
// has len(a)+1 rows and len(b)+1 columns. threads is the number of
// goroutines that may share the work (0: one per core); a pattern too
// short to pay for the hand-offs between them runs on the calling
// goroutine. progress, when not nil, is called every so many columns with
// the columns of the grid done so far (in the orientation actually run;
// with several threads, the share of the work done, in columns), never
// concurrently. It stops with ctx.Err() when ctx is cancelled.
func Solve(ctx context.Context, kind plan.SpecialKind, a, b []byte, semiGlobal bool, threads int, progress func(done, total int64)) (Result, error) {
	return solve(ctx, kind, a, b, semiGlobal, threads, shape{}, progress)
}

// shape is how a run is cut: words per strip and columns per chunk
// (a multiple of 64). The zero shape lets solve choose.
type shape struct{ strip, chunk int }

func solve(ctx context.Context, kind plan.SpecialKind, a, b []byte, semiGlobal bool, threads int, sh shape, progress func(done, total int64)) (Result, error) {
	at0 := int64(len(b))
	if !semiGlobal && len(a) > len(b) {
		a, b = b, a
	}
	var k kernel
	switch kind {
	case plan.BitLCS, plan.BitIndel:
		k = newLCS(a)
	case plan.BitLevenshtein:
		k = newLevenshtein(a)
	default:
		return Result{}, fmt.Errorf("bitpar: no solver for %q", kind)
	}
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	t := newTally(kind, int64(len(a)), k.start(), semiGlobal)
	var err error
	if sh == (shape{}) {
		sh = choose(kind, k.words(), len(b), threads)
	}
	if sh.strip < k.words() {
		err = parallel(ctx, k, b, t, threads, sh, progress)
	} else {
		err = sequential(ctx, k, b, t, progress)
	}
	if err != nil {
		return Result{}, err
	}
	if !semiGlobal {
		return Result{Score: t.value(int64(len(b)), t.count), At: at0}, nil
	}
	return Result{Score: t.best, At: t.at}, nil
}

// sequential advances the whole pattern over the text on the calling
// goroutine, in chunks of about 64k word operations (tens of
// microseconds) between checks of ctx and reports of progress.
func sequential(ctx context.Context, k kernel, b []byte, t *tally, progress func(done, total int64)) error {
	n := len(b)
	w := k.words()
	cw := min(max(64, (1<<16)/max(w, 1))&^63, (n+63)&^63)
	out := make([]uint64, 2*(cw/64))
	for j := 0; j < n; {
		end := min(n, j+cw)
		k.advance(0, w, b[j:end], nil, out)
		t.add(out, end-j)
		j = end
		if err := ctx.Err(); err != nil {
			return err
		}
		if progress != nil {
			progress(int64(j), int64(n))
		}
	}
	return nil
}

// tally reads the last row from the bits its strip leaves: the running
// count (matches for LCS, the distance for Levenshtein) and, for a
// semi-global run, the best value and the first column that reaches it.
type tally struct {
	kind            plan.SpecialKind
	m               int64
	semi            bool
	j, count        int64 // columns read, and the count at column j
	best, at        int64
	plusOnly, maxim bool
}

func newTally(kind plan.SpecialKind, m, start int64, semi bool) *tally {
	t := &tally{kind: kind, m: m, semi: semi, count: start}
	t.plusOnly = kind != plan.BitLevenshtein
	t.maxim = kind == plan.BitLCS
	t.best = t.value(0, start)
	return t
}

// value is the last row's cell at column j from the running count.
func (t *tally) value(j, count int64) int64 {
	if t.kind == plan.BitIndel {
		return t.m + j - 2*count
	}
	return count
}

// add reads the next cols columns from out: bit c of out[:cw/64] is the
// carry (LCS) or +1 (Levenshtein) at the chunk's column c, and for
// Levenshtein bit c of the second half a -1.
func (t *tally) add(out []uint64, cols int) {
	nw := (cols + 63) / 64
	hp, hn := out[:nw], out[len(out)/2:][:nw]
	if !t.semi {
		for _, x := range hp {
			t.count += int64(bits.OnesCount64(x))
		}
		if !t.plusOnly {
			for _, x := range hn {
				t.count -= int64(bits.OnesCount64(x))
			}
		}
		t.j += int64(cols)
		return
	}
	for c := range cols {
		d := int64(hp[c/64] >> (c % 64) & 1)
		if !t.plusOnly {
			d -= int64(hn[c/64] >> (c % 64) & 1)
		}
		t.count += d
		t.j++
		v := t.value(t.j, t.count)
		if t.maxim && v > t.best || !t.maxim && v < t.best {
			t.best, t.at = v, t.j
		}
	}
}

// kernel advances a strip of the pattern's words over columns of the text.
type kernel interface {
	// start is the running count at column 0.
	start() int64
	words() int
	// advance moves words [lo, hi) over the text characters cols. in
	// holds what enters word lo at each column (nil: what enters the
	// first word, the first row's): bit c of in[:64*len/2] is the carry
	// (LCS) or the +1 of the horizontal difference (Levenshtein) at the
	// chunk's column c, bit c of the second half the -1. out receives,
	// in the same layout, what leaves word hi-1 or, when hi-1 is the last
	// word, the last row's change. Bits past len(cols) in out are zero.
	advance(lo, hi int, cols []byte, in, out []uint64)
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

// clear zeroes the words of out that columns [0, cols) write to, and
// the same words of its second half.
func clear(out []uint64, cols int) {
	nw := (cols + 63) / 64
	h := len(out) / 2
	for k := range nw {
		out[k], out[h+k] = 0, 0
	}
}

// lcs is Hyyrö's LCS: bit r of V is 1 when the LCS does not grow from
// row r to row r+1 in the current column, so the zeros count the LCS of
// the pattern and the text so far. V' = (V + (V & M)) | (V &^ M): a carry
// out of the last row means the last row's LCS grew by one. The bits
// above the pattern in the last word are kept at one (and never matched)
// so that a carry out of the last row runs through them and out of the
// word.
type lcs struct {
	p *peq
	v []uint64
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

func (s *lcs) advance(lo, hi int, cols []byte, in, out []uint64) {
	clear(out, len(cols))
	if hi == lo {
		return // no rows: the last row never grows
	}
	v := s.v[lo:hi]
	for c, ch := range cols {
		m := s.p.of(ch)[lo:hi]
		m = m[:len(v)]
		var carry uint64
		if in != nil {
			carry = in[c/64] >> (c % 64) & 1
		}
		for k, x := range v {
			u := x & m[k]
			sum, cout := bits.Add64(x, u, carry)
			v[k] = sum | (x &^ u)
			carry = cout
		}
		out[c/64] |= carry << (c % 64)
	}
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

func (s *levenshtein) advance(lo, hi int, cols []byte, in, out []uint64) {
	clear(out, len(cols))
	oh := len(out) / 2
	if hi == lo {
		// No rows: the last row is row 0, j, which grows by one a column.
		for c := range cols {
			out[c/64] |= 1 << (c % 64)
		}
		return
	}
	// top is the bit read out of word hi-1: its last row for a strip
	// below the last, the pattern's last row for the last word.
	top := uint(63)
	if hi == len(s.pv) {
		top = s.shift
	}
	ih := len(in) / 2
	pvs, mvs := s.pv[lo:hi], s.mv[lo:hi]
	mvs = mvs[:len(pvs)]
	for c, ch := range cols {
		eqs := s.p.of(ch)[lo:hi]
		eqs = eqs[:len(pvs)]
		// The horizontal difference passed up, as two bits: hp (+1)
		// and hn (-1), never both. Row 0 is j: +1 into the first word.
		hp, hn := uint64(1), uint64(0)
		if in != nil {
			hp, hn = in[c/64]>>(c%64)&1, in[ih+c/64]>>(c%64)&1
		}
		last := len(pvs) - 1
		for k, pv := range pvs[:last] {
			mv, eq := mvs[k], eqs[k]
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
		// Word hi-1: what leaves it is read at bit top.
		pv, mv, eq := pvs[last], mvs[last], eqs[last]
		xv := eq | mv
		eq |= hn
		xh := (((eq & pv) + pv) ^ pv) | eq
		ph := mv | ^(xh | pv)
		mh := pv & xh
		phTop, mhTop := ph, mh
		ph = ph<<1 | hp
		mh = mh<<1 | hn
		pvs[last] = mh | ^(xv | ph)
		mvs[last] = ph & xv
		out[c/64] |= (phTop >> top & 1) << (c % 64)
		out[oh+c/64] |= (mhTop >> top & 1) << (c % 64)
	}
}
