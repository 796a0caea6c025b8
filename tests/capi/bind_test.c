/* The C API, part 4: bound outputs — written in place into the host's memory (contiguous,
 * every other element, upside down), mlvm_session_output returning a tensor over that very
 * memory, and every wrong destination refused. */
#include <string.h>

#include "harness.h"

static const char kAffine[] =
    ".input  x : f32[2, 3]\n"
    ".input  b : f32[3]\n"
    ".output y : f32[2, 3]\n"
    "    y = add x, b\n";

static const float kX[6] = {1, 2, 3, 4, 5, 6};
static const float kB[3] = {10, 20, 30};
static const float kY[6] = {11, 22, 33, 14, 25, 36};
static const int64_t kShape[2] = {2, 3};

static mlvm_session* affine_session(const mlvm_program* p) {
  mlvm_session* s = harness_session(p, 1);
  mlvm_error* err = NULL;
  const int64_t bs[1] = {3};
  EXPECT_OK(err, mlvm_session_set_input(s, "x", MLVM_F32, 2, kShape, NULL, kX, sizeof kX, 0, &err));
  EXPECT_OK(err, mlvm_session_set_input(s, "b", MLVM_F32, 1, bs, NULL, kB, sizeof kB, 0, &err));
  return s;
}

static void test_contiguous_destination(void) {
  mlvm_program* p = harness_assemble(kAffine);
  mlvm_session* s = affine_session(p);
  mlvm_error* err = NULL;
  const mlvm_tensor* y = NULL;
  float out[6] = {0};
  int run;

  EXPECT_OK(err,
            mlvm_session_bind_output(s, "y", MLVM_F32, 2, kShape, NULL, out, sizeof out, 0, &err));
  for (run = 0; run < 3; ++run) {
    memset(out, 0, sizeof out);
    EXPECT_OK(err, mlvm_session_run(s, &err));
    CHECK(harness_same_f32(out, kY, 6)); /* written in place */
    EXPECT_OK(err, mlvm_session_output(s, "y", &y, &err));
    CHECK(mlvm_tensor_data(y) == (const void*)out); /* the output is the host's memory */
    CHECK(mlvm_tensor_strides(y)[0] == 3 && mlvm_tensor_strides(y)[1] == 1);
  }
  mlvm_session_free(s);
  mlvm_program_free(p);
}

static void test_strided_destinations(void) {
  mlvm_program* p = harness_assemble(kAffine);
  mlvm_session* s = affine_session(p);
  mlvm_error* err = NULL;
  const mlvm_tensor* y = NULL;
  float out[12];
  float got[6];
  int i;

  /* Every other element of a 2 x 6 buffer; the odd elements stay untouched. */
  {
    const int64_t strides[2] = {6, 2};
    for (i = 0; i < 12; ++i) out[i] = -1;
    EXPECT_OK(err, mlvm_session_bind_output(s, "y", MLVM_F32, 2, kShape, strides, out, sizeof out,
                                            0, &err));
    EXPECT_OK(err, mlvm_session_run(s, &err));
    for (i = 0; i < 6; ++i) {
      CHECK(out[(i / 3) * 6 + (i % 3) * 2] == kY[i]);
      CHECK(out[(i / 3) * 6 + (i % 3) * 2 + 1] == -1);
    }
    EXPECT_OK(err, mlvm_session_output(s, "y", &y, &err));
    CHECK(mlvm_tensor_data(y) == (const void*)out);
    harness_read_f32(y, got);
    CHECK(harness_same_f32(got, kY, 6));
  }
  /* Rows upside down: element (0, 0) at byte 12, row stride -3. Binding again replaces the
   * earlier destination. */
  {
    const int64_t strides[2] = {-3, 1};
    for (i = 0; i < 12; ++i) out[i] = -1;
    EXPECT_OK(err, mlvm_session_bind_output(s, "y", MLVM_F32, 2, kShape, strides, out,
                                            6 * sizeof(float), 3 * sizeof(float), &err));
    EXPECT_OK(err, mlvm_session_run(s, &err));
    for (i = 0; i < 3; ++i) {
      CHECK(out[i] == kY[3 + i]);
      CHECK(out[3 + i] == kY[i]);
    }
    CHECK(out[6] == -1);
    EXPECT_OK(err, mlvm_session_output(s, "y", &y, &err));
    CHECK(mlvm_tensor_data(y) == (const void*)(out + 3));
    EXPECT_OK(err, mlvm_tensor_copy_to(y, got, sizeof got, &err));
    CHECK(harness_same_f32(got, kY, 6));
  }
  mlvm_session_free(s);
  mlvm_program_free(p);
}

