// Loaded with LD_PRELOAD by exit_stress.sh: a destructor that sleeps SLOW_EXIT_MS
// milliseconds (300 by default). Loaded before everything else, it is finalized after every
// library loaded later, the CUDA driver among them: a thread still inside the driver when
// the process's exit handlers run then has that long to meet the driver's state torn down,
// where it would otherwise have a moment before the process is gone.
#include <stdlib.h>
#include <time.h>

__attribute__((destructor)) static void slow_exit(void) {
    const char *ms = getenv("SLOW_EXIT_MS");
    long wait = ms ? atol(ms) : 300;
    struct timespec t = {wait / 1000, (wait % 1000) * 1000000L};
    nanosleep(&t, NULL);
}
