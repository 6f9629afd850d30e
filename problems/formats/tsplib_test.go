package formats

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// tsplibDir holds the TSPLIB files, one copy shared with the tests of other
// packages (dptest.Path("tsplib/...")). This package's internal tests
// cannot import dptest, which imports sema and so this package: the path
// is spelled out instead.
const tsplibDir = "../../internal/dptest/testdata/tsplib/"

// The TSPLIB files in tsplibDir are byte-for-byte copies of the TSPLIB95
// distribution (see OPTIMA.txt there); the optima are TSPLIB's published
// best-known (proven optimal) tour lengths.
var tsplibFiles = []struct {
	file string
	typ  string
	n    int
	opt  int64 // optimal tour length, 0 when not used here
}{
	{"ulysses16.tsp", "TSP", 16, 6859},
	{"ulysses22.tsp", "TSP", 22, 7013},
	{"gr17.tsp", "TSP", 17, 2085},
	{"gr21.tsp", "TSP", 21, 2707},
	{"gr24.tsp", "TSP", 24, 1272},
	{"fri26.tsp", "TSP", 26, 937},
	{"bayg29.tsp", "TSP", 29, 1610},
	{"bays29.tsp", "TSP", 29, 2020},
	{"dantzig42.tsp", "TSP", 42, 699},
	{"swiss42.tsp", "TSP", 42, 1273},
	{"att48.tsp", "TSP", 48, 10628},
	{"br17.atsp", "ATSP", 17, 39},
	{"ftv33.atsp", "ATSP", 34, 1286},
	{"p43.atsp", "ATSP", 43, 5620},
}

func loadTSP(t *testing.T, file string) *TSPInstance {
	t.Helper()
	f, err := os.Open(tsplibDir + file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	inst, err := ReadTSPLIB(f, file)
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

func TestTSPLIBFiles(t *testing.T) {
	for _, c := range tsplibFiles {
		t.Run(c.file, func(t *testing.T) {
			inst := loadTSP(t, c.file)
			if inst.N != c.n || inst.Type != c.typ || len(inst.Dist) != c.n*c.n {
				t.Fatalf("N=%d type=%s len=%d, want N=%d type=%s", inst.N, inst.Type, len(inst.Dist), c.n, c.typ)
			}
			if want := strings.TrimSuffix(strings.TrimSuffix(c.file, ".tsp"), ".atsp"); !strings.HasPrefix(inst.Name, want) {
				t.Errorf("Name %q, want %q", inst.Name, want)
			}
			n := inst.N
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					d := inst.Dist[i*n+j]
					if d < 0 {
						t.Fatalf("d(%d,%d) = %d is negative", i, j, d)
					}
					if c.typ == "TSP" && d != inst.Dist[j*n+i] {
						t.Fatalf("symmetric instance: d(%d,%d) = %d but d(%d,%d) = %d", i, j, d, j, i, inst.Dist[j*n+i])
					}
					if c.typ == "TSP" && i == j && d != 0 {
						t.Fatalf("d(%d,%d) = %d, want 0", i, i, d)
					}
				}
			}
			// The table Load returns is the same matrix.
			tab, err := Load(tsplibDir+c.file, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkTable(t, tab, n, n, inst.Dist, nil)
		})
	}
}

// readTour reads a TSPLIB .opt.tour file: the node numbers after
// TOUR_SECTION up to -1, as 0-based indices.
func readTour(t *testing.T, file string) []int {
	t.Helper()
	b, err := os.ReadFile(tsplibDir + file)
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(b), "TOUR_SECTION")
	if !ok {
		t.Fatalf("%s: no TOUR_SECTION", file)
	}
	var tour []int
	for _, f := range strings.Fields(body) {
		if f == "-1" {
			return tour
		}
		v, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("%s: %q in tour", file, f)
		}
		tour = append(tour, v-1)
	}
	t.Fatalf("%s: tour not terminated by -1", file)
	return nil
}

