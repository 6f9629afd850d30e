package formats

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// fastaWidth is the line length WriteFASTA wraps sequences at.
const fastaWidth = 60

// readFASTA returns the sequence of the opt.Record-th record (1-based; 0
// means the first) as a 1xN char vector; size is the file's size when known
// (see sizeHint). Header lines start with '>'; the lines of a
// sequence are joined and all whitespace dropped; lines starting with ';'
// are comments (an old FASTA convention). Letters are converted to upper
// case, because FASTA uses lower case only as a soft mask (repeats) that
// must not change which characters compare equal.
func readFASTA(r io.Reader, name string, size int64, opt Options) (*Table, error) {
	want := max(opt.Record, 1)
	lr := newLineReader(r, name, size)
	var (
		seq     []byte // bytes, widened once at the end: 8x less to grow
		records int
	)
	for line := range lr.lines() {
		if len(line) > 0 && line[0] == '>' {
			records++
			if records > want {
				break // the record wanted is complete
			}
			if records == want {
				// The sequence is at most the rest of the file.
				seq = make([]byte, 0, size)
			}
			continue
		}
		if len(line) > 0 && line[0] == ';' {
			continue // an old-style comment line; no sequence letter is ';'
		}
		if records == 0 {
			if isBlankOrComment(line) {
				continue
			}
			return nil, lr.errorf("sequence data before the first '>' header line; is this a FASTA file?")
		}
		if records != want {
			continue
		}
		var col int
		var err error
		if seq, col, err = appendChars(seq, line, true); err != nil {
			return nil, lr.errorf("column %d: %v", col, err)
		}
	}
	if lr.err != nil {
		return nil, lr.err
	}
	switch {
	case records == 0:
		return nil, errAt(name, 0, "no FASTA record (no line starts with '>')")
	case records < want:
		return nil, fmt.Errorf("%s has %d record%s, asked for #%d", name, records, plural(records), want)
	}
	// An empty record is an empty sequence (a 1x0 input), as an empty
	// string written in the .dp file is, and as dpgpu batch takes it: the
	// LCS of nothing and ACGT is 0.
	return printable(1, len(seq), seq), nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// WriteFASTA writes one FASTA record: '>' and header (the description line,
// given without the '>'), then seq in lines of 60 characters. The sequence
// must be non-empty printable ASCII without spaces, '>' or ';', so that Load
// reads back exactly seq (in upper case).
func WriteFASTA(w io.Writer, header, seq string) error {
	if strings.ContainsAny(header, "\r\n") {
		return fmt.Errorf("writing FASTA: the header %q spans lines", header)
	}
	if seq == "" {
		return fmt.Errorf("writing FASTA: empty sequence for %q", header)
	}
	for i := 0; i < len(seq); i++ {
		c := seq[i]
		if err := checkChar(c); err != nil {
			return fmt.Errorf("writing FASTA: sequence position %d: %w", i, err)
		}
		if c == '>' || c == ';' {
			return fmt.Errorf("writing FASTA: sequence position %d: %q would be read as the start of a header or comment line", i, c)
		}
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(">")
	bw.WriteString(header)
	bw.WriteByte('\n')
	for len(seq) > 0 {
		n := min(len(seq), fastaWidth)
		bw.WriteString(seq[:n])
		bw.WriteByte('\n')
		seq = seq[n:]
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing FASTA: %w", err)
	}
	return nil
}
