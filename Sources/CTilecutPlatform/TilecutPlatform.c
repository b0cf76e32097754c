#define _GNU_SOURCE
#include "TilecutPlatform.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
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
  /* one arena for every thread: malloc_trim gives back the top of the main arena
   * only, and a worker's arena keeps its highest size for good (its top is trimmed
   * past M_TRIM_THRESHOLD only), so over a campus's buildings, one after the other,
   * each worker's arena kept the largest any building had made it */
  mallopt(M_ARENA_MAX, 1);
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

long long tc_stat_mtime_nanoseconds(const void *stat_buffer) {
  const struct stat *st = stat_buffer;
#if defined(__APPLE__)
  struct timespec m = st->st_mtimespec;
#else
  struct timespec m = st->st_mtim;
#endif
  return (long long)m.tv_sec * 1000000000LL + (long long)m.tv_nsec;
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

/* ---- a library that aborts: one line, staging removed ---- */

enum { TC_STAGINGS = 16, TC_NAME = 256, TC_INPUT = 1024 };

/* The staging directories of the runs under way (a build stages one per store): the
 * directory they are in (a descriptor of our own), their name, device and inode.
 * `fd` is published last and taken first, so the handler never sees half a slot. */
static struct {
  _Atomic int fd;
  _Atomic int claimed;
  char name[TC_NAME];
  dev_t device;
  ino_t inode;
} stagings[TC_STAGINGS] = {[0 ... TC_STAGINGS - 1] = {-1, 0, {0}, 0, 0}};

/* The input the run reads, when there is one (input_known), else unknown or several. */
static char input_path[TC_INPUT];
static _Atomic int input_known = 0;
static _Atomic int stopping = 0;

/* The file the calling thread's library call reads (a document being drawn). */
static _Thread_local const char *thread_input = NULL;

const char *tc_enter_input(const char *path) {
  const char *was = thread_input;
  thread_input = path;
  return was;
}

void tc_leave_input(const char *was) { thread_input = was; }

int tc_note_staging(int parent_fd, const char *name) {
  size_t length = strlen(name);
  struct stat st;
  if (length == 0 || length >= TC_NAME || strchr(name, '/') || fstatat(parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
      !S_ISDIR(st.st_mode))
    return -1;
  for (int i = 0; i < TC_STAGINGS; i++) {
    int expected = 0;
    if (!atomic_compare_exchange_strong(&stagings[i].claimed, &expected, 1))
      continue;
    int fd = fcntl(parent_fd, F_DUPFD_CLOEXEC, 3);
    if (fd < 0) {
      atomic_store(&stagings[i].claimed, 0);
      return -1;
    }
    memcpy(stagings[i].name, name, length + 1);
    stagings[i].device = st.st_dev;
    stagings[i].inode = st.st_ino;
    atomic_store(&stagings[i].fd, fd);
    return i;
  }
  return -1;
}

void tc_forget_staging(int slot) {
  if (slot < 0 || slot >= TC_STAGINGS)
    return;
  int fd = atomic_exchange(&stagings[slot].fd, -1);
  if (fd >= 0)
    close(fd);
  atomic_store(&stagings[slot].claimed, 0);
}

void tc_note_input(const char *path) {
  atomic_store(&input_known, 0);
  if (!path)
    return;
  size_t length = strlen(path);
  if (length >= TC_INPUT)
    return;
  memcpy(input_path, path, length + 1);
  atomic_store(&input_known, 1);
}

#if defined(__linux__)
/* getdents64's record; glibc before 2.30 has no wrapper, so it is the raw call. */
struct tc_dirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

/* Unlinks what the directory open as `dir` holds, descending by descriptors
 * (O_NOFOLLOW: a link is unlinked, never followed). System calls only. */
static void remove_entries(int dir, int depth) {
  _Alignas(8) char buffer[2048];
  for (int pass = 0; pass < 8; pass++) {
    int removed = 0, left = 0;
    (void)lseek(dir, 0, SEEK_SET);
    for (;;) {
      long n = syscall(SYS_getdents64, dir, buffer, sizeof buffer);
      if (n <= 0)
        break;
      for (long at = 0; at < n;) {
        struct tc_dirent64 *entry = (struct tc_dirent64 *)(buffer + at);
        at += entry->d_reclen;
        const char *name = entry->d_name;
        if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)))
          continue;
        int is_dir = entry->d_type == DT_DIR;
        if (entry->d_type == DT_UNKNOWN) {
          struct stat st;
          is_dir = fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
        }
        if (is_dir && depth < 32) {
          int sub = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (sub >= 0) {
            remove_entries(sub, depth + 1);
            close(sub);
          }
        }
        if (unlinkat(dir, name, is_dir ? AT_REMOVEDIR : 0) == 0)
          removed++;
        else
          left++;
      }
    }
    if (!left || !removed)
      return;
  }
}
#endif

/* Removes a noted staging directory when it is still the one made (device and inode)
 * and still holds tilecut's marker. System calls only. */
