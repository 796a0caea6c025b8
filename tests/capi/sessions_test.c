/* The C API, part 2: sessions — options, borrowed inputs and every way to get them wrong, a
 * run and its outputs, and the run-time statuses: usage (a missing input), invalid, trap (with
 * its source line) and both limits. The session stays usable after each failure. */
#include <string.h>

#include "harness.h"

static const char kAffine[] =
    ".input  x : f32[2, 3]\n"
    ".input  b : f32[3]\n"
    ".output y : f32[2, 3]\n"
    "    y = add x, b\n";

static const char kDivide[] =
    ".input a : i32[3]\n"
    ".input b : i32[3]\n"
    ".output y : i32[3]\n"
    "    t = copy a\n"
    "    y = div t, b\n";

static void test_new_and_free(void) {
  mlvm_program* p = harness_assemble(kAffine);
  mlvm_session* s = NULL;
  mlvm_error* err = NULL;
  mlvm_session_options o;
  memset(&o, 0, sizeof o); /* every 0 is "the default": all cores, no limits */

  EXPECT_OK(err, mlvm_session_new(p, NULL, &s, &err));
  CHECK(s != NULL);
  mlvm_session_free(s);
  EXPECT_OK(err, mlvm_session_new(p, &o, &s, &err));
  mlvm_session_free(s);
  o.max_memory = UINT64_MAX; /* larger than int64: still "no limit that matters" */
  o.max_steps = UINT64_MAX;
  EXPECT_OK(err, mlvm_session_new(p, &o, &s, &err));
  mlvm_session_free(s);

  o.threads = -1;
  s = (mlvm_session*)&s;
  EXPECT_STATUS(err, mlvm_session_new(p, &o, &s, &err), MLVM_ERR_USAGE, "threads", 0);
  CHECK(s == NULL);
  EXPECT_STATUS(err, mlvm_session_new(NULL, NULL, &s, &err), MLVM_ERR_USAGE, "program", 0);
  EXPECT_STATUS(err, mlvm_session_new(p, NULL, NULL, &err), MLVM_ERR_USAGE, "out", 0);
  CHECK(mlvm_session_new(NULL, NULL, &s, NULL) == MLVM_ERR_USAGE);
  mlvm_session_free(NULL);

  /* A session outlives the program handle it was made from. */
  s = harness_session(p, 1);
  mlvm_program_free(p);
  {
    const float x[6] = {1, 2, 3, 4, 5, 6}, b[3] = {10, 20, 30};
    const int64_t xs[2] = {2, 3}, bs[1] = {3};
    const mlvm_tensor* y = NULL;
    float got[6];
    const float want[6] = {11, 22, 33, 14, 25, 36};
    EXPECT_OK(err, mlvm_session_set_input(s, "x", MLVM_F32, 2, xs, NULL, x, sizeof x, 0, &err));
    EXPECT_OK(err, mlvm_session_set_input(s, "b", MLVM_F32, 1, bs, NULL, b, sizeof b, 0, &err));
    EXPECT_OK(err, mlvm_session_run(s, &err));
    EXPECT_OK(err, mlvm_session_output(s, "y", &y, &err));
    CHECK(mlvm_tensor_dtype(y) == MLVM_F32 && mlvm_tensor_rank(y) == 2);
    EXPECT_OK(err, mlvm_tensor_copy_to(y, got, sizeof got, &err));
    CHECK(harness_same_f32(got, want, 6));
  }
  mlvm_session_free(s);
}

