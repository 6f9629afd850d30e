package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/dpgpu/dpgpu/problems"
	"github.com/dpgpu/dpgpu/problems/gen"
)

// genDataCheck turns the first failed check of a gen-data flag into a
// usage error (exit 2) naming the kind; nothing is generated or written
// then. Positional arguments are refused too: every value is a flag.
func genDataCheck(c *cli.Context, errs ...error) error {
	if c.NArg() > 0 {
		return usageErr("gen-data %s: unexpected argument %q (every value is a flag; see --help)", c.Command.Name, c.Args().First())
	}
	for _, err := range errs {
		if err != nil {
			return usageErr("gen-data %s: %v", c.Command.Name, err)
		}
	}
	return nil
}

// genDataCommand writes the random instances of the seed thesis (section
// 5.2.4) in the formats the built-in problems read: one subcommand per data
// kind of the problems registry, in the registry's order, with the other
// built-ins that read that kind's files as its aliases.
func genDataCommand() *cli.Command {
	var kinds []string
	aliases := map[string][]string{}
	for _, name := range problems.Names() {
		b, _ := problems.Lookup(name)
		if b.Data == "" {
			continue
		}
		if !slices.Contains(kinds, b.Data) {
			kinds = append(kinds, b.Data)
		}
		if name != b.Data {
			aliases[b.Data] = append(aliases[b.Data], name)
		}
	}
	var subs []*cli.Command
	for _, kind := range kinds {
		cmd := dataCommand(kind)
		cmd.Aliases = aliases[kind]
		subs = append(subs, cmd)
	}
	subs = append(subs, batchDataCommands()...)
	return &cli.Command{
		Name:        "gen-data",
		Usage:       "write random instances as in the seed thesis: " + strings.Join(kinds, ", "),
		Subcommands: subs,
	}
}

