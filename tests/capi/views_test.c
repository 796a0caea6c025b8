/* The C API, part 3: outputs that are views — transpose, broadcast, flip, a strided slice,
 * a broadcast program constant — read through their strides from mlvm_tensor_data and through
 * mlvm_tensor_copy_to, against NumPy's values written out by hand for
 * x = np.arange(12).reshape(3, 4). And inputs given with strides (a transposed and a flipped
 * layout of host memory). */
#include <string.h>

#include "harness.h"

static const char kViews[] =
    ".input  x : f32[3, 4]\n"
    ".const  c : i64[1, 3] = [[7, -8, 9]]\n"
    ".output t : f32[4, 3]\n"
    ".output b : f32[2, 3, 4]\n"
    ".output f : f32[3, 4]\n"
    ".output s : f32[1, 2]\n"
    ".output cb : i64[2, 3]\n"
    "    t = transpose x\n"
    "    b = broadcast_to x, shape=(2, 3, 4)\n"
    "    f = flip x, axis=1\n"
    "    s = strided_slice x, begin=(2, 3), end=(0, 0), strides=(-2, -2)\n"
    "    cb = broadcast_to c, shape=(2, 3)\n";

static float g_x[12];

/* Reads output `name` both ways and compares with `want` (n elements). */
static void check_f32_output(mlvm_session* s, const char* name, const float* want, size_t n) {
  mlvm_error* err = NULL;
  const mlvm_tensor* t = NULL;
  float by_strides[24], copied[24];
  EXPECT_OK(err, mlvm_session_output(s, name, &t, &err));
  if (!CHECK(t != NULL && harness_numel(t) == n)) return;
  harness_read_f32(t, by_strides);
  CHECK(harness_same_f32(by_strides, want, n));
  EXPECT_OK(err, mlvm_tensor_copy_to(t, copied, n * sizeof(float), &err));
  CHECK(harness_same_f32(copied, want, n));
}

static void test_every_view_kind(void) {
  mlvm_program* p = harness_assemble(kViews);
  mlvm_session* s = harness_session(p, 1);
  mlvm_error* err = NULL;
  const mlvm_tensor* t = NULL;
  const int64_t shape[2] = {3, 4};
  /* x.T */
  const float want_t[12] = {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11};
  /* np.flip(x, axis=1) */
  const float want_f[12] = {3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8};
  /* x[2:0:-2, 3:0:-2] */
  const float want_s[2] = {11, 9};
  float want_b[24];
  int i;
  for (i = 0; i < 12; ++i) g_x[i] = (float)i;
  for (i = 0; i < 24; ++i) want_b[i] = (float)(i % 12); /* x twice */

  EXPECT_OK(err,
            mlvm_session_set_input(s, "x", MLVM_F32, 2, shape, NULL, g_x, sizeof g_x, 0, &err));
  EXPECT_OK(err, mlvm_session_run(s, &err));
  check_f32_output(s, "t", want_t, 12);
  check_f32_output(s, "b", want_b, 24);
  check_f32_output(s, "f", want_f, 12);
  check_f32_output(s, "s", want_s, 2);

  /* The layouts themselves: views of the host's own x, no copy. */
  EXPECT_OK(err, mlvm_session_output(s, "t", &t, &err));
  CHECK(mlvm_tensor_data(t) == (const void*)g_x);
  CHECK(mlvm_tensor_shape(t)[0] == 4 && mlvm_tensor_shape(t)[1] == 3);
  CHECK(mlvm_tensor_strides(t)[0] == 1 && mlvm_tensor_strides(t)[1] == 4);
  EXPECT_OK(err, mlvm_session_output(s, "b", &t, &err));
  CHECK(mlvm_tensor_rank(t) == 3 && mlvm_tensor_strides(t)[0] == 0);
  EXPECT_OK(err, mlvm_session_output(s, "f", &t, &err));
  CHECK(mlvm_tensor_strides(t)[1] == -1);
  CHECK(mlvm_tensor_data(t) == (const void*)(g_x + 3)); /* element (0, 0) is x[0, 3] */
  EXPECT_OK(err, mlvm_session_output(s, "s", &t, &err));
  CHECK(mlvm_tensor_strides(t)[1] == -2 && mlvm_tensor_data(t) == (const void*)(g_x + 11));

  /* A broadcast of a program constant: i64, stride 0 on the broadcast dim. */
  {
    const int64_t want_cb[6] = {7, -8, 9, 7, -8, 9};
    int64_t by_strides[6], copied[6];
    EXPECT_OK(err, mlvm_session_output(s, "cb", &t, &err));
    CHECK(mlvm_tensor_dtype(t) == MLVM_I64 && mlvm_tensor_strides(t)[0] == 0);
    harness_read_i64(t, by_strides);
    CHECK(memcmp(by_strides, want_cb, sizeof want_cb) == 0);
    EXPECT_OK(err, mlvm_tensor_copy_to(t, copied, sizeof copied, &err));
    CHECK(memcmp(copied, want_cb, sizeof want_cb) == 0);
    /* copy_to wants the exact size, and a destination. */
    EXPECT_STATUS(err, mlvm_tensor_copy_to(t, copied, sizeof copied - 1, &err), MLVM_ERR_USAGE,
                  "48 bytes", 0);
    EXPECT_STATUS(err, mlvm_tensor_copy_to(t, copied, sizeof copied + 8, &err), MLVM_ERR_USAGE,
                  NULL, 0);
    EXPECT_STATUS(err, mlvm_tensor_copy_to(t, NULL, sizeof copied, &err), MLVM_ERR_USAGE, "dst", 0);
    EXPECT_STATUS(err, mlvm_tensor_copy_to(NULL, copied, sizeof copied, &err), MLVM_ERR_USAGE,
                  "tensor", 0);
    CHECK(mlvm_tensor_copy_to(t, copied, 1, NULL) == MLVM_ERR_USAGE);
  }

  /* A NULL tensor answers as an empty one. */
  CHECK(mlvm_tensor_dtype(NULL) == MLVM_F32);
  CHECK(mlvm_tensor_rank(NULL) == 0);
  CHECK(mlvm_tensor_shape(NULL) == NULL);
  CHECK(mlvm_tensor_strides(NULL) == NULL);
  CHECK(mlvm_tensor_data(NULL) == NULL);
  mlvm_session_free(s);
  mlvm_program_free(p);
}

