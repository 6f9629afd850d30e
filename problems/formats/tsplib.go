package formats

import (
	"io"
	"math"
	"strconv"
	"strings"
)

// TSPInstance is a TSPLIB instance reduced to what a solver needs: its
// distance matrix. Dist[i*N+j] is the weight of the edge from node i+1 to
// node j+1 (TSPLIB numbers nodes from 1); asymmetric (ATSP) matrices keep
// their direction, row = from, column = to.
type TSPInstance struct {
	Name string // the NAME keyword
	Type string // TSP or ATSP
	N    int
	Dist []int64 // N x N, row-major
}

// maxTSPNodes bounds DIMENSION so that a damaged file cannot ask for an
// N x N matrix that exhausts memory (16384^2 int64 is 2 GiB).
const maxTSPNodes = 1 << 14

// readTSPLIBTable reads a .tsp/.atsp file into its NxN distance matrix.
func readTSPLIBTable(r io.Reader, name string, size int64, _ Options) (*Table, error) {
	inst, err := readTSPLIB(r, name, size)
	if err != nil {
		return nil, err
	}
	return &Table{Rows: inst.N, Cols: inst.N, I: inst.Dist}, nil
}

// ReadTSPLIB reads a TSPLIB95 TSP or ATSP instance; name is used in error
// messages ("name:line: ...").
//
// Supported: EDGE_WEIGHT_TYPE EXPLICIT with EDGE_WEIGHT_FORMAT FULL_MATRIX,
// UPPER_ROW, LOWER_ROW, UPPER_DIAG_ROW, LOWER_DIAG_ROW and their _COL
// counterparts; and coordinates (NODE_COORD_SECTION) with EUC_2D, CEIL_2D,
// MAN_2D, MAX_2D, EUC_3D, MAN_3D, MAX_3D, ATT and GEO, each rounded exactly as
// the TSPLIB95 documentation defines it, because published optimal tour
// lengths hold only under those rules. The diagonal of a coordinate instance
// is 0; an explicit matrix keeps what the file gives (a triangle without
// diagonal gets 0). Display data, depots, demands and fixed edges are skipped.
func ReadTSPLIB(r io.Reader, name string) (*TSPInstance, error) {
	return readTSPLIB(r, name, 0)
}

// tspSection is a data section being read: its keyword, the line it starts
// on, and the numbers collected so far with their lines. How to read them
// is known only once the whole specification is, so they are kept as text,
// all in one buffer: ends[k] is where number k ends in text.
type tspSection struct {
	key   string
	line  int
	text  []byte
	ends  []int
	lines []int
}

// add appends a number's text, found on line.
func (s *tspSection) add(tok []byte, line int) {
	s.text = append(s.text, tok...)
	s.ends = append(s.ends, len(s.text))
	s.lines = append(s.lines, line)
}

// count is the number of numbers in the section.
func (s *tspSection) count() int { return len(s.ends) }

// num is the text of number k.
func (s *tspSection) num(k int) []byte {
	start := 0
	if k > 0 {
		start = s.ends[k-1]
	}
	return s.text[start:s.ends[k]]
}

