package main

import (
	"strings"
	"testing"
)

// TestCheck: a right alignment scores its AS:i:; a letter that disagrees
// with its operation, a CIGAR that does not span the ranges and a wrong
// score are caught.
func TestCheck(t *testing.T) {
	a, b := []byte("ACGTTGCA"), []byte("ACGTGCAA")
	sc := scoring{1, -1, -2}
	line := func(cigar, as string) string {
		return "a\t8\t0\t8\t+\tb\t8\t0\t8\t7\t9\t255\tNM:i:2\tAS:i:" + as + "\tcg:Z:" + cigar
	}
	for _, c := range []struct {
		line    string
		got     int64
		wantErr string
	}{
		{line("3=1I3=1D1=", "3"), 3, ""},
		{line("4M1I2M1D1M", "3"), 3, ""}, // M for = (A over A ...), same score
		{line("8M", "2"), 2, ""},         // five equal pairs, three different
		{line("3=1I2=1D2=", "3"), 0, "= pairs"},
		{line("3=1I3=", "3"), 0, "ends at"},
		{line("3=1I3=1D1=", "4"), 3, ""},
		{line("3=1I3=1D1=2D", "3"), 0, "runs past"},
		{"a\t8\t0", 0, "fields"},
	} {
		got, want, err := sc.check(c.line, a, b)
		switch {
		case c.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%q: %v, want an error with %q", c.line, err, c.wantErr)
			}
		case err != nil:
			t.Errorf("%q: %v", c.line, err)
		case got != c.got:
			t.Errorf("%q: scores %d, want %d (AS %d)", c.line, got, c.got, want)
		}
	}
}