static void test_set_input_refuses_wrong_tensors(void) {
  mlvm_program* p = harness_assemble(kAffine);
  mlvm_session* s = harness_session(p, 1);
  mlvm_error* err = NULL;
  float x[6] = {0};
  const int64_t shape[2] = {2, 3}, wrong_dim[2] = {3, 3}, negative[2] = {2, -3};
  const int64_t overlapping[2] = {1, 1};

  EXPECT_OK(err, mlvm_session_set_input(s, "x", MLVM_F32, 2, shape, NULL, x, sizeof x, 0, &err));
  /* The declaration: dtype, rank and fixed dims, naming the input. */
  EXPECT_STATUS(err, mlvm_session_set_input(s, "x", MLVM_I32, 2, shape, NULL, x, sizeof x, 0, &err),
                MLVM_ERR_USAGE, "input x is declared f32[2, 3]", 0);
  EXPECT_STATUS(err, mlvm_session_set_input(s, "x", MLVM_F32, 1, shape, NULL, x, sizeof x, 0, &err),
                MLVM_ERR_USAGE, "input x", 0);
  EXPECT_STATUS(err,
                mlvm_session_set_input(s, "x", MLVM_F32, 2, wrong_dim, NULL, x, sizeof x, 0, &err),
                MLVM_ERR_USAGE, "f32[3, 3]", 0);
  EXPECT_STATUS(
      err, mlvm_session_set_input(s, "x", (mlvm_dtype)42, 2, shape, NULL, x, sizeof x, 0, &err),
      MLVM_ERR_USAGE, "42 is not an mlvm_dtype", 0);
  EXPECT_STATUS(err, mlvm_session_set_input(s, "x", MLVM_F32, 9, shape, NULL, x, sizeof x, 0, &err),
                MLVM_ERR_USAGE, "rank 9", 0);
  EXPECT_STATUS(err, mlvm_session_set_input(s, "x", MLVM_F32, 0, shape, NULL, x, sizeof x, 0, &err),
                MLVM_ERR_USAGE, "input x is declared f32[2, 3], the host gave f32[]", 0);
  EXPECT_STATUS(err,
                mlvm_session_set_input(s, "x", MLVM_F32, 2, negative, NULL, x, sizeof x, 0, &err),
                MLVM_ERR_USAGE, NULL, 0);
  EXPECT_STATUS(err,
                mlvm_session_set_input(s, "nope", MLVM_F32, 2, shape, NULL, x, sizeof x, 0, &err),
                MLVM_ERR_USAGE, "unknown input nope", 0);
  /* Bounds: a buffer too small, an offset that pushes the last element out, a negative
   * stride with no room before element 0. */
  EXPECT_STATUS(err,
                mlvm_session_set_input(s, "x", MLVM_F32, 2, shape, NULL, x, sizeof x - 1, 0, &err),
                MLVM_ERR_USAGE, "outside its buffer", 0);
  EXPECT_STATUS(err, mlvm_session_set_input(s, "x", MLVM_F32, 2, shape, NULL, x, sizeof x, 4, &err),
                MLVM_ERR_USAGE, "outside its buffer", 0);
  {
    const int64_t flipped[2] = {3, -1};
    EXPECT_STATUS(err,
                  mlvm_session_set_input(s, "x", MLVM_F32, 2, shape, flipped, x, sizeof x, 0, &err),
                  MLVM_ERR_USAGE, "outside its buffer", 0);
    EXPECT_OK(err, mlvm_session_set_input(s, "x", MLVM_F32, 2, shape, flipped, x, sizeof x,
                                          2 * sizeof(float), &err));
  }
  EXPECT_STATUS(err, mlvm_session_set_input(s, "x", MLVM_F32, 2, shape, NULL, x, SIZE_MAX, 0, &err),
                MLVM_ERR_USAGE, "larger than any buffer", 0);
  /* An input is read-only, so overlapping strides are fine there (a broadcast). */
  EXPECT_OK(err,
            mlvm_session_set_input(s, "x", MLVM_F32, 2, shape, overlapping, x, sizeof x, 0, &err));

  /* NULL arguments; err itself may be NULL. */
  EXPECT_STATUS(err,
                mlvm_session_set_input(NULL, "x", MLVM_F32, 2, shape, NULL, x, sizeof x, 0, &err),
                MLVM_ERR_USAGE, "session", 0);
  EXPECT_STATUS(err,
                mlvm_session_set_input(s, NULL, MLVM_F32, 2, shape, NULL, x, sizeof x, 0, &err),
                MLVM_ERR_USAGE, "name", 0);
  EXPECT_STATUS(err, mlvm_session_set_input(s, "x", MLVM_F32, 2, NULL, NULL, x, sizeof x, 0, &err),
                MLVM_ERR_USAGE, "shape", 0);
  EXPECT_STATUS(err,
                mlvm_session_set_input(s, "x", MLVM_F32, 2, shape, NULL, NULL, sizeof x, 0, &err),
                MLVM_ERR_USAGE, "buffer", 0);
  EXPECT_STATUS(err, mlvm_session_set_input(s, "x", MLVM_F32, 2, shape, NULL, NULL, 0, 0, &err),
                MLVM_ERR_USAGE, "outside its buffer", 0);
  CHECK(mlvm_session_set_input(s, "x", MLVM_F32, 2, NULL, NULL, x, sizeof x, 0, NULL) ==
        MLVM_ERR_USAGE);
  mlvm_session_free(s);
  mlvm_program_free(p);
}

