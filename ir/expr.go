package ir

import "github.com/dpgpu/dpgpu/source"

// Expr is a typed expression. Every node records the type of its result and
// the `.dp` position it came from. Names are resolved: there are no
// identifiers left, only the node kinds below.
type Expr interface {
	Type() Type
	Position() source.Pos
}

// Node holds what every expression has.
type Node struct {
	T   Type
	Pos source.Pos
}

func (n *Node) Type() Type           { return n.T }
func (n *Node) Position() source.Pos { return n.Pos }

// Const is a literal or a folded constant (len(), rows(), cols(), ROWS,
// COLS are folded into Consts by sema).
type Const struct {
	Node
	V Value
}

// Inf is `inf` (Neg false) or `-inf` of type T. For floating types it is the
// IEEE infinity. For integer types it is a sentinel (the type's largest
// value, or for -inf the smallest plus one) that + and - saturate on:
// inf + x stays inf. Expressions that may carry the sentinel are marked by
// MayBeInf so that backends pay for saturation only where it can matter.
type Inf struct {
	Node
	Neg bool
}

// VarKind says which index variable a Var is.
type VarKind uint8

const (
	VarI      VarKind = iota // the row index of the recurrence (or answer reduction)
	VarJ                     // the column index
	VarReduce                // the variable of an enclosing Reduce
)

// Var is an index variable: i, j, or the variable of a reduction. Its type is
// Int unless the grid needs Long.
type Var struct {
	Node
	Kind   VarKind
	Name   string
	Reduce *Reduce // the binding reduction, for VarReduce
}

// BoundBy reports whether v is the variable reduction r binds.
func (v *Var) BoundBy(r *Reduce) bool {
	return v == r.Var || (v.Reduce != nil && v.Reduce == r)
}

// ScalarRef reads a scalar. Backends may fold it to its value or pass it as a
// parameter; the value never changes during a run.
type ScalarRef struct {
	Node
	Scalar *Scalar
}

// Load reads an input element: In[Index[0]] for vectors, In[Index[0]][Index[1]]
// for matrices. An index outside the input is a run-time error naming Pos.
type Load struct {
	Node
	In    *Input
	Index []Expr
}

// CellRef reads cell[I][J] of the grid. ID indexes Problem.CellRefs for
// references in the recurrence and is -1 for references in the answer.
type CellRef struct {
	Node
	ID   int
	I, J Expr
	Text string // the reference as written, e.g. "cell[i-1][j]"
	// OneD marks a reference to a 1-D grid, cell[e] (Problem.Dims == 1):
	// I is the constant 0 and J is e. A stage that words a cell from the
	// reference alone, without the Problem, reads it: "cell[k-1] reads
	// cell[-1]", not cell[0][-1].
	OneD bool
	// Mid and Inner are R and C of a 3-D grid (Problem.Dims == 3; 0
	// otherwise): the reference cell[a][b][c] as written (Text) is I = a,
	// J = b*C + c, where J is guarded: with b outside 0..R-1 or c outside
	// 0..C-1, J is OutsideColumn3 of the cell being computed, outside the
	// grid. Messages built from the reference alone read them.
	Mid, Inner int64
	// Sub3 (recurrence of a 3-D grid) is the reference's second and third
	// subscripts b and c as written, over the lowered index variables (the
	// user's i is J / C, j is J % C): the planner reads a 3-D reference's
	// offsets along the user's three axes from I and Sub3, where J has
	// folded b and c into one column.
	Sub3 [2]Expr
	// Tables is Problem.Tables of a recurrence of several tables (nil
	// otherwise), so that messages built from the reference alone name
	// cells as the user does (H[2][3]); Table is the table it reads.
	Tables []string
	Table  int
	// From is the table whose case holds the reference (0 for one table).
	From int
}

// Op is an operator.
type Op uint8

const (
	OpNone Op = iota
	OpAdd     // +
	OpSub     // -
	OpMul     // *
	OpDiv     // / (truncating for integers, as in C)
	OpRem     // % (integers only)
	OpEq      // ==
	OpNe      // !=
	OpLt      // <
	OpLe      // <=
	OpGt      // >
	OpGe      // >=
	OpAnd     // && (short-circuit)
	OpOr      // || (short-circuit)
	OpNeg     // unary -
	OpNot     // unary !
)

var opNames = [...]string{"?", "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "-", "!"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "?"
}

// Unary is -X or !X. For OpNeg the operand has the result type; for OpNot
// it is Bool.
type Unary struct {
	Node
	Op Op
	X  Expr
}

