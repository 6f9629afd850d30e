// prelude.cuh is put in front of every reference kernel (by the Go harness,
// for NVRTC and for the host emulation alike): NVRTC offers no standard
// headers, so the few helpers the kernels share are defined here.

#define PEER_FULL_MASK 0xffffffffu

static __device__ __forceinline__ int peer_imax(int a, int b) { return a > b ? a : b; }
static __device__ __forceinline__ long long peer_lmin(long long a, long long b) { return a < b ? a : b; }
