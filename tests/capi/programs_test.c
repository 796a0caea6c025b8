/* The C API, part 1: version and status names, error objects, and programs — loading from a
 * file (by extension), from bytes and from text; the module's bytes; the signature. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char kProgram[] =
    ".program scale\n"
    ".input  x : f32[?, 4]\n"
    ".input  k : i32[1]\n"
    ".output y : f32[?, 4]\n"
    ".output n : i32[1]\n"
    "    y = mul x, 2.0\n"
    "    n = add k, 1\n";

static void test_version_and_status_names(void) {
  static const char* const names[] = {"ok",   "usage", "io",        "malformed", "invalid",
                                      "trap", "limit", "cancelled", "nomem"};
  int s;
  unsigned major = 0, minor = 0, patch = 0;
  CHECK(sscanf(mlvm_version(), "%u.%u.%u", &major, &minor, &patch) == 3);
  CHECK(major >= 1);
  for (s = MLVM_OK; s <= MLVM_ERR_NOMEM; ++s)
    CHECK(strcmp(mlvm_status_name((mlvm_status)s), names[s]) == 0);
  CHECK(strcmp(mlvm_status_name((mlvm_status)99), "unknown") == 0);
}

static void test_error_accessors_accept_null(void) {
  CHECK(mlvm_error_status(NULL) == MLVM_OK);
  CHECK(strcmp(mlvm_error_message(NULL), "") == 0);
  CHECK(mlvm_error_line(NULL) == 0);
  mlvm_error_free(NULL);
}

static void test_assemble(void) {
  mlvm_program* p = NULL;
  mlvm_error* err = NULL;
  /* Not NUL-terminated: only `length` bytes are read. */
  char* text = (char*)malloc(sizeof kProgram - 1);
  memcpy(text, kProgram, sizeof kProgram - 1);
  EXPECT_OK(err, mlvm_program_assemble(text, sizeof kProgram - 1, NULL, &p, &err));
  free(text);
  CHECK(p != NULL);
  CHECK(strcmp(mlvm_program_name(p), "scale") == 0);
  mlvm_program_free(p);

  /* Unnamed: "". And err may be NULL on success and on failure. */
  {
    const char unnamed[] = ".input x : f32[1]\n.output y : f32[1]\n    y = copy x\n";
    CHECK(mlvm_program_assemble(unnamed, sizeof unnamed - 1, "a.mlasm", &p, NULL) == MLVM_OK);
  }
  CHECK(strcmp(mlvm_program_name(p), "") == 0);
  mlvm_program_free(p);

  /* An invalid program: the status, the file and line in the message, the line itself. */
  p = (mlvm_program*)&p; /* must be cleared on failure */
  {
    const char bad[] = ".input x : f32[3]\n.output y : f32[3]\n\n    y = add x, z\n";
    EXPECT_STATUS(err, mlvm_program_assemble(bad, sizeof bad - 1, "bad.mlasm", &p, &err),
                  MLVM_ERR_INVALID, "bad.mlasm:4", 4);
    CHECK(p == NULL);
    CHECK(mlvm_program_assemble(bad, sizeof bad - 1, NULL, &p, NULL) == MLVM_ERR_INVALID);
    /* A type error, found by the verifier, is located too. */
    const char typed[] =
        ".input x : f32[3]\n.input k : i32[3]\n.output y : f32[3]\n    y = add x, k\n";
    EXPECT_STATUS(err, mlvm_program_assemble(typed, sizeof typed - 1, NULL, &p, &err),
                  MLVM_ERR_INVALID, "<memory>:4", 4);
  }

  /* NULL arguments. */
  EXPECT_STATUS(err, mlvm_program_assemble(NULL, 0, NULL, &p, &err), MLVM_ERR_USAGE, "text", 0);
  EXPECT_STATUS(err, mlvm_program_assemble(kProgram, sizeof kProgram - 1, NULL, NULL, &err),
                MLVM_ERR_USAGE, "out", 0);
}