// Binary is X Op Y. For arithmetic both operands have been converted to the
// result type. For comparisons both operands have one common type and the
// result is Bool. For && and || both operands are Bool and Y is evaluated
// only when needed.
type Binary struct {
	Node
	Op   Op
	X, Y Expr
	// Saturate is set on + - * / % of integer type when an operand may be
	// the inf sentinel; the operation then follows the inf rules of
	// docs/language.md ("Arithmetic"): inf + x is inf, inf * x is ±inf by
	// sign, inf / x is ±inf, x / inf is 0, and inf - inf, inf * 0,
	// inf / inf and inf % x are errors. Without it an operand is known to
	// be finite, and only the finite-range (overflow) check applies.
	Saturate bool
}

// Select is Cond ? Then : Else; only the chosen branch is evaluated.
// Then and Else have the result type.
type Select struct {
	Node
	Cond       Expr
	Then, Else Expr
}

// Convert converts X to the node's type (C conversion rules; float to integer
// truncates toward zero; inf converts to inf).
type Convert struct {
	Node
	X Expr
}

// Func is a built-in function.
type Func uint8

const (
	FnMin   Func = iota // min(a, b, ...): all arguments of the result type
	FnMax               // max(a, b, ...)
	FnAbs               // abs(x)
	FnExp               // exp(x), double or float
	FnLog               // log(x)
	FnSqrt              // sqrt(x)
	FnPow               // pow(x, y)
	FnFloor             // floor(x)
	FnCeil              // ceil(x)
)

var funcNames = [...]string{"min", "max", "abs", "exp", "log", "sqrt", "pow", "floor", "ceil"}

func (f Func) String() string {
	if int(f) < len(funcNames) {
		return funcNames[f]
	}
	return "?"
}

// Call applies a built-in function. Arguments have been converted to the
// result type (for exp/log/sqrt/pow/floor/ceil: Double, or Float when every
// argument was Float).
type Call struct {
	Node
	Fn   Func
	Args []Expr
	// Emits are the `emit EXPR` of min's and max's arguments (`max(a emit
	// 'M', b emit 'I')`, contract v2 §7.4): one per argument, nil for an
	// argument without one; Emits itself is nil when no argument has one.
	// Only the traceback reads them: a step whose value this argument won
	// emits it. They are no part of the value, so the evaluators, the
	// planner and Walk ignore them; their cell references are not in
	// Problem.CellRefs (ID -1, as in the answer).
	Emits []Expr
}

// ReduceOp is the operation of a reduction.
type ReduceOp uint8

const (
	ReduceMin ReduceOp = iota // identity inf
	ReduceMax                 // identity -inf
	ReduceSum                 // identity 0
)

func (o ReduceOp) String() string { return [...]string{"min", "max", "sum"}[o] }

// Reduce is `op(Var in Lo..Hi: Body)`, bounds inclusive; an empty range
// gives the identity. Body has the result type; Lo and Hi are integers.
type Reduce struct {
	Node
	Op     ReduceOp
	Var    *Var
	Lo, Hi Expr
	Body   Expr
}

// Walk calls f for e and then, if f returns true, for each child in order.
// The emits of a Call's arguments are not its children: they are no part
// of its value (Call.Emits).
// Any reports whether e or a node under it satisfies f (a Walk that stops
// at the first).
func Any(e Expr, f func(Expr) bool) bool {
	found := false
	Walk(e, func(x Expr) bool {
		found = found || f(x)
		return !found
	})
	return found
}

func Walk(e Expr, f func(Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	switch n := e.(type) {
	case *Load:
		for _, x := range n.Index {
			Walk(x, f)
		}
	case *CellRef:
		Walk(n.I, f)
		Walk(n.J, f)
	case *Unary:
		Walk(n.X, f)
	case *Binary:
		Walk(n.X, f)
		Walk(n.Y, f)
	case *Select:
		Walk(n.Cond, f)
		Walk(n.Then, f)
		Walk(n.Else, f)
	case *Convert:
		Walk(n.X, f)
	case *Call:
		for _, x := range n.Args {
			Walk(x, f)
		}
	case *Reduce:
		Walk(n.Lo, f)
		Walk(n.Hi, f)
		Walk(n.Body, f)
	}
}

// StripConversions returns e without the conversions that wrap it: the
// reduction or cell reference inside an answer like int(sum(...)).
func StripConversions(e Expr) Expr {
	for {
		c, ok := e.(*Convert)
		if !ok {
			return e
		}
		e = c.X
	}
}
