#ifndef TILECUT_PLATFORM_H
#define TILECUT_PLATFORM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The system calls tilecut makes that differ between Linux (glibc) and macOS, in
 * one place. Everything else tilecut calls is POSIX. Tested on Linux; the macOS
 * branches are written against the macOS SDK's documented calls but not built here.
 *
 *   call                 Linux (glibc)                    macOS
 *   tc_fs_exchange       renameat2(RENAME_EXCHANGE)       renamex_np(RENAME_SWAP)
 *   tc_fs_rename_noreplace renameat2(RENAME_NOREPLACE)    renamex_np(RENAME_EXCL)
 *   tc_write_all         write(2) in a loop               the same
 *   tc_tune_malloc       mallopt (<malloc.h>)             nothing: see below
 *   tc_release_free_memory malloc_trim(0)                 malloc_zone_pressure_relief
 *   tc_lower_thread_priority setpriority(PRIO_PROCESS, 0) (per thread)  nothing
 *   tc_on_signal         sigaction (glibc's field names)  sigaction (Darwin's)
 *   tc_file_identity     st_mtim, st_ctim                 st_mtimespec, st_ctimespec
 *   tc_stat_mtime_nanoseconds st_mtim                     st_mtimespec
 *   tc_has_mount_table   /proc/self/mountinfo             none (no bind mounts)
 *   tc_capture_library_stderr pipe, dup2, a pthread, sigaction  the same
 *   tc_library_stopped   getdents64 (raw), unlinkat       staging left for the next run
 *   tc_library_beside    dladdr (_GNU_SOURCE)             dladdr */

/* Swaps two existing paths in one step (RENAME_EXCHANGE / RENAME_SWAP). Returns 0,
 * or -1 with errno set; ENOSYS, EINVAL, ENOTSUP mean "this file system cannot", so
 * the caller may fall back to plain rename. */
int tc_fs_exchange(const char *a, const char *b);

/* Renames `from` to `to` only when `to` does not exist (RENAME_NOREPLACE /
 * RENAME_EXCL): -1 with errno EEXIST when it does; other errors as above. */
int tc_fs_rename_noreplace(const char *from, const char *to);

/* Writes all `length` bytes to `fd`, retrying after EINTR and short writes.
 * Returns 0, or the errno of the write that failed. (Swift would otherwise have
 * to name the C function by its module, Glibc.write or Darwin.write, inside any
 * type that has a write method of its own.) */
int tc_write_all(int fd, const void *bytes, size_t length);

/* Keeps large short-lived buffers (tiles, strips) in the heap instead of a fresh
 * mmap each, which costs a page fault per 4 KB, and stops the heap from being
 * trimmed back after every strip: glibc's M_MMAP_THRESHOLD and M_TRIM_THRESHOLD;
 * and keeps every thread's allocations in one arena (M_ARENA_MAX 1), so that
 * tc_release_free_memory gives back all of what is free, not only the main
 * thread's. macOS's allocator has no such knobs (its large allocations come from the
 * default zone's own free lists; malloc_zone_* offers no threshold), so there it
 * does nothing. Call once, before the first large allocation. */
void tc_tune_malloc(void);

/* Hands memory the process has freed back to the system. glibc keeps freed memory in
 * the arena of the thread that allocated it, so a parse on the main thread (an SVG
 * document's tree: 440 MB for 200000 elements) would stay resident while a worker
 * thread parses the document again in its own arena to render it. */
void tc_release_free_memory(void);

/* Lowers the calling thread's scheduling priority by `niceness` (Linux: the nice
 * value is per thread, `who` 0 the caller). macOS has no per-thread nice: nothing. */
void tc_lower_thread_priority(int niceness);

/* Installs `handler` for `sig` with SA_RESTART and an empty mask. Returns 0 or -1. */
int tc_on_signal(int sig, void (*handler)(int));

/* Device, inode, size, modification and change times (ns) of a file as one line of
 * text in `buffer`. Returns 0, or -1 when the file cannot be stat'ed or the text
 * does not fit. */
int tc_file_identity(const char *path, char *buffer, size_t length);

/* The modification time of a `struct stat` that `stat_buffer` points to, in
 * nanoseconds since the epoch (a void pointer, so that this header needs no
 * <sys/stat.h>). */
long long tc_stat_mtime_nanoseconds(const void *stat_buffer);

/* 1 where the kernel lists its mounts in /proc/self/mountinfo (Linux: a bind mount
 * keeps the device number, so the table is the only way to see it), else 0. */
int tc_has_mount_table(void);

