#define _GNU_SOURCE
#include "TilecutPlatform.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__GLIBC__)
#include <malloc.h>
#elif defined(__APPLE__)
#include <malloc/malloc.h>
#endif

/* ---- atomic renames ---- */

#if defined(__linux__)
#include <sys/syscall.h>
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

/* The raw system call: glibc before 2.28 has no wrapper. */
static int rename2(const char *from, const char *to, unsigned flags) {
#ifdef SYS_renameat2
  return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, flags);
#else
  (void)from;
  (void)to;
  (void)flags;
  errno = ENOSYS;
  return -1;
#endif
}

int tc_fs_exchange(const char *a, const char *b) { return rename2(a, b, RENAME_EXCHANGE); }

int tc_fs_rename_noreplace(const char *from, const char *to) { return rename2(from, to, RENAME_NOREPLACE); }

#elif defined(__APPLE__)

/* renamex_np and its flags are declared in <stdio.h> (macOS 10.12 and later);
 * ENOTSUP when the volume cannot swap (not APFS or HFS+). */
int tc_fs_exchange(const char *a, const char *b) { return renamex_np(a, b, RENAME_SWAP); }

int tc_fs_rename_noreplace(const char *from, const char *to) { return renamex_np(from, to, RENAME_EXCL); }

#else

int tc_fs_exchange(const char *a, const char *b) {
  (void)a;
  (void)b;
  errno = ENOSYS;
  return -1;
}

int tc_fs_rename_noreplace(const char *from, const char *to) {
  (void)from;
  (void)to;
  errno = ENOSYS;
  return -1;
}

#endif

/* ---- writes ---- */

int tc_write_all(int fd, const void *bytes, size_t length) {
  const char *p = bytes;
  while (length > 0) {
    ssize_t n = write(fd, p, length);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return errno;
    }
    if (n == 0)
      return EIO;
    p += n;
    length -= (size_t)n;
  }
  return 0;
}

/* ---- the allocator ---- */

void tc_tune_malloc(void) {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

void tc_release_free_memory(void) {
#if defined(__GLIBC__)
  malloc_trim(0);
#elif defined(__APPLE__)
  malloc_zone_pressure_relief(NULL, 0);
#endif
}

/* ---- threads, signals, file identity ---- */

void tc_lower_thread_priority(int niceness) {
#if defined(__linux__)
  (void)setpriority(PRIO_PROCESS, 0, niceness);
#else
  (void)niceness;
#endif
}

int tc_on_signal(int sig, void (*handler)(int)) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  return sigaction(sig, &action, NULL);
}

int tc_file_identity(const char *path, char *buffer, size_t length) {
  struct stat st;
  if (stat(path, &st) != 0)
    return -1;
#if defined(__APPLE__)
  struct timespec m = st.st_mtimespec, c = st.st_ctimespec;
#else
  struct timespec m = st.st_mtim, c = st.st_ctim;
#endif
  int n = snprintf(buffer, length, "%llu:%llu:%lld:%lld.%ld:%lld.%ld", (unsigned long long)st.st_dev,
                   (unsigned long long)st.st_ino, (long long)st.st_size, (long long)m.tv_sec, (long)m.tv_nsec,
                   (long long)c.tv_sec, (long)c.tv_nsec);
  return n > 0 && (size_t)n < length ? 0 : -1;
}

int tc_has_mount_table(void) {
#if defined(__linux__)
  return access("/proc/self/mountinfo", R_OK) == 0;
#else
  return 0;
#endif
}

/* ---- library messages kept off stderr ---- */

enum { TC_TAIL = 4096 };

static int real_stderr = -1;
static int capture_read = -1;
static int capture_forward = 0;
/* the newest TC_TAIL bytes the libraries wrote, a ring: `tail_end` counts every byte */
static char tail[TC_TAIL];
static size_t tail_end = 0;
static pthread_mutex_t tail_lock = PTHREAD_MUTEX_INITIALIZER;
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT};
enum { TC_FATAL = sizeof fatal_signals / sizeof fatal_signals[0] };
static struct sigaction previous[TC_FATAL];

int tc_stderr_fd(void) { return real_stderr >= 0 ? real_stderr : 2; }

/* with tail_lock held */
static void keep(const char *bytes, size_t n) {
  for (size_t i = 0; i < n; i++)
    tail[(tail_end + i) % TC_TAIL] = bytes[i];
  tail_end += n;
}

/* `line` bytes passed on whole lines at a time, each prefixed */
static void forward_lines(const char *bytes, size_t n, int *at_line_start) {
  size_t i = 0;
  while (i < n) {
    if (*at_line_start) {
      (void)tc_write_all(real_stderr, "library: ", 9);
      *at_line_start = 0;
    }
    const char *newline = memchr(bytes + i, '\n', n - i);
    size_t end = newline ? (size_t)(newline - bytes) + 1 : n;
    (void)tc_write_all(real_stderr, bytes + i, end - i);
    if (newline)
      *at_line_start = 1;
    i = end;
  }
}