// dataCommand is the gen-data subcommand of a data kind (problems.Data*):
// its flags, and the files it writes.
func dataCommand(kind string) *cli.Command {
	seed := &cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed (the same seed gives the same files)"}
	out := &cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output file (or prefix for lcs)"}
	switch kind {
	case problems.DataPair:
		return &cli.Command{
			Name:  kind,
			Usage: "two random ACGT strings with a planted common subsequence (for lcs, editdistance, alignments)",
			Flags: []cli.Flag{seed, &cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "pair", Usage: "prefix: writes PREFIX_a.fa and PREFIX_b.fa"},
				&cli.IntFlag{Name: "len", Aliases: []string{"n"}, Value: 1000, Usage: "length of the first string"},
				&cli.Float64Flag{Name: "ratio", Value: 1, Usage: "length of the second string as a fraction of the first (thesis: 0.25, 0.5, 0.75, 1)"},
				&cli.Float64Flag{Name: "planted", Value: 0.5, Usage: "planted common subsequence as a fraction of the shorter string"},
				&cli.StringFlag{Name: "ext", Value: ".fa", Usage: "file type: .fa or .txt"},
			},
			Action: func(c *cli.Context) error {
				n, ratio, planted := c.Int("len"), c.Float64("ratio"), c.Float64("planted")
				prefix, ext := c.String("out"), c.String("ext")
				paths := []string{prefix + "_a" + ext, prefix + "_b" + ext}
				if err := genDataCheck(c, gen.CheckLCS(n, ratio, planted), gen.CheckSequenceExt(ext),
					gen.CheckOutput(paths[0])); err != nil {
					return err
				}
				a, b, common := gen.LCSPair(gen.NewRand(c.Uint64("seed")), n, gen.SecondLength(n, ratio), planted)
				for k, s := range []string{a, b} {
					path := paths[k]
					if err := gen.WriteSequence(path, fmt.Sprintf("dpgpu gen-data lcs seed=%d %c", c.Uint64("seed"), 'A'+k), s); err != nil {
						return err
					}
					fmt.Fprintf(c.App.Writer, "wrote %s (%d characters)\n", path, len(s))
				}
				fmt.Fprintf(c.App.Writer, "planted common subsequence: %d characters (the LCS is at least this long)\n", len(common))
				return nil
			},
		}
	case problems.DataKnapsack:
		return &cli.Command{
			Name:  kind,
			Usage: "a random knapsack instance in Pisinger's format (80% of weights in 5-20% of C, 10% in 0-10%, 10% in 20-30%)",
			Flags: []cli.Flag{seed, out,
				&cli.IntFlag{Name: "items", Aliases: []string{"n"}, Value: 100, Usage: "number of items"},
				&cli.Int64Flag{Name: "capacity", Aliases: []string{"c"}, Value: 1000, Usage: "capacity C"},
				&cli.BoolFlag{Name: "bounded", Usage: "also write a count per item to OUT.counts.txt"},
			},
			Action: func(c *cli.Context) error {
				n, capacity, path := c.Int("items"), c.Int64("capacity"), c.String("out")
				if path == "" {
					path = fmt.Sprintf("knapsack_%d_%d.txt", n, capacity)
				}
				if err := genDataCheck(c, gen.CheckKnapsack(n, capacity), gen.CheckOutput(path)); err != nil {
					return err
				}
				k, counts := gen.Knapsack(gen.NewRand(c.Uint64("seed")), n, capacity, c.Bool("bounded"))
				if err := gen.WriteKnapsack(path, k); err != nil {
					return err
				}
				fmt.Fprintf(c.App.Writer, "wrote %s (%d items, capacity %d)\n", path, n, capacity)
				if counts != nil {
					cp := strings.TrimSuffix(path, ".txt") + ".counts.txt"
					if err := gen.WriteCounts(cp, counts); err != nil {
						return err
					}
					fmt.Fprintf(c.App.Writer, "wrote %s (use --input cnt=@%s)\n", cp, cp)
				}
				return nil
			},
		}
	case problems.DataManhattan:
		return &cli.Command{
			Name:  kind,
			Usage: "a random square Manhattan tourist grid, street weights uniform in 0..100",
			Flags: []cli.Flag{seed, out, &cli.IntFlag{Name: "size", Aliases: []string{"n"}, Value: 100, Usage: "intersections per side"}},
			Action: func(c *cli.Context) error {
				n, path := c.Int("size"), c.String("out")
				if path == "" {
					path = fmt.Sprintf("manhattan_%d.txt", n)
				}
				if err := genDataCheck(c, gen.CheckManhattan(n), gen.CheckOutput(path)); err != nil {
					return err
				}
				down, right := gen.Manhattan(gen.NewRand(c.Uint64("seed")), n)
				if err := gen.WriteManhattan(path, n, down, right); err != nil {
					return err
				}
				fmt.Fprintf(c.App.Writer, "wrote %s (%dx%d intersections)\n", path, n, n)
				return nil
			},
		}
	case problems.DataProtein:
		return &cli.Command{
			Name:  kind,
			Usage: "two related random proteins: B is A with ~30% of residues substituted and ~5% inserted or deleted (for protein-align)",
			Flags: []cli.Flag{seed, &cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "protein", Usage: "prefix: writes PREFIX_a.fa and PREFIX_b.fa"},
				&cli.IntFlag{Name: "len", Aliases: []string{"n"}, Value: 1000, Usage: "length of the first protein"},
			},
			Action: func(c *cli.Context) error {
				n, prefix := c.Int("len"), c.String("out")
				paths := []string{prefix + "_a.fa", prefix + "_b.fa"}
				if err := genDataCheck(c, gen.CheckRNA(n), gen.CheckOutput(paths[0])); err != nil {
					return err
				}
				in, err := gen.ProteinPairInstance(gen.NewRand(c.Uint64("seed")), n, nil)
				if err != nil {
					return err
				}
				for k, input := range in.Inputs {
					if err := gen.WriteSequence(paths[k], fmt.Sprintf("dpgpu gen-data protein seed=%d %c", c.Uint64("seed"), 'A'+k), input.Text); err != nil {
						return err
					}
					fmt.Fprintf(c.App.Writer, "wrote %s (%d residues)\n", paths[k], len(input.Text))
				}
				return nil
			},
		}
	case problems.DataRNA:
		return &cli.Command{
			Name:  kind,
			Usage: "a random RNA sequence, bases uniform over ACGU (for nussinov)",
			Flags: []cli.Flag{seed, out,
				&cli.IntFlag{Name: "len", Aliases: []string{"n"}, Value: 1000, Usage: "number of bases"},
			},
			Action: func(c *cli.Context) error {
				n, path := c.Int("len"), c.String("out")
				if path == "" {
					path = fmt.Sprintf("rna_%d.fa", n)
				}
				var extErr error
				if gen.CheckSequenceExt(filepath.Ext(path)) != nil {
					extErr = fmt.Errorf("--out %s: want a .fa, .fasta, .fna or .txt file", path)
				}
				if err := genDataCheck(c, gen.CheckRNA(n), extErr, gen.CheckOutput(path)); err != nil {
					return err
				}
				s := gen.RNA(gen.NewRand(c.Uint64("seed")), n)
				if err := gen.WriteSequence(path, fmt.Sprintf("dpgpu gen-data rna seed=%d", c.Uint64("seed")), s); err != nil {
					return err
				}
				fmt.Fprintf(c.App.Writer, "wrote %s (%d bases)\n", path, n)
				return nil
			},
		}
	case problems.DataInts:
		return &cli.Command{
			Name: kind,
			Usage: "random integers, uniform in --min..--max, on one line of a text file: dimensions for matrix-chain, " +
				"values for lis, coin values for coin-change, frequencies for optimal-bst (keys, then --len n+1 gaps)",
			Flags: []cli.Flag{seed, out,
				&cli.IntFlag{Name: "len", Aliases: []string{"n"}, Value: 1000, Usage: "number of values"},
				&cli.Int64Flag{Name: "min", Value: 1, Usage: "least value"},
				&cli.Int64Flag{Name: "max", Value: 100, Usage: "greatest value"},
			},
			Action: func(c *cli.Context) error {
				n, lo, hi, path := c.Int("len"), c.Int64("min"), c.Int64("max"), c.String("out")
				if path == "" {
					path = fmt.Sprintf("ints_%d.txt", n)
				}
				if err := genDataCheck(c, gen.CheckInts(n, lo, hi), gen.CheckOutput(path)); err != nil {
					return err
				}
				if err := gen.WriteInts(path, gen.Ints(gen.NewRand(c.Uint64("seed")), n, lo, hi)); err != nil {
					return err
				}
				fmt.Fprintf(c.App.Writer, "wrote %s (%d values in %d..%d)\n", path, n, lo, hi)
				return nil
			},
		}
	}
	// A kind in the registry without a writer here is a broken build: the
	// gen-data test runs every kind.
	panic("gen-data: no writer for the data kind " + kind)
}
