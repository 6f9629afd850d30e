// Package peers holds hand-written CUDA reference kernels — the "peers" that
// dpgpu's generated kernels are measured against — and a small harness that
// compiles them with NVRTC for the device's architecture, exactly as dpgpu
// compiles its own kernels, runs them, and times them with CUDA events.
//
// The kernels (the .cu files of this directory, embedded in the binary):
//
//   - lcs_tiled: scalar LCS over anti-diagonal tiles, int32 cells;
//   - lcs_bitpar: bit-parallel LCS length (Allison-Dix / Hyyrö), 64-bit words;
//   - nussinov_warp, nussinov_thread, matrixchain_warp, matrixchain_thread:
//     interval DP, one launch per diagonal, one warp or one thread per cell.
//
// Each runner (NewLCSTiled, NewLCSBitpar, NewNussinov, NewMatrixChain) is
// written against [Device], which the GPU ([OpenGPU]) implements and which
// the tests also implement by running the very same kernel sources on host
// threads, so that the kernels and the host's launch sequences are checked
// against the plain Go references (RefLCS, RefNussinov, RefMatrixChain) on a
// machine without a GPU. See bench/README.md for the commands.
package peers