static void test_load_file(void) {
  mlvm_program* p = NULL;
  mlvm_error* err = NULL;
  EXPECT_OK(err, mlvm_program_load_file(MLVM_SOURCE_DIR "/tests/data/asm/lif.mlasm", &p, &err));
  CHECK(mlvm_program_input_count(p) == 1);
  CHECK(strcmp(mlvm_program_input_name(p, 0), "spikes_in") == 0);
  CHECK(strcmp(mlvm_program_output_name(p, 0), "count") == 0);
  mlvm_program_free(p);

  /* .onnx by its extension: imported. */
  EXPECT_OK(err, mlvm_program_load_file(MLVM_SOURCE_DIR "/samples/onnx/digits_cnn.onnx", &p, &err));
  CHECK(mlvm_program_input_count(p) >= 1 && mlvm_program_output_count(p) >= 1);
  mlvm_program_free(p);

  /* io: the file is missing. */
  p = (mlvm_program*)&p;
  EXPECT_STATUS(err, mlvm_program_load_file(MLVM_TEST_TMP_DIR "/no-such-file.mlbc", &p, &err),
                MLVM_ERR_IO, "no-such-file.mlbc", 0);
  CHECK(p == NULL);
  EXPECT_STATUS(err, mlvm_program_load_file(MLVM_TEST_TMP_DIR "/no-such-file.mlasm", &p, &err),
                MLVM_ERR_IO, "no-such-file.mlasm", -1);

  /* An invalid .mlasm file: invalid, located in the file. */
  {
    const char* path = MLVM_TEST_TMP_DIR "/capi_invalid.mlasm";
    FILE* f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
      fputs(".input x : f32[3]\n.output y : f32[3]\n    y = frobnicate x\n", f);
      fclose(f);
      EXPECT_STATUS(err, mlvm_program_load_file(path, &p, &err), MLVM_ERR_INVALID,
                    "capi_invalid.mlasm:3", 3);
      remove(path);
    }
  }

  EXPECT_STATUS(err, mlvm_program_load_file(NULL, &p, &err), MLVM_ERR_USAGE, "path", 0);
  EXPECT_STATUS(err,
                mlvm_program_load_file(MLVM_SOURCE_DIR "/tests/data/asm/lif.mlasm", NULL, &err),
                MLVM_ERR_USAGE, "out", 0);
}

/* to_bytes' capacity protocol, then the bytes loaded back, from memory and from a .mlbc. */
static void test_bytes_round_trip(void) {
  mlvm_program* p = harness_assemble(kProgram);
  mlvm_program* q = NULL;
  mlvm_error* err = NULL;
  size_t size = 12345, again = 0;
  unsigned char* bytes;
  unsigned char small[4];

  EXPECT_OK(err, mlvm_program_to_bytes(p, NULL, 0, &size, &err)); /* asks the size */
  CHECK(size > 8);
  bytes = (unsigned char*)malloc(size);
  EXPECT_STATUS(err, mlvm_program_to_bytes(p, small, sizeof small, &again, &err), MLVM_ERR_USAGE,
                "bytes", 0);
  CHECK(again == size); /* set even when the buffer is too small */
  EXPECT_OK(err, mlvm_program_to_bytes(p, bytes, size, &again, &err));
  CHECK(again == size);

  EXPECT_OK(err, mlvm_program_load_bytes(bytes, size, &q, &err));
  CHECK(strcmp(mlvm_program_name(q), "scale") == 0);
  CHECK(mlvm_program_input_count(q) == 2 && mlvm_program_output_count(q) == 2);
  mlvm_program_free(q);

  {
    const char* path = MLVM_TEST_TMP_DIR "/capi_round_trip.mlbc";
    FILE* f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
      CHECK(fwrite(bytes, 1, size, f) == size);
      fclose(f);
      EXPECT_OK(err, mlvm_program_load_file(path, &q, &err));
      CHECK(strcmp(mlvm_program_name(q), "scale") == 0);
      mlvm_program_free(q);
      remove(path);
    }
  }

  /* Malformed: not a module, and a module cut short. */
  q = (mlvm_program*)&q;
  EXPECT_STATUS(err, mlvm_program_load_bytes("not a module", 12, &q, &err), MLVM_ERR_MALFORMED,
                NULL, -1);
  CHECK(q == NULL);
  EXPECT_STATUS(err, mlvm_program_load_bytes(bytes, size / 2, &q, &err), MLVM_ERR_MALFORMED, NULL,
                -1);
  CHECK(mlvm_program_load_bytes(bytes, 0, &q, NULL) == MLVM_ERR_MALFORMED);

  EXPECT_STATUS(err, mlvm_program_load_bytes(NULL, 4, &q, &err), MLVM_ERR_USAGE, "data", 0);
  EXPECT_STATUS(err, mlvm_program_load_bytes(bytes, size, NULL, &err), MLVM_ERR_USAGE, "out", 0);
  EXPECT_STATUS(err, mlvm_program_to_bytes(NULL, NULL, 0, &size, &err), MLVM_ERR_USAGE, "program",
                0);
  CHECK(size == 0);
  EXPECT_STATUS(err, mlvm_program_to_bytes(p, NULL, 0, NULL, &err), MLVM_ERR_USAGE, "size", 0);
  free(bytes);
  mlvm_program_free(p);
}