static void remove_staging(int parent, const char *name, dev_t device, ino_t inode) {
#if defined(__linux__)
  static const char marker[] = ".tilecut-staging";
  static const char marker_text[] = "tilecut staging\n";
  int dir = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0)
    return;
  struct stat st;
  char text[sizeof marker_text];
  int mark = openat(dir, marker, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  int ours = fstat(dir, &st) == 0 && st.st_dev == device && st.st_ino == inode && mark >= 0 && fstat(mark, &st) == 0 &&
             S_ISREG(st.st_mode) && st.st_size == (off_t)(sizeof marker_text - 1) &&
             read(mark, text, sizeof text) == (ssize_t)(sizeof marker_text - 1) &&
             memcmp(text, marker_text, sizeof marker_text - 1) == 0;
  if (mark >= 0)
    close(mark);
  if (!ours) {
    close(dir);
    return;
  }
  /* workers may still be writing tiles: once the root is gone none can come back
   * (DirectoryTileWriter makes folders below it, never it) */
  for (int attempt = 0; attempt < 50; attempt++) {
    remove_entries(dir, 0);
    if (unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
      break;
    struct timespec pause = {0, 2000000};
    (void)nanosleep(&pause, NULL);
  }
  close(dir);
#else
  /* no raw directory reading here: the next run removes it as abandoned staging */
  (void)parent;
  (void)name;
  (void)device;
  (void)inode;
#endif
}

/* `text` appended to the line at `*at`, control characters as '?' */
static void put(char *line, size_t size, size_t *at, const char *text, size_t length) {
  for (size_t i = 0; i < length && *at + 1 < size; i++) {
    unsigned char c = (unsigned char)text[i];
    line[(*at)++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
  }
}

static void puts_(char *line, size_t size, size_t *at, const char *text) { put(line, size, at, text, strlen(text)); }

/* What the libraries wrote that the drain thread has not read yet, kept in the ring
 * (without its lock: the thread holding it may be the one stopping). The thread is
 * given a moment first to finish keeping what it read. */
static void absorb_pipe(void) {
  struct timespec pause = {0, 20000000};
  (void)nanosleep(&pause, NULL);
  if (capture_read < 0)
    return;
  char buffer[512];
  struct pollfd ready = {capture_read, POLLIN, 0};
  ssize_t n;
  while (poll(&ready, 1, 0) == 1 && (ready.revents & POLLIN) && (n = read(capture_read, buffer, sizeof buffer)) > 0)
    keep(buffer, (size_t)n);
}

/* The last non-empty line in the ring, into `out` (at most `size` bytes). */
static size_t last_library_line(char *out, size_t size) {
  size_t end = tail_end, floor = end < TC_TAIL ? 0 : end - TC_TAIL;
  while (end > floor && (tail[(end - 1) % TC_TAIL] == '\n' || tail[(end - 1) % TC_TAIL] == '\r' || tail[(end - 1) % TC_TAIL] == ' '))
    end--;
  size_t start = end;
  while (start > floor && tail[(start - 1) % TC_TAIL] != '\n')
    start--;
  size_t length = end - start < size ? end - start : size;
  for (size_t i = 0; i < length; i++)
    out[i] = tail[(start + i) % TC_TAIL];
  return length;
}

void tc_library_stopped(int kind, const char *detail) {
  /* one thread says it; another that fails meanwhile waits for the exit (and reaches
   * here: the handler is not reset by the first signal, SA_RESETHAND, or two threads
   * out of memory at once would abort together, the second with the default action,
   * and the process would die without its line, its staging left) */
  if (atomic_exchange(&stopping, 1)) {
    struct timespec wait = {5, 0};
    (void)nanosleep(&wait, NULL);
    _exit(TC_STOP_STATUS);
  }
  absorb_pipe();
  char said[300];
  size_t said_length = last_library_line(said, sizeof said);
  int staged = 0;
  for (int i = 0; i < TC_STAGINGS; i++) {
    int fd = atomic_exchange(&stagings[i].fd, -1);
    if (fd < 0)
      continue;
    remove_staging(fd, stagings[i].name, stagings[i].device, stagings[i].inode);
    staged = 1;
  }
  char line[1600];
  size_t at = 0;
  puts_(line, sizeof line, &at, "error: ");
  if (thread_input) {
    puts_(line, sizeof line, &at, thread_input);
    puts_(line, sizeof line, &at, ": ");
  } else if (atomic_load(&input_known)) {
    puts_(line, sizeof line, &at, input_path);
    puts_(line, sizeof line, &at, ": ");
  }
  switch (kind) {
  case TC_STOP_BAD_ALLOC:
    puts_(line, sizeof line, &at, "a library ran out of memory (std::bad_alloc)");
    break;
  case TC_STOP_EXCEPTION:
    puts_(line, sizeof line, &at, "stopped by an exception a library did not catch (");
    puts_(line, sizeof line, &at, detail ? detail : "of unknown type");
    puts_(line, sizeof line, &at, ")");
    break;
  case TC_STOP_LIBRARY_ALLOCATION:
    puts_(line, sizeof line, &at, "a library ran out of memory (");
    put(line, sizeof line, &at, said, said_length);
    puts_(line, sizeof line, &at, ")");
    break;
  case TC_STOP_SWIFT_ALLOCATION:
    puts_(line, sizeof line, &at, "tilecut ran out of memory (");
    put(line, sizeof line, &at, said, said_length);
    puts_(line, sizeof line, &at, ")");
    break;
  default:
    puts_(line, sizeof line, &at, "stopped by an abort in a library");
    if (said_length) {
      puts_(line, sizeof line, &at, " (");
      put(line, sizeof line, &at, said, said_length);
      puts_(line, sizeof line, &at, ")");
    }
  }
  if (staged)
    puts_(line, sizeof line, &at, "; the previous output is unchanged");
  if (kind != TC_STOP_EXCEPTION)
    puts_(line, sizeof line, &at, " (run it with more memory, or a lower --max-zoom)");
  line[at++] = '\n';
  (void)tc_write_all(tc_stderr_fd(), line, at);
  _exit(TC_STOP_STATUS);
}

/* Whether the last line the libraries wrote starts with `prefix`. */
static int last_line_starts(const char *prefix) {
  char said[64];
  size_t n = last_library_line(said, sizeof said), length = strlen(prefix);
  return n >= length && memcmp(said, prefix, length) == 0;
}

/* Whether the last line the libraries wrote holds `part`. */
static int last_line_holds(const char *part) {
  char said[300];
  size_t n = last_library_line(said, sizeof said), length = strlen(part);
  for (size_t i = 0; i + length <= n; i++)
    if (memcmp(said + i, part, length) == 0)
      return 1;
  return 0;
}

/* Async-signal-safe: write(2), dup2(2), read(2) on a non-blocking pipe, sigaction(2).
 * The ring is read without its lock (a thread holding it may be the one that faulted). */
static void on_fatal(int sig, siginfo_t *info, void *context) {
  (void)context;
  int saved_errno = errno;
  /* abort() in this process (not a kill from outside): a library's, or the Swift
   * runtime's failed allocation; any other Swift runtime error is a bug and goes on */
  if (sig == SIGABRT && info && info->si_code <= 0 && info->si_pid == getpid() && real_stderr >= 0) {
    absorb_pipe();
    if (last_line_starts("Fatal error: failed to allocate"))
      tc_library_stopped(TC_STOP_SWIFT_ALLOCATION, NULL);
    if (!last_line_starts("Fatal error"))
      tc_library_stopped(TC_STOP_ABORT, NULL);
  }
  /* glib's failed allocation is g_error, a breakpoint (int3: SIGTRAP from the
   * kernel), right after "GLib-ERROR **: …: failed to allocate N bytes" (written by
   * tilecut's GLib log handler, CVipsShim.c); any
   * other trap (a Swift trap on arm64, a debugger's) goes on */
  if (sig == SIGTRAP && info && (info->si_code > 0 || info->si_pid == getpid()) && real_stderr >= 0) {
    absorb_pipe();
    /* and a thread it could not start (pango's font sorting, GLib's thread pool) */
    if (last_line_holds("ERROR **: ") && (last_line_holds("failed to allocate") || last_line_holds("Error creating thread")))
      tc_library_stopped(TC_STOP_LIBRARY_ALLOCATION, NULL);
  }
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
  tc_install_terminate_handler();
  for (size_t i = 0; i < TC_FATAL; i++) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fatal;
    sigemptyset(&action.sa_mask);
    /* not SA_RESETHAND: a second thread's abort must reach tc_library_stopped too */
    action.sa_flags = SA_SIGINFO;
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

/* ---- threads that say when they cannot start ---- */

struct tc_thread_start {
  void (*body)(void *);
  void *context;
  char name[16];
};

static void *thread_trampoline(void *p) {
  struct tc_thread_start start = *(struct tc_thread_start *)p;
  free(p);
#ifdef __APPLE__
  (void)pthread_setname_np(start.name);
#else
  (void)pthread_setname_np(pthread_self(), start.name);
#endif
  start.body(start.context);
  return NULL;
}

int tc_start_thread(void (*body)(void *), void *context, const char *name) {
  struct tc_thread_start *start = malloc(sizeof *start);
  if (!start)
    return ENOMEM;
  start->body = body;
  start->context = context;
  snprintf(start->name, sizeof start->name, "%s", name ? name : "tilecut");
  pthread_t thread;
  int status = pthread_create(&thread, NULL, thread_trampoline, start);
  if (status != 0) {
    free(start);
    return status;
  }
  (void)pthread_detach(thread);
  return 0;
}

int tc_library_beside(const char *symbol, const char *name, char *out, size_t size) {
  void *address = dlsym(RTLD_DEFAULT, symbol);
  Dl_info info;
  if (!address || !dladdr(address, &info) || !info.dli_fname)
    return 0;
  const char *slash = strrchr(info.dli_fname, '/');
  if (!slash)
    return 0;
  int n = snprintf(out, size, "%.*s/%s", (int)(slash - info.dli_fname), info.dli_fname, name);
  return n > 0 && (size_t)n < size;
}