static void *drain(void *unused) {
  (void)unused;
  char buffer[4096];
  int at_line_start = 1;
  for (;;) {
    ssize_t n = read(capture_read, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return NULL;
    pthread_mutex_lock(&tail_lock);
    keep(buffer, (size_t)n);
    if (capture_forward)
      forward_lines(buffer, (size_t)n, &at_line_start);
    pthread_mutex_unlock(&tail_lock);
  }
}

/* Async-signal-safe: write(2), dup2(2), read(2) on a non-blocking pipe, sigaction(2).
 * The ring is read without its lock (a thread holding it may be the one that faulted). */
static void on_fatal(int sig, siginfo_t *info, void *context) {
  (void)context;
  int saved_errno = errno;
  if (real_stderr >= 0) {
    if (!capture_forward) {
      size_t end = tail_end;
      if (end) {
        static const char title[] = "tilecut: what the libraries said last:\n";
        (void)tc_write_all(real_stderr, title, sizeof title - 1);
        size_t start = end < TC_TAIL ? 0 : end % TC_TAIL;
        if (end >= TC_TAIL)
          (void)tc_write_all(real_stderr, tail + start, TC_TAIL - start);
        (void)tc_write_all(real_stderr, tail, end < TC_TAIL ? end : start);
      }
    }
    /* what the drain thread has not read yet (a fatal error's own message) */
    char buffer[512];
    struct pollfd ready = {capture_read, POLLIN, 0};
    ssize_t n;
    while (poll(&ready, 1, 0) == 1 && (ready.revents & POLLIN) && (n = read(capture_read, buffer, sizeof buffer)) > 0)
      (void)tc_write_all(real_stderr, buffer, (size_t)n);
    (void)dup2(real_stderr, 2);
  }
  for (size_t i = 0; i < TC_FATAL; i++)
    if (fatal_signals[i] == sig)
      (void)sigaction(sig, &previous[i], NULL);
  errno = saved_errno;
  /* a fault repeats when the handler returns; a signal that was sent (abort's, kill's)
   * or a breakpoint's is raised again: either way the previous handler (or the
   * default) now takes it */
  if (sig == SIGTRAP || !info || info->si_code <= 0)
    (void)raise(sig);
}

/* At exit: what is still in the pipe is passed on too (the thread may not have run
 * since the last library line). */
static void forward_rest(void) {
  if (!capture_forward || capture_read < 0)
    return;
  char buffer[4096];
  int at_line_start = 1;
  struct pollfd ready = {capture_read, POLLIN, 0};
  ssize_t n;
  pthread_mutex_lock(&tail_lock);
  while (poll(&ready, 1, 0) == 1 && (ready.revents & POLLIN) && (n = read(capture_read, buffer, sizeof buffer)) > 0)
    forward_lines(buffer, (size_t)n, &at_line_start);
  pthread_mutex_unlock(&tail_lock);
}

int tc_capture_library_stderr(int forward) {
  if (real_stderr >= 0)
    return 0;
  if (fcntl(2, F_GETFD) == -1)
    return -1;
  int kept = fcntl(2, F_DUPFD_CLOEXEC, 3);
  if (kept < 0)
    return -1;
  int ends[2];
  if (pipe(ends) != 0) {
    close(kept);
    return -1;
  }
  (void)fcntl(ends[0], F_SETFD, FD_CLOEXEC);
  (void)fcntl(ends[1], F_SETFD, FD_CLOEXEC);
  if (dup2(ends[1], 2) < 0) {
    close(kept);
    close(ends[0]);
    close(ends[1]);
    return -1;
  }
  close(ends[1]);
  real_stderr = kept;
  capture_read = ends[0];
  capture_forward = forward;
  /* the thread takes no signals: tilecut's SIGINT/SIGTERM handling stays where it is */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_t thread;
  int failed = pthread_create(&thread, &attr, drain, NULL);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (failed) {
    (void)dup2(kept, 2);
    close(kept);
    close(ends[0]);
    real_stderr = capture_read = -1;
    return -1;
  }
  (void)atexit(forward_rest);
  for (size_t i = 0; i < TC_FATAL; i++) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fatal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND | SA_SIGINFO;
    (void)sigaction(fatal_signals[i], &action, &previous[i]);
  }
  return 0;
}

/* ---- descriptors the caller passed in ---- */

enum { TC_NOTED_FDS = 1024 };
static unsigned char inherited[TC_NOTED_FDS / 8];
static int inherited_noted = 0;

void tc_note_inherited_descriptors(void) {
  for (int fd = 0; fd < TC_NOTED_FDS; fd++)
    if (fcntl(fd, F_GETFD) != -1)
      inherited[fd / 8] |= (unsigned char)(1u << (fd % 8));
  inherited_noted = 1;
}

int tc_descriptor_inherited(int fd) {
  if (!inherited_noted)
    return -1;
  return fd >= 0 && fd < TC_NOTED_FDS && (inherited[fd / 8] >> (fd % 8)) & 1;
}