static void test_run_and_output_errors(void) {
  mlvm_program* p = harness_assemble(kAffine);
  mlvm_session* s = harness_session(p, 1);
  mlvm_error* err = NULL;
  const mlvm_tensor* y = NULL;
  const float x[6] = {1, 2, 3, 4, 5, 6}, b[3] = {1, 1, 1};
  const int64_t xs[2] = {2, 3}, bs[1] = {3};

  /* Before any run there are no outputs. */
  EXPECT_STATUS(err, mlvm_session_output(s, "y", &y, &err), MLVM_ERR_USAGE, "no outputs", 0);
  EXPECT_OK(err, mlvm_session_set_input(s, "x", MLVM_F32, 2, xs, NULL, x, sizeof x, 0, &err));
  EXPECT_STATUS(err, mlvm_session_run(s, &err), MLVM_ERR_USAGE, "missing input b", 0);
  EXPECT_OK(err, mlvm_session_set_input(s, "b", MLVM_F32, 1, bs, NULL, b, sizeof b, 0, &err));
  EXPECT_OK(err, mlvm_session_run(s, &err));
  y = (const mlvm_tensor*)&y;
  EXPECT_STATUS(err, mlvm_session_output(s, "x", &y, &err), MLVM_ERR_USAGE, "unknown output x", 0);
  CHECK(y == NULL);
  EXPECT_STATUS(err, mlvm_session_output(NULL, "y", &y, &err), MLVM_ERR_USAGE, "session", 0);
  EXPECT_STATUS(err, mlvm_session_output(s, NULL, &y, &err), MLVM_ERR_USAGE, "name", 0);
  EXPECT_STATUS(err, mlvm_session_output(s, "y", NULL, &err), MLVM_ERR_USAGE, "out", 0);
  EXPECT_STATUS(err, mlvm_session_run(NULL, &err), MLVM_ERR_USAGE, "session", 0);
  CHECK(mlvm_session_run(NULL, NULL) == MLVM_ERR_USAGE);
  mlvm_session_cancel(NULL);
  /* Inputs stay set: the next run needs no set_input (a serving loop rewrites the buffers). */
  EXPECT_OK(err, mlvm_session_run(s, &err));
  EXPECT_OK(err, mlvm_session_output(s, "y", &y, &err));
  CHECK(y != NULL && ((const float*)mlvm_tensor_data(y))[5] == 7);
  mlvm_session_free(s);
  mlvm_program_free(p);
}

static void test_trap_has_its_line(void) {
  mlvm_program* p = harness_assemble(kDivide);
  mlvm_session* s = harness_session(p, 1);
  mlvm_error* err = NULL;
  const mlvm_tensor* y = NULL;
  int32_t a[3] = {6, 7, 8}, b[3] = {2, 0, 1};
  const int64_t shape[1] = {3};
  int32_t got[3];

  EXPECT_OK(err, mlvm_session_set_input(s, "a", MLVM_I32, 1, shape, NULL, a, sizeof a, 0, &err));
  EXPECT_OK(err, mlvm_session_set_input(s, "b", MLVM_I32, 1, shape, NULL, b, sizeof b, 0, &err));
  /* The whole message: location, kind, op. */
  EXPECT_STATUS(err, mlvm_session_run(s, &err), MLVM_ERR_TRAP, "instruction 1 (line 5): trap: div",
                5);
  EXPECT_STATUS(err, mlvm_session_output(s, "y", &y, &err), MLVM_ERR_USAGE, "last run failed", 0);
  CHECK(mlvm_session_run(s, NULL) == MLVM_ERR_TRAP);
  /* The host fixes its buffer in place and runs again. */
  b[1] = 7;
  EXPECT_OK(err, mlvm_session_run(s, &err));
  EXPECT_OK(err, mlvm_session_output(s, "y", &y, &err));
  EXPECT_OK(err, mlvm_tensor_copy_to(y, got, sizeof got, &err));
  CHECK(got[0] == 3 && got[1] == 1 && got[2] == 8);
  mlvm_session_free(s);
  mlvm_program_free(p);
}

/* A program that assembles but whose input values break a rule checked at run time: a bool
 * byte must be 0 or 1. */
static void test_invalid_input_values(void) {
  mlvm_program* p = harness_assemble(
      ".input m : bool[2]\n.output y : bool[2]\n"
      "    y = logical_not m\n");
  mlvm_session* s = harness_session(p, 1);
  mlvm_error* err = NULL;
  unsigned char m[2] = {1, 2};
  const int64_t shape[1] = {2};
  EXPECT_OK(err, mlvm_session_set_input(s, "m", MLVM_BOOL, 1, shape, NULL, m, sizeof m, 0, &err));
  EXPECT_STATUS(err, mlvm_session_run(s, &err), MLVM_ERR_INVALID, "input m", -1);
  mlvm_session_free(s);
  mlvm_program_free(p);
}

