package dptest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dpgpu/dpgpu/bind"
	"github.com/dpgpu/dpgpu/dsl"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
	"github.com/dpgpu/dpgpu/source"
)

// An Option changes how Load and TryLoad check a source.
type Option func(*loadConfig)

type loadConfig struct {
	files map[string]string
	dir   string
	cfg   bind.Config
}

// Files writes each body to a temporary directory under its name, and
// makes the source's @"..." paths relative to that directory: a test that
// needs input files need not write them itself.
func Files(files map[string]string) Option {
	return func(c *loadConfig) { c.files = files }
}

// Dir makes the source's @"..." paths relative to dir (default: the test's
// working directory, its package directory).
func Dir(dir string) Option {
	return func(c *loadConfig) { c.dir = dir }
}

// Args are the positional files of the source's `args:` line, as on the
// command line.
func Args(args ...string) Option {
	return func(c *loadConfig) { c.cfg.Args = append(c.cfg.Args, args...) }
}

// Set overrides a scalar, as `--set name=value` does.
func Set(name, value string) Option {
	return func(c *loadConfig) { c.cfg.Sets = append(c.cfg.Sets, bind.Override{Name: name, Value: value}) }
}

// Load parses, checks and plans src (named name in positions), failing the
// test with the positioned error and the source when any stage fails.
func Load(tb testing.TB, name, src string, opts ...Option) (*ir.Problem, *plan.Plan) {
	tb.Helper()
	p, pl, err := TryLoad(tb, name, src, opts...)
	if err != nil {
		tb.Fatalf("load %s: %v\n%s", name, source.Format(err, []byte(src)), src)
	}
	return p, pl
}

// TryLoad is Load returning the first stage's error instead of failing:
// for tests of what the front end refuses. Only a failure to write the
// Files fails the test.
func TryLoad(tb testing.TB, name, src string, opts ...Option) (*ir.Problem, *plan.Plan, error) {
	tb.Helper()
	c := loadConfig{dir: "."}
	for _, o := range opts {
		o(&c)
	}
	if c.files != nil {
		c.dir = tb.TempDir()
		for n, body := range c.files {
			if err := os.WriteFile(filepath.Join(c.dir, n), []byte(body), 0o644); err != nil {
				tb.Fatal(err)
			}
		}
	}
	f, err := dsl.Parse(name, []byte(src))
	if err != nil {
		return nil, nil, err
	}
	c.cfg.BaseDir = c.dir
	p, err := bind.Check(f, c.cfg)
	if err != nil {
		return nil, nil, err
	}
	pl, err := plan.Analyze(p)
	if err != nil {
		return p, nil, err
	}
	return p, pl, nil
}