static void test_signature(void) {
  mlvm_program* p = harness_assemble(kProgram);
  const int64_t* shape;
  CHECK(mlvm_program_input_count(p) == 2);
  CHECK(mlvm_program_output_count(p) == 2);
  CHECK(strcmp(mlvm_program_input_name(p, 0), "x") == 0);
  CHECK(strcmp(mlvm_program_input_name(p, 1), "k") == 0);
  CHECK(strcmp(mlvm_program_output_name(p, 0), "y") == 0);
  CHECK(strcmp(mlvm_program_output_name(p, 1), "n") == 0);
  CHECK(mlvm_program_input_dtype(p, 0) == MLVM_F32);
  CHECK(mlvm_program_input_dtype(p, 1) == MLVM_I32);
  CHECK(mlvm_program_output_dtype(p, 1) == MLVM_I32);
  CHECK(mlvm_program_input_rank(p, 0) == 2);
  shape = mlvm_program_input_shape(p, 0);
  CHECK(shape != NULL && shape[0] == -1 && shape[1] == 4); /* -1: a dynamic dim */
  CHECK(mlvm_program_input_shape(p, 0) == shape);          /* stable for the handle's life */
  CHECK(mlvm_program_output_rank(p, 1) == 1);
  shape = mlvm_program_output_shape(p, 1);
  CHECK(shape != NULL && shape[0] == 1);
  shape = mlvm_program_output_shape(p, 0);
  CHECK(shape != NULL && shape[0] == -1 && shape[1] == 4);

  /* Out of range: NULL, 0, and MLVM_F32 for a dtype. */
  CHECK(mlvm_program_input_name(p, 2) == NULL);
  CHECK(mlvm_program_output_name(p, 2) == NULL);
  CHECK(mlvm_program_input_dtype(p, 2) == MLVM_F32);
  CHECK(mlvm_program_output_dtype(p, (size_t)-1) == MLVM_F32);
  CHECK(mlvm_program_input_rank(p, 2) == 0);
  CHECK(mlvm_program_output_rank(p, 2) == 0);
  CHECK(mlvm_program_input_shape(p, 2) == NULL);
  CHECK(mlvm_program_output_shape(p, 2) == NULL);

  /* A NULL program: the same, and "" for the name. */
  CHECK(strcmp(mlvm_program_name(NULL), "") == 0);
  CHECK(mlvm_program_input_count(NULL) == 0);
  CHECK(mlvm_program_output_count(NULL) == 0);
  CHECK(mlvm_program_input_name(NULL, 0) == NULL);
  CHECK(mlvm_program_output_name(NULL, 0) == NULL);
  CHECK(mlvm_program_input_dtype(NULL, 0) == MLVM_F32);
  CHECK(mlvm_program_output_dtype(NULL, 0) == MLVM_F32);
  CHECK(mlvm_program_input_rank(NULL, 0) == 0);
  CHECK(mlvm_program_output_rank(NULL, 0) == 0);
  CHECK(mlvm_program_input_shape(NULL, 0) == NULL);
  CHECK(mlvm_program_output_shape(NULL, 0) == NULL);
  mlvm_program_free(NULL);
  mlvm_program_free(p);
}

int main(void) {
  test_version_and_status_names();
  test_error_accessors_accept_null();
  test_assemble();
  test_load_file();
  test_bytes_round_trip();
  test_signature();
  return harness_finish("capi.programs");
}
