// Package analysis holds the facts about ir expressions that more than one
// stage needs, computed by one set of rules, as the Go compiler's prove pass
// derives facts once for the passes after it: linear forms of index
// expressions (the planner's dependency offsets, the CPU compiler's lane
// reach) and value ranges (the checks the CPU kernels and the generated
// CUDA leave out).
//
// It depends on ir alone. The integer arithmetic on values it reasons
// about is ir.Arith's.
package analysis
