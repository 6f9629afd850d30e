package peers

import (
	"math/big"
	"strings"
	"testing"
)

// The references are checked against brute force on tiny inputs, so that a
// kernel is held to the right answers and not to a shared mistake.

// bruteLCS tries every subsequence of a.
func bruteLCS(a, b []byte) int32 {
	var best int32
	for mask := 0; mask < 1<<len(a); mask++ {
		var sub []byte
		for i := range a {
			if mask>>i&1 == 1 {
				sub = append(sub, a[i])
			}
		}
		// greedy matching decides whether sub is a subsequence of b
		k := 0
		for j := 0; j < len(b) && k < len(sub); j++ {
			if b[j] == sub[k] {
				k++
			}
		}
		if k == len(sub) && int32(len(sub)) > best {
			best = int32(len(sub))
		}
	}
	return best
}

func TestRefLCS(t *testing.T) {
	row, col := RefLCS([]byte("ABCBDAB"), []byte("BDCABA"))
	if row[len(row)-1] != 4 || col[len(col)-1] != 4 {
		t.Errorf("LCS(ABCBDAB, BDCABA) = %d/%d, want 4", row[len(row)-1], col[len(col)-1])
	}
	r := seeded(testSeed(t), 11)
	for range 200 {
		a, b := randSeq(r, 1+r.IntN(9), 1+r.IntN(4)), randSeq(r, 1+r.IntN(9), 1+r.IntN(4))
		row, col := RefLCS(a, b)
		for j := range b {
			if w := bruteLCS(a, b[:j+1]); row[j] != w {
				t.Fatalf("RefLCS(%s, %s) row[%d] = %d, brute force %d", a, b, j, row[j], w)
			}
		}
		for i := range a {
			if w := bruteLCS(a[:i+1], b); col[i] != w {
				t.Fatalf("RefLCS(%s, %s) col[%d] = %d, brute force %d", a, b, i, col[i], w)
			}
		}
	}
}

// bruteNussinov is the most nested pairs of s by recursion on the first
// base: unpaired, or paired with some later base it can pair with.
func bruteNussinov(s []byte) int64 {
	if len(s) < 2 {
		return 0
	}
	best := bruteNussinov(s[1:])
	for k := 1; k < len(s); k++ {
		if nussinovPairs(s[0], s[k]) {
			best = max(best, 1+bruteNussinov(s[1:k])+bruteNussinov(s[k+1:]))
		}
	}
	return best
}

// bruteChain tries every parenthesisation.
func bruteChain(d []int64) int64 {
	if len(d) <= 2 {
		return 0
	}
	best := int64(-1)
	for k := 1; k < len(d)-1; k++ {
		c := bruteChain(d[:k+1]) + bruteChain(d[k:]) + d[0]*d[k]*d[len(d)-1]
		if best < 0 || c < best {
			best = c
		}
	}
	return best
}

func TestRefInterval(t *testing.T) {
	if got := RefMatrixChain([]int64{30, 35, 15, 5, 10, 20, 25}); got[5] != 15125 {
		t.Errorf("CLRS matrix chain = %d, want 15125", got[5])
	}
	if got := RefNussinov([]byte("GGGAAAUCC")); got[8] != bruteNussinov([]byte("GGGAAAUCC")) {
		t.Errorf("Nussinov(GGGAAAUCC) = %d, brute force %d", got[8], bruteNussinov([]byte("GGGAAAUCC")))
	}
	r := seeded(testSeed(t), 12)
	for range 100 {
		n := 1 + r.IntN(10)
		s, d := randRNA(r, n), randDims(r, n, 50)
		tn, tm := RefNussinov(s), RefMatrixChain(d)
		for i := range n {
			for j := i; j < n; j++ {
				if w := bruteNussinov(s[i : j+1]); tn[i*n+j] != w || tn[j*n+i] != w {
					t.Fatalf("RefNussinov(%s) (%d, %d) = %d/%d, brute force %d", s, i, j, tn[i*n+j], tn[j*n+i], w)
				}
				if w := bruteChain(d[i : j+2]); tm[i*n+j] != w || tm[j*n+i] != w {
					t.Fatalf("RefMatrixChain(%v) (%d, %d) = %d/%d, brute force %d", d, i, j, tm[i*n+j], tm[j*n+i], w)
				}
			}
		}
	}
}

// TestSignatures holds the Go table of kernel parameters (which checks
// every launch and generates the emulation's calls) to the sources.
func TestSignatures(t *testing.T) {
	found := map[string]bool{}
	for _, unit := range Units {
		src, err := Source(unit)
		if err != nil {
			t.Fatal(err)
		}
		for name, params := range declaredKernels(src) {
			found[name] = true
			sig, ok := kernels[name]
			switch {
			case !ok:
				t.Errorf("%s declares kernel %s, which the Go table lacks", unit, name)
			case sig.unit != unit:
				t.Errorf("kernel %s is in %s, the Go table says %s", name, unit, sig.unit)
			case strings.Join(sig.params, "|") != strings.Join(params, "|"):
				t.Errorf("kernel %s: the source has (%s), the Go table (%s)", name, strings.Join(params, ", "), strings.Join(sig.params, ", "))
			}
		}
	}
	for name := range kernels {
		if !found[name] {
			t.Errorf("the Go table lists kernel %s, which no source declares", name)
		}
	}
}

