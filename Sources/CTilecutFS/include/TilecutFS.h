#ifndef TILECUT_FS_H
#define TILECUT_FS_H

/* The file-system calls tilecut needs that differ between systems: Linux's
 * renameat2 and macOS's renamex_np. Each returns 0 on success and -1 with errno
 * set; ENOSYS/EINVAL/ENOTSUP mean "this file system cannot", so the caller may
 * fall back to plain rename. */

/* Swaps two existing paths in one step (RENAME_EXCHANGE / RENAME_SWAP). */
int tc_fs_exchange(const char *a, const char *b);

/* Renames `from` to `to` only when `to` does not exist (RENAME_NOREPLACE / RENAME_EXCL). */
int tc_fs_rename_noreplace(const char *from, const char *to);

#endif
