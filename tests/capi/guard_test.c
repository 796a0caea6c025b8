/* The C API, part 6: host memory flush against an unreadable page. A C host's buffers have
 * no slack after (or before) them, so inputs lent with mlvm_session_set_input — row-major and
 * upside down (negative strides) — and outputs bound with mlvm_session_bind_output sit right
 * next to a PROT_NONE page here: a kernel touching one byte outside them ends this program.
 * The convolution is the shape that read past its input (3x3, pads (0, 1, 0, 1), 1 channel),
 * checked against a direct loop, on 1 and 2 threads. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"

enum { N = 3, H = 13, W = 9, OC = 5, OH = H - 2, OW = W };

static const char kConv[] =
    ".input  x : f32[3, 1, 13, 9]\n"
    ".input  w : f32[5, 1, 3, 3]\n"
    ".output y : f32[3, 5, 11, 9]\n"
    ".output s : f32[3, 1, 13, 9]\n"
    "    y = conv2d x, w, padding=(0, 1, 0, 1)\n"
    "    s = add x, x\n";

/* `bytes` of read-write memory directly before a PROT_NONE page (after != 0) or directly
 * after one; *unmap_base / *unmap_len receive what to munmap. */
static void* guarded(size_t bytes, int after, void** unmap_base, size_t* unmap_len) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  const size_t body = (bytes + page - 1) / page * page;
  char* base = mmap(NULL, body + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED || mprotect(base + page, body, PROT_READ | PROT_WRITE) != 0) abort();
  *unmap_base = base;
  *unmap_len = body + 2 * page;
  return after ? base + page + body - bytes : base + page;
}

static float xv(int n, int h, int w) { return (float)((n * 31 + h * 7 + w * 3) % 17) - 8.0f; }
static float wv(int o, int i, int j) { return (float)((o * 5 + i * 3 + j) % 7) - 3.0f; }

static float conv_at(int n, int o, int p, int q) {
  float s = 0;
  int i, j;
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 3; ++j) {
      const int ih = p + i, iw = q - 1 + j;
      if (iw >= 0 && iw < W) s += xv(n, ih, iw) * wv(o, i, j);
    }
  return s;
}

/* One run with x lent upside down or not, every buffer on side `after`. */
static void run_case(int threads, int after, int flipped) {
  static const int64_t xshape[4] = {N, 1, H, W}, wshape[4] = {OC, 1, 3, 3}, yshape[4] = {N, OC, OH, OW};
  const size_t xbytes = sizeof(float) * N * H * W, wbytes = sizeof(float) * OC * 9;
  const size_t ybytes = sizeof(float) * N * OC * OH * OW;
  void* maps[4];
  size_t lens[4];
  float* x = guarded(xbytes, after, &maps[0], &lens[0]);
  float* w = guarded(wbytes, after, &maps[1], &lens[1]);
  float* y = guarded(ybytes, after, &maps[2], &lens[2]);
  float* s = guarded(xbytes, after, &maps[3], &lens[3]);
  /* Flipped: element (n, 0, h, w) at x[(N-1-n)·H·W + (H-1-h)·W + (W-1-w)], i.e. strides
   * (-H·W, -H·W, -W, -1) from the buffer's last element. */
  const int64_t xstrides_flipped[4] = {-H * W, -H * W, -W, -1};
  mlvm_program* p = harness_assemble(kConv);
  mlvm_session* sess = harness_session(p, threads);
  mlvm_error* err = NULL;
  int n, o, q, r, bad = 0;

  for (n = 0; n < N; ++n)
    for (q = 0; q < H; ++q)
      for (r = 0; r < W; ++r) {
        const size_t at = flipped ? (size_t)((N - 1 - n) * H * W + (H - 1 - q) * W + (W - 1 - r))
                                  : (size_t)(n * H * W + q * W + r);
        x[at] = xv(n, q, r);
      }
  for (o = 0; o < OC; ++o)
    for (q = 0; q < 3; ++q)
      for (r = 0; r < 3; ++r) w[o * 9 + q * 3 + r] = wv(o, q, r);
  EXPECT_OK(err, mlvm_session_set_input(sess, "x", MLVM_F32, 4, xshape, flipped ? xstrides_flipped : NULL, x,
                                        xbytes, flipped ? xbytes - sizeof(float) : 0, &err));
  EXPECT_OK(err, mlvm_session_set_input(sess, "w", MLVM_F32, 4, wshape, NULL, w, wbytes, 0, &err));
  EXPECT_OK(err, mlvm_session_bind_output(sess, "y", MLVM_F32, 4, yshape, NULL, y, ybytes, 0, &err));
  EXPECT_OK(err, mlvm_session_bind_output(sess, "s", MLVM_F32, 4, xshape, NULL, s, xbytes, 0, &err));
  EXPECT_OK(err, mlvm_session_run(sess, &err));
  for (n = 0; n < N; ++n)
    for (o = 0; o < OC; ++o)
      for (q = 0; q < OH; ++q)
        for (r = 0; r < OW; ++r) bad += y[((n * OC + o) * OH + q) * OW + r] != conv_at(n, o, q, r);
  for (n = 0; n < N; ++n)
    for (q = 0; q < H; ++q)
      for (r = 0; r < W; ++r) bad += s[(n * H + q) * W + r] != 2 * xv(n, q, r);
  CHECK(bad == 0);
  mlvm_session_free(sess);
  mlvm_program_free(p);
  for (n = 0; n < 4; ++n) munmap(maps[n], lens[n]);
}

int main(void) {
  int threads, after, flipped;
  for (threads = 1; threads <= 2; ++threads)
    for (after = 0; after <= 1; ++after)
      for (flipped = 0; flipped <= 1; ++flipped) run_case(threads, after, flipped);
  return harness_finish("guard");
}
