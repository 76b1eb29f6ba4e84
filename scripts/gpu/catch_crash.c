// Preloaded by exit_stress.sh into every run (LD_PRELOAD): on a fatal signal, writes the
// crashing thread's stack and the process's mappings to CRASH_DIR/crash.PID.txt, then has
// CRASH_GDB (cuda-gdb by default; /bin/false for none) attach for a minute at most and
// print every thread's stack there, then dies of the signal as it would have. Library
// offsets resolve against the mappings (addr2line on the binary, or the driver's build).
#define _GNU_SOURCE
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[512];

static void w(int fd, const char *s, size_t n) {
    if (write(fd, s, n) < 0) {
    }
}

static void on_fatal(int sig, siginfo_t *si, void *uc) {
    (void)uc;
    char path[600], buf[256];
    pid_t pid = getpid();
    snprintf(path, sizeof path, "%s/crash.%d.txt", dir, (int)pid);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    snprintf(buf, sizeof buf, "=== signal %d, addr %p, in tid %ld (pid %d)\n", sig, si ? si->si_addr : 0,
             (long)syscall(SYS_gettid), (int)pid);
    w(fd, buf, strlen(buf));
    void *frames[64];
    int n = backtrace(frames, 64);
    backtrace_symbols_fd(frames, n, fd);
    int m = open("/proc/self/maps", O_RDONLY);
    char mb[4096];
    ssize_t r;
    w(fd, "=== maps\n", 9);
    while (m >= 0 && (r = read(m, mb, sizeof mb)) > 0) w(fd, mb, (size_t)r);
    close(m);
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    pid_t g = fork();
    if (g == 0) {
        char p[32];
        snprintf(p, sizeof p, "%d", (int)pid);
        dup2(fd, 1);
        dup2(fd, 2);
        const char *gdb = getenv("CRASH_GDB");
        execlp("timeout", "timeout", "60", gdb ? gdb : "/usr/local/cuda/bin/cuda-gdb", "-q", "-batch", "-p", p, "-ex",
               "info threads", "-ex", "thread apply all bt 40", (char *)0);
        _exit(127);
    }
    if (g > 0) waitpid(g, 0, 0);
    close(fd);
    signal(sig, SIG_DFL);
    raise(sig);
}

__attribute__((constructor)) static void install(void) {
    const char *d = getenv("CRASH_DIR");
    snprintf(dir, sizeof dir, "%s", d ? d : "/tmp");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigaction(SIGSEGV, &sa, 0);
    sigaction(SIGBUS, &sa, 0);
    sigaction(SIGILL, &sa, 0);
    sigaction(SIGABRT, &sa, 0);
    sigaction(SIGFPE, &sa, 0);
}
