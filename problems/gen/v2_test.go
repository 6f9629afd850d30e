package gen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRNAAndInts(t *testing.T) {
	r := NewRand(7)
	s := RNA(r, 40000)
	counts := map[rune]int{}
	for _, c := range s {
		counts[c]++
	}
	for _, c := range RNAAlphabet {
		within(t, "base "+string(c), counts[c], len(s), 0.25)
	}
	if len(counts) != 4 || len(s) != 40000 {
		t.Errorf("RNA: %d letters %v", len(s), counts)
	}
	v := Ints(r, 30000, -3, 2)
	seen := map[int64]int{}
	for _, x := range v {
		if x < -3 || x > 2 {
			t.Fatalf("Ints drew %d outside -3..2", x)
		}
		seen[x]++
	}
	for x := int64(-3); x <= 2; x++ {
		within(t, "value", seen[x], len(v), 1.0/6)
	}
	if a, b := RNA(NewRand(9), 50), RNA(NewRand(9), 50); a != b {
		t.Errorf("one seed, two sequences: %s %s", a, b)
	}
}

// The instances of the v2 built-ins have the shapes their files declare.
func TestV2Instances(t *testing.T) {
	r := NewRand(1)
	for _, size := range []int{1, 2, 17} {
		in, _ := ChainInstance(r, size, nil)
		if len(in.Inputs) != 1 || in.Inputs[0].Name != "d" || len(in.Inputs[0].Ints) != size+1 {
			t.Errorf("chain %d: %+v", size, in)
		}
		in, _ = RNAInstance(r, size, nil)
		if in.Inputs[0].Name != "s" || len(in.Inputs[0].Text) != size || strings.Trim(in.Inputs[0].Text, RNAAlphabet) != "" {
			t.Errorf("rna %d: %+v", size, in)
		}
		in, _ = ValuesInstance(r, size, nil)
		if in.Inputs[0].Name != "a" || len(in.Inputs[0].Ints) != size {
			t.Errorf("values %d: %+v", size, in)
		}
		in, _ = BSTInstance(r, size, nil)
		if len(in.Inputs) != 2 || len(in.Inputs[0].Ints) != size || len(in.Inputs[1].Ints) != size+1 {
			t.Errorf("bst %d: %+v", size, in)
		}
		in, err := CoinsInstance(r, size, nil)
		if err != nil || in.Inputs[0].Name != "c" || len(in.Scalars) != 1 || in.Scalars[0] != (Scalar{"amount", int64(size)}) {
			t.Errorf("coins %d: %+v %v", size, in, err)
		}
		for _, c := range in.Inputs[0].Ints {
			if c < 1 {
				t.Errorf("coins %d: coin %d", size, c)
			}
		}
	}
	if in, err := CoinsInstance(r, 5, map[string]string{"amount": "12"}); err != nil || len(in.Scalars) != 0 {
		t.Errorf("amount given: %+v %v", in, err)
	}
	if _, err := CoinsInstance(r, 5, map[string]string{"amount": "x"}); err == nil {
		t.Errorf("amount x: no error")
	}
}

func TestWriteInts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.txt")
	if err := WriteInts(path, []int64{3, -1, 40}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "3 -1 40\n" {
		t.Errorf("WriteInts wrote %q, %v", b, err)
	}
}

func TestCheckV2(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{CheckInts(0, 1, 2), "--len 0"},
		{CheckInts(3, 2, 1), "--min 2 --max 1"},
		{CheckInts(3, -MaxValue-1, 1), "within"},
		{CheckRNA(0), "--len 0"},
		{CheckRNA(MaxLength + 1), "--len"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("error %v, want one with %q", tc.err, tc.want)
		}
	}
	if CheckInts(1, -MaxValue, MaxValue) != nil || CheckRNA(1) != nil {
		t.Errorf("valid parameters refused")
	}
}