// TestTSPLIBOptimalTours measures TSPLIB's optimal tours under the loaded
// matrices. The lengths are published, so they check the distance formulas
// (GEO with its truncated degrees in ulysses22, ATT in att48) and the
// explicit layouts (UPPER_ROW in bayg29, FULL_MATRIX in bays29,
// LOWER_DIAG_ROW in gr24 and fri26) end to end.
func TestTSPLIBOptimalTours(t *testing.T) {
	cases := []struct {
		inst, tour string
		want       int64
	}{
		{"ulysses16.tsp", "ulysses16.opt.tour", 6859},
		{"ulysses22.tsp", "ulysses22.opt.tour", 7013},
		{"fri26.tsp", "fri26.opt.tour", 937},
		{"gr24.tsp", "gr24.opt.tour", 1272},
		{"bayg29.tsp", "bayg29.opt.tour", 1610},
		{"bays29.tsp", "bays29.opt.tour", 2020},
		{"att48.tsp", "att48.opt.tour", 10628},
	}
	for _, c := range cases {
		t.Run(c.inst, func(t *testing.T) {
			inst := loadTSP(t, c.inst)
			tour := readTour(t, c.tour)
			seen := make([]bool, inst.N)
			for _, v := range tour {
				if v < 0 || v >= inst.N || seen[v] {
					t.Fatalf("tour is not a permutation of 1..%d: %v", inst.N, tour)
				}
				seen[v] = true
			}
			if len(tour) != inst.N {
				t.Fatalf("tour visits %d of %d nodes", len(tour), inst.N)
			}
			var length int64
			for k := range tour {
				length += inst.Dist[tour[k]*inst.N+tour[(k+1)%len(tour)]]
			}
			if length != c.want {
				t.Errorf("optimal tour length %d, want %d", length, c.want)
			}
		})
	}
}

// heldKarp is the exact O(2^n n^2) tour DP, written plainly as a reference.
func heldKarp(n int, d []int64) int64 {
	const inf = math.MaxInt64 / 4
	// best[S][j]: shortest path from node 0 through the set S of nodes
	// 1..n-1 (bit j-1 for node j), ending at j in S.
	full := 1 << (n - 1)
	best := make([]int64, full*n)
	for i := range best {
		best[i] = inf
	}
	for j := 1; j < n; j++ {
		best[(1<<(j-1))*n+j] = d[j]
	}
	for s := 1; s < full; s++ {
		for j := 1; j < n; j++ {
			cur := best[s*n+j]
			if cur >= inf || s&(1<<(j-1)) == 0 {
				continue
			}
			rest := (full - 1) &^ s
			for rest != 0 {
				k := bits.TrailingZeros(uint(rest)) + 1
				rest &= rest - 1
				ns := s | 1<<(k-1)
				if v := cur + d[j*n+k]; v < best[ns*n+k] {
					best[ns*n+k] = v
				}
			}
		}
	}
	ans := int64(inf)
	for j := 1; j < n; j++ {
		ans = min(ans, best[(full-1)*n+j]+d[j*n])
	}
	return ans
}

// TestTSPLIBHeldKarp solves the small instances exactly and compares with
// the published optima: every entry of the matrix takes part.
func TestTSPLIBHeldKarp(t *testing.T) {
	files := []string{"ulysses16.tsp", "gr17.tsp", "br17.atsp"}
	if !testing.Short() {
		files = append(files, "gr21.tsp")
	}
	for _, c := range tsplibFiles {
		for _, f := range files {
			if c.file != f {
				continue
			}
			t.Run(f, func(t *testing.T) {
				inst := loadTSP(t, f)
				if got := heldKarp(inst.N, inst.Dist); got != c.opt {
					t.Errorf("optimum %d, want %d", got, c.opt)
				}
			})
		}
	}
}

// TestTSPLIBEntries checks single entries: ATSP direction (row = from)
// against the numbers as they stand in the files, and GEO and ATT distances
// computed independently with Python's math module from the TSPLIB95
// formulas (GEO reading DDD.MM as degrees and minutes from the text).
func TestTSPLIBEntries(t *testing.T) {
	cases := []struct {
		file string
		i, j int // 1-based, as TSPLIB numbers nodes
		want int64
	}{
		{"ftv33.atsp", 1, 2, 26},
		{"ftv33.atsp", 2, 1, 66},
		{"ftv33.atsp", 34, 33, 143},
		{"ftv33.atsp", 33, 34, 168},
		{"ftv33.atsp", 1, 1, 100000000},
		{"br17.atsp", 1, 4, 48},
		{"br17.atsp", 1, 1, 9999},
		{"p43.atsp", 43, 1, 5126},
		{"p43.atsp", 1, 5, 10},
		{"ulysses16.tsp", 1, 2, 509},
		{"ulysses16.tsp", 1, 16, 150},
		{"ulysses16.tsp", 5, 11, 1504}, // node 11 has a negative longitude, -5.21
		{"ulysses16.tsp", 3, 4, 541},
		{"att48.tsp", 1, 2, 1495},
		{"att48.tsp", 1, 48, 1184},
		{"att48.tsp", 11, 21, 395},
	}
	for _, c := range cases {
		inst := loadTSP(t, c.file)
		if got := inst.Dist[(c.i-1)*inst.N+c.j-1]; got != c.want {
			t.Errorf("%s: d(%d,%d) = %d, want %d", c.file, c.i, c.j, got, c.want)
		}
	}
}

