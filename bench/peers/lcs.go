package peers

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Result is one timed solve.
type Result struct {
	Answer int64
	Ms     float64 // device time of the DP's launches (CUDA events)
}

// TiledConfig is the shape of lcs_tiled: each warp computes a tile of 32*R
// rows by TW columns, CW columns per pipeline step; a block holds
// WarpsPerBlock tiles.
type TiledConfig struct {
	R, CW, TW, WarpsPerBlock int
}

// DefaultTiled is the shape the perf run uses unless told otherwise: tiles
// of 256 x 512 give up to 512 warps per launch at 262,144^2 (341 on
// average) while the pipeline fill of a tile (31 steps) stays under a fifth
// of its 159 steps. Untuned: sweep with DPGPU_PEERS_TILED on the device.
var DefaultTiled = TiledConfig{R: 8, CW: 4, TW: 512, WarpsPerBlock: 4}

func (c TiledConfig) String() string {
	return fmt.Sprintf("R=%d CW=%d TW=%d WPB=%d", c.R, c.CW, c.TW, c.WarpsPerBlock)
}

func (c TiledConfig) validate() error {
	switch {
	case c.R < 1 || c.R > 64:
		return fmt.Errorf("lcs_tiled: R = %d rows per lane, want 1..64", c.R)
	case c.CW < 1 || c.CW > 64:
		return fmt.Errorf("lcs_tiled: CW = %d columns per step, want 1..64", c.CW)
	case c.TW < c.CW || c.TW%c.CW != 0 || c.TW > 1<<20:
		return fmt.Errorf("lcs_tiled: TW = %d, want a multiple of CW = %d up to 2^20", c.TW, c.CW)
	case c.WarpsPerBlock < 1 || c.WarpsPerBlock > 32:
		return fmt.Errorf("lcs_tiled: %d warps per block, want 1..32", c.WarpsPerBlock)
	}
	return nil
}

func (c TiledConfig) defines() []string {
	return []string{fmt.Sprintf("LT_R=%d", c.R), fmt.Sprintf("LT_CW=%d", c.CW), fmt.Sprintf("LT_TW=%d", c.TW)}
}

// Pad bytes of lcs_tiled (see lcs_tiled.cu): a is padded with padA, b with
// padB, so a may not hold padB and b may not hold padA.
const (
	padA = 0xFE
	padB = 0xFF
)

