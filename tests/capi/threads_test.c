/* The C API, part 5: threads — mlvm_session_cancel from a second thread stops a runaway loop
 * (MLVM_ERR_CANCELLED, well under a second), a cancel before a run stops that run, a step
 * limit is still a limit afterwards, a session used by two threads at once refuses the second
 * (usage, not a data race), and one program shared by several threads, each with its own
 * session. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <string.h>
#include <time.h>

#include "harness.h"

static const char kLoop[] =
    ".input x : f32[1]\n"
    ".output y : f32[1]\n"
    "    y = copy x\n"
    "top:\n"
    "    y = add y, x\n"
    "    jmp top\n";

static const float kOne[1] = {1};
static const int64_t kShapeOne[1] = {1};

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_ms(long ms) {
  struct timespec ts;
  ts.tv_sec = ms / 1000;
  ts.tv_nsec = (ms % 1000) * 1000000L;
  nanosleep(&ts, NULL);
}

typedef struct {
  mlvm_session* session;
  mlvm_status status;
  int line;
  char message[256];
  double ended;
} RunResult;

static void* run_thread(void* arg) {
  RunResult* r = (RunResult*)arg;
  mlvm_error* err = NULL;
  /* The main thread polls the session; if it holds it at the moment this run starts, the run
   * is refused ("in use") and is simply tried again. */
  for (;;) {
    r->status = mlvm_session_run(r->session, &err);
    if (r->status != MLVM_ERR_USAGE || !strstr(mlvm_error_message(err), "in use")) break;
    mlvm_error_free(err);
    err = NULL;
  }
  r->ended = now_seconds();
  r->line = mlvm_error_line(err);
  strncpy(r->message, mlvm_error_message(err), sizeof r->message - 1);
  r->message[sizeof r->message - 1] = '\0';
  mlvm_error_free(err);
  return NULL;
}

static mlvm_session* loop_session(const mlvm_program* p, uint64_t max_steps) {
  mlvm_session_options o;
  mlvm_session* s = NULL;
  mlvm_error* err = NULL;
  memset(&o, 0, sizeof o);
  o.threads = 1;
  o.max_steps = max_steps;
  EXPECT_OK(err, mlvm_session_new(p, &o, &s, &err));
  EXPECT_OK(err, mlvm_session_set_input(s, "x", MLVM_F32, 1, kShapeOne, NULL, kOne, sizeof kOne, 0,
                                        &err));
  return s;
}

static void test_cancel_from_another_thread(void) {
  mlvm_program* p = harness_assemble(kLoop);
  mlvm_session* s = loop_session(p, 0);
  mlvm_error* err = NULL;
  const mlvm_tensor* y = NULL;
  RunResult r;
  pthread_t runner;
  double asked;
  int in_use = 0, tries;
  memset(&r, 0, sizeof r);
  r.session = s;

  CHECK(pthread_create(&runner, NULL, run_thread, &r) == 0);
  /* While it runs, the session refuses a second thread. Poll with a call that changes nothing
   * until the runner holds the session (before that the answer is "no outputs"). */
  for (tries = 0; tries < 2000 && !in_use; ++tries) {
    mlvm_status st = mlvm_session_output(s, "y", &y, &err);
    in_use = st == MLVM_ERR_USAGE && strstr(mlvm_error_message(err), "in use") != NULL;
    mlvm_error_free(err);
    err = NULL;
    if (!in_use) sleep_ms(1);
  }
  CHECK(in_use);
  EXPECT_STATUS(err, mlvm_session_run(s, &err), MLVM_ERR_USAGE, "another thread", 0);
  sleep_ms(50); /* the loop is well under way */
  asked = now_seconds();
  mlvm_session_cancel(s);
  CHECK(pthread_join(runner, NULL) == 0);
  CHECK(r.status == MLVM_ERR_CANCELLED);
  CHECK(strstr(r.message, "cancelled") != NULL);
  CHECK(r.line == 5 || r.line == 6); /* the loop's add or jmp */
  CHECK(r.ended - asked < 0.5);

  /* The cancel was spent on that run: a step limit is a limit again, not a cancellation. */
  mlvm_session_free(s);
  s = loop_session(p, 100);
  EXPECT_STATUS(err, mlvm_session_run(s, &err), MLVM_ERR_LIMIT, "step limit", -1);
  /* A cancel with no run in progress stops the next run, and only that one. */
  mlvm_session_cancel(s);
  EXPECT_STATUS(err, mlvm_session_run(s, &err), MLVM_ERR_CANCELLED, "cancelled", -1);
  EXPECT_STATUS(err, mlvm_session_run(s, &err), MLVM_ERR_LIMIT, "step limit", -1);
  mlvm_session_free(s);
  mlvm_program_free(p);
}

enum { kThreads = 4, kRuns = 200 };

typedef struct {
  const mlvm_program* program;
  int id;
  int failures;
} SharedJob;

/* y = x * x + k for this thread's own x and k. */
static void* shared_program_thread(void* arg) {
  SharedJob* job = (SharedJob*)arg;
  mlvm_session_options o;
  mlvm_session* s = NULL;
  float x[64], y[64];
  int32_t k[1];
  const int64_t xs[1] = {64};
  int run, i;
  memset(&o, 0, sizeof o);
  o.threads = 2; /* kernels on the session's own pool, beside the other sessions' */
  if (mlvm_session_new(job->program, &o, &s, NULL) != MLVM_OK) {
    job->failures = 1;
    return NULL;
  }
  for (run = 0; run < kRuns; ++run) {
    const mlvm_tensor* out = NULL;
    for (i = 0; i < 64; ++i) x[i] = (float)(job->id * 1000 + run + i);
    k[0] = job->id + run;
    if (mlvm_session_set_input(s, "x", MLVM_F32, 1, xs, NULL, x, sizeof x, 0, NULL) != MLVM_OK ||
        mlvm_session_set_input(s, "k", MLVM_I32, 1, kShapeOne, NULL, k, sizeof k, 0, NULL) !=
            MLVM_OK ||
        mlvm_session_run(s, NULL) != MLVM_OK ||
        mlvm_session_output(s, "y", &out, NULL) != MLVM_OK ||
        mlvm_tensor_copy_to(out, y, sizeof y, NULL) != MLVM_OK) {
      ++job->failures;
      continue;
    }
    for (i = 0; i < 64; ++i)
      if (y[i] != x[i] * x[i] + (float)k[0]) {
        ++job->failures;
        break;
      }
  }
  mlvm_session_free(s);
  return NULL;
}

static void test_one_program_many_threads(void) {
  mlvm_program* p = harness_assemble(
      ".input x : f32[64]\n.input k : i32[1]\n.output y : f32[64]\n"
      "    kf = cast k, dtype=f32\n    sq = mul x, x\n"
      "    y = add sq, kf\n");
  pthread_t threads[kThreads];
  SharedJob jobs[kThreads];
  int t;
  for (t = 0; t < kThreads; ++t) {
    jobs[t].program = p;
    jobs[t].id = t;
    jobs[t].failures = 0;
    CHECK(pthread_create(&threads[t], NULL, shared_program_thread, &jobs[t]) == 0);
  }
  for (t = 0; t < kThreads; ++t) {
    CHECK(pthread_join(threads[t], NULL) == 0);
    CHECK(jobs[t].failures == 0);
  }
  mlvm_program_free(p);
}

int main(void) {
  test_cancel_from_another_thread();
  test_one_program_many_threads();
  return harness_finish("capi.threads");
}
