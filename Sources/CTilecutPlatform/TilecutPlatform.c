#define _GNU_SOURCE
#include "TilecutPlatform.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
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