// TestTSPLIBGeoIndependent recomputes every GEO distance of the two
// Ulysses instances another way: degrees and minutes split from the text,
// and the spherical law of cosines in its sin/cos form (equal to TSPLIB's
// q1/q2/q3 expression by the angle-sum identities).
func TestTSPLIBGeoIndependent(t *testing.T) {
	for _, file := range []string{"ulysses16.tsp", "ulysses22.tsp"} {
		inst := loadTSP(t, file)
		b, err := os.ReadFile(tsplibDir + file)
		if err != nil {
			t.Fatal(err)
		}
		_, body, _ := strings.Cut(string(b), "NODE_COORD_SECTION")
		body, _, _ = strings.Cut(body, "EOF")
		f := strings.Fields(body)
		rad := func(s string) float64 {
			sign := 1.0
			if rest, ok := strings.CutPrefix(s, "-"); ok {
				sign, s = -1, rest // -5.21 is 5 degrees 21 minutes west
			}
			d, m, _ := strings.Cut(s, ".")
			deg, _ := strconv.Atoi(d)
			mn, _ := strconv.Atoi((m + "00")[:2])
			return sign * 3.141592 * (float64(deg) + 5.0*float64(mn)/100.0/3.0) / 180.0
		}
		n := len(f) / 3
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				want := int64(0)
				if i != j {
					la1, lo1 := rad(f[3*i+1]), rad(f[3*i+2])
					la2, lo2 := rad(f[3*j+1]), rad(f[3*j+2])
					c := math.Sin(la1)*math.Sin(la2) + math.Cos(la1)*math.Cos(la2)*math.Cos(lo1-lo2)
					want = int64(6378.388*math.Acos(c) + 1.0)
				}
				if got := inst.Dist[i*n+j]; got != want {
					t.Errorf("%s: d(%d,%d) = %d, want %d", file, i+1, j+1, got, want)
				}
			}
		}
	}
}

// TestGeoTruncatesDegrees pins the one place where TSPLIB's code and its
// documentation differ: 37.57 is 37 degrees 57 minutes, not 38 degrees.
func TestGeoTruncatesDegrees(t *testing.T) {
	got := geoRadians(37.57)
	want := 3.141592 * (37 + 5*0.57/3) / 180
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("geoRadians(37.57) = %v, want %v", got, want)
	}
	if got := geoRadians(-37.57); math.Abs(got+want) > 1e-12 {
		t.Errorf("geoRadians(-37.57) = %v, want %v", got, -want)
	}
}

