package main

import "testing"

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"65536", 65536, true},
		{"512M", 512 << 20, true},
		{"512MB", 512 << 20, true},
		{"300MiB", 300 << 20, true},
		{"2G", 2 << 30, true},
		{"1.5g", 3 << 29, true},
		{" 8 G ", 8 << 30, true},
		{"1T", 1 << 40, true},
		{"4k", 4096, true},
		{"", 0, false},
		{"0", 0, false},
		{"-1G", 0, false},
		{"1Q", 0, false},
		{"G", 0, false},
		{"1e30T", 0, false},
		{"NaN", 0, false},
	} {
		got, ok := parseBytes(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("parseBytes(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