// readTSPLIB is ReadTSPLIB; size is the file's size when known (a hint,
// see lineReader).
func readTSPLIB(r io.Reader, name string, size int64) (*TSPInstance, error) {
	lr := newLineReader(r, name, size)
	inst := &TSPInstance{}
	spec := map[string]string{}  // specification keyword -> value
	specLine := map[string]int{} // where each keyword was given
	var (
		weights, coords *tspSection
		cur             *tspSection // section whose data lines are being read
		toks            [][]byte
	)
scan:
	for line := range lr.lines() {
		toks = fields(toks[:0], line)
		if len(toks) == 0 {
			continue
		}
		if cur != nil && isNumberStart(toks[0][0]) {
			for _, t := range toks {
				cur.add(t, lr.n)
			}
			continue
		}
		cur = nil
		text := strings.TrimSpace(string(line))
		key, value, hasColon := strings.Cut(text, ":")
		key = strings.ToUpper(strings.TrimSpace(key))
		value = strings.TrimSpace(value)
		if !hasColon {
			// "KEY value" without a colon: only a section keyword may be
			// followed by data on its own line.
			key = strings.ToUpper(string(toks[0]))
			value = strings.TrimSpace(text[len(toks[0]):])
		}
		switch key {
		case "EOF":
			break scan
		case "NAME", "TYPE", "COMMENT", "DIMENSION", "CAPACITY", "EDGE_WEIGHT_TYPE",
			"EDGE_WEIGHT_FORMAT", "EDGE_DATA_FORMAT", "NODE_COORD_TYPE", "DISPLAY_DATA_TYPE":
			if key == "COMMENT" {
				continue // may repeat
			}
			if l, dup := specLine[key]; dup {
				return nil, errAt(name, lr.n, "%s given twice (first on line %d)", key, l)
			}
			spec[key], specLine[key] = value, lr.n
		case "EDGE_WEIGHT_SECTION", "NODE_COORD_SECTION", "DISPLAY_DATA_SECTION",
			"DEPOT_SECTION", "DEMAND_SECTION", "EDGE_DATA_SECTION", "FIXED_EDGES_SECTION", "TOUR_SECTION":
			if key == "TOUR_SECTION" {
				return nil, errAt(name, lr.n, "this is a tour file (TOUR_SECTION), not a TSP instance")
			}
			cur = &tspSection{key: key, line: lr.n}
			switch key {
			case "EDGE_WEIGHT_SECTION":
				if weights != nil {
					return nil, errAt(name, lr.n, "second EDGE_WEIGHT_SECTION (first on line %d)", weights.line)
				}
				weights = cur
			case "NODE_COORD_SECTION":
				if coords != nil {
					return nil, errAt(name, lr.n, "second NODE_COORD_SECTION (first on line %d)", coords.line)
				}
				coords = cur
			}
			for _, t := range fields(nil, []byte(value)) {
				cur.add(t, lr.n)
			}
		default:
			if isNumberStart(toks[0][0]) {
				return nil, errAt(name, lr.n, "numbers outside any data section")
			}
			return nil, errAt(name, lr.n, "unknown TSPLIB keyword %q", key)
		}
	}
	if lr.err != nil {
		return nil, lr.err
	}

	inst.Name = spec["NAME"]
	typ := strings.ToUpper(spec["TYPE"])
	switch typ {
	case "TSP", "ATSP":
	case "":
		return nil, errAt(name, 0, "no TYPE given (want TSP or ATSP)")
	case "TOUR":
		return nil, errAt(name, specLine["TYPE"], "this is a tour file (TYPE: TOUR), not a TSP instance")
	default:
		return nil, errAt(name, specLine["TYPE"], "TYPE %s is not supported (want TSP or ATSP)", spec["TYPE"])
	}
	inst.Type = typ
	dimText, ok := spec["DIMENSION"]
	if !ok {
		return nil, errAt(name, 0, "no DIMENSION given")
	}
	n, err := strconv.Atoi(dimText)
	if err != nil || n < 1 {
		return nil, errAt(name, specLine["DIMENSION"], "DIMENSION %q is not a positive integer", dimText)
	}
	if n > maxTSPNodes {
		return nil, errAt(name, specLine["DIMENSION"], "DIMENSION %d is too large for a full distance matrix (at most %d nodes)", n, maxTSPNodes)
	}
	inst.N = n

	ewt := strings.ToUpper(spec["EDGE_WEIGHT_TYPE"])
	switch ewt {
	case "":
		return nil, errAt(name, 0, "no EDGE_WEIGHT_TYPE given")
	case "EXPLICIT":
		if weights == nil {
			return nil, errAt(name, 0, "EDGE_WEIGHT_TYPE EXPLICIT but no EDGE_WEIGHT_SECTION")
		}
		inst.Dist, err = explicitWeights(name, typ, strings.ToUpper(spec["EDGE_WEIGHT_FORMAT"]), specLine["EDGE_WEIGHT_FORMAT"], n, weights)
	default:
		dist, dims := coordDistance(ewt)
		if dist == nil {
			return nil, errAt(name, specLine["EDGE_WEIGHT_TYPE"], "unknown EDGE_WEIGHT_TYPE %s (supported: EXPLICIT, EUC_2D, CEIL_2D, MAN_2D, MAX_2D, EUC_3D, MAN_3D, MAX_3D, ATT, GEO)", spec["EDGE_WEIGHT_TYPE"])
		}
		if coords == nil {
			return nil, errAt(name, 0, "EDGE_WEIGHT_TYPE %s but no NODE_COORD_SECTION", ewt)
		}
		inst.Dist, err = coordWeights(name, n, dims, coords, dist)
	}
	if err != nil {
		return nil, err
	}
	return inst, nil
}