// TestTSPLIBCoordinateTypes checks each coordinate rule on points whose
// distances are worked out by hand in the comments.
func TestTSPLIBCoordinateTypes(t *testing.T) {
	const pts2 = "1 0 0\n2 3 4\n3 1 1\n4 1.4 2.3\n5 10 0\n6 0 0\n"
	cases := []struct {
		ewt    string
		coords string
		pairs  [][3]int64 // i, j (1-based), distance
	}{
		// (0,0)-(3,4) = 5; (0,0)-(1,1) = 1.414 -> 1; (0,0)-(1.4,2.3) = 2.693 -> 3;
		// (3,4)-(1,1) = sqrt(13) = 3.606 -> 4; coincident distinct nodes 1 and 6 -> 0.
		{"EUC_2D", pts2, [][3]int64{{1, 2, 5}, {1, 3, 1}, {1, 4, 3}, {2, 3, 4}, {1, 6, 0}, {2, 2, 0}}},
		// ceil: 5, 2, 3, 4.
		{"CEIL_2D", pts2, [][3]int64{{1, 2, 5}, {1, 3, 2}, {1, 4, 3}, {2, 3, 4}}},
		// |dx|+|dy|: 7, 2, 3.7 -> 4; (10,0)-(1.4,2.3) = 8.6+2.3 = 10.9 -> 11.
		{"MAN_2D", pts2, [][3]int64{{1, 2, 7}, {1, 3, 2}, {1, 4, 4}, {5, 4, 11}}},
		// max(nint|dx|, nint|dy|): max(3,4) = 4; max(1,2) = 2; (10,0)-(1.4,2.3): max(nint 8.6, nint 2.3) = 9.
		{"MAX_2D", pts2, [][3]int64{{1, 2, 4}, {1, 4, 2}, {5, 4, 9}}},
		// sqrt((dx^2+dy^2)/10): (0,0)-(10,0) = 3.162 -> nint 3 < r -> 4;
		// (0,0)-(3,4) = sqrt(2.5) = 1.581 -> 2 (nint already >= r); (0,0)-(1,1) = 0.447 -> 0 < r -> 1.
		{"ATT", pts2, [][3]int64{{1, 5, 4}, {1, 2, 2}, {1, 3, 1}, {1, 6, 0}}},
		// (0,0,0)-(1,2,2) = 3; (0,0,0)-(1,1,1) = 1.732 -> 2.
		{"EUC_3D", "1 0 0 0\n2 1 2 2\n3 1 1 1\n", [][3]int64{{1, 2, 3}, {1, 3, 2}}},
		{"MAN_3D", "1 0 0 0\n2 1 2 2\n3 1 1 1\n", [][3]int64{{1, 2, 5}, {2, 3, 2}}},
		{"MAX_3D", "1 0 0 0\n2 1 2 2.6\n3 1 1 1\n", [][3]int64{{1, 2, 3}, {2, 3, 2}}},
	}
	for _, c := range cases {
		n := strings.Count(c.coords, "\n")
		src := fmt.Sprintf("NAME : t\nTYPE : TSP\nDIMENSION : %d\nEDGE_WEIGHT_TYPE : %s\nNODE_COORD_SECTION\n%sEOF\n", n, c.ewt, c.coords)
		inst, err := ReadTSPLIB(strings.NewReader(src), c.ewt)
		if err != nil {
			t.Errorf("%s: %v", c.ewt, err)
			continue
		}
		for _, p := range c.pairs {
			i, j := int(p[0]-1), int(p[1]-1)
			if got := inst.Dist[i*n+j]; got != p[2] {
				t.Errorf("%s: d(%d,%d) = %d, want %d", c.ewt, i+1, j+1, got, p[2])
			}
		}
	}
}