static void test_wrong_destinations(void) {
  mlvm_program* p = harness_assemble(kAffine);
  mlvm_session* s = affine_session(p);
  mlvm_error* err = NULL;
  float out[6];
  const int64_t wrong_dim[2] = {3, 2};

  EXPECT_STATUS(
      err, mlvm_session_bind_output(s, "y", MLVM_I32, 2, kShape, NULL, out, sizeof out, 0, &err),
      MLVM_ERR_USAGE, "output y is declared f32[2, 3]", 0);
  EXPECT_STATUS(
      err, mlvm_session_bind_output(s, "y", MLVM_F32, 1, kShape, NULL, out, sizeof out, 0, &err),
      MLVM_ERR_USAGE, "output y", 0);
  EXPECT_STATUS(
      err, mlvm_session_bind_output(s, "y", MLVM_F32, 2, wrong_dim, NULL, out, sizeof out, 0, &err),
      MLVM_ERR_USAGE, "output y", 0);
  EXPECT_STATUS(
      err, mlvm_session_bind_output(s, "z", MLVM_F32, 2, kShape, NULL, out, sizeof out, 0, &err),
      MLVM_ERR_USAGE, "unknown output z", 0);
  EXPECT_STATUS(
      err,
      mlvm_session_bind_output(s, "y", MLVM_F32, 2, kShape, NULL, out, sizeof out - 4, 0, &err),
      MLVM_ERR_USAGE, "outside its buffer", 0);
  {
    const int64_t overlapping[2] = {1, 1}, broadcast[2] = {0, 1};
    EXPECT_STATUS(err,
                  mlvm_session_bind_output(s, "y", MLVM_F32, 2, kShape, overlapping, out,
                                           sizeof out, 0, &err),
                  MLVM_ERR_USAGE, "twice", 0);
    EXPECT_STATUS(
        err,
        mlvm_session_bind_output(s, "y", MLVM_F32, 2, kShape, broadcast, out, sizeof out, 0, &err),
        MLVM_ERR_USAGE, "twice", 0);
  }
  EXPECT_STATUS(
      err, mlvm_session_bind_output(NULL, "y", MLVM_F32, 2, kShape, NULL, out, sizeof out, 0, &err),
      MLVM_ERR_USAGE, "session", 0);
  EXPECT_STATUS(
      err, mlvm_session_bind_output(s, NULL, MLVM_F32, 2, kShape, NULL, out, sizeof out, 0, &err),
      MLVM_ERR_USAGE, "name", 0);
  EXPECT_STATUS(err,
                mlvm_session_bind_output(s, "y", MLVM_F32, 2, NULL, NULL, out, sizeof out, 0, &err),
                MLVM_ERR_USAGE, "shape", 0);
  EXPECT_STATUS(
      err, mlvm_session_bind_output(s, "y", MLVM_F32, 2, kShape, NULL, NULL, sizeof out, 0, &err),
      MLVM_ERR_USAGE, "buffer", 0);
  CHECK(mlvm_session_bind_output(s, "y", (mlvm_dtype)-3, 2, kShape, NULL, out, sizeof out, 0,
                                 NULL) == MLVM_ERR_USAGE);
  /* None of those bound anything: the run allocates y. */
  EXPECT_OK(err, mlvm_session_run(s, &err));
  mlvm_session_free(s);
  mlvm_program_free(p);
}

/* A destination that overlaps an input would overwrite it mid-run: refused when the run
 * starts, naming both. */
static void test_destination_overlapping_an_input(void) {
  mlvm_program* p = harness_assemble(kAffine);
  mlvm_session* s = harness_session(p, 1);
  mlvm_error* err = NULL;
  float xy[6] = {1, 2, 3, 4, 5, 6};
  const int64_t bs[1] = {3};
  EXPECT_OK(err, mlvm_session_set_input(s, "x", MLVM_F32, 2, kShape, NULL, xy, sizeof xy, 0, &err));
  EXPECT_OK(err, mlvm_session_set_input(s, "b", MLVM_F32, 1, bs, NULL, kB, sizeof kB, 0, &err));
  EXPECT_OK(err,
            mlvm_session_bind_output(s, "y", MLVM_F32, 2, kShape, NULL, xy, sizeof xy, 0, &err));
  EXPECT_STATUS(err, mlvm_session_run(s, &err), MLVM_ERR_USAGE, "overlaps input x", 0);
  CHECK(xy[0] == 1 && xy[5] == 6);
  mlvm_session_free(s);
  mlvm_program_free(p);
}

int main(void) {
  test_contiguous_destination();
  test_strided_destinations();
  test_wrong_destinations();
  test_destination_overlapping_an_input();
  return harness_finish("capi.bind");
}
