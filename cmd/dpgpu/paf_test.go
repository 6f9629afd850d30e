package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dpgpu/dpgpu/internal/dptest"
)

// TestAlignmentFormats: `solve --format paf|sam` of global and local
// alignments of random sequences at awkward lengths write records that
// parse, whose coordinates, counts and CIGAR agree with each other and
// with the sequences, and whose CIGAR scores to the answer.
func TestAlignmentFormats(t *testing.T) {
	r := dptest.Rand(t)
	dir := t.TempDir()
	write := func(name, seq string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(">"+name+"\n"+seq+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, builtin := range []string{"needleman-wunsch", "smith-waterman", "gotoh"} {
		for _, n := range []int{1, 2, 17, 64, 301} {
			a, b := dptest.String(r, n, "ACG"), dptest.String(r, n+r.IntN(9), "ACG")
			fa, fb := write(fmt.Sprintf("q%d.fa", n), a), write(fmt.Sprintf("t%d.fa", n), b)
			out, errs, code := dpgpu(t, "solve", "-b", "cpu", "--json", builtin, fa, fb)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", builtin, code, errs)
			}
			answer := jsonInt(t, out, "answer")
			match, mismatch, gap := int64(1), int64(-1), int64(-2) // needleman-wunsch's
			if builtin == "smith-waterman" {
				match, mismatch, gap = 3, -3, -2
			}

			out, errs, code = dpgpu(t, "solve", "-b", "cpu", "-f", "paf", builtin, fa, fb)
			if code != 0 {
				t.Fatalf("%s paf: exit %d: %s", builtin, code, errs)
			}
			f := strings.Split(strings.TrimSuffix(out, "\n"), "\t")
			if len(f) < 15 || strings.Contains(out[:len(out)-1], "\n") {
				t.Fatalf("%s: not one PAF line of 12 columns and 3 tags: %q", builtin, out)
			}
			num := func(k int) int64 {
				v, err := strconv.ParseInt(f[k], 10, 64)
				if err != nil {
					t.Fatalf("%s: PAF column %d %q: %v", builtin, k+1, f[k], err)
				}
				return v
			}
			qlen, qs, qe, tlen, ts, te, matches, alen := num(1), num(2), num(3), num(6), num(7), num(8), num(9), num(10)
			cigar := strings.TrimPrefix(f[len(f)-1], "cg:Z:")
			if f[0] != fmt.Sprintf("q%d", n) || f[5] != fmt.Sprintf("t%d", n) || f[4] != "+" || qlen != int64(len(a)) || tlen != int64(len(b)) {
				t.Errorf("%s: names, strand or lengths: %q", builtin, out)
			}
			// Walk the CIGAR over the sequences: what it consumes, what it
			// counts, what it scores.
			qi, ti := qs, ts
			var eq, cols, nm, score int64
			ops, counts := cigarOpsOf(t, cigar)
			for k, op := range ops {
				c := counts[k]
				cols += c
				switch op {
				case '=', 'X':
					for x := int64(0); x < c; x++ {
						same := a[qi+x] == b[ti+x]
						if same != (op == '=') {
							t.Fatalf("%s: %c at query %d, target %d: %c against %c", builtin, op, qi+x, ti+x, a[qi+x], b[ti+x])
						}
					}
					if op == '=' {
						eq += c
						score += c * match
					} else {
						nm += c
						score += c * mismatch
					}
					qi, ti = qi+c, ti+c
				case 'I':
					qi, nm, score = qi+c, nm+c, score+c*gap
				case 'D':
					ti, nm, score = ti+c, nm+c, score+c*gap
				default:
					t.Fatalf("%s: CIGAR %q has %c", builtin, cigar, op)
				}
			}
			if qi != qe || ti != te || eq != matches || cols != alen || !strings.Contains(out, fmt.Sprintf("NM:i:%d\t", nm)) {
				t.Errorf("%s n=%d: the CIGAR %q ends at %d, %d with %d matches of %d columns (NM %d); the line says %d, %d, %d, %d: %q", builtin, n, cigar, qi, ti, eq, cols, nm, qe, te, matches, alen, out)
			}
			if builtin != "smith-waterman" && (qs != 0 || ts != 0 || qe != qlen || te != tlen) {
				t.Errorf("a global alignment covers %d..%d and %d..%d", qs, qe, ts, te)
			}
			if builtin == "gotoh" {
				// Affine gaps: every run of I or D opens a gap (o = 5) and
				// extends it by each letter (e = 2), match 2, mismatch -3.
				score = 0
				for k, op := range ops {
					switch op {
					case '=':
						score += 2 * counts[k]
					case 'X':
						score -= 3 * counts[k]
					default:
						score -= 5 + 2*counts[k]
					}
				}
			}
			if score != answer {
				t.Errorf("%s n=%d: the CIGAR scores %d, the answer is %d (%q)", builtin, n, score, answer, out)
			}

			out, errs, code = dpgpu(t, "solve", "-b", "cpu", "-f", "sam", builtin, fa, fb)
			if code != 0 {
				t.Fatalf("%s sam: exit %d: %s", builtin, code, errs)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != 4 || !strings.HasPrefix(lines[0], "@HD\tVN:") || lines[1] != fmt.Sprintf("@SQ\tSN:t%d\tLN:%d", n, len(b)) {
				t.Fatalf("%s: SAM header: %q", builtin, out)
			}
			s := strings.Split(lines[3], "\t")
			if len(s) >= 11 && s[1] == "4" {
				// Unmapped: nothing aligned, which only a local alignment may be.
				if builtin != "smith-waterman" || cols != 0 || s[2] != "*" || s[5] != "*" || s[9] != a {
					t.Errorf("%s: unmapped record %q for an alignment of %d columns", builtin, lines[3], cols)
				}
				continue
			}
			if len(s) < 11 || s[0] != fmt.Sprintf("q%d", n) || s[1] != "0" || s[2] != fmt.Sprintf("t%d", n) || s[9] != a {
				t.Fatalf("%s: SAM record: %q", builtin, lines[3])
			}
			sops, scounts := cigarOpsOf(t, s[5])
			var read int64
			for k, op := range sops {
				if strings.IndexByte("=XIS", op) >= 0 {
					read += scounts[k]
				}
			}
			if read != int64(len(a)) || sops[0] == 'D' || sops[len(sops)-1] == 'D' {
				t.Errorf("%s: SAM CIGAR %q covers %d letters of a %d-letter query, or starts or ends with D", builtin, s[5], read, len(a))
			}
		}
	}
}

// cigarOpsOf splits a CIGAR into its letters and counts.
func cigarOpsOf(t *testing.T, c string) (ops []byte, counts []int64) {
	t.Helper()
	var k int64
	digits := false
	for i := 0; i < len(c); i++ {
		if c[i] >= '0' && c[i] <= '9' {
			k, digits = 10*k+int64(c[i]-'0'), true
			continue
		}
		if !digits || k == 0 {
			t.Fatalf("CIGAR %q: an operation without a count", c)
		}
		ops, counts = append(ops, c[i]), append(counts, k)
		k, digits = 0, false
	}
	if digits {
		t.Fatalf("CIGAR %q ends in a count", c)
	}
	return ops, counts
}

// jsonInt is the integer value of key in a JSON object's text.
func jsonInt(t *testing.T, out, key string) int64 {
	t.Helper()
	i := strings.Index(out, "\""+key+"\": ")
	if i < 0 {
		t.Fatalf("no %s in %s", key, out)
	}
	rest := out[i+len(key)+4:]
	end := strings.IndexAny(rest, ",\n}")
	v, err := strconv.ParseInt(strings.TrimSpace(rest[:end]), 10, 64)
	if err != nil {
		t.Fatalf("%s: %v in %s", key, err, out)
	}
	return v
}

// TestBatchPAF: `batch --format paf` writes one PAF line an alignment, in
// input order, named by the records, each line what `solve --format paf`
// writes for that pair (but for the names), and a '#' line for a record
// that fails.
func TestBatchPAF(t *testing.T) {
	a, _, as, _ := batchFiles(t, 5, 1)
	out, errText, code := dpgpu(t, "batch", "needleman-wunsch", a, a, "--pairs", "--format", "paf", "-q")
	if code != 2 { // batchFiles plants a bad record
		t.Fatalf("exit %d: %s", code, errText)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(as) {
		t.Fatalf("%d lines, want %d: %q", len(lines), len(as), out)
	}
	for k, l := range lines {
		if k == 2 {
			if !strings.HasPrefix(l, "# 3\t") || !strings.Contains(l, "error") {
				t.Errorf("line %d: %q, want the bad record's comment", k, l)
			}
			continue
		}
		f := strings.Split(l, "\t")
		name := fmt.Sprintf("a%d", k)
		n := strconv.Itoa(len(as[k]))
		// A sequence against itself: all matches, one run of = (none for
		// an empty sequence).
		cigar := "cg:Z:" + n + "="
		if n == "0" {
			cigar = "cg:Z:"
		}
		if len(f) < 15 || f[0] != name || f[5] != name || f[1] != n || f[9] != n || f[10] != n || f[len(f)-1] != cigar || f[11] != "255" {
			t.Errorf("line %d: %q", k, l)
		}
	}
}
