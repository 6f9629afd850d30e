package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/problems/render"
)

// AlignFormats are the interchange formats `solve --format` writes an
// alignment's traceback in, besides the default text.
var AlignFormats = []string{"paf", "sam"}

// scoreTag is the AS:i: tag of an integer score, "" for another.
func scoreTag(score ir.Value) string {
	if score.T.IsFloat() {
		return ""
	}
	if pos, neg := ir.InfSentinel(score.T); score.I == pos || score.I == neg {
		return ""
	}
	return fmt.Sprintf("\tAS:i:%d", score.I)
}

// PAF writes r as one line of minimap2's Pairwise mApping Format: the 12
// columns (query name, length, start, end, strand, target name, length,
// start, end, matching bases, alignment length, mapping quality 255 for
// unknown) and the tags NM:i (edit distance), AS:i (score, when an
// integer) and cg:Z (the CIGAR).
func PAF(w io.Writer, r render.Record, score ir.Value) error {
	_, err := fmt.Fprintf(w, "%s\t%d\t%d\t%d\t+\t%s\t%d\t%d\t%d\t%d\t%d\t255\tNM:i:%d%s\tcg:Z:%s\n",
		r.QName, len(r.Query), r.QStart, r.QEnd, r.TName, len(r.Target), r.TStart, r.TEnd,
		r.Matches, r.Length, r.NM, scoreTag(score), r.CIGAR)
	return err
}

// SAM writes r as a SAM file: the header (@HD, the target as @SQ, @PG)
// and one record of the query against it — flag 0, 1-based position,
// MAPQ 255, the CIGAR with the query's unaligned ends soft-clipped (S),
// the query's letters, no qualities, and the tags NM:i and AS:i; flag 4
// (unmapped) when nothing is aligned.
func SAM(w io.Writer, r render.Record, score ir.Value, version string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "@HD\tVN:1.6\tSO:unsorted\n@SQ\tSN:%s\tLN:%d\n@PG\tID:dpgpu\tPN:dpgpu\tVN:%s\n", r.TName, len(r.Target), version)
	// Deletions at either end are letters of the target outside the
	// alignment for SAM: the record starts at the first aligned letter.
	cigar, pos := trimDeletions(r.CIGAR), r.TStart+leadingDeletions(r.CIGAR)
	if r.QStart > 0 {
		cigar = fmt.Sprintf("%dS", r.QStart) + cigar
	}
	if q := int64(len(r.Query)); r.QEnd < q {
		cigar += fmt.Sprintf("%dS", q-r.QEnd)
	}
	seq := string(r.Query)
	if r.Length == 0 || seq == "" {
		// Nothing aligned (a local alignment that scores nothing): an
		// unmapped record, flag 4.
		if seq == "" {
			seq = "*"
		}
		fmt.Fprintf(&b, "%s\t4\t*\t0\t0\t*\t*\t0\t0\t%s\t*%s\n", r.QName, seq, scoreTag(score))
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "%s\t0\t%s\t%d\t255\t%s\t*\t0\t0\t%s\t*\tNM:i:%d%s\n", r.QName, r.TName, pos+1, cigar, seq, r.NM, scoreTag(score))
	_, err := io.WriteString(w, b.String())
	return err
}

// cigarOps splits a CIGAR string into its operations' counts and letters.
func cigarOps(c string) (n []int64, op []byte) {
	var k int64
	for i := 0; i < len(c); i++ {
		if d := c[i]; d >= '0' && d <= '9' {
			k = 10*k + int64(d-'0')
			continue
		}
		n, op = append(n, k), append(op, c[i])
		k = 0
	}
	return n, op
}

// leadingDeletions is the count of a CIGAR's first operation when it is D.
func leadingDeletions(c string) int64 {
	n, op := cigarOps(c)
	if len(op) > 0 && op[0] == 'D' {
		return n[0]
	}
	return 0
}

// trimDeletions is the CIGAR without D operations at either end.
func trimDeletions(c string) string {
	n, op := cigarOps(c)
	for len(op) > 0 && op[0] == 'D' {
		n, op = n[1:], op[1:]
	}
	for len(op) > 0 && op[len(op)-1] == 'D' {
		n, op = n[:len(n)-1], op[:len(op)-1]
	}
	var b strings.Builder
	for k := range op {
		fmt.Fprintf(&b, "%d%c", n[k], op[k])
	}
	return b.String()
}

// AlignJSON is an alignment's record in `solve --json`.
type AlignJSON struct {
	Query       string  `json:"query"`
	Target      string  `json:"target"`
	QueryStart  int64   `json:"query_start"` // 0-based
	QueryEnd    int64   `json:"query_end"`   // exclusive
	TargetStart int64   `json:"target_start"`
	TargetEnd   int64   `json:"target_end"`
	CIGAR       string  `json:"cigar"` // SAM's =XID
	Matches     int64   `json:"matches"`
	Length      int64   `json:"length"`
	NM          int64   `json:"edit_distance"`
	Identity    float64 `json:"identity"`
}

// AlignObject is r for JSON.
func AlignObject(r render.Record) *AlignJSON {
	return &AlignJSON{Query: r.QName, Target: r.TName, QueryStart: r.QStart, QueryEnd: r.QEnd, TargetStart: r.TStart, TargetEnd: r.TEnd,
		CIGAR: r.CIGAR, Matches: r.Matches, Length: r.Length, NM: r.NM, Identity: r.Identity()}
}
