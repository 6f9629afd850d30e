package dsl

import "github.com/dpgpu/dpgpu/source"

// The parser's errors are those of package source.
type (
	Error     = source.Error
	ErrorList = source.ErrorList
)

// Format renders err with source lines and carets (source.Format).
func Format(err error, text []byte) string { return source.Format(err, text) }