// isNumberStart reports whether a token starting with c is a number rather
// than a keyword.
func isNumberStart(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.'
}

// explicitWeights fills the matrix from an EDGE_WEIGHT_SECTION.
func explicitWeights(name, typ, format string, formatLine, n int, sec *tspSection) ([]int64, error) {
	// Each format lists, in file order, the cells (i, j) it gives. A column
	// format of a symmetric matrix lists the same values as the row format of
	// the opposite triangle, so only the four row orders are needed.
	var cells func(yield func(i, j int) bool)
	switch format {
	case "FULL_MATRIX":
		cells = func(yield func(i, j int) bool) {
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					if !yield(i, j) {
						return
					}
				}
			}
		}
	case "UPPER_ROW", "LOWER_COL", "UPPER_DIAG_ROW", "LOWER_DIAG_COL":
		diag := strings.Contains(format, "DIAG")
		cells = func(yield func(i, j int) bool) {
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ {
					if (j > i || diag) && !yield(i, j) {
						return
					}
				}
			}
		}
	case "LOWER_ROW", "UPPER_COL", "LOWER_DIAG_ROW", "UPPER_DIAG_COL":
		diag := strings.Contains(format, "DIAG")
		cells = func(yield func(i, j int) bool) {
			for i := 0; i < n; i++ {
				for j := 0; j <= i; j++ {
					if (j < i || diag) && !yield(i, j) {
						return
					}
				}
			}
		}
	case "":
		return nil, errAt(name, 0, "EDGE_WEIGHT_TYPE EXPLICIT needs an EDGE_WEIGHT_FORMAT")
	default:
		return nil, errAt(name, formatLine, "unknown EDGE_WEIGHT_FORMAT %s (supported: FULL_MATRIX, UPPER_ROW, LOWER_ROW, UPPER_DIAG_ROW, LOWER_DIAG_ROW, UPPER_COL, LOWER_COL, UPPER_DIAG_COL, LOWER_DIAG_COL)", format)
	}
	if format != "FULL_MATRIX" && typ == "ATSP" {
		return nil, errAt(name, formatLine, "an ATSP matrix must be FULL_MATRIX; %s describes a symmetric one", format)
	}
	want := n * (n - 1) / 2 // a triangle without its diagonal
	switch {
	case format == "FULL_MATRIX":
		want = n * n
	case strings.Contains(format, "DIAG"):
		want = n * (n + 1) / 2
	}
	got := sec.count()
	if got < want {
		at := sec.line
		if got > 0 {
			at = sec.lines[got-1]
		}
		return nil, errAt(name, at, "EDGE_WEIGHT_SECTION (line %d): expected %d weights for %s of %d nodes, found %d",
			sec.line, want, format, n, got)
	}
	if got > want {
		return nil, errAt(name, sec.lines[want], "EDGE_WEIGHT_SECTION (line %d): expected %d weights for %s of %d nodes, found %d",
			sec.line, want, format, n, got)
	}
	dist := make([]int64, n*n)
	k := 0
	var bad error
	cells(func(i, j int) bool {
		v, err := parseInt(sec.num(k))
		if err != nil {
			bad = errAt(name, sec.lines[k], "weight %d: %v", k+1, err)
			return false
		}
		dist[i*n+j] = v
		if format != "FULL_MATRIX" {
			dist[j*n+i] = v
		}
		k++
		return true
	})
	return dist, bad
}

