package codegen

import (
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/plan"
)

// The bit-parallel programs compile as C++ against the stand-ins (the
// device's asm paths included), are the same for the same configuration,
// and differ where the configuration does.
func TestGenerateBitpar(t *testing.T) {
	seen := map[string]Bitpar{}
	for _, kind := range []plan.SpecialKind{plan.BitLCS, plan.BitLevenshtein, plan.BitIndel} {
		for _, sigma := range []int{1, 4, 5, 20, MaxBitparSigma} {
			for _, track := range []bool{false, true} {
				b := Bitpar{Kind: kind, Sigma: sigma, Track: track}
				prog, err := GenerateBitpar("lcs", b)
				if err != nil {
					t.Fatal(err)
				}
				again, _ := GenerateBitpar("lcs", b)
				if prog.Source != again.Source {
					t.Errorf("%+v: two generations differ", b)
				}
				if prog.Kernel != KernelBitpar || prog.Bitpar.CW != 8 || prog.Bitpar.Warps < 1 {
					t.Errorf("%+v: program %s kernel %s, config %+v", b, prog.Name, prog.Kernel, prog.Bitpar)
				}
				if (sigma+1)*32*8*prog.Bitpar.Warps > 48<<10 && sigma > 4 {
					t.Errorf("%+v: %d warps of shared tables exceed 48 KB", b, prog.Bitpar.Warps)
				}
				if old, dup := seen[prog.Source]; dup {
					t.Errorf("%+v and %+v generate the same source", old, b)
				}
				seen[prog.Source] = b
				if strings.Contains(prog.Source, "{{") {
					t.Errorf("%+v: leftover template actions", b)
				}
				if sigma == 5 || sigma == 4 {
					hostCheck(t, prog)
				}
			}
		}
	}
	for _, bad := range []Bitpar{
		{Kind: "nw", Sigma: 4},
		{Kind: plan.BitLCS, Sigma: 0},
		{Kind: plan.BitLCS, Sigma: MaxBitparSigma + 1},
		{Kind: plan.BitLCS, Sigma: 4, CW: 12},
		{Kind: plan.BitLCS, Sigma: 4, Warps: 33},
	} {
		if _, err := GenerateBitpar("x", bad); err == nil {
			t.Errorf("%+v: generated", bad)
		}
	}
}

// PackBitpar codes A's characters in order, B's unknown ones as Sigma, and
// sets one bit per row of A.
func TestPackBitpar(t *testing.T) {
	a := make([]int64, 130)
	for k := range a {
		a[k] = int64("CAG"[k%3])
	}
	b := []int64{'A', 'T', 'G', 'C', 'A'}
	in := PackBitpar(a, b, 8)
	if in.Sigma != 3 || in.Strips != 1 || in.Chunks != 1 || len(in.Peq) != 3*32 || len(in.Codes) != 16 {
		t.Fatalf("packed %+v", in)
	}
	if got := string(in.Codes[:6]); got != "\x00\x03\x02\x01\x00\x03" {
		t.Errorf("codes %q", got)
	}
	for r, c := range a {
		code := map[int64]int{'A': 0, 'C': 1, 'G': 2}[c]
		for k := 0; k < 3; k++ {
			set := in.Peq[k*32+r/64]>>(r%64)&1 == 1
			if set != (k == code) {
				t.Errorf("row %d (%c): bit in mask %d is %v", r, c, k, set)
			}
		}
	}
	for w := 3; w < 32; w++ {
		for k := 0; k < 3; k++ {
			if in.Peq[k*32+w] != 0 {
				t.Errorf("padding word %d of mask %d is %x", w, k, in.Peq[k*32+w])
			}
		}
	}
	if e := PackBitpar(nil, nil, 16); e.Sigma != 1 || e.Strips != 1 || e.Chunks != 1 || len(e.Codes) != 24 {
		t.Errorf("empty: %+v", e)
	}
	// Values far apart (a map, not a table over their range) and negative
	// ones code the same way: in increasing order.
	for _, vals := range [][3]int64{{-5, 7, 1 << 40}, {-70000, -3, 9}, {1000, 1001, 1002}, {-3, 0, 5}} {
		in := PackBitpar([]int64{vals[2], vals[0], vals[1], vals[0]}, []int64{vals[1], 12345678, vals[2], vals[0]}, 8)
		if in.Sigma != 3 || string(in.Codes[:4]) != "\x01\x03\x02\x00" {
			t.Errorf("values %v: sigma %d, codes %q", vals, in.Sigma, in.Codes[:4])
		}
		if in.Peq[0*32] != 0b1010 || in.Peq[1*32] != 0b0100 || in.Peq[2*32] != 0b0001 {
			t.Errorf("values %v: masks %b %b %b", vals, in.Peq[0], in.Peq[32], in.Peq[64])
		}
	}
}
