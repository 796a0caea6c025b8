/* mlvm — the C API (../shared/spec/c_api.md; docs/c_api.md is the reference).
 *
 * C99, standard headers only. Link libmlvm (find_package(mlvm): mlvm::mlvm, or
 * `pkg-config --cflags --libs mlvm`).
 *
 * Rules: opaque handles in create/free pairs (every _free accepts NULL). Every call that can
 * fail returns an mlvm_status (MLVM_OK is 0) and, when `err` is not NULL, sets *err to an error
 * the caller frees with mlvm_error_free (NULL on success). No C++ exception crosses this
 * boundary and a NULL or wrong argument is MLVM_ERR_USAGE, never a crash. Input memory is
 * borrowed until the run that uses it returns; outputs belong to the session and stay valid
 * until its next run or mlvm_session_free. Strides are in elements (negative and 0 allowed;
 * NULL: row-major). One program may be shared by any number of threads; a session is used by
 * one thread at a time, except mlvm_session_cancel, which any thread may call at any time. */
#ifndef MLVM_MLVM_H
#define MLVM_MLVM_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define MLVM_C_API
#else
#define MLVM_C_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mlvm_program mlvm_program;
typedef struct mlvm_session mlvm_session;
typedef struct mlvm_tensor mlvm_tensor; /* an output, owned by its session */
typedef struct mlvm_error mlvm_error;

typedef enum {
  MLVM_OK = 0,
  MLVM_ERR_USAGE,     /* a wrong argument or call */
  MLVM_ERR_IO,        /* a file cannot be read */
  MLVM_ERR_MALFORMED, /* bytes that do not decode */
  MLVM_ERR_INVALID,   /* a program that breaks a static rule */
  MLVM_ERR_TRAP,      /* a data-dependent failure at run time */
  MLVM_ERR_LIMIT,     /* a memory or step limit */
  MLVM_ERR_CANCELLED, /* mlvm_session_cancel stopped the run */
  MLVM_ERR_NOMEM      /* the system refused memory */
} mlvm_status;

typedef enum { MLVM_F32, MLVM_F64, MLVM_I8, MLVM_U8, MLVM_I16, MLVM_I32, MLVM_I64, MLVM_BOOL } mlvm_dtype;

typedef struct {
  int threads;         /* 0: all cores */
  uint64_t max_memory; /* bytes; 0: no limit beyond the machine */
  uint64_t max_steps;  /* 0: no limit */
} mlvm_session_options;

MLVM_C_API const char* mlvm_version(void);                   /* "MAJOR.MINOR.PATCH" */
MLVM_C_API const char* mlvm_status_name(mlvm_status status); /* "trap", "limit", ... */

/* errors */
MLVM_C_API mlvm_status mlvm_error_status(const mlvm_error* err);
MLVM_C_API const char* mlvm_error_message(const mlvm_error* err); /* the whole message */
MLVM_C_API int mlvm_error_line(const mlvm_error* err);            /* 0 when unknown */
MLVM_C_API void mlvm_error_free(mlvm_error* err);

/* programs: .mlbc, .mlasm or .onnx by extension; bytes are a module */
MLVM_C_API mlvm_status mlvm_program_load_file(const char* path, mlvm_program** out, mlvm_error** err);
MLVM_C_API mlvm_status mlvm_program_load_bytes(const void* data, size_t size, mlvm_program** out,
                                               mlvm_error** err);
MLVM_C_API mlvm_status mlvm_program_assemble(const char* text, size_t length, const char* filename,
                                             mlvm_program** out, mlvm_error** err);
MLVM_C_API void mlvm_program_free(mlvm_program* program);
MLVM_C_API const char* mlvm_program_name(const mlvm_program* program); /* "" when unnamed */
/* *size is always set (when size is not NULL); buffer may be NULL to ask for the size */
MLVM_C_API mlvm_status mlvm_program_to_bytes(const mlvm_program* program, void* buffer,
                                             size_t capacity, size_t* size, mlvm_error** err);
MLVM_C_API size_t mlvm_program_input_count(const mlvm_program* program);
MLVM_C_API size_t mlvm_program_output_count(const mlvm_program* program);
/* Out of range (or a NULL program): names and shapes NULL, ranks 0, dtypes MLVM_F32. Names and
 * shapes belong to the program handle and stay put for its life. Names are the program's own,
 * exactly (an ONNX model's `onnx::Flatten_0`, UTF-8). A value declared rank 0 (an ONNX scalar)
 * has rank 0; set_input then takes rank 0 (or a one-element rank 1) and its output is rank 0. */
MLVM_C_API const char* mlvm_program_input_name(const mlvm_program* program, size_t index);
MLVM_C_API const char* mlvm_program_output_name(const mlvm_program* program, size_t index);
MLVM_C_API mlvm_dtype mlvm_program_input_dtype(const mlvm_program* program, size_t index);
MLVM_C_API mlvm_dtype mlvm_program_output_dtype(const mlvm_program* program, size_t index);
MLVM_C_API size_t mlvm_program_input_rank(const mlvm_program* program, size_t index);
MLVM_C_API const int64_t* mlvm_program_input_shape(const mlvm_program* program, size_t index); /* -1: dynamic dim */
MLVM_C_API size_t mlvm_program_output_rank(const mlvm_program* program, size_t index);
MLVM_C_API const int64_t* mlvm_program_output_shape(const mlvm_program* program, size_t index);

/* sessions */
MLVM_C_API mlvm_status mlvm_session_new(const mlvm_program* program,
                                        const mlvm_session_options* options /* NULL: defaults */,
                                        mlvm_session** out, mlvm_error** err);
MLVM_C_API void mlvm_session_free(mlvm_session* session);
MLVM_C_API mlvm_status mlvm_session_set_input(mlvm_session* session, const char* name, mlvm_dtype dtype,
                                              size_t rank, const int64_t* shape, const int64_t* strides,
                                              const void* buffer, size_t buffer_bytes,
                                              size_t offset_bytes, mlvm_error** err);
MLVM_C_API mlvm_status mlvm_session_bind_output(mlvm_session* session, const char* name, mlvm_dtype dtype,
                                                size_t rank, const int64_t* shape, const int64_t* strides,
                                                void* buffer, size_t buffer_bytes, size_t offset_bytes,
                                                mlvm_error** err);
MLVM_C_API mlvm_status mlvm_session_run(mlvm_session* session, mlvm_error** err);
MLVM_C_API void mlvm_session_cancel(mlvm_session* session);
MLVM_C_API mlvm_status mlvm_session_output(mlvm_session* session, const char* name,
                                           const mlvm_tensor** out, mlvm_error** err);

/* outputs */
MLVM_C_API mlvm_dtype mlvm_tensor_dtype(const mlvm_tensor* t);
MLVM_C_API size_t mlvm_tensor_rank(const mlvm_tensor* t);
MLVM_C_API const int64_t* mlvm_tensor_shape(const mlvm_tensor* t);
MLVM_C_API const int64_t* mlvm_tensor_strides(const mlvm_tensor* t); /* elements; may be negative or 0 */
MLVM_C_API const void* mlvm_tensor_data(const mlvm_tensor* t);       /* the element at index (0, ..., 0) */
/* row-major copy, honouring strides; dst_bytes must be the tensor's exact size */
MLVM_C_API mlvm_status mlvm_tensor_copy_to(const mlvm_tensor* t, void* dst, size_t dst_bytes, mlvm_error** err);

#ifdef __cplusplus
}
#endif

#endif /* MLVM_MLVM_H */