// TestTSPLIBExplicitFormats writes random matrices in every explicit layout
// (plain loops over the cells in the order the TSPLIB95 documentation gives)
// and reads them back.
func TestTSPLIBExplicitFormats(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 2, 3, 7, 12} {
		sym := make([]int64, n*n)
		asym := make([]int64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				asym[i*n+j] = rng.Int64N(1000)
				if j <= i {
					v := rng.Int64N(1000)
					if i == j {
						v = 0
					}
					sym[i*n+j], sym[j*n+i] = v, v
				}
			}
		}
		type cell struct{ i, j int }
		layouts := map[string]func() []cell{
			"FULL_MATRIX": func() (c []cell) {
				for i := range n {
					for j := range n {
						c = append(c, cell{i, j})
					}
				}
				return c
			},
			"UPPER_ROW": func() (c []cell) {
				for i := range n {
					for j := i + 1; j < n; j++ {
						c = append(c, cell{i, j})
					}
				}
				return c
			},
			"LOWER_ROW": func() (c []cell) {
				for i := range n {
					for j := 0; j < i; j++ {
						c = append(c, cell{i, j})
					}
				}
				return c
			},
			"UPPER_DIAG_ROW": func() (c []cell) {
				for i := range n {
					for j := i; j < n; j++ {
						c = append(c, cell{i, j})
					}
				}
				return c
			},
			"LOWER_DIAG_ROW": func() (c []cell) {
				for i := range n {
					for j := 0; j <= i; j++ {
						c = append(c, cell{i, j})
					}
				}
				return c
			},
			"UPPER_COL": func() (c []cell) { // column by column, rows above the diagonal
				for j := range n {
					for i := 0; i < j; i++ {
						c = append(c, cell{i, j})
					}
				}
				return c
			},
			"LOWER_COL": func() (c []cell) {
				for j := range n {
					for i := j + 1; i < n; i++ {
						c = append(c, cell{i, j})
					}
				}
				return c
			},
			"UPPER_DIAG_COL": func() (c []cell) {
				for j := range n {
					for i := 0; i <= j; i++ {
						c = append(c, cell{i, j})
					}
				}
				return c
			},
			"LOWER_DIAG_COL": func() (c []cell) {
				for j := range n {
					for i := j; i < n; i++ {
						c = append(c, cell{i, j})
					}
				}
				return c
			},
		}
		for format, cells := range layouts {
			for _, typ := range []string{"TSP", "ATSP"} {
				if typ == "ATSP" && format != "FULL_MATRIX" {
					continue
				}
				want := sym
				if typ == "ATSP" {
					want = asym
				}
				var b strings.Builder
				fmt.Fprintf(&b, "NAME: r%d\nTYPE: %s\nDIMENSION: %d\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: %s\nEDGE_WEIGHT_SECTION\n", n, typ, n, format)
				for k, c := range cells() {
					fmt.Fprintf(&b, "%d", want[c.i*n+c.j])
					if k%5 == 4 { // wrap lines unevenly, as TSPLIB files do
						b.WriteString("\n")
					} else {
						b.WriteString(" ")
					}
				}
				b.WriteString("\nEOF\n")
				inst, err := ReadTSPLIB(strings.NewReader(b.String()), "gen")
				if err != nil {
					t.Errorf("n=%d %s %s: %v", n, typ, format, err)
					continue
				}
				if fmt.Sprint(inst.Dist) != fmt.Sprint(want) {
					t.Errorf("n=%d %s %s: got %v, want %v", n, typ, format, inst.Dist, want)
				}
			}
		}
	}
}

func TestTSPLIBSyntax(t *testing.T) {
	// Spaces around ':', lower-case values, no EOF, a section keyword with a
	// colon and data on its own line, display data after the weights.
	src := "NAME :   tiny\nTYPE:tsp\nCOMMENT : a: b\nCOMMENT : again\nDIMENSION:  3 \nEDGE_WEIGHT_TYPE  :  explicit\n" +
		"EDGE_WEIGHT_FORMAT: upper_row\nEDGE_WEIGHT_SECTION : 4\n 5\n6\nDISPLAY_DATA_SECTION\n1 0 0\n2 1 1\n3 2 2\n"
	inst, err := ReadTSPLIB(strings.NewReader(src), "tiny")
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{0, 4, 5, 4, 0, 6, 5, 6, 0}; fmt.Sprint(inst.Dist) != fmt.Sprint(want) || inst.Name != "tiny" || inst.Type != "TSP" {
		t.Errorf("got %+v, want Dist %v", inst, want)
	}
	// Nodes in any order.
	src = "TYPE: TSP\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n2 3 4\n1 0 0\nEOF\n"
	if inst, err = ReadTSPLIB(strings.NewReader(src), "o"); err != nil || fmt.Sprint(inst.Dist) != "[0 5 5 0]" {
		t.Errorf("nodes out of order: %v, %v", inst, err)
	}
}

