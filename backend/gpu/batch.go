package gpu

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/genrun"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/internal/hostmem"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// BatchProgram generates the batch program of p's shape (codegen
// KernelBatch): one launch of it computes many instances of p that differ
// only in the inputs vary names (RunBatch); with columns, also instances
// of fewer columns (codegen Options.BatchColumns). The error wraps
// codegen.ErrNotBatchable where no batch kernel runs p; those instances
// run one at a time.
func (e *Executor) BatchProgram(p *ir.Problem, pl *plan.Plan, vary []string, columns bool) (*codegen.Program, error) {
	o := e.codegenOptions(p, backend.Options{})
	o.Batch, o.BatchInputs, o.BatchColumns = true, vary, columns
	return codegen.Generate(p, pl, o)
}

// BatchInstance is one instance of a batch launch.
type BatchInstance struct {
	P    *ir.Problem
	Plan *plan.Plan
}

// BatchOutcome is what RunBatch found for one instance: its result, or
// Failed when the device reported an error in it (the caller runs the
// instance alone, which says where and why), or Err for an answer the
// rules refuse (a NaN answer).
type BatchOutcome struct {
	Result *backend.Result
	Failed bool
	Err    error
}

// BatchStats are one RunBatch's times.
type BatchStats struct {
	Instances int
	Cells     int64
	// Kernel is the event-timed launch; Upload and Download the copies of
	// the instances' inputs and results; Host packing the inputs and
	// decoding the answers.
	Kernel, Upload, Download, Host time.Duration
	Compiled                       bool // the program was compiled (not in the cache)
}

