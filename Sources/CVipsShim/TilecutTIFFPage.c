#define _GNU_SOURCE
#include "TilecutTIFFPage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Why this file exists: libvips' tiffload counts a file's pages by reading every
 * directory each time it opens one page, so N floors of a P-page TIFF cost N × P
 * directory reads. Here one page is shown to libvips as a one-page TIFF: the
 * header's first-directory offset points at that page's directory, and that
 * directory's next-directory offset reads as 0. Nothing else changes and
 * nothing is copied; the directories before it are walked once, offsets only. */

typedef struct {
  int fd;
  gint64 size, pos;
  uint8_t head[16];
  int head_len;
  gint64 patch_at;
  uint8_t patch[8];
  int patch_len;
} TcTiffPage;

static void page_free(gpointer data) {
  TcTiffPage *p = data;
  if (p->fd >= 0)
    close(p->fd);
  free(p);
}

static uint64_t get(const uint8_t *b, int n, int swap) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++)
    v |= (uint64_t)b[swap ? n - 1 - i : i] << (8 * i);
  return v;
}

static void put(uint8_t *b, int n, int swap, uint64_t v) {
  for (int i = 0; i < n; i++)
    b[swap ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static int pread_all(int fd, void *dst, size_t n, gint64 at) { return pread(fd, dst, n, (off_t)at) == (ssize_t)n ? 0 : -1; }

static void overlay(uint8_t *buf, gint64 pos, gint64 n, gint64 at, const uint8_t *bytes, int len) {
  for (int i = 0; i < len; i++) {
    gint64 k = at + i - pos;
    if (k >= 0 && k < n)
      buf[k] = bytes[i];
  }
}

static gint64 page_read(VipsSourceCustom *source, void *buffer, gint64 length, gpointer data) {
  (void)source;
  TcTiffPage *p = data;
  ssize_t n;
  do
    n = pread(p->fd, buffer, (size_t)length, (off_t)p->pos);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return -1;
  overlay(buffer, p->pos, n, 0, p->head, p->head_len);
  overlay(buffer, p->pos, n, p->patch_at, p->patch, p->patch_len);
  p->pos += n;
  return n;
}

static gint64 page_seek(VipsSourceCustom *source, gint64 offset, int whence, gpointer data) {
  (void)source;
  TcTiffPage *p = data;
  gint64 to = whence == SEEK_SET ? offset : whence == SEEK_CUR ? p->pos + offset : p->size + offset;
  if (to < 0)
    return -1;
  p->pos = to;
  return to;
}

/* Directory offsets: of page `page` (and where its next-offset lies), and the count. */
static int walk(int fd, gint64 size, int page, int *big_out, int *swap_out, uint64_t *ifd_out, gint64 *next_at_out,
                int *pages_out) {
  uint8_t head[16];
  if (size < 8 || pread_all(fd, head, size >= 16 ? 16 : 8, 0))
    return -1;
  int swap = head[0] == 'M';
  int big = get(head + 2, 2, swap) == 43;
  uint64_t ifd = big ? get(head + 8, 8, swap) : get(head + 4, 4, swap);
  int pages = 0;
  int found = 0;
  while (ifd != 0 && pages < 1000000) {
    uint8_t n[8];
    if ((gint64)ifd >= size || pread_all(fd, n, big ? 8 : 2, (gint64)ifd))
      return -1;
    uint64_t count = get(n, big ? 8 : 2, swap);
    gint64 next_at = (gint64)ifd + (big ? 8 : 2) + (gint64)count * (big ? 20 : 12);
    if (next_at + (big ? 8 : 4) > size || pread_all(fd, n, big ? 8 : 4, next_at))
      return -1;
    if (pages == page) {
      *ifd_out = ifd;
      *next_at_out = next_at;
      found = 1;
      if (!pages_out)
        break;
    }
    pages++;
    uint64_t next = get(n, big ? 8 : 4, swap);
    if (next <= ifd && next != 0)
      return -1; /* a loop, or a chain that goes back: libvips' own reader decides */
    ifd = next;
  }
  *big_out = big;
  *swap_out = swap;
  if (pages_out)
    *pages_out = pages;
  return found ? 0 : -1;
}

int tc_tiff_page_count(const char *filename) {
  int fd = open(filename, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  struct stat st;
  int big, swap, pages = -1;
  uint64_t ifd;
  gint64 next_at;
  if (fstat(fd, &st) || walk(fd, st.st_size, 0, &big, &swap, &ifd, &next_at, &pages))
    pages = -1;
  close(fd);
  return pages;
}

int tc_tiff_page_open(const char *filename, int page, int sequential, VipsImage **out) {
  *out = NULL;
  TcTiffPage *p = calloc(1, sizeof *p);
  if (!p)
    return -1;
  p->fd = open(filename, O_RDONLY | O_CLOEXEC);
  struct stat st;
  int big, swap;
  uint64_t ifd;
  if (p->fd < 0 || fstat(p->fd, &st)) {
    vips_error("tiffload", "cannot be read");
    page_free(p);
    return -1;
  }
  p->size = st.st_size;
  if (walk(p->fd, p->size, page, &big, &swap, &ifd, &p->patch_at, NULL)) {
    page_free(p);
    return 1; /* not found by this walk: libvips' own reader decides */
  }
  p->head_len = big ? 16 : 8;
  if (pread_all(p->fd, p->head, (size_t)p->head_len, 0)) {
    page_free(p);
    return 1;
  }
  put(big ? p->head + 8 : p->head + 4, big ? 8 : 4, swap, ifd);
  p->patch_len = big ? 8 : 4;
  memset(p->patch, 0, sizeof p->patch);
  VipsSourceCustom *source = vips_source_custom_new();
  g_object_set_data_full(G_OBJECT(source), "tc-tiff-page", p, page_free);
  g_signal_connect(source, "read", G_CALLBACK(page_read), p);
  g_signal_connect(source, "seek", G_CALLBACK(page_seek), p);
  int r = vips_tiffload_source(VIPS_SOURCE(source), out, "access", sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM,
                               "fail_on", VIPS_FAIL_ON_WARNING, NULL);
  g_object_unref(source);
  return r ? -1 : 0;
}
