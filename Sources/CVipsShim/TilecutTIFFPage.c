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

/* A file's directory chain, walked once: the offsets of every directory and of
 * each one's next-directory field, kept for the last few files (keyed by device,
 * inode, size and modification time), so that N floors of a P-page TIFF read its P
 * directories once, not N × P times (50 floors of a 30,000-page TIFF: 5.8 s). */
typedef struct {
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime;
  int big, swap;
  int pages;  /* directories read whole */
  int broken; /* the chain ends in a directory that cannot be read, or goes back */
  uint64_t *ifd;
  gint64 *next_at;
  unsigned long used; /* for eviction: the last lookup's tick */
} TcTiffChain;

enum { TC_CHAIN_SLOTS = 4, TC_MAX_PAGES = 1000000 };
static TcTiffChain chains[TC_CHAIN_SLOTS];
static unsigned long chain_tick;
static unsigned long chain_walks;
static GMutex chain_lock;

static int chain_walk(int fd, gint64 size, TcTiffChain *c) {
  uint8_t head[16];
  if (size < 8 || pread_all(fd, head, size >= 16 ? 16 : 8, 0))
    return -1;
  c->swap = head[0] == 'M';
  c->big = get(head + 2, 2, c->swap) == 43;
  int big = c->big, swap = c->swap;
  uint64_t ifd = big ? get(head + 8, 8, swap) : get(head + 4, 4, swap);
  int capacity = 0;
  c->pages = 0;
  c->broken = 0;
  c->ifd = NULL;
  c->next_at = NULL;
  while (ifd != 0 && c->pages < TC_MAX_PAGES) {
    uint8_t n[8];
    if ((gint64)ifd >= size || pread_all(fd, n, big ? 8 : 2, (gint64)ifd)) {
      c->broken = 1;
      break;
    }
    uint64_t count = get(n, big ? 8 : 2, swap);
    gint64 next_at = (gint64)ifd + (big ? 8 : 2) + (gint64)count * (big ? 20 : 12);
    if (next_at + (big ? 8 : 4) > size || pread_all(fd, n, big ? 8 : 4, next_at)) {
      c->broken = 1;
      break;
    }
    if (c->pages == capacity) {
      int more = capacity ? capacity * 2 : 64;
      if (more > TC_MAX_PAGES)
        more = TC_MAX_PAGES;
      uint64_t *a = realloc(c->ifd, sizeof *a * (size_t)more);
      if (a)
        c->ifd = a;
      gint64 *b = a ? realloc(c->next_at, sizeof *b * (size_t)more) : NULL;
      if (b)
        c->next_at = b;
      if (!a || !b) {
        free(c->ifd);
        free(c->next_at);
        c->ifd = NULL;
        c->next_at = NULL;
        return -1;
      }
      capacity = more;
    }
    c->ifd[c->pages] = ifd;
    c->next_at[c->pages] = next_at;
    c->pages++;
    uint64_t next = get(n, big ? 8 : 4, swap);
    if (next <= ifd && next != 0) {
      c->broken = 1; /* a loop, or a chain that goes back: libvips' own reader decides */
      break;
    }
    ifd = next;
  }
  return 0;
}

/* The chain of the file open as `fd`, walked now or found from an earlier walk;
 * copies what the caller asks for under the lock. -1 when it cannot be walked. */
static int chain_lookup(int fd, int page, int *big, int *swap, uint64_t *ifd, gint64 *next_at, int *pages, int *broken) {
  struct stat st;
  if (fstat(fd, &st))
    return -1;
  g_mutex_lock(&chain_lock);
  TcTiffChain *c = NULL;
  for (int i = 0; i < TC_CHAIN_SLOTS; i++) {
    TcTiffChain *k = &chains[i];
    if (k->used && k->dev == st.st_dev && k->ino == st.st_ino && k->size == st.st_size &&
        k->mtime.tv_sec == st.st_mtim.tv_sec && k->mtime.tv_nsec == st.st_mtim.tv_nsec) {
      c = k;
      break;
    }
  }
  if (!c) {
    c = &chains[0];
    for (int i = 1; i < TC_CHAIN_SLOTS; i++)
      if (chains[i].used < c->used)
        c = &chains[i];
    free(c->ifd);
    free(c->next_at);
    memset(c, 0, sizeof *c);
    chain_walks++;
    if (chain_walk(fd, st.st_size, c)) {
      memset(c, 0, sizeof *c);
      g_mutex_unlock(&chain_lock);
      return -1;
    }
    c->dev = st.st_dev;
    c->ino = st.st_ino;
    c->size = st.st_size;
    c->mtime = st.st_mtim;
  }
  c->used = ++chain_tick;
  *big = c->big;
  *swap = c->swap;
  *pages = c->pages;
  *broken = c->broken;
  int found = page >= 0 && page < c->pages;
  if (found) {
    *ifd = c->ifd[page];
    *next_at = c->next_at[page];
  }
  g_mutex_unlock(&chain_lock);
  return found ? 0 : 1;
}

int tc_tiff_directory(int fd, int page, uint64_t *ifd) {
  int big, swap, pages, broken;
  gint64 next_at;
  return chain_lookup(fd, page, &big, &swap, ifd, &next_at, &pages, &broken) == 0 ? 0 : -1;
}

unsigned long tc_tiff_chain_walks(void) {
  g_mutex_lock(&chain_lock);
  unsigned long n = chain_walks;
  g_mutex_unlock(&chain_lock);
  return n;
}

int tc_tiff_page_count(const char *filename) {
  int fd = open(filename, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  int big, swap, pages, broken;
  uint64_t ifd;
  gint64 next_at;
  int r = chain_lookup(fd, 0, &big, &swap, &ifd, &next_at, &pages, &broken);
  close(fd);
  /* the whole chain must be walkable for a count (page 0 must be there) */
  return r == 0 && !broken ? pages : -1;
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
  int pages, broken;
  if (chain_lookup(p->fd, page, &big, &swap, &ifd, &p->patch_at, &pages, &broken)) {
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