func TestTSPLIBErrors(t *testing.T) {
	br17, err := os.ReadFile(tsplibDir + "br17.atsp")
	if err != nil {
		t.Fatal(err)
	}
	// br17 without its last weight (the 9999 alone on line 41).
	short := strings.Replace(string(br17), " 9999\nEOF", "EOF", 1)
	long := strings.Replace(string(br17), " 9999\nEOF", " 9999 1\nEOF", 1)
	head := "TYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EUC_2D\n"
	cases := []struct {
		name, src string
		errs      []string
	}{
		{"truncated weights", short, []string{"br17.atsp:40:", "EDGE_WEIGHT_SECTION (line 7): expected 289 weights for FULL_MATRIX of 17 nodes, found 288"}},
		{"too many weights", long, []string{"br17.atsp:41:", "expected 289 weights", "found 290"}},
		{"bad weight", strings.Replace(string(br17), " 9999\nEOF", " 99.5\nEOF", 1), []string{"br17.atsp:41:", "weight 289", `"99.5" is not an integer`}},
		{"unknown weight type", "TYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: XRAY1\n", []string{"br17.atsp:3:", "unknown EDGE_WEIGHT_TYPE XRAY1"}},
		{"unknown format", "TYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: FUNCTION\nEDGE_WEIGHT_SECTION\n1 2 3\n", []string{":4:", "unknown EDGE_WEIGHT_FORMAT FUNCTION"}},
		{"no format", "TYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_SECTION\n1 2 3\n", []string{"needs an EDGE_WEIGHT_FORMAT"}},
		{"no weights", "TYPE: TSP\nDIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: UPPER_ROW\n", []string{"no EDGE_WEIGHT_SECTION"}},
		{"no coords", head, []string{"no NODE_COORD_SECTION"}},
		{"no dimension", "TYPE: TSP\nEDGE_WEIGHT_TYPE: EUC_2D\n", []string{"no DIMENSION"}},
		{"bad dimension", "TYPE: TSP\nDIMENSION: -4\nEDGE_WEIGHT_TYPE: EUC_2D\n", []string{":2:", `DIMENSION "-4" is not a positive integer`}},
		{"huge dimension", "TYPE: TSP\nDIMENSION: 85900\nEDGE_WEIGHT_TYPE: EUC_2D\n", []string{"too large"}},
		{"no type", "DIMENSION: 3\n", []string{"no TYPE"}},
		{"other type", "TYPE: CVRP\nDIMENSION: 3\n", []string{":1:", "TYPE CVRP is not supported"}},
		{"tour file", "NAME: x\nTYPE: TOUR\nDIMENSION: 3\nTOUR_SECTION\n1 2 3 -1\n", []string{":4:", "tour file"}},
		{"duplicate key", "TYPE: TSP\nTYPE: ATSP\n", []string{":2:", "TYPE given twice (first on line 1)"}},
		{"unknown keyword", "TYPE: TSP\nDIMENSON: 3\n", []string{":2:", `unknown TSPLIB keyword "DIMENSON"`}},
		{"stray numbers", "TYPE: TSP\n1 2 3\n", []string{":2:", "numbers outside any data section"}},
		{"atsp triangle", "TYPE: ATSP\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: UPPER_ROW\nEDGE_WEIGHT_SECTION\n1\n", []string{":4:", "must be FULL_MATRIX"}},
		{"short coords", head + "NODE_COORD_SECTION\n1 0 0\n2 1 1\n3 2\n", []string{":7:", "expected 3 lines", "found 8 numbers"}},
		{"node out of range", head + "NODE_COORD_SECTION\n1 0 0\n4 1 1\n3 2 2\n", []string{":6:", `node number "4" is not in 1..3`}},
		{"duplicate node", head + "NODE_COORD_SECTION\n1 0 0\n1 1 1\n3 2 2\n", []string{":6:", "node 1 given twice (first on line 5)"}},
		{"misaligned node lines", head + "NODE_COORD_SECTION\n1 0 0 2\n1 1\n3 2 2\n", []string{":5:", "node number and 2 coordinates"}},
		{"bad coordinate", head + "NODE_COORD_SECTION\n1 0 0\n2 1 x1\n3 2 2\n", []string{":6:", `coordinate "x1" of node 2 is not a finite number`}},
		{"nan coordinate", head + "NODE_COORD_SECTION\n1 0 0\n2 1 1e999\n3 2 2\n", []string{":6:", "not a finite number"}},
	}
	for _, c := range cases {
		_, err := ReadTSPLIB(strings.NewReader(c.src), "br17.atsp")
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, e := range c.errs {
			if !strings.Contains(err.Error(), e) {
				t.Errorf("%s: error %q does not contain %q", c.name, err, e)
			}
		}
	}
	// Through Load: the options that make no sense for a distance matrix.
	for _, opt := range []Options{{Float: true}, {Char: true}} {
		if _, err := Load(tsplibDir+"gr17.tsp", opt); err == nil || !strings.Contains(err.Error(), "gr17.tsp: TSPLIB yields integer distances") {
			t.Errorf("Load with %+v: %v", opt, err)
		}
	}
}
