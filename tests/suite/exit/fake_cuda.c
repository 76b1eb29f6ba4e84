// A stand-in for the CUDA driver (libcuda.so) whose start-up is slow, to test how nqueen
// ends while a thread is inside the driver (tests/suite/exit.rs builds it).
//
// cuInit creates the file FAKE_CUDA_MARK, if set, then takes FAKE_CUDA_INIT_MS
// milliseconds (3000 by default) and reports that there is no device. The library's
// destructor, which runs among the process's exit handlers, aborts when a thread is inside
// cuInit then, as the real driver's teardown breaks such a thread: a process that runs its
// exit handlers with a thread inside the driver ends with SIGABRT instead of its status.
// With FAKE_CUDA_EXIT_CRASH set, it aborts whenever cuInit was called, as the real
// driver's exit handler did now and then on an H200 host, with no thread inside it.
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static atomic_int inside, called;

int cuInit(unsigned int flags) {
    (void)flags;
    atomic_store(&inside, 1);
    atomic_store(&called, 1);
    const char *mark = getenv("FAKE_CUDA_MARK");
    if (mark) {
        FILE *f = fopen(mark, "w");
        if (f) fclose(f);
    }
    const char *ms = getenv("FAKE_CUDA_INIT_MS");
    long wait = ms ? atol(ms) : 3000;
    struct timespec t = {wait / 1000, (wait % 1000) * 1000000L};
    nanosleep(&t, NULL);
    atomic_store(&inside, 0);
    return 100; /* CUDA_ERROR_NO_DEVICE */
}

int cuGetErrorString(int error, const char **said) {
    (void)error;
    *said = "no CUDA-capable device is detected";
    return 0;
}

int cuGetErrorName(int error, const char **name) {
    (void)error;
    *name = "CUDA_ERROR_NO_DEVICE";
    return 0;
}

__attribute__((destructor)) static void teardown(void) {
    if (atomic_load(&called) && getenv("FAKE_CUDA_EXIT_CRASH")) {
        static const char said[] = "fake CUDA driver: exit handler ran\n";
        if (write(2, said, sizeof said - 1) < 0) {
        }
        abort();
    }
    if (atomic_load(&inside)) {
        static const char said[] = "fake CUDA driver: torn down at exit under a thread inside cuInit\n";
        if (write(2, said, sizeof said - 1) < 0) {
        }
        abort();
    }
}
