// Command rescore checks alignments against the sequences they align: it
// reads PAF lines (dpgpu solve --format paf, minimap2) on standard input,
// walks each line's CIGAR (cg:Z:, with =, X, M, I and D operations) over
// the two sequences, checks that every = pairs equal letters and every X
// different ones, and scores the alignment with linear gaps — the scoring
// of the needleman-wunsch built-in by default:
//
//	dpgpu solve needleman-wunsch a.fa b.fa --format paf | rescore a.fa b.fa
//	rescore -match 1 -mismatch -1 -gap -2 a.fa b.fa < out.paf
//
// It prints, for each line, the score it computed and the line's AS:i:,
// and exits 1 when they differ, a letter disagrees with its operation, or
// the CIGAR does not span the coordinates the line gives. It is how a
// traceback too large to compare with another tool (two bacterial
// genomes) is checked: the alignment must score the answer.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

func main() {
	match := flag.Int64("match", 1, "score of a pair of equal letters")
	mismatch := flag.Int64("mismatch", -1, "score of a pair of different letters")
	gap := flag.Int64("gap", -2, "score of a letter against a gap")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: rescore [-match N] [-mismatch N] [-gap N] A.fa B.fa < alignments.paf")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	a, err := readFASTA(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "rescore:", err)
		os.Exit(2)
	}
	b, err := readFASTA(flag.Arg(1))
	if err != nil {
		fmt.Fprintln(os.Stderr, "rescore:", err)
		os.Exit(2)
	}
	sc := scoring{*match, *mismatch, *gap}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	bad, lines := 0, 0
	for {
		line, err := in.ReadString('\n')
		if line = strings.TrimRight(line, "\r\n"); line != "" {
			lines++
			got, want, err := sc.check(line, a, b)
			switch {
			case err != nil:
				fmt.Printf("line %d: %v\n", lines, err)
				bad++
			case got != want:
				fmt.Printf("line %d: the alignment scores %d, the line says AS:i:%d\n", lines, got, want)
				bad++
			default:
				fmt.Printf("line %d: the alignment scores %d = AS:i:%d\n", lines, got, want)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "rescore:", err)
			os.Exit(2)
		}
	}
	if lines == 0 {
		fmt.Fprintln(os.Stderr, "rescore: no PAF line on standard input")
		os.Exit(1)
	}
	if bad > 0 {
		os.Exit(1)
	}
}

// readFASTA is the first record of a FASTA file, upper-cased.
func readFASTA(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var seq []byte
	seen := false
	for _, l := range bytes.Split(data, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) > 0 && l[0] == '>' {
			if seen {
				break
			}
			seen = true
			continue
		}
		seq = append(seq, bytes.ToUpper(l)...)
	}
	if len(seq) == 0 {
		return nil, fmt.Errorf("%s: no sequence", path)
	}
	return seq, nil
}

type scoring struct{ match, mismatch, gap int64 }

// check scores one PAF line's alignment of a (query) against b (target)
// and returns it with the line's AS:i:.
func (sc scoring) check(line string, a, b []byte) (got, want int64, err error) {
	f := strings.Split(line, "\t")
	if len(f) < 12 {
		return 0, 0, fmt.Errorf("%d fields, a PAF line has at least 12", len(f))
	}
	num := func(k int) int64 {
		n, e := strconv.ParseInt(f[k], 10, 64)
		if e != nil && err == nil {
			err = fmt.Errorf("field %d (%q) is not a number", k+1, f[k])
		}
		return n
	}
	qlen, qs, qe, tlen, ts, te := num(1), num(2), num(3), num(6), num(7), num(8)
	if err != nil {
		return 0, 0, err
	}
	if qlen != int64(len(a)) || tlen != int64(len(b)) {
		return 0, 0, fmt.Errorf("lengths %d and %d, the sequences have %d and %d", qlen, tlen, len(a), len(b))
	}
	var cigar string
	hasAS := false
	for _, tag := range f[12:] {
		switch {
		case strings.HasPrefix(tag, "cg:Z:"):
			cigar = tag[5:]
		case strings.HasPrefix(tag, "AS:i:"):
			if want, err = strconv.ParseInt(tag[5:], 10, 64); err != nil {
				return 0, 0, fmt.Errorf("AS:i: %q", tag[5:])
			}
			hasAS = true
		}
	}
	if cigar == "" || !hasAS {
		return 0, 0, errors.New("no cg:Z: CIGAR or no AS:i: score")
	}
	i, j := qs, ts
	n := int64(0)
	for k := 0; k < len(cigar); k++ {
		c := cigar[k]
		if c >= '0' && c <= '9' {
			n = n*10 + int64(c-'0')
			continue
		}
		if n == 0 {
			return 0, 0, fmt.Errorf("operation %c without a length at CIGAR offset %d", c, k)
		}
		switch c {
		case '=', 'X', 'M':
			if i+n > qe || j+n > te {
				return 0, 0, fmt.Errorf("%d%c runs past the aligned ranges", n, c)
			}
			for ; n > 0; n-- {
				eq := a[i] == b[j]
				if (c == '=' && !eq) || (c == 'X' && eq) {
					return 0, 0, fmt.Errorf("%c pairs %c (query %d) with %c (target %d)", c, a[i], i+1, b[j], j+1)
				}
				if eq {
					got += sc.match
				} else {
					got += sc.mismatch
				}
				i, j = i+1, j+1
			}
		case 'I':
			if i+n > qe {
				return 0, 0, fmt.Errorf("%dI runs past the query's range", n)
			}
			got, i, n = got+n*sc.gap, i+n, 0
		case 'D':
			if j+n > te {
				return 0, 0, fmt.Errorf("%dD runs past the target's range", n)
			}
			got, j, n = got+n*sc.gap, j+n, 0
		default:
			return 0, 0, fmt.Errorf("CIGAR operation %c", c)
		}
	}
	if i != qe || j != te {
		return 0, 0, fmt.Errorf("the CIGAR ends at query %d, target %d; the line at %d, %d", i, j, qe, te)
	}
	return got, want, nil
}
