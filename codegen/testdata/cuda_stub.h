// Stand-ins for the CUDA built-ins that generated code uses, so that a host
// C++ compiler can check its syntax and types (codegen tests; no GPU).
#define __device__
#define __global__
#define __constant__
#define __shared__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __builtin_assume(x) ((void)(x))
struct dim3s { unsigned x, y, z; };
extern dim3s threadIdx, blockIdx, blockDim, gridDim;
int atomicCAS(int *, int, int);
int atomicExch(int *, int);
int atomicAdd(int *, int);
unsigned long long atomicAdd(unsigned long long *, unsigned long long);
int __popcll(unsigned long long);
unsigned long long __umul64hi(unsigned long long, unsigned long long);
void __threadfence();
void __threadfence_block();
void __threadfence_system();
void __syncthreads();
void __syncwarp(unsigned m = 0xffffffffu);
void __nanosleep(unsigned);
int __all_sync(unsigned, int);
int __any_sync(unsigned, int);
template <class T> T __shfl_sync(unsigned, T, int);
template <class T> T __shfl_up_sync(unsigned, T, unsigned);
template <class T> T __shfl_down_sync(unsigned, T, unsigned);
template <class T> T __shfl_xor_sync(unsigned, T, int);
template <class T> T __ldg(const T *);
template <class T> T __ldcg(const T *);
double __longlong_as_double(long long);
float __int_as_float(int);
long long __double_as_longlong(double);
long long __mul64hi(long long, long long);
double exp(double); double log(double); double sqrt(double); double pow(double, double);
double floor(double); double ceil(double); double fabs(double); float fabsf(float);
double fmod(double, double); float fmodf(float, float);