// RunBatch computes insts, every one of prog's shape (BatchProgram of the
// first made prog, and the others have the same sizes, scalars and shared
// inputs), in one launch: their varying inputs go up in one copy, their
// answers come back in one. It fails as a whole only for the device's
// reasons (memory, a launch error, ctx); an instance's own error is its
// outcome.
func (e *Executor) RunBatch(ctx context.Context, prog *codegen.Program, insts []BatchInstance) ([]BatchOutcome, BatchStats, error) {
	var st BatchStats
	if prog.Kernel != codegen.KernelBatch {
		return nil, st, fmt.Errorf("gpu: RunBatch of a %s program", prog.Kernel)
	}
	n := int64(len(insts))
	st.Instances = len(insts)
	if n == 0 {
		return nil, st, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, st, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ctx == nil {
		return nil, st, errors.New("gpu: the executor is closed")
	}
	first := insts[0]
	mod, cached, err := e.load(prog)
	if err != nil {
		return nil, st, err
	}
	st.Compiled = !cached
	r := &run{e: e, ctx: ctx, p: first.P, pl: first.Plan, prog: prog, mod: mod}
	defer r.release()

	t0 := time.Now()
	cs := int64(first.P.CellType.Size())
	// What the launch allocates: the varying inputs, one answer (a cell or
	// a partial result) and one error code an instance.
	per := int64(4)
	if prog.Answer == codegen.AnswerRegion {
		per += codegen.PartBytes
	} else {
		per += cs
	}
	var shared int64
	for _, in := range prog.Inputs {
		if in.PerInstance {
			per += max(in.Len, 1) * elemSize(in)
		} else {
			shared += in.Len * elemSize(in)
		}
	}
	if free, _, err := e.ctx.MemInfo(); err == nil && n*per+shared > free*3/4 {
		return nil, st, hostmem.TooLarge(fmt.Sprintf("a batch launch of %d instances of %s", n, first.P.Name), n*per+shared, free*3/4, "three quarters of the free GPU memory", "")
	}
	// The varying inputs, input after input (each n elements of Len),
	// packed by all cores into pinned memory and sent up in one copy.
	offs := make([]int64, len(prog.Inputs))
	var total int64
	for k, in := range prog.Inputs {
		if in.PerInstance {
			offs[k] = total
			total += (n*max(in.Len, 1)*elemSize(in) + 255) &^ 255
		}
	}
	stage, err := e.staging(0, max(total, 8))
	if err != nil {
		return nil, st, err
	}
	host := stage.Bytes()
	var packErr atomic.Pointer[error]
	parallel(n, func(lo, hi int64) {
		for m := lo; m < hi; m++ {
			if err := packInstance(prog, insts[m].P, host, offs, m); err != nil {
				err = fmt.Errorf("instance %d of the batch: %w", m, err)
				packErr.CompareAndSwap(nil, &err)
				return
			}
		}
	})
	if perr := packErr.Load(); perr != nil {
		return nil, st, *perr
	}
	st.Host += time.Since(t0)

	t1 := time.Now()
	for _, in := range prog.Inputs {
		if !in.PerInstance {
			if err := r.upload(in); err != nil {
				return nil, st, fmt.Errorf("input %s: %w", in.In.Name, err)
			}
		}
	}
	dev, err := r.alloc("the batch's inputs", max(total, 8))
	if err != nil {
		return nil, st, err
	}
	if total > 0 {
		if err := e.ctx.CopyHtoD(dev, stage.Ptr(), total); err != nil {
			return nil, st, err
		}
	}
	for k, in := range prog.Inputs {
		if in.PerInstance {
			handle := uint64(dev) + uint64(offs[k])
			if err := e.ctx.CopyHtoD(mod.globals[in.Symbol], unsafe.Pointer(&handle), 8); err != nil {
				return nil, st, err
			}
		}
	}
	outBytes := cs
	if prog.Answer == codegen.AnswerRegion {
		outBytes = codegen.PartBytes
	}
	// The error codes, then the answers.
	codesLen := (4*n + 255) &^ 255
	out, err := r.alloc("the batch's answers", codesLen+outBytes*n)
	if err != nil {
		return nil, st, err
	}
	errs := out
	if err := e.ctx.Memset32(errs, 0, n); err != nil {
		return nil, st, err
	}
	handle := uint64(errs)
	if err := e.ctx.CopyHtoD(mod.globals[codegen.SymBatchErr], unsafe.Pointer(&handle), 8); err != nil {
		return nil, st, err
	}
	// BatchColumns: each instance's columns and answer column.
	var colsDev, ansjDev uint64
	if prog.BatchColumns {
		cj := make([]int32, 2*n)
		for m, x := range insts {
			if x.P.Rows != prog.Rows || x.P.Cols > prog.Cols || x.P.Cols < 1 {
				return nil, st, fmt.Errorf("gpu: instance %d (%s) does not fit its batch program (%dx%d)", m, x.P.GridText(), prog.Rows, prog.Cols)
			}
			cj[m], cj[n+int64(m)] = int32(x.P.Cols), int32(x.Plan.Answer.J)
		}
		p, err := r.alloc("the batch's columns", 8*n)
		if err != nil {
			return nil, st, err
		}
		if err := e.ctx.CopyHtoD(p, unsafe.Pointer(&cj[0]), 8*n); err != nil {
			return nil, st, err
		}
		colsDev, ansjDev = uint64(p), uint64(p)+uint64(4*n)
	}
	st.Upload = time.Since(t1)

	var ans, part uint64
	if prog.Answer == codegen.AnswerRegion {
		part = uint64(out) + uint64(codesLen)
	} else {
		ans = uint64(out) + uint64(codesLen)
	}
	tm, err := r.startTiming()
	if err != nil {
		return nil, st, err
	}
	fn := mod.funcs[codegen.FuncBatch]
	blocks := (n + int64(prog.BatchWarps) - 1) / int64(prog.BatchWarps)
	if blocks > 1<<31-1 {
		return nil, st, fmt.Errorf("gpu: a batch launch of %d instances is too large", n)
	}
	if err := e.ctx.Launch(fn, [3]uint32{uint32(blocks), 1, 1}, [3]uint32{uint32(32 * prog.BatchWarps), 1, 1}, 0, e.s1, n, ans, part, colsDev, ansjDev); err != nil {
		return nil, st, fmt.Errorf("launching the batch kernel of %s: %w", first.P.Name, err)
	}
	if err := r.stopTiming(tm); err != nil {
		return nil, st, err
	}
	st.Kernel = time.Duration(r.stats.ComputeSeconds * float64(time.Second))

	t2 := time.Now()
	back, err := e.staging(1, codesLen+outBytes*n)
	if err != nil {
		return nil, st, err
	}
	if err := e.ctx.CopyDtoH(back.Ptr(), out, codesLen+outBytes*n); err != nil {
		return nil, st, err
	}
	raw := back.Bytes()
	codes, vals := raw[:4*n], raw[codesLen:codesLen+outBytes*n]
	st.Download = time.Since(t2)

	t3 := time.Now()
	outs := make([]BatchOutcome, n)
	share := r.stats.ComputeSeconds / float64(n)
	parallel(n, func(lo, hi int64) {
		for m := lo; m < hi; m++ {
			x := insts[m]
			if binary.LittleEndian.Uint32(codes[4*m:]) != 0 {
				outs[m].Failed = true
				continue
			}
			res := &backend.Result{Backend: "cuda", Device: e.dev.String()}
			res.Stats.Cells = x.P.Cells()
			res.Stats.ComputeSeconds, res.Stats.Seconds = share, share
			a := x.Plan.Answer
			var err error
			if prog.Answer == codegen.AnswerRegion {
				err = genrun.RegionAnswer(x.P, a, genrun.DecodePart(vals[m*outBytes:]), res)
			} else {
				v := decodeCell(x.P.CellType, vals[m*outBytes:])
				res.AnswerI, res.AnswerJ, res.AnswerIsCell = a.I, a.J, true
				if a.Expr != nil {
					cells := func(i, j int64) (ir.Value, error) {
						if i != a.I || j != a.J {
							return ir.Value{}, fmt.Errorf("internal error: %s was not computed", x.P.CellText(i, j))
						}
						return v, nil
					}
					v, err = eval.Eval(a.Expr, cells)
				}
				res.Answer = v
			}
			if err == nil {
				err = eval.CheckAnswer(x.P, res.Answer)
			}
			if err != nil {
				outs[m].Err = err
				continue
			}
			outs[m].Result = res
		}
	})
	for _, x := range insts {
		st.Cells += x.P.Cells()
	}
	st.Host += time.Since(t3)
	return outs, st, nil
}

// packInstance writes p's varying inputs (prog's PerInstance ones) into
// host as instance m of the launch: input k's elements at offs[k] + m *
// Len * element size, in the device representation.
func packInstance(prog *codegen.Program, p *ir.Problem, host []byte, offs []int64, m int64) error {
	for k, in := range prog.Inputs {
		if !in.PerInstance {
			continue
		}
		got := p.Inputs[k]
		short := prog.BatchColumns && got.Rows <= 1 && int64(got.Len()) < in.Len // a column input of fewer columns
		if got.Name != in.In.Name || (int64(got.Len()) != in.Len && !short) || got.T != in.In.T {
			return fmt.Errorf("not of its program's shape (input %s)", in.In.Name)
		}
		size := elemSize(in)
		at := offs[k] + m*max(in.Len, 1)*size
		if got.T.Size() == 1 {
			dst := host[at : at+int64(got.Len())]
			hi := int64(255)
			if got.T == ir.Char && !in.Unsigned {
				hi = 127 // a char over 127 would need another program
			}
			for x, v := range got.I {
				if v < -128 || v > hi {
					return fmt.Errorf("input %s: element %d = %d does not fit its program's elements", in.In.Name, x, v)
				}
				dst[x] = byte(v)
			}
			continue
		}
		data, err := elemBytes(codegen.Input{In: got, Place: in.Place, Len: in.Len})
		if err != nil {
			return fmt.Errorf("input %s: %w", in.In.Name, err)
		}
		copy(host[at:], data)
	}
	return nil
}

// decodeCell is a cell of type t from its device bytes.
func decodeCell(t ir.Type, b []byte) ir.Value {
	g := backend.NewGrid(t, 1, 1)
	copy(g.Bytes(), b[:t.Size()])
	return g.At(0, 0)
}