/* Library messages kept off stderr. Libraries tilecut calls print to stderr
 * themselves (poppler's font engine "some font thing failed", cairo, fontconfig):
 * no handler reaches them. tc_capture_library_stderr moves the process's stderr
 * to a new descriptor for tilecut's own lines (tc_stderr_fd) and makes fd 2 a
 * pipe that a thread drains, keeping the last 4 KB. With `forward` set, each line
 * is passed on to the real stderr prefixed "library: " (TILECUT_LIBRARY_MESSAGES=1).
 * On a fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT) what was
 * kept is written to the real stderr and fd 2 is put back before the signal goes
 * on to the handler that was there before (the Swift runtime's), so a crash
 * report is never lost. Returns 0, or -1 when nothing was changed (fd 2 closed, no
 * pipe). Call once, from the command-line tool only, before other threads start. */
int tc_capture_library_stderr(int forward);

/* A library that ends the process. poppler's C++ throws std::bad_alloc through C
 * frames (std::terminate); poppler's gmalloc and Rust's allocator call abort(); glib's
 * g_malloc ends in a breakpoint (SIGTRAP) after "GLib-ERROR **: … failed to allocate".
 * From tc_capture_library_stderr on, each becomes one line on the real stderr,
 *   error: <input>: a library ran out of memory (std::bad_alloc); the previous output is unchanged (…)
 *   error: <input>: stopped by an abort in a library (<the last line it wrote>); …
 * after the staging directories noted below are removed, and the exit status is
 * TC_STOP_STATUS (ExitStatus.failure). So is the Swift runtime's own failed allocation
 * ("Fatal error: failed to allocate", an abort too). Any other Swift runtime error,
 * any other trap, a kill -ABRT or -TRAP from another process, SIGSEGV, SIGILL… go
 * to the crash report as before. Only system calls run on that path (no malloc, no
 * stdio): the tree is read with getdents64 and removed with unlinkat, never through
 * a link, and only when it is still the directory noted (device, inode) and holds
 * the staging marker (.tilecut-staging, "tilecut staging\n"). Elsewhere than Linux
 * staging is left for the next run, which removes it as abandoned. */
enum {
  TC_STOP_BAD_ALLOC = 1,
  TC_STOP_EXCEPTION = 2,
  TC_STOP_ABORT = 3,
  TC_STOP_SWIFT_ALLOCATION = 4,
  TC_STOP_LIBRARY_ALLOCATION = 5,
  TC_STOP_STATUS = 1
};

/* Notes the staging directory `name` in the directory open as `parent_fd` (which is
 * duplicated: the caller keeps its own). Returns a slot for tc_forget_staging, or -1
 * (not noted: more than 16 at once, a name that is not a directory there). */
int tc_note_staging(int parent_fd, const char *name);

/* Forgets a noted staging directory: published, or removed by its store. */
void tc_forget_staging(int slot);

/* The input file the run reads, named in the line (copied); NULL when unknown or
 * several. */
void tc_note_input(const char *path);

/* The file the calling thread's library call reads, named in the line before the
 * run's one input (several floors drawn side by side): tc_enter_input returns what
 * was noted before, for tc_leave_input. `path` must outlive the call. */
const char *tc_enter_input(const char *path);
void tc_leave_input(const char *was);

/* Writes the line for `kind` (`detail`: an exception's what()), removes the noted
 * staging and exits. Called by the fatal-signal handler and std::terminate's. */
void tc_library_stopped(int kind, const char *detail) __attribute__((noreturn));

/* Installs the std::terminate handler that calls tc_library_stopped (C++). */
void tc_install_terminate_handler(void);

/* Starts `body(context)` on a detached thread named `name` (15 bytes kept). Returns 0,
 * or pthread_create's error (EAGAIN: no memory or threads left) with nothing started:
 * Foundation's Thread says nothing when it cannot start one, and a caller waiting for
 * it would wait for ever. */
int tc_start_thread(void (*body)(void *), void *context, const char *name);

/* The descriptor tilecut's own lines go to: the real stderr kept by
 * tc_capture_library_stderr, else 2. */
int tc_stderr_fd(void);

/* The descriptors open when the process started (0–1023), noted once before tilecut
 * opens any of its own: `/dev/fd/N` names only those. tc_descriptor_inherited is 1
 * for one of them, 0 for any other, and -1 when nothing was noted (a library caller). */
void tc_note_inherited_descriptors(void);
int tc_descriptor_inherited(int fd);

/* The path of library `name` in the directory that the library defining `symbol` (one
 * already in the process, such as libvips' "vips_init") was loaded from, for dlopen of a
 * library tilecut loads when first needed (libgdal, libproj, libgeotiff): Homebrew's and
 * a source install's libraries sit side by side (/opt/homebrew/lib, /usr/local/lib),
 * where dlopen of a bare name does not look on macOS. 1 with the path in `out`, else 0. */
int tc_library_beside(const char *symbol, const char *name, char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif
