package main

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/dpgpu/dpgpu/problems/gen"
)

// batchDataCommands are gen-data's batch inputs (issue #14): many records
// in FASTA files, for `dpgpu batch`.
func batchDataCommands() []*cli.Command {
	seed := &cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed (the same seed gives the same files)"}
	return []*cli.Command{{
		Name:  "reads",
		Usage: "pairs of Illumina-like DNA reads for batch --pairs: PREFIX_a.fa and PREFIX_b.fa, record k of b being record k of a with --subst of its bases substituted",
		Flags: []cli.Flag{seed,
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "reads", Usage: "prefix: writes PREFIX_a.fa and PREFIX_b.fa"},
			&cli.IntFlag{Name: "count", Aliases: []string{"n"}, Value: 10000, Usage: "number of pairs"},
			&cli.IntFlag{Name: "len", Value: 150, Usage: "read length"},
			&cli.Float64Flag{Name: "subst", Value: 0.02, Usage: "fraction of substituted bases"},
		},
		Action: func(c *cli.Context) error {
			n, length, subst, prefix := c.Int("count"), c.Int("len"), c.Float64("subst"), c.String("out")
			var check error
			switch {
			case n < 1 || n > 1e9:
				check = fmt.Errorf("--count %d: want 1 to 1,000,000,000", n)
			case length < 1 || length > 1e6:
				check = fmt.Errorf("--len %d: want 1 to 1,000,000", length)
			case !(subst >= 0 && subst <= 1):
				check = fmt.Errorf("--subst %v: want a fraction from 0 to 1", subst)
			}
			paths := []string{prefix + "_a.fa", prefix + "_b.fa"}
			if err := genDataCheck(c, check, gen.CheckOutput(paths[0]), gen.CheckOutput(paths[1])); err != nil {
				return err
			}
			r := gen.NewRand(c.Uint64("seed"))
			err := writeRecords(paths, func(w []*bufio.Writer) error {
				a, b := make([]byte, length), make([]byte, length)
				for k := range n {
					for x := range a {
						a[x] = "ACGT"[r.IntN(4)]
						b[x] = a[x]
						if r.Float64() < subst {
							b[x] = "ACGT"[(int(indexACGT(a[x]))+1+r.IntN(3))%4]
						}
					}
					fmt.Fprintf(w[0], ">r%d/1\n%s\n", k, a)
					fmt.Fprintf(w[1], ">r%d/2\n%s\n", k, b)
				}
				return nil
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "wrote %s and %s (%d reads of %d bp each)\n", paths[0], paths[1], n, length)
			return nil
		},
	}, {
		Name:  "proteins",
		Usage: "a FASTA file of random proteins (a database for batch QUERY.fa DB.fa): residues at their UniProt frequencies, lengths log-normal around --mean",
		Flags: []cli.Flag{seed,
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "proteins.fa", Usage: "output file"},
			&cli.IntFlag{Name: "count", Aliases: []string{"n"}, Value: 10000, Usage: "number of proteins"},
			&cli.IntFlag{Name: "mean", Value: 350, Usage: "mean length"},
			&cli.IntFlag{Name: "max", Value: 5000, Usage: "longest protein"},
		},
		Action: func(c *cli.Context) error {
			n, mean, most, path := c.Int("count"), c.Int("mean"), c.Int("max"), c.String("out")
			var check error
			switch {
			case n < 1 || n > 1e9:
				check = fmt.Errorf("--count %d: want 1 to 1,000,000,000", n)
			case mean < 1 || most < mean || most > 1e6:
				check = fmt.Errorf("--mean %d --max %d: want 1 <= mean <= max <= 1,000,000", mean, most)
			}
			if err := genDataCheck(c, check, gen.CheckOutput(path)); err != nil {
				return err
			}
			r := gen.NewRand(c.Uint64("seed"))
			var total int64
			err := writeRecords([]string{path}, func(w []*bufio.Writer) error {
				for k := range n {
					l := proteinLength(r, mean, most)
					total += int64(l)
					fmt.Fprintf(w[0], ">p%d\n", k)
					for range l {
						w[0].WriteByte(residue(r))
					}
					w[0].WriteByte('\n')
				}
				return nil
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "wrote %s (%d proteins, %d residues, mean length %.0f)\n", path, n, total, float64(total)/float64(n))
			return nil
		},
	}}
}

func indexACGT(c byte) int {
	switch c {
	case 'C':
		return 1
	case 'G':
		return 2
	case 'T':
		return 3
	}
	return 0
}

// proteinLength draws a log-normal length (sigma 0.6, as protein lengths
// roughly are) with the given mean, at least 10 and at most most.
func proteinLength(r *rand.Rand, mean, most int) int {
	const sigma = 0.6
	mu := math.Log(float64(mean)) - sigma*sigma/2
	l := int(math.Round(math.Exp(mu + sigma*r.NormFloat64())))
	return min(max(l, min(10, most)), most)
}

// aminoFreq are the residues' frequencies in UniProtKB/Swiss-Prot (per
// thousand, release statistics), in the order of aminoOrder.
var (
	aminoOrder = "ARNDCQEGHILKMFPSTWYV"
	aminoFreq  = []int{83, 55, 41, 55, 14, 39, 67, 71, 23, 59, 97, 58, 24, 39, 47, 66, 54, 11, 29, 69}
)

func residue(r *rand.Rand) byte {
	total := 0
	for _, f := range aminoFreq {
		total += f
	}
	x := r.IntN(total)
	for k, f := range aminoFreq {
		if x < f {
			return aminoOrder[k]
		}
		x -= f
	}
	return 'A'
}

// writeRecords writes files through buffered writers, each complete or
// removed.
func writeRecords(paths []string, fill func([]*bufio.Writer) error) (err error) {
	var files []*os.File
	var ws []*bufio.Writer
	defer func() {
		for _, f := range files {
			if cerr := f.Close(); err == nil && cerr != nil {
				err = cerr
			}
		}
		if err != nil {
			for _, p := range paths {
				os.Remove(p)
			}
		}
	}()
	for _, p := range paths {
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		files = append(files, f)
		ws = append(ws, bufio.NewWriterSize(f, 1<<20))
	}
	if err := fill(ws); err != nil {
		return err
	}
	for _, w := range ws {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return nil
}