// coordDistance returns the distance function of a coordinate
// EDGE_WEIGHT_TYPE and how many coordinates a node has; nil if unknown.
func coordDistance(ewt string) (func(a, b []float64) int64, int) {
	switch ewt {
	case "EUC_2D", "EUC_3D":
		return func(a, b []float64) int64 {
			s := 0.0
			for k := range a {
				d := a[k] - b[k]
				s += d * d
			}
			return nint(math.Sqrt(s))
		}, dimsOf(ewt)
	case "CEIL_2D":
		return func(a, b []float64) int64 {
			dx, dy := a[0]-b[0], a[1]-b[1]
			return int64(math.Ceil(math.Sqrt(dx*dx + dy*dy)))
		}, 2
	case "MAN_2D", "MAN_3D":
		return func(a, b []float64) int64 {
			s := 0.0
			for k := range a {
				s += math.Abs(a[k] - b[k])
			}
			return nint(s)
		}, dimsOf(ewt)
	case "MAX_2D", "MAX_3D":
		return func(a, b []float64) int64 {
			var m int64
			for k := range a {
				m = max(m, nint(math.Abs(a[k]-b[k])))
			}
			return m
		}, dimsOf(ewt)
	case "ATT":
		// Pseudo-Euclidean: r = sqrt((dx^2+dy^2)/10), rounded up whenever
		// rounding to nearest would go down.
		return func(a, b []float64) int64 {
			dx, dy := a[0]-b[0], a[1]-b[1]
			r := math.Sqrt((dx*dx + dy*dy) / 10.0)
			t := nint(r)
			if float64(t) < r {
				return t + 1
			}
			return t
		}, 2
	case "GEO":
		// Coordinates are DDD.MM (degrees and minutes); RRR is TSPLIB's
		// idealised earth radius in km. PI is TSPLIB's truncated 3.141592,
		// and the degrees are truncated toward zero as in TSPLIB's own code
		// (its documentation's nint() would change some distances).
		return func(a, b []float64) int64 {
			const rrr = 6378.388
			lat1, lon1 := geoRadians(a[0]), geoRadians(a[1])
			lat2, lon2 := geoRadians(b[0]), geoRadians(b[1])
			q1 := math.Cos(lon1 - lon2)
			q2 := math.Cos(lat1 - lat2)
			q3 := math.Cos(lat1 + lat2)
			// Rounding can push the cosine a hair outside [-1, 1] (where
			// acos is NaN) for coincident or antipodal points.
			c := max(-1, min(1, 0.5*((1.0+q1)*q2-(1.0-q1)*q3)))
			return int64(rrr*math.Acos(c) + 1.0)
		}, 2
	}
	return nil, 0
}

func dimsOf(ewt string) int {
	if strings.HasSuffix(ewt, "_3D") {
		return 3
	}
	return 2
}

// nint is TSPLIB's rounding, (int)(x + 0.5), for the non-negative values
// distances are.
func nint(x float64) int64 { return int64(x + 0.5) }

// geoRadians converts a TSPLIB GEO coordinate DDD.MM to radians.
func geoRadians(x float64) float64 {
	const pi = 3.141592
	deg := math.Trunc(x)
	minutes := x - deg
	return pi * (deg + 5.0*minutes/3.0) / 180.0
}

// coordWeights computes the matrix from a NODE_COORD_SECTION of lines
// "node x y [z]", nodes 1..n each exactly once, in any order.
func coordWeights(name string, n, dims int, sec *tspSection, dist func(a, b []float64) int64) ([]int64, error) {
	per := 1 + dims
	if sec.count()%per != 0 || sec.count()/per != n {
		at := sec.line
		if sec.count() > 0 {
			at = sec.lines[sec.count()-1]
		}
		layout := "node x y"
		if dims == 3 {
			layout = "node x y z"
		}
		return nil, errAt(name, at, "NODE_COORD_SECTION (line %d): expected %d lines \"%s\" (%d numbers), found %d numbers",
			sec.line, n, layout, n*per, sec.count())
	}
	xy := make([]float64, n*dims)
	seen := make([]int, n) // line where each node was given
	for k := 0; k < n; k++ {
		line := sec.lines[k*per]
		if sec.lines[k*per+per-1] != line || k > 0 && sec.lines[k*per-1] == line {
			return nil, errAt(name, line, "a node line must hold the node number and %d coordinates, nothing else", dims)
		}
		node := sec.num(k * per)
		id, err := strconv.Atoi(string(node))
		if err != nil || id < 1 || id > n {
			return nil, errAt(name, line, "node number %q is not in 1..%d", node, n)
		}
		if seen[id-1] != 0 {
			return nil, errAt(name, line, "node %d given twice (first on line %d)", id, seen[id-1])
		}
		seen[id-1] = line
		for c := 0; c < dims; c++ {
			coord := sec.num(k*per + 1 + c)
			v, err := strconv.ParseFloat(string(coord), 64)
			if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				return nil, errAt(name, line, "coordinate %q of node %d is not a finite number", coord, id)
			}
			xy[(id-1)*dims+c] = v
		}
	}
	d := make([]int64, n*n)
	for i := 0; i < n; i++ {
		a := xy[i*dims : (i+1)*dims]
		for j := 0; j < n; j++ {
			if i != j {
				d[i*n+j] = dist(a, xy[j*dims:(j+1)*dims])
			}
		}
	}
	return d, nil
}
