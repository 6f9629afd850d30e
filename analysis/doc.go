// Package analysis holds the facts about ir expressions that more than one
// stage needs, computed by one set of rules, as the Go compiler's prove pass
// derives facts once for the passes after it: linear forms of index
// expressions (the planner's dependency offsets, the CPU compiler's lane
// reach) and value ranges (the checks the CPU kernels and the generated
// CUDA leave out). The ranges come from one walker (Walker), which the CPU
// compiler runs per region of the grid with a Recorder for the facts its
// kernels are specialised on, and the code generator with refinement under
// conditions and the GPU's failure model (Config).
//
// It depends on ir alone. The integer arithmetic on values it reasons
// about is ir.Arith's.
package analysis