// stubDevice fails every call: the runners' input checks must refuse bad
// input before they touch a device.
type stubDevice struct{ t *testing.T }

func (d stubDevice) fail() error { d.t.Error("the device was used"); return nil }
func (d stubDevice) Build(string, []string) (Module, error) {
	return nil, d.fail()
}
func (d stubDevice) Alloc(int64) (Buf, error)          { return 0, d.fail() }
func (d stubDevice) Free(Buf) error                    { return d.fail() }
func (d stubDevice) Upload(Buf, []byte) error          { return d.fail() }
func (d stubDevice) Memset(Buf, byte, int64) error     { return d.fail() }
func (d stubDevice) Download([]byte, Buf, int64) error { return d.fail() }
func (d stubDevice) StartTimer() error                 { return d.fail() }
func (d stubDevice) StopTimer() (float64, error)       { return 0, d.fail() }
func (d stubDevice) Launch(Module, string, uint32, uint32, ...any) error {
	return d.fail()
}

func TestInputErrors(t *testing.T) {
	dev := stubDevice{t}
	for _, c := range []struct {
		name string
		run  func() error
		want string
	}{
		{"tiled empty", func() error { _, err := NewLCSTiled(dev, nil, []byte("A"), DefaultTiled); return err }, "empty"},
		{"tiled pad in a", func() error { _, err := NewLCSTiled(dev, []byte{'A', 0xFF}, []byte("A"), DefaultTiled); return err }, "a[1] is byte 0xFF"},
		{"tiled pad in b", func() error { _, err := NewLCSTiled(dev, []byte("A"), []byte{0xFE}, DefaultTiled); return err }, "b[0] is byte 0xFE"},
		{"tiled TW", func() error {
			_, err := NewLCSTiled(dev, []byte("A"), []byte("A"), TiledConfig{R: 2, CW: 3, TW: 8, WarpsPerBlock: 1})
			return err
		}, "TW = 8"},
		{"bitpar alphabet", func() error { _, err := NewLCSBitpar(dev, []byte("ACG"), []byte("TU"), DefaultBitpar); return err }, "more than 4"},
		{"bitpar CW", func() error {
			_, err := NewLCSBitpar(dev, []byte("A"), []byte("A"), BitparConfig{CW: 3, TW: 96, WarpsPerBlock: 1})
			return err
		}, "divisor of 32"},
		{"nussinov letter", func() error { _, err := NewNussinov(dev, []byte("ACGT"), Warp); return err }, `sequence[3] is 'T'`},
		{"chain dims", func() error { _, err := NewMatrixChain(dev, []int64{3, 0, 2}, Warp); return err }, "dims[1] = 0"},
		{"chain one dim", func() error { _, err := NewMatrixChain(dev, []int64{3}, Warp); return err }, "at least 2"},
		{"chain overflow", func() error { _, err := NewMatrixChain(dev, []int64{3, 3_000_000, 2, 5}, Warp); return err }, "beyond int64"},
	} {
		err := c.run()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
	// The bound is exactly (n-1) * max^3: one matrix never overflows.
	if b := MatrixChainBound([]int64{1 << 40, 1 << 40}); b.Sign() != 0 {
		t.Errorf("bound of one matrix = %s, want 0", b)
	}
	if b := MatrixChainBound([]int64{2, 3, 4}); b.Cmp(big.NewInt(64)) != 0 {
		t.Errorf("bound of 2x3, 3x4 = %s, want 64", b)
	}
}

// TestBitparHost checks the host side of lcs_bitpar — masks, codes and the
// reading of V — with a Go run of the same recurrence.
func TestBitparHost(t *testing.T) {
	r := seeded(testSeed(t), 13)
	for range 50 {
		a, b := randSeq(r, 1+r.IntN(300), 1+r.IntN(4)), randSeq(r, 1+r.IntN(200), 1+r.IntN(4))
		codes, err := bitparCodes(a, b)
		if err != nil {
			t.Fatal(err)
		}
		words := (len(a) + 63) / 64
		peq := bitparPeq(a, codes, words)
		v := make([]uint64, words)
		for w := range v {
			v[w] = ^uint64(0)
		}
		for _, ch := range b {
			var carry uint64
			for w := range v {
				m := peq[4*w+int(codes[ch])]
				u := v[w] & m
				s1 := v[w] + u
				c1 := s1 < v[w]
				s2 := s1 + carry
				c2 := s2 < s1
				v[w] = s2 | (v[w] &^ m)
				carry = 0
				if c1 || c2 {
					carry = 1
				}
			}
		}
		row, col := RefLCS(a, b)
		if got := bitparAnswer(v, len(a)); got != int64(row[len(row)-1]) {
			t.Fatalf("LCS(%s, %s): bit-parallel %d, want %d", a, b, got, row[len(row)-1])
		}
		sameInts(t, "bit-parallel last column", bitparColumn(v, len(a)), col)
	}
}
