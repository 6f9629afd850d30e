package gpu

import (
	"encoding/binary"
	"fmt"
	"sort"
	"unsafe"

	"github.com/dpgpu/dpgpu/backend"
	"github.com/dpgpu/dpgpu/backend/cuda"
	"github.com/dpgpu/dpgpu/backend/genrun"
	"github.com/dpgpu/dpgpu/codegen"
	"github.com/dpgpu/dpgpu/eval"
	"github.com/dpgpu/dpgpu/ir"
	"github.com/dpgpu/dpgpu/plan"
)

// setupAnswer allocates what the answer needs: slots partial results of a
// region (one per block or warp), or the captured cells.
func (r *run) setupAnswer(slots int) error {
	pr := r.prog
	ctx := r.e.ctx
	switch pr.Answer {
	case codegen.AnswerRegion:
		p, err := r.allocPartials(slots)
		if err != nil {
			return err
		}
		r.part, r.parts = p, slots
	case codegen.AnswerCapture:
		if pr.Kernel == codegen.KernelStrip {
			return nil
		}
		n := len(pr.Captures)
		r.capN = n
		v, err := r.alloc("answer cells", int64(max(n, 1))*r.cellBytes())
		if err != nil {
			return err
		}
		r.capV = v
		idx := make([]int64, max(n, 1))
		if pr.Kernel == codegen.KernelTile || pr.Kernel == codegen.KernelFront {
			for k, c := range pr.Captures {
				idx[k] = c[0]*r.p.Cols + c[1]
			}
		} else {
			// Line order: the captures of one line are contiguous.
			order := r.lineOrder()
			r.capLn = map[int64][]int{}
			for m, k := range order {
				line, pos := r.lineOf(pr.Captures[k][0], pr.Captures[k][1])
				idx[m] = pos
				r.capLn[line] = append(r.capLn[line], m)
			}
		}
		p, err := r.alloc("answer cell positions", int64(len(idx))*8)
		if err != nil {
			return err
		}
		if err := cuda.CopyToDevice(ctx, p, idx); err != nil {
			return err
		}
		r.capPos = p
	}
	return nil
}

// allocPartials allocates slots zeroed partial results of a region answer
// (one per block or warp).
func (r *run) allocPartials(slots int) (cuda.DevicePtr, error) {
	p, err := r.alloc("answer partials", int64(slots)*codegen.PartBytes)
	if err != nil {
		return 0, err
	}
	return p, r.e.ctx.Memset8(p, 0, int64(slots)*codegen.PartBytes)
}

// zeroStripCaptures zeroes the strip kernel's captured answer cells (a
// module global, dp_capv) where the answer captures cells.
func (r *run) zeroStripCaptures() error {
	if r.prog.Answer != codegen.AnswerCapture {
		return nil
	}
	zero := make([]byte, codegen.MaxStripCaptures*8)
	return r.e.ctx.CopyHtoD(r.mod.globals[codegen.SymCapture], unsafe.Pointer(&zero[0]), int64(codegen.MaxStripCaptures)*r.cellBytes())
}

// lineOrder lists the capture indices sorted by (line, position).
func (r *run) lineOrder() []int {
	pr := r.prog
	order := make([]int, len(pr.Captures))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool {
		la, pa := r.lineOf(pr.Captures[order[a]][0], pr.Captures[order[a]][1])
		lb, pb := r.lineOf(pr.Captures[order[b]][0], pr.Captures[order[b]][1])
		return la < lb || (la == lb && pa < pb)
	})
	return order
}

// value decodes a cell of the problem's type.
func (r *run) value(b []byte) ir.Value { return decodeCell(r.p.CellType, b) }

// decodeCell is a cell of type t from its device bytes.
func decodeCell(t ir.Type, b []byte) ir.Value {
	g := backend.NewGrid(t, 1, 1)
	copy(g.Bytes(), b[:t.Size()])
	return g.At(0, 0)
}

func (r *run) readDevice(p cuda.DevicePtr, n int64) ([]byte, error) {
	b := make([]byte, max(n, 1))
	if n == 0 {
		return b[:0], nil
	}
	if err := r.e.ctx.CopyDtoH(unsafe.Pointer(&b[0]), p, n); err != nil {
		return nil, err
	}
	return b, nil
}

