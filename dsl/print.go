package dsl

import (
	"strconv"
	"strings"
)

// ExprString prints e in canonical `.dp` syntax, for messages and for
// `dpgpu check`. Parsing the result gives back the same tree (positions
// aside) for any expression that Parse produced.
//
// The form: binary operators and `?` `:` have a space on each side
// (`a * b + 1`), except that an index or a reduction bound that is a sum or
// difference of names, literals and indexings is printed tight, as people
// write it: `cell[i-1][w-wt[i-1]]`, `min(k in 0..N-1: e)`. Calls are
// `f(a, b)`. Parentheses are printed where the tree has a Paren
// node, and also where a tree built by hand needs them for its structure.
func ExprString(e Expr) string {
	var b strings.Builder
	printExpr(&b, e, precTernary)
	return b.String()
}

// Precedence levels, loosest first.
const (
	precTernary = iota + 1
	precOr
	precAnd
	precEq
	precRel
	precAdd
	precMul
	precUnary
	precPrimary
)

func binaryPrec(op string) int {
	switch op {
	case "||":
		return precOr
	case "&&":
		return precAnd
	case "==", "!=":
		return precEq
	case "<", "<=", ">", ">=":
		return precRel
	case "+", "-":
		return precAdd
	case "*", "/", "%":
		return precMul
	}
	return 0 // unknown: always parenthesised
}

func exprPrec(e Expr) int {
	switch e := e.(type) {
	case *Ternary:
		return precTernary
	case *Binary:
		return binaryPrec(e.Op)
	case *Unary:
		return precUnary
	}
	return precPrimary
}

// printExpr writes e where the grammar wants an expression of precedence at
// least prec, adding parentheses when e binds more loosely.
func printExpr(b *strings.Builder, e Expr, prec int) {
	if e == nil {
		b.WriteString("<nil>")
		return
	}
	if exprPrec(e) < prec {
		b.WriteByte('(')
		printExpr(b, e, precTernary)
		b.WriteByte(')')
		return
	}
	switch e := e.(type) {
	case *Ident:
		b.WriteString(e.Name)
	case *IntLit:
		if e.Text != "" {
			b.WriteString(e.Text)
		} else {
			b.WriteString(strconv.FormatInt(e.Value, 10))
		}
	case *FloatLit:
		b.WriteString(floatText(e))
	case *CharLit:
		b.WriteString(charText(e.Value))
	case *StringLit:
		b.WriteString(stringText(e.Value))
	case *Inf:
		b.WriteString("inf")
	case *Paren:
		b.WriteByte('(')
		printExpr(b, e.X, precTernary)
		b.WriteByte(')')
	case *Unary:
		b.WriteString(e.Op)
		printExpr(b, e.X, precUnary)
	case *Binary:
		p := binaryPrec(e.Op)
		printExpr(b, e.X, p)
		b.WriteString(" " + e.Op + " ")
		printExpr(b, e.Y, p+1) // left-associative
	case *Ternary:
		printExpr(b, e.Cond, precOr)
		b.WriteString(" ? ")
		printExpr(b, e.T, precTernary)
		b.WriteString(" : ")
		printExpr(b, e.F, precTernary)
	case *Index:
		b.WriteString(identName(e.Name))
		for _, ix := range e.Indices {
			b.WriteByte('[')
			printBound(b, ix)
			b.WriteByte(']')
		}
	case *Call:
		b.WriteString(identName(e.Func) + "(")
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			printExpr(b, a, precTernary)
			if i < len(e.Emits) && e.Emits[i] != nil {
				b.WriteString(" emit ")
				printExpr(b, e.Emits[i], precTernary)
			}
		}
		b.WriteByte(')')
	case *Reduce:
		b.WriteString(identName(e.Func) + "(" + identName(e.Var) + " in ")
		var lo strings.Builder
		printBound(&lo, e.Lo)
		b.WriteString(lo.String())
		if strings.HasSuffix(lo.String(), ".") {
			b.WriteByte(' ') // `2. ..N`: `2...N` would lex as 2 .. .N
		}
		b.WriteString("..")
		printBound(b, e.Hi)
		b.WriteString(": ")
		printExpr(b, e.Body, precTernary)
		b.WriteByte(')')
	default:
		b.WriteString("<?>")
	}
}

func identName(id *Ident) string {
	if id == nil {
		return "<nil>"
	}
	return id.Name
}

// printBound prints an index or a reduction bound: tight when it is a
// simple sum.
func printBound(b *strings.Builder, e Expr) {
	if tightSum(e) {
		printTight(b, e)
	} else {
		printExpr(b, e, precTernary)
	}
}

// tightSum reports whether e is a chain of `+` and `-` over atoms, printed
// without spaces inside brackets.
func tightSum(e Expr) bool {
	bin, ok := e.(*Binary)
	if !ok || bin.Op != "+" && bin.Op != "-" {
		return false
	}
	return (isAtom(bin.X) || tightSum(bin.X)) && isAtom(bin.Y)
}

func isAtom(e Expr) bool {
	switch e.(type) {
	case *Ident, *IntLit, *FloatLit, *CharLit, *Inf, *Index:
		return true
	}
	return false
}

func printTight(b *strings.Builder, e Expr) {
	if bin, ok := e.(*Binary); ok {
		printTight(b, bin.X)
		b.WriteString(bin.Op)
		printExpr(b, bin.Y, precPrimary)
		return
	}
	printExpr(b, e, precPrimary)
}

func floatText(e *FloatLit) string {
	if e.Text != "" {
		return e.Text
	}
	s := strconv.FormatFloat(e.Value, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEIN") { // keep it a float: 2 -> 2.0
		s += ".0"
	}
	return s
}

// charText quotes c as a character literal that the lexer reads back.
func charText(c byte) string {
	switch c {
	case '\'':
		return `'\''`
	case '\\':
		return `'\\'`
	case '\n':
		return `'\n'`
	case '\r':
		return `'\r'`
	case '\t':
		return `'\t'`
	case 0:
		return `'\0'`
	}
	if c < 0x20 || c >= 0x7f {
		const hex = "0123456789abcdef"
		return `'\x` + string([]byte{hex[c>>4], hex[c&15]}) + `'`
	}
	return "'" + string(rune(c)) + "'"
}

// stringText quotes s with the escapes that unquote reverses.
func stringText(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
