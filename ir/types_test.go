package ir

import "testing"

// TestTypeTable checks the invariants the rest of the tree relies on, for
// every entry: a new type that breaks one fails here, not as a wrong answer.
func TestTypeTable(t *testing.T) {
	for _, ty := range Types() {
		in := ty.Info()
		if in.Name == "" || in.CName == "" || in.Bytes <= 0 || ty.Bits() != 8*in.Bytes {
			t.Errorf("%s: incomplete entry %+v", ty, in)
		}
		if ty.IsInteger() == ty.IsFloat() {
			t.Errorf("%s: integer %v, float %v", ty, ty.IsInteger(), ty.IsFloat())
		}
		if p := ty.Promoted(); p.Promoted() != p || (ty.IsFloat() && p != ty) || (ty.IsInteger() && p.Size() < 4) {
			t.Errorf("%s promotes to %s", ty, p)
		}
		if ty.Is(IsDeclared) && ParseType(in.Name) != ty {
			t.Errorf("ParseType(%q) = %s", in.Name, ParseType(in.Name))
		}
		if !ty.IsInteger() {
			continue
		}
		if in.Bytes < 8 && (in.Min != -1<<(ty.Bits()-1) || in.Max != 1<<(ty.Bits()-1)-1) && !ty.Is(IsBoolean) {
			t.Errorf("%s: representable range %d..%d", ty, in.Min, in.Max)
		}
		if ty.HasInf() {
			// The sentinels are the largest value and its negation, the
			// finite range the symmetric range one short of them.
			if in.InfPos != in.Max || in.InfNeg != -in.Max || in.FiniteHi != in.Max-1 || in.FiniteLo != -in.FiniteHi {
				t.Errorf("%s: sentinels %d %d, finite %d..%d", ty, in.InfPos, in.InfNeg, in.FiniteLo, in.FiniteHi)
			}
		}
		if ty.Is(IsCell) && !ty.HasInf() {
			t.Errorf("%s: an integer cell type needs inf sentinels", ty)
		}
	}
	if got := ParseType("bool"); got != Invalid {
		t.Errorf("bool is not a .dp type, ParseType gives %s", got)
	}
}

func TestShort(t *testing.T) {
	if Short.Size() != 2 || !Short.Is(IsCell|IsDeclared|HasInf) || Short.Promoted() != Int || Short.Info().CName != "short" {
		t.Errorf("short: %+v", Short.Info())
	}
	if lo, hi := FiniteRange(Short); lo != -32766 || hi != 32766 {
		t.Errorf("short finite range %d..%d", lo, hi)
	}
	if p, n := InfSentinel(Short); p != 32767 || n != -32767 {
		t.Errorf("short sentinels %d %d", p, n)
	}
	want := []string{"short", "int", "long", "float", "double"}
	if got := TypeNames(IsCell); len(got) != len(want) {
		t.Errorf("cell types %v, want %v", got, want)
	}
}