// answer reads the answer off the device; a NaN answer is an error unless
// the problem allows NaN.
func (r *run) answer(res *backend.Result) error {
	if err := r.readAnswer(res); err != nil {
		return err
	}
	return r.finishAnswer(res)
}

// finishAnswer applies the rules the CPU executor applies to the answer it
// reports (a NaN answer is an error without `nan: allow`).
func (r *run) finishAnswer(res *backend.Result) error {
	return eval.CheckAnswer(r.p, res.Answer)
}

func (r *run) readAnswer(res *backend.Result) error {
	pr, p, a := r.prog, r.p, r.pl.Answer
	cs := r.cellBytes()
	switch pr.Answer {
	case codegen.AnswerCell:
		b, err := r.readDevice(r.mod.globals[codegen.SymAnswer], cs)
		if err != nil {
			return err
		}
		return cellAnswer(p, a, r.value(b), res)
	case codegen.AnswerRegion:
		return r.regionAnswer(res)
	}
	var raw []byte
	var err error
	n := len(pr.Captures)
	if pr.Kernel == codegen.KernelStrip {
		raw, err = r.readDevice(r.mod.globals[codegen.SymCapture], int64(n)*cs)
	} else {
		raw, err = r.readDevice(r.capV, int64(n)*cs)
	}
	if err != nil {
		return err
	}
	got := map[[2]int64]ir.Value{}
	if pr.Kernel == codegen.KernelLine {
		for m, k := range r.lineOrder() {
			got[pr.Captures[k]] = r.value(raw[int64(m)*cs:])
		}
	} else {
		for k, c := range pr.Captures {
			got[c] = r.value(raw[int64(k)*cs:])
		}
	}
	cells := backend.Captured(p, got)
	res.Answer, err = eval.Eval(a.Expr, cells)
	return err
}

func (r *run) regionAnswer(res *backend.Result) error {
	raw, err := r.readDevice(r.part, int64(r.parts)*codegen.PartBytes)
	if err != nil {
		return err
	}
	var acc genrun.Part
	for k := 0; k < r.parts; k++ {
		acc = genrun.Fold(r.pl.Answer.Op, r.p.CellType.IsFloat(), acc, genrun.DecodePart(raw[k*codegen.PartBytes:]))
	}
	return genrun.RegionAnswer(r.p, r.pl.Answer, acc, res)
}

// cellAnswer sets res's answer from v, the value of the answer cell a
// names: the cell's, or the answer expression's over it.
func cellAnswer(p *ir.Problem, a plan.AnswerSpec, v ir.Value, res *backend.Result) error {
	res.AnswerI, res.AnswerJ, res.AnswerIsCell = a.I, a.J, true
	if a.Expr != nil {
		cells := func(i, j int64) (ir.Value, error) {
			if i != a.I || j != a.J {
				return ir.Value{}, fmt.Errorf("internal error: %s was not captured", p.CellText(i, j))
			}
			return v, nil
		}
		var err error
		if v, err = eval.Eval(a.Expr, cells); err != nil {
			return err
		}
	}
	res.Answer = v
	return nil
}

// deviceError reads dp_err and turns it into a positioned error; nil when
// the device reported nothing (or cannot be read).
func (r *run) deviceError() error {
	b, err := r.readDevice(r.mod.globals[codegen.SymError], 40)
	if err != nil {
		return nil
	}
	code := int32(binary.LittleEndian.Uint32(b))
	site := int(int32(binary.LittleEndian.Uint32(b[4:])))
	ci := int64(binary.LittleEndian.Uint64(b[8:]))
	cj := int64(binary.LittleEndian.Uint64(b[16:]))
	x := int64(binary.LittleEndian.Uint64(b[24:]))
	y := int64(binary.LittleEndian.Uint64(b[32:]))
	if code == 0 {
		return nil
	}
	return r.describe(int(code), site, ci, cj, x, y)
}

// describe words a device error like the CPU executor's.
func (r *run) describe(code, site int, ci, cj, x, y int64) error {
	return genrun.Describe(r.p, r.pl, r.prog.Sites, "the GPU", code, site, ci, cj, x, y)
}
