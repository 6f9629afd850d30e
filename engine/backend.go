package engine

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cpu"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/backend/gpu"
	"github.com/dpgpu/dpgpu/backend/native"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// Backends lists the names --backend accepts.
var Backends = []string{"auto", "cpu", "cuda"}

// NewExecutor returns the executor for a backend name. "auto" takes the GPU
// when a CUDA driver and device are present and otherwise the CPU, saying so
// in one line on notice (which may be nil).
func NewExecutor(backend string, threads int, notice io.Writer) (backend.Executor, error) {
	switch backend {
	case "cpu":
		return NewCPU(threads)
	case "cuda", "gpu":
		ex, err := gpu.New()
		if err != nil {
			return nil, fmt.Errorf("--backend cuda: %w", err)
		}
		return ex, nil
	case "", "auto":
		ex, err := gpu.New()
		if err == nil {
			return ex, nil
		}
		if notice != nil {
			reason := err.Error()
			if errors.Is(err, cuda.ErrNoDriver) {
				reason = "no CUDA driver or GPU found"
			}
			fmt.Fprintf(notice, "dpgpu: %s; running on the CPU\n", reason)
		}
		return NewCPU(threads)
	}
	return nil, InputError(fmt.Errorf("unknown backend %q (want auto, cpu or cuda)", backend))
}

// OneAtATime says why `--backend auto` runs p on the CPU though a GPU is
// present ("" where it does not): every front of the plan is one cell and
// no cell runs a reduction, so the cells are computed one after another
// with nothing for a GPU's threads to share (a 1-D recurrence by columns:
// Fibonacci-like sums, a stock's states a day). On the GPU each such cell
// costs a step of a kernel (measured: 0.58 s for a million on an H200,
// where the CPU's compiled loop takes milliseconds).
func OneAtATime(p *ir.Problem, pl *plan.Plan) string {
	if pl.Fronts <= 0 || pl.Fronts != p.Cells() || p.Cells() <= 1 {
		return ""
	}
	for _, c := range p.Cases {
		for _, e := range []ir.Expr{c.Cond, c.Value} {
			if e != nil && ir.Any(e, func(x ir.Expr) bool { _, ok := x.(*ir.Reduce); return ok }) {
				return ""
			}
		}
	}
	return fmt.Sprintf("the %d cells of %s are computed one after another (every front is one cell), which a GPU's threads cannot share", p.Cells(), p.Name)
}

// NewCPU returns the CPU executor with threads workers (0: one per core),
// computing with code compiled for each problem where the system has a
// C++ compiler, as $DPGPU_CPU_CODE says: "auto" or unset (compiled where
// possible and worth it, else the Go evaluator), "c" (a compiler is
// required; every size is compiled) or "go" (the Go evaluator only).
func NewCPU(threads int) (*cpu.Executor, error) {
	newEx, err := cpuFactory(threads)
	if err != nil {
		return nil, err
	}
	return newEx(), nil
}

// cpuFactory returns what makes CPU executors as NewCPU does, all sharing
// one compiler (found once).
func cpuFactory(threads int) (func() *cpu.Executor, error) {
	switch mode := os.Getenv(cpu.CodeEnv); mode {
	case "go":
		return func() *cpu.Executor { return cpu.New(threads).WithNative(nil) }, nil
	case "", "auto", "c":
		c, err := native.Find()
		switch {
		case err != nil && mode == "c":
			return nil, InputError(fmt.Errorf("$%s=c: %w", cpu.CodeEnv, err))
		case err != nil:
			return func() *cpu.Executor { return cpu.New(threads).WithNative(nil) }, nil
		case mode == "c":
			return func() *cpu.Executor { return cpu.New(threads).WithNative(c).CompileAllSizes() }, nil
		}
		return func() *cpu.Executor { return cpu.New(threads).WithNative(c) }, nil
	default:
		return nil, InputError(fmt.Errorf("$%s=%s: want auto, c or go", cpu.CodeEnv, mode))
	}
}

// batchCPU returns what makes a batch worker's CPU executor: one thread,
// instances of one problem (cpu.Executor.OneProblem: a compiled program
// per shape of instances).
func batchCPU() (func() *cpu.Executor, error) {
	newEx, err := cpuFactory(1)
	if err != nil {
		return nil, err
	}
	return func() *cpu.Executor { return newEx().OneProblem() }, nil
}