/* Inputs in any layout: x given as the transpose of a 4x3 host matrix (strides (1, 3)), then
 * as a flip of the row-major x (negative stride, element 0 at a byte offset). */
static void test_strided_inputs(void) {
  mlvm_program* p = harness_assemble(
      ".input x : f32[3, 4]\n.output y : f32[3, 4]\n"
      "    y = add x, 0.0\n");
  mlvm_session* s = harness_session(p, 1);
  mlvm_error* err = NULL;
  const mlvm_tensor* y = NULL;
  const int64_t shape[2] = {3, 4};
  float host[12], got[12], want[12];
  int i, j;

  /* host is x.T stored row-major (4 x 3): x[i][j] = host[j][i] = i * 4 + j. */
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 4; ++j) host[j * 3 + i] = (float)(i * 4 + j);
  for (i = 0; i < 12; ++i) want[i] = (float)i;
  {
    const int64_t strides[2] = {1, 3};
    EXPECT_OK(err, mlvm_session_set_input(s, "x", MLVM_F32, 2, shape, strides, host, sizeof host, 0,
                                          &err));
  }
  EXPECT_OK(err, mlvm_session_run(s, &err));
  EXPECT_OK(err, mlvm_session_output(s, "y", &y, &err));
  EXPECT_OK(err, mlvm_tensor_copy_to(y, got, sizeof got, &err));
  CHECK(harness_same_f32(got, want, 12));

  /* x = np.flip(host_rowmajor, axis=0): row i of x is row 2 - i of the host's memory. */
  for (i = 0; i < 12; ++i) host[i] = (float)i;
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 4; ++j) want[i * 4 + j] = (float)((2 - i) * 4 + j);
  {
    const int64_t strides[2] = {-4, 1};
    EXPECT_OK(err, mlvm_session_set_input(s, "x", MLVM_F32, 2, shape, strides, host, sizeof host,
                                          8 * sizeof(float), &err));
  }
  EXPECT_OK(err, mlvm_session_run(s, &err));
  EXPECT_OK(err, mlvm_session_output(s, "y", &y, &err));
  harness_read_f32(y, got);
  CHECK(harness_same_f32(got, want, 12));
  mlvm_session_free(s);
  mlvm_program_free(p);
}

int main(void) {
  test_every_view_kind();
  test_strided_inputs();
  return harness_finish("capi.views");
}