static void test_limits(void) {
  mlvm_program* loop = harness_assemble(
      ".input x : f32[1]\n.output y : f32[1]\n"
      "    y = copy x\ntop:\n    y = add y, x\n    jmp top\n");
  mlvm_program* big = harness_assemble(
      ".input x : f32[1024]\n.output y : f32[1024]\n"
      "    y = add x, x\n");
  mlvm_session* s = NULL;
  mlvm_error* err = NULL;
  mlvm_session_options o;
  static float x[1024];
  const int64_t one[1] = {1}, many[1] = {1024};

  memset(&o, 0, sizeof o);
  o.threads = 1;
  o.max_steps = 1000;
  EXPECT_OK(err, mlvm_session_new(loop, &o, &s, &err));
  EXPECT_OK(err, mlvm_session_set_input(s, "x", MLVM_F32, 1, one, NULL, x, sizeof(float), 0, &err));
  EXPECT_STATUS(err, mlvm_session_run(s, &err), MLVM_ERR_LIMIT, "limit: jmp: step limit of 1000",
                6);
  EXPECT_STATUS(err, mlvm_session_run(s, &err), MLVM_ERR_LIMIT, "step limit", -1);
  mlvm_session_free(s);

  o.max_steps = 0;
  o.max_memory = 1000; /* the sum needs 4096 bytes */
  EXPECT_OK(err, mlvm_session_new(big, &o, &s, &err));
  EXPECT_OK(err, mlvm_session_set_input(s, "x", MLVM_F32, 1, many, NULL, x, sizeof x, 0, &err));
  EXPECT_STATUS(err, mlvm_session_run(s, &err), MLVM_ERR_LIMIT, "memory", 3);
  mlvm_session_free(s);
  o.max_memory = 4096;
  EXPECT_OK(err, mlvm_session_new(big, &o, &s, &err));
  EXPECT_OK(err, mlvm_session_set_input(s, "x", MLVM_F32, 1, many, NULL, x, sizeof x, 0, &err));
  EXPECT_OK(err, mlvm_session_run(s, &err));
  mlvm_session_free(s);
  mlvm_program_free(loop);
  mlvm_program_free(big);
}

/* A value declared rank 0 (an ONNX scalar, `i64[]`): rank 0 in and out, with the program's own
 * names, quoted in the text form. */
static void test_rank_0_and_exact_names(void) {
  mlvm_program* p = harness_assemble(
      ".input sr : i64[]\n.input \"onnx::x\" : f32[2]\n.output \"53\" : i64[]\n"
      ".output \"y.0\"\n\"53\" = add sr, 1\n\"y.0\" = negative \"onnx::x\"\n");
  mlvm_session* s = harness_session(p, 1);
  mlvm_error* err = NULL;
  const int64_t sr = 16000, one[1] = {1}, two[1] = {2};
  const float x[2] = {1.5f, -2};
  const mlvm_tensor* y = NULL;
  int64_t got = 0;

  CHECK(mlvm_program_input_rank(p, 0) == 0 && mlvm_program_output_rank(p, 0) == 0);
  CHECK(mlvm_program_input_rank(p, 1) == 1);
  CHECK(strcmp(mlvm_program_input_name(p, 1), "onnx::x") == 0);
  CHECK(strcmp(mlvm_program_output_name(p, 0), "53") == 0);
  EXPECT_OK(err, mlvm_session_set_input(s, "sr", MLVM_I64, 0, NULL, NULL, &sr, sizeof sr, 0, &err));
  EXPECT_OK(err, mlvm_session_set_input(s, "onnx::x", MLVM_F32, 1, two, NULL, x, sizeof x, 0, &err));
  EXPECT_OK(err, mlvm_session_run(s, &err));
  EXPECT_OK(err, mlvm_session_output(s, "53", &y, &err));
  CHECK(mlvm_tensor_rank(y) == 0 && mlvm_tensor_dtype(y) == MLVM_I64);
  EXPECT_OK(err, mlvm_tensor_copy_to(y, &got, sizeof got, &err));
  CHECK(got == 16001);
  EXPECT_OK(err, mlvm_session_output(s, "y.0", &y, &err));
  CHECK(mlvm_tensor_rank(y) == 1);
  /* A one-element rank-1 tensor is accepted for a scalar too; two elements are not. */
  EXPECT_OK(err, mlvm_session_set_input(s, "sr", MLVM_I64, 1, one, NULL, &sr, sizeof sr, 0, &err));
  EXPECT_STATUS(err, mlvm_session_set_input(s, "sr", MLVM_I64, 1, two, NULL, x, sizeof x, 0, &err),
                MLVM_ERR_USAGE, "input sr is declared i64[]", 0);
  mlvm_session_free(s);
  mlvm_program_free(p);
}

int main(void) {
  test_rank_0_and_exact_names();
  test_new_and_free();
  test_set_input_refuses_wrong_tensors();
  test_run_and_output_errors();
  test_trap_has_its_line();
  test_invalid_input_values();
  test_limits();
  return harness_finish("capi.sessions");
}
