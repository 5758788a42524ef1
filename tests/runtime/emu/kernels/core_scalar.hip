// Scalar (uniform) integer work: kernel arguments read with s_load, SALU arithmetic of 32-
// and 64-bit values, a uniform loop. Every lane stores the same results.
#include "hip_min.h"

struct Params {
  int a, b;
  unsigned ua, ub;
  int n;
  int shift;
  long long x, y;
};

extern "C" __global__ void scalar_ops(Params p, const int* table, int* out) {
  int r[32];
  r[0] = p.a + p.b;
  r[1] = p.a - p.b;
  r[2] = p.a * p.b;
  r[3] = p.a & p.b;
  r[4] = p.a | p.b;
  r[5] = p.a ^ p.b;
  r[6] = p.a << (p.shift & 31);
  r[7] = p.a >> (p.shift & 31);
  r[8] = int(p.ua >> (p.shift & 31));
  r[9] = p.a < p.b ? p.a : p.b;
  r[10] = p.a > p.b ? p.a : p.b;
  r[11] = int(p.ua < p.ub ? p.ua : p.ub);
  r[12] = int(p.ua > p.ub ? p.ua : p.ub);
  r[13] = __builtin_popcount(p.ua);
  r[14] = p.ua ? __builtin_clz(p.ua) : 32;
  r[15] = p.ua ? __builtin_ctz(p.ua) : 32;
  int s = 0;
  for (int i = 0; i < p.n; ++i) // uniform loop over a table read with scalar loads
    s += table[i] * (i + 1);
  r[16] = s;
  long long x = p.x, y = p.y;
  long long sum = x + y, diff = x - y, prod = x * y;
  r[17] = int(sum), r[18] = int(sum >> 32);
  r[19] = int(diff), r[20] = int(diff >> 32);
  r[21] = int(prod), r[22] = int(prod >> 32);
  long long sh = x << (p.shift & 63);
  r[23] = int(sh), r[24] = int(sh >> 32);
  unsigned long long ush = (unsigned long long)x >> (p.shift & 63);
  r[25] = int(ush), r[26] = int(ush >> 32);
  r[27] = x < y ? 1 : 0;
  r[28] = (signed char)(p.a);
  r[29] = (short)(p.b);
  r[30] = __builtin_popcountll((unsigned long long)x);
  r[31] = p.a == p.b ? 7 : 9;
  for (int i = 0; i < 32; ++i)
    out[i] = r[i];
}