// tileDiagonals calls launch for every tile anti-diagonal d of an nTI x nTJ
// tiling with the first tile row on it and the number of tiles.
func tileDiagonals(nTI, nTJ int, launch func(d, tiLo, ntiles int) error) error {
	for d := 0; d < nTI+nTJ-1; d++ {
		lo, hi := max(0, d-(nTJ-1)), min(d, nTI-1)
		if err := launch(d, lo, hi-lo+1); err != nil {
			return fmt.Errorf("diagonal %d: %w", d, err)
		}
	}
	return nil
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// checkLaunchable rejects tilings whose indices would not fit the kernels'
// int parameters.
func checkLaunchable(what string, nTI, nTJ int) error {
	if nTI+nTJ > math.MaxInt32/2 {
		return fmt.Errorf("%s: %d x %d tiles is beyond the kernel's int indices", what, nTI, nTJ)
	}
	return nil
}

// LCSTiled is one LCS instance on the device for lcs_tiled.
type LCSTiled struct {
	dev              Device
	mod              Module
	cfg              TiledConfig
	n, m             int
	npad, mpad       int
	nTI, nTJ         int
	a, b, hb, vb, db Buf
	bufs             []Buf
}

// NewLCSTiled uploads a and b (any bytes but a 0xFF in a or a 0xFE in b, the
// pad bytes) and builds lcs_tiled for cfg.
func NewLCSTiled(dev Device, a, b []byte, cfg TiledConfig) (x *LCSTiled, err error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if len(a) == 0 || len(b) == 0 {
		return nil, errors.New("lcs_tiled: empty sequence")
	}
	if k := slices.Index(a, padB); k >= 0 {
		return nil, fmt.Errorf("lcs_tiled: a[%d] is byte 0x%X, which pads b", k, padB)
	}
	if k := slices.Index(b, padA); k >= 0 {
		return nil, fmt.Errorf("lcs_tiled: b[%d] is byte 0x%X, which pads a", k, padA)
	}
	x = &LCSTiled{dev: dev, cfg: cfg, n: len(a), m: len(b)}
	th := 32 * cfg.R
	x.nTI, x.nTJ = ceilDiv(x.n, th), ceilDiv(x.m, cfg.TW)
	if err := checkLaunchable("lcs_tiled", x.nTI, x.nTJ); err != nil {
		return nil, err
	}
	x.npad, x.mpad = x.nTI*th, x.nTJ*cfg.TW
	// Front padding: the real grid ends at the bottom-right corner.
	ap := make([]byte, x.npad)
	for k := range x.npad - x.n {
		ap[k] = padA
	}
	copy(ap[x.npad-x.n:], a)
	bp := make([]byte, x.mpad)
	for k := range x.mpad - x.m {
		bp[k] = padB
	}
	copy(bp[x.mpad-x.m:], b)

	defer func() {
		if err != nil {
			err = errors.Join(err, x.Close())
			x = nil
		}
	}()
	if x.mod, err = dev.Build("lcs_tiled.cu", cfg.defines()); err != nil {
		return x, err
	}
	alloc := func(dst *Buf, bytes int) error {
		p, err := dev.Alloc(int64(bytes))
		if err != nil {
			return err
		}
		*dst = p
		x.bufs = append(x.bufs, p)
		return nil
	}
	for _, s := range []struct {
		dst   *Buf
		bytes int
	}{{&x.a, x.npad}, {&x.b, x.mpad}, {&x.hb, 4 * x.mpad}, {&x.vb, 4 * x.npad}, {&x.db, 4 * (x.nTI + x.nTJ)}} {
		if err = alloc(s.dst, s.bytes); err != nil {
			return x, err
		}
	}
	if err = dev.Upload(x.a, ap); err != nil {
		return x, err
	}
	err = dev.Upload(x.b, bp)
	return x, err
}

// Cells is the size of the DP grid, n*m.
func (x *LCSTiled) Cells() int64 { return int64(x.n) * int64(x.m) }

// Module is the compiled kernel.
func (x *LCSTiled) Module() Module { return x.mod }

// Run solves the instance once: clears the borders, then times the launches.
func (x *LCSTiled) Run() (Result, error) {
	for _, c := range []struct {
		b Buf
		n int
	}{{x.hb, x.mpad}, {x.vb, x.npad}, {x.db, x.nTI + x.nTJ}} {
		if err := x.dev.Memset(c.b, 0, 4*int64(c.n)); err != nil {
			return Result{}, err
		}
	}
	if err := x.dev.StartTimer(); err != nil {
		return Result{}, err
	}
	wpb := x.cfg.WarpsPerBlock
	err := tileDiagonals(x.nTI, x.nTJ, func(d, lo, nt int) error {
		return x.dev.Launch(x.mod, "lcs_tiled", uint32(ceilDiv(nt, wpb)), uint32(32*wpb),
			x.a, x.b, x.hb, x.vb, x.db, int32(d), int32(lo), int32(nt), int32(x.nTJ))
	})
	if err != nil {
		return Result{}, fmt.Errorf("lcs_tiled: %w", err)
	}
	ms, err := x.dev.StopTimer()
	if err != nil {
		return Result{}, fmt.Errorf("lcs_tiled: %w", err)
	}
	last, err := downloadInt32(x.dev, x.hb, x.mpad-1, 1)
	if err != nil {
		return Result{}, err
	}
	return Result{Answer: int64(last[0]), Ms: ms}, nil
}

// LastRow is row n of the grid after Run: LCS(a, b[:j]) for j = 1..m.
func (x *LCSTiled) LastRow() ([]int32, error) { return downloadInt32(x.dev, x.hb, x.mpad-x.m, x.m) }

// LastColumn is column m of the grid after Run: LCS(a[:i], b) for i = 1..n.
func (x *LCSTiled) LastColumn() ([]int32, error) {
	return downloadInt32(x.dev, x.vb, x.npad-x.n, x.n)
}

// Close frees the device buffers.
func (x *LCSTiled) Close() error { return freeAll(x.dev, &x.bufs) }

func freeAll(dev Device, bufs *[]Buf) error {
	var errs []error
	for _, b := range *bufs {
		errs = append(errs, dev.Free(b))
	}
	*bufs = nil
	return errors.Join(errs...)
}

// downloadInt32 reads count int32 starting at element first of src.
func downloadInt32(dev Device, src Buf, first, count int) ([]int32, error) {
	raw := make([]byte, 4*count)
	if err := dev.Download(raw, src, 4*int64(first)); err != nil {
		return nil, err
	}
	out := make([]int32, count)
	for k := range out {
		out[k] = int32(binary.LittleEndian.Uint32(raw[4*k:]))
	}
	return out, nil
}

// BitparConfig is the shape of lcs_bitpar: tiles of 32 words (2048 rows) by
// TW columns, CW columns per pipeline step, WarpsPerBlock tiles per block.
type BitparConfig struct {
	CW, TW, WarpsPerBlock int
}

// DefaultBitpar is the perf run's shape: 1024-column tiles keep the
// pipeline fill (31 of a tile's 159 steps of 8 columns) under a fifth.
// Untuned: sweep with DPGPU_PEERS_BITPAR on the device.
var DefaultBitpar = BitparConfig{CW: 8, TW: 1024, WarpsPerBlock: 4}

func (c BitparConfig) String() string {
	return fmt.Sprintf("CW=%d TW=%d WPB=%d", c.CW, c.TW, c.WarpsPerBlock)
}

func (c BitparConfig) validate() error {
	switch {
	case c.CW < 1 || c.CW > 32 || 32%c.CW != 0:
		return fmt.Errorf("lcs_bitpar: CW = %d columns per step, want a divisor of 32", c.CW)
	case c.TW < 32 || c.TW%32 != 0 || c.TW > 1<<20:
		return fmt.Errorf("lcs_bitpar: TW = %d, want a multiple of 32 up to 2^20", c.TW)
	case c.WarpsPerBlock < 1 || c.WarpsPerBlock > 32:
		return fmt.Errorf("lcs_bitpar: %d warps per block, want 1..32", c.WarpsPerBlock)
	}
	return nil
}

func (c BitparConfig) defines() []string {
	return []string{fmt.Sprintf("BP_CW=%d", c.CW), fmt.Sprintf("BP_TW=%d", c.TW)}
}

// LCSBitpar is one LCS instance on the device for lcs_bitpar.
type LCSBitpar struct {
	dev          Device
	mod          Module
	cfg          BitparConfig
	n, m         int
	words        int // words of V, a whole number of strips
	nTI, nTJ     int
	peq, b, v, c Buf
	bufs         []Buf
	final        []uint64 // V after the last Run
}

// bitparCodes maps the bytes of a and b to codes 0..3 (in byte order); the
// kernel handles alphabets of at most four symbols.
func bitparCodes(a, b []byte) (map[byte]byte, error) {
	var seen [256]bool
	for _, s := range [][]byte{a, b} {
		for _, c := range s {
			seen[c] = true
		}
	}
	codes := map[byte]byte{}
	for c := range 256 {
		if seen[c] {
			if len(codes) == 4 {
				return nil, errors.New("lcs_bitpar: the sequences use more than 4 distinct bytes; the kernel keeps 4 match masks per word")
			}
			codes[byte(c)] = byte(len(codes))
		}
	}
	return codes, nil
}

// bitparPeq is the match masks, 4 per word: bit i%64 of mask c of word i/64
// is set when a[i] has code c.
func bitparPeq(a []byte, codes map[byte]byte, words int) []uint64 {
	peq := make([]uint64, 4*words)
	for i, ch := range a {
		peq[4*(i/64)+int(codes[ch])] |= 1 << (i % 64)
	}
	return peq
}

// bitparColumn is LCS(a[:i], b) for i = 1..n from the final V: the zero bits
// among its first i bits.
func bitparColumn(v []uint64, n int) []int32 {
	out := make([]int32, n)
	zeros := 0
	for i := range n {
		if v[i/64]>>(i%64)&1 == 0 {
			zeros++
		}
		out[i] = int32(zeros)
	}
	return out
}

// bitparAnswer is the LCS: the zero bits among the first n bits of v.
func bitparAnswer(v []uint64, n int) int64 {
	ones := 0
	for w := range n / 64 {
		ones += bits.OnesCount64(v[w])
	}
	if r := n % 64; r != 0 {
		ones += bits.OnesCount64(v[n/64] & (1<<r - 1))
	}
	return int64(n - ones)
}

// NewLCSBitpar uploads a and b (at most 4 distinct bytes between them) and
// builds lcs_bitpar for cfg.
func NewLCSBitpar(dev Device, a, b []byte, cfg BitparConfig) (x *LCSBitpar, err error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if len(a) == 0 || len(b) == 0 {
		return nil, errors.New("lcs_bitpar: empty sequence")
	}
	codes, err := bitparCodes(a, b)
	if err != nil {
		return nil, err
	}
	x = &LCSBitpar{dev: dev, cfg: cfg, n: len(a), m: len(b)}
	x.nTI, x.nTJ = ceilDiv(ceilDiv(x.n, 64), 32), ceilDiv(x.m, cfg.TW)
	if err := checkLaunchable("lcs_bitpar", x.nTI, x.nTJ); err != nil {
		return nil, err
	}
	x.words = 32 * x.nTI
	peq := bitparPeq(a, codes, x.words)
	mpad := x.nTJ * cfg.TW
	bc := make([]byte, mpad)
	for j := range bc {
		bc[j] = 4 // matches nothing
	}
	for j, ch := range b {
		bc[j] = codes[ch]
	}

	defer func() {
		if err != nil {
			err = errors.Join(err, x.Close())
			x = nil
		}
	}()
	if x.mod, err = dev.Build("lcs_bitpar.cu", cfg.defines()); err != nil {
		return x, err
	}
	for _, s := range []struct {
		dst   *Buf
		bytes int
	}{{&x.peq, 8 * len(peq)}, {&x.b, mpad}, {&x.v, 8 * x.words}, {&x.c, mpad / 8}} {
		p, err := dev.Alloc(int64(s.bytes))
		if err != nil {
			return x, err
		}
		*s.dst = p
		x.bufs = append(x.bufs, p)
	}
	if err = dev.Upload(x.peq, asBytes(peq)); err != nil {
		return x, err
	}
	err = dev.Upload(x.b, bc)
	return x, err
}

// Cells is the size of the DP grid, n*m.
func (x *LCSBitpar) Cells() int64 { return int64(x.n) * int64(x.m) }

// Module is the compiled kernel.
func (x *LCSBitpar) Module() Module { return x.mod }

// Run solves the instance once: sets V to ones and clears the carries, then
// times the launches. The answer is counted on the host from V (n/64
// words), outside the timed work.
func (x *LCSBitpar) Run() (Result, error) {
	if err := x.dev.Memset(x.v, 0xFF, 8*int64(x.words)); err != nil {
		return Result{}, err
	}
	if err := x.dev.Memset(x.c, 0, int64(x.nTJ*x.cfg.TW/8)); err != nil {
		return Result{}, err
	}
	if err := x.dev.StartTimer(); err != nil {
		return Result{}, err
	}
	wpb := x.cfg.WarpsPerBlock
	err := tileDiagonals(x.nTI, x.nTJ, func(d, lo, nt int) error {
		return x.dev.Launch(x.mod, "lcs_bitpar", uint32(ceilDiv(nt, wpb)), uint32(32*wpb),
			x.peq, x.b, x.v, x.c, int32(d), int32(lo), int32(nt))
	})
	if err != nil {
		return Result{}, fmt.Errorf("lcs_bitpar: %w", err)
	}
	ms, err := x.dev.StopTimer()
	if err != nil {
		return Result{}, fmt.Errorf("lcs_bitpar: %w", err)
	}
	raw := make([]byte, 8*x.words)
	if err := x.dev.Download(raw, x.v, 0); err != nil {
		return Result{}, err
	}
	x.final = make([]uint64, x.words)
	for w := range x.final {
		x.final[w] = binary.LittleEndian.Uint64(raw[8*w:])
	}
	return Result{Answer: bitparAnswer(x.final, x.n), Ms: ms}, nil
}

// LastColumn is LCS(a[:i], b) for i = 1..n, after Run.
func (x *LCSBitpar) LastColumn() ([]int32, error) {
	if x.final == nil {
		return nil, errors.New("lcs_bitpar: not run yet")
	}
	return bitparColumn(x.final, x.n), nil
}

// Close frees the device buffers.
func (x *LCSBitpar) Close() error { return freeAll(x.dev, &x.bufs) }
