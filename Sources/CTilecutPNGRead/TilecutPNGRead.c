#define _GNU_SOURCE
#include <vips/vips.h>

#include "TilecutPNGRead.h"
#include "TilecutCheck.h"
#include "CVipsShim.h"
#include "TilecutPNG.h"

#include <errno.h>
#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Why this file exists: on a large plan, libvips' pngload spends most of its
 * time in zlib's inflate, on the one thread that reads the source. ISA-L
 * inflates the same stream about five times faster. Everything around the
 * inflate follows what libvips 8.14's pngload (libpng) does, so that the pixels
 * and the accepted files are the same:
 * - a file this reader is not sure about before its pixel data is left to
 *   libvips (tc_png_open returns 0), which then reads it or rejects it;
 * - the stream is inflated raw after its two header bytes are checked here,
 *   and its Adler-32 is checked after the last row (libvips ignores it, but a
 *   damaged file is an error in tilecut, never a picture);
 * - the CRC of every IDAT chunk is checked when the reader moves past it;
 * - gAMA, cHRM, sRGB, pHYs, text and the other ancillary chunks do not change
 *   libvips' pixels and are skipped; an iCCP profile goes to libvips, which
 *   attaches it to the image. */

/* CVipsShim.c's: whether tc_cancel_all has been called (a reader that does not go
 * through tc_fetch checks it itself) */
int tc_cancel_requested(void);

#define TC_MAX_COORD 10000000       /* libvips' VIPS_MAX_COORD, libpng's user limit there */
#define TC_CHUNK_MAX (50u << 20)    /* libvips' png_set_chunk_malloc_max */
#define TC_FILE_BUFFER (256u << 10) /* read() size */
#define TC_BATCH_BYTES (2u << 20)   /* rows inflated per isal_inflate call: each call copies 32-64 KB of history */
#define TC_IDAT_READ 8192u          /* libpng's PNG_IDAT_READ_SIZE: it reads IDAT data in these blocks */

typedef struct {
  char *filename;
  int fd;
  /* IHDR */
  uint32_t width, height;
  int depth, colour;
  size_t row_bytes; /* filtered bytes a row, without the filter byte */
  int bpp;          /* bytes between a byte and the one its filters look back at */
  /* PLTE + tRNS as RGBA; indices past the palette are opaque black, as in libpng */
  uint8_t lut[256][4];
  int palette_size; /* entries PLTE gave; an index past them is damage */
  int has_trns;
  uint16_t trns[3];
  /* where the first IDAT's data starts, to read again from the top */
  off_t idat_offset;
  uint32_t idat_length;
  uint32_t idat_limit; /* longest IDAT libpng accepts for this image */
  /* buffered file input */
  uint8_t *buf;
  size_t buf_len, buf_pos;
  off_t file_size;
  off_t chunk_start;   /* file offset of the current IDAT's data */
  uint32_t chunk_length;
  uint32_t chunk_left; /* IDAT data bytes not yet handed to the inflater */
  uint32_t crc;        /* CRC-32 so far of the IDAT chunk being read */
  uint32_t adler;      /* Adler-32 so far of the inflated stream */
  uint32_t data_crc;   /* CRC-32 so far of the deflate bytes after the zlib header, over every IDAT */
  struct inflate_state *inflate;
  /* rows */
  uint8_t *batch; /* inflated rows, filter byte first */
  uint32_t batch_rows, batch_next, batch_capacity;
  uint8_t *prev;  /* the row above the batch's first, unfiltered; zeros above row 0 */
  /* tc_png_scan: the batch it hands over while the next is inflated into `batch`, and
   * RGBA rows expanded from a batch (two, handed over in turn) for images not RGBA8 */
  uint8_t *batch_other;
  uint8_t *rgba[2];
  uint32_t next_row;
  /* marks (below): whether `file` is known, whether this reader leaves marks (while
   * tc_png_scan reads), and how many rows apart they are left */
  int identified;
  int leaving_marks;
  struct stat file;
  uint32_t mark_rows;
  GMutex lock;
} TcPngReader;

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void reader_free(TcPngReader *r) {
  if (r->fd >= 0)
    close(r->fd);
  free(r->filename);
  free(r->buf);
  free(r->inflate);
  free(r->batch);
  free(r->prev);
  free(r->batch_other);
  free(r->rgba[0]);
  free(r->rgba[1]);
  g_mutex_clear(&r->lock);
  free(r);
}

/* ---- buffered reading ---- */

/* Makes at least one byte available; 0 at the end of the file, -1 on an error. */
static int fill(TcPngReader *r) {
  if (r->buf_pos < r->buf_len)
    return 1;
  ssize_t n;
  do {
    n = read(r->fd, r->buf, TC_FILE_BUFFER);
  } while (n < 0 && errno == EINTR);
  if (n < 0)
    return -1;
  r->buf_pos = 0;
  r->buf_len = (size_t)n;
  return n > 0;
}

static int read_exact(TcPngReader *r, uint8_t *dst, size_t n) {
  while (n > 0) {
    if (fill(r) <= 0)
      return -1;
    size_t k = r->buf_len - r->buf_pos;
    if (k > n)
      k = n;
    memcpy(dst, r->buf + r->buf_pos, k);
    r->buf_pos += k;
    dst += k;
    n -= k;
  }
  return 0;
}

static int skip(TcPngReader *r, size_t n) {
  while (n > 0) {
    if (fill(r) <= 0)
      return -1;
    size_t k = r->buf_len - r->buf_pos;
    if (k > n)
      k = n;
    r->buf_pos += k;
    n -= k;
  }
  return 0;
}

static int seek(TcPngReader *r, off_t offset) {
  if (lseek(r->fd, offset, SEEK_SET) != offset)
    return -1;
  r->buf_pos = r->buf_len = 0;
  return 0;
}

static off_t tell(TcPngReader *r) {
  off_t at = lseek(r->fd, 0, SEEK_CUR);
  return at < 0 ? at : at - (off_t)(r->buf_len - r->buf_pos);
}

static int is_letter(uint8_t c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

/* ---- the header, up to the first IDAT ---- */

static int colour_and_depth_ok(int colour, int depth) {
  switch (colour) {
  case 0:
  case 3:
    return depth == 1 || depth == 2 || depth == 4 || depth == 8;
  case 2:
  case 4:
  case 6:
    return depth == 8;
  default:
    return 0;
  }
}

static const int channels_of[7] = {1, 0, 3, 1, 2, 0, 4};

/* libpng's png_check_chunk_length for IDAT: the most compressed data a row
 * layout can need, beyond which libpng refuses the chunk. */
static uint32_t idat_limit_of(const TcPngReader *r) {
  uint64_t row_factor = (uint64_t)r->width * channels_of[r->colour] * (r->depth > 8 ? 2 : 1) + 1;
  uint64_t limit = 0x7fffffffu;
  if (r->height <= 0xffffffffu / row_factor) {
    limit = r->height * row_factor;
    limit += 6 + 5 * (limit / 32566 + 1);
  }
  return limit < 0x7fffffffu ? (uint32_t)limit : 0x7fffffffu;
}

/* Reads chunks up to the first IDAT. 1: a file this reader decodes; 0: leave it to libvips. */
static int read_header(TcPngReader *r) {
  static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  uint8_t head[8];
  if (read_exact(r, head, 8) || memcmp(head, signature, 8))
    return 0;
  int seen_ihdr = 0, seen_plte = 0, seen_trns = 0;
  int palette_size = 0;
  uint8_t data[256 * 3 + 4 + 32];
  for (;;) {
    if (read_exact(r, head, 8))
      return 0;
    uint32_t length = be32(head);
    const uint8_t *type = head + 4;
    if (length > 0x7fffffffu || !is_letter(type[0]) || !is_letter(type[1]) || !is_letter(type[2]) ||
        !is_letter(type[3]))
      return 0;
    int critical = !(type[0] & 0x20);
    if (!seen_ihdr && memcmp(type, "IHDR", 4))
      return 0;
    if (!memcmp(type, "IDAT", 4)) {
      if (!seen_ihdr || (r->colour == 3 && !seen_plte) || length < 2 || length > idat_limit_of(r))
        return 0;
      r->idat_offset = tell(r);
      r->idat_length = length;
      uint8_t zlib[2];
      if (r->idat_offset < 0 || read_exact(r, zlib, 2))
        return 0;
      /* deflate, a window of at most 32 KB, header check, no preset dictionary */
      int window_bits = (zlib[0] >> 4) + 8;
      if ((zlib[0] & 15) != 8 || window_bits > 15 || ((zlib[0] << 8) | zlib[1]) % 31 || (zlib[1] & 0x20))
        return 0;
      /* A window under 32 KB: zlib refuses distances past it, ISA-L would not.
       * It only matters when the rows are larger than the window. */
      uint64_t raw = (uint64_t)r->height * (r->row_bytes + 1);
      if (window_bits < 15 && raw > (1u << window_bits))
        return 0;
      return 1;
    }
    if (!memcmp(type, "IHDR", 4)) {
      if (seen_ihdr || length != 13 || read_exact(r, data, 17))
        return 0;
      uint8_t crc_in[17];
      memcpy(crc_in, type, 4);
      memcpy(crc_in + 4, data, 13);
      if (libdeflate_crc32(0, crc_in, 17) != be32(data + 13))
        return 0;
      r->width = be32(data);
      r->height = be32(data + 4);
      r->depth = data[8];
      r->colour = data[9];
      if (r->width == 0 || r->height == 0 || r->width > TC_MAX_COORD || r->height > TC_MAX_COORD ||
          !colour_and_depth_ok(r->colour, r->depth) || data[10] != 0 || data[11] != 0 || data[12] != 0)
        return 0;
      int bits = channels_of[r->colour] * r->depth;
      r->row_bytes = ((size_t)r->width * bits + 7) / 8;
      r->bpp = bits < 8 ? 1 : bits / 8;
      seen_ihdr = 1;
      continue;
    }
    if (!memcmp(type, "PLTE", 4)) {
      /* only a palette image's palette matters; any oddity is libvips' call */
      if (seen_plte || seen_trns || r->colour != 3 || length == 0 || length % 3 || length > 768 ||
          read_exact(r, data, length + 4))
        return 0;
      if (libdeflate_crc32(libdeflate_crc32(0, type, 4), data, length) != be32(data + length))
        return 0;
      palette_size = (int)length / 3;
      if (palette_size > (1 << r->depth))
        palette_size = 1 << r->depth; /* libpng drops the entries the depth cannot index */
      memset(r->lut, 0, sizeof r->lut);
      for (int i = 0; i < 256; i++)
        r->lut[i][3] = 255;
      for (int i = 0; i < palette_size; i++)
        memcpy(r->lut[i], data + 3 * i, 3);
      r->palette_size = palette_size;
      seen_plte = 1;
      continue;
    }
    if (!memcmp(type, "tRNS", 4)) {
      if (seen_trns || length > 256 || read_exact(r, data, length + 4))
        return 0;
      if (libdeflate_crc32(libdeflate_crc32(0, type, 4), data, length) != be32(data + length))
        return 0;
      if (r->colour == 3) {
        if (!seen_plte || length == 0 || (int)length > palette_size)
          return 0;
        for (uint32_t i = 0; i < length; i++)
          r->lut[i][3] = data[i];
      } else if (r->colour == 0) {
        if (length != 2 || be32((const uint8_t[]){0, 0, data[0], data[1]}) >= (1u << r->depth))
          return 0;
        r->trns[0] = (uint16_t)(data[0] << 8 | data[1]);
      } else if (r->colour == 2) {
        if (length != 6)
          return 0;
        for (int c = 0; c < 3; c++) {
          r->trns[c] = (uint16_t)(data[2 * c] << 8 | data[2 * c + 1]);
          if (r->trns[c] > 255)
            return 0;
        }
      } else {
        return 0; /* tRNS beside an alpha channel: libpng ignores it with a warning */
      }
      r->has_trns = 1;
      seen_trns = 1;
      continue;
    }
    /* an ICC profile goes with the image libvips makes; unknown critical chunks are errors there */
    if (!memcmp(type, "iCCP", 4) || critical || length > TC_CHUNK_MAX)
      return 0;
    if (skip(r, (size_t)length + 4))
      return 0;
  }
}

/* ---- the IDAT stream ---- */

static int fail(TcPngReader *r, const char *reason) {
  vips_error("pngload", "%s", reason);
  (void)r;
  return -1;
}

/* Buffers more of the file: in `k`, how many buffered bytes belong to the current IDAT
 * chunk (at least one). -1, said in libvips' error buffer, when the file cannot be read
 * or ends in the pixel data. */
static int chunk_bytes(TcPngReader *r, size_t *k) {
  int got = fill(r);
  if (got < 0)
    return fail(r, "cannot read the file");
  if (got == 0)
    return fail(r, "truncated: the file ends in the pixel data");
  *k = r->buf_len - r->buf_pos;
  if (*k > r->chunk_left)
    *k = r->chunk_left;
  return 0;
}

/* How many times a reader of this process went back to the start of its stream
 * (tc_png_rewinds). */
static int stream_rewinds;

/* Positions the reader at the start of the first IDAT's deflate data. */
static int rewind_stream(TcPngReader *r) {
  __atomic_fetch_add(&stream_rewinds, 1, __ATOMIC_RELAXED);
  if (seek(r, r->idat_offset))
    return fail(r, "cannot read the file again");
  struct stat st;
  if (fstat(r->fd, &st))
    return fail(r, "cannot read the file again");
  r->file_size = st.st_size;
  r->chunk_start = r->idat_offset;
  r->chunk_length = r->chunk_left = r->idat_length;
  r->crc = libdeflate_crc32(0, "IDAT", 4);
  r->adler = 1;
  r->data_crc = 0;
  isal_inflate_init(r->inflate);
  r->inflate->crc_flag = ISAL_DEFLATE;
  r->inflate->next_in = NULL;
  r->inflate->avail_in = 0;
  r->next_row = 0;
  r->batch_rows = r->batch_next = 0;
  memset(r->prev, 0, r->row_bytes);
  /* the two zlib header bytes, checked in read_header */
  uint8_t zlib[2];
  if (read_exact(r, zlib, 2))
    return fail(r, "truncated: the file ends in the pixel data");
  r->crc = libdeflate_crc32(r->crc, zlib, 2);
  r->chunk_left -= 2;
  return 0;
}

/* Moves to the next IDAT chunk when the current one is used up. */
static int next_chunk(TcPngReader *r) {
  uint8_t tail[4], head[8];
  if (read_exact(r, tail, 4) || read_exact(r, head, 8))
    return fail(r, "truncated: the file ends in the pixel data");
  if (be32(tail) != r->crc)
    return fail(r, "an IDAT chunk is corrupt (CRC mismatch)");
  if (memcmp(head + 4, "IDAT", 4))
    return fail(r, "the pixel data ends before the last row (not enough image data)");
  uint32_t length = be32(head);
  if (length > r->idat_limit)
    return fail(r, "an IDAT chunk is too large");
  r->chunk_start = tell(r);
  r->chunk_length = r->chunk_left = length;
  r->crc = libdeflate_crc32(0, head + 4, 4);
  return 0;
}

/* Accounts for `used` bytes the inflater took from the file buffer. libpng reads
 * IDAT data in blocks and fails when the file cannot give a whole block, even
 * if zlib would not have needed its end: the same here. */
static int took(TcPngReader *r, const uint8_t *in, size_t used) {
  if (used == 0)
    return 0; /* libdeflate_crc32 of NULL is its initial value, not `crc` */
  r->crc = libdeflate_crc32(r->crc, in, used);
  r->data_crc = libdeflate_crc32(r->data_crc, in, used);
  r->buf_pos += used;
  r->chunk_left -= (uint32_t)used;
  uint32_t consumed = r->chunk_length - r->chunk_left;
  if (consumed > 0) {
    uint64_t block_end = ((uint64_t)(consumed - 1) / TC_IDAT_READ + 1) * TC_IDAT_READ;
    if (block_end > r->chunk_length)
      block_end = r->chunk_length;
    if (r->chunk_start + (off_t)block_end > r->file_size)
      return fail(r, "truncated: the file ends in the pixel data");
  }
  return 0;
}

/* Gives the inflater more of the IDAT stream when it has none. */
static int feed(TcPngReader *r) {
  struct inflate_state *s = r->inflate;
  if (s->avail_in > 0)
    return 0;
  while (r->chunk_left == 0)
    if (next_chunk(r))
      return -1;
  size_t k;
  if (chunk_bytes(r, &k))
    return -1;
  s->next_in = r->buf + r->buf_pos;
  s->avail_in = (uint32_t)k;
  return 0;
}

/* Inflates `rows` filtered rows into r->batch. */
static int inflate_rows(TcPngReader *r, uint32_t rows) {
  struct inflate_state *s = r->inflate;
  size_t want = (size_t)rows * (r->row_bytes + 1);
  uint8_t *out = r->batch;
  while (want > 0) {
    uint32_t step = want > 0x40000000u ? 0x40000000u : (uint32_t)want;
    s->next_out = out;
    s->avail_out = step;
    while (s->avail_out > 0) {
      if (s->block_state == ISAL_BLOCK_FINISH)
        return fail(r, "the pixel data ends before the last row (not enough image data)");
      /* ISA-L may hold enough bits to go on without more input: ask it first */
      uint8_t *in = s->next_in;
      uint32_t room = s->avail_out;
      int status = isal_inflate(s);
      size_t used = (size_t)(s->next_in - in);
      if (took(r, in, used))
        return -1;
      if (status < 0 && s->avail_out > 0)
        return fail(r, "the compressed pixel data is corrupt");
      if (used == 0 && room == s->avail_out && s->block_state != ISAL_BLOCK_FINISH) {
        if (s->avail_in > 0)
          return fail(r, "the compressed pixel data is corrupt");
        if (feed(r))
          return -1;
      }
    }
    r->adler = libdeflate_adler32(r->adler, out, step);
    out += step;
    want -= step;
  }
  return 0;
}

/* After the last row, what libpng's png_read_finish_IDAT does: read the stream
 * to its end (at most TC_PNG_EXCESS_SLACK bytes more) and its Adler-32 (not checked), then the rest of the current IDAT
 * chunk and its CRC. A corrupt tail is only a warning there; a truncated file,
 * a chunk other than IDAT before the end, or a bad CRC are errors. */
static int finish_stream(TcPngReader *r) {
  struct inflate_state *s = r->inflate;
  uint8_t discard[4096];
  uint64_t excess = 0;
  int ended = 1;
  while (s->block_state != ISAL_BLOCK_FINISH) {
    s->next_out = discard;
    s->avail_out = sizeof discard;
    uint8_t *in = s->next_in;
    int status = isal_inflate(s);
    size_t used = (size_t)(s->next_in - in);
    r->adler = libdeflate_adler32(r->adler, discard, sizeof discard - s->avail_out);
    /* bytes past the last row: libpng drops them with a warning; a stream that
     * inflates on for gigabytes is damaged, and is not inflated to its end */
    excess += sizeof discard - s->avail_out;
    if (excess > TC_PNG_EXCESS_SLACK)
      return fail(r, "its pixel data inflates to more than the rows its header declares (too much image data)");
    if (took(r, in, used))
      return -1;
    if (status < 0) {
      ended = 0;
      break;
    }
    if (used == 0 && s->avail_out == sizeof discard && s->block_state != ISAL_BLOCK_FINISH) {
      if (s->avail_in > 0) {
        ended = 0;
        break;
      }
      if (feed(r))
        return -1;
    }
  }
  if (!ended)
    return fail(r, "the compressed pixel data is corrupt");
  /* ISA-L stops at the end of the deflate data, with the first bytes of the
   * Adler-32 trailer perhaps in its bit buffer (after the last byte's padding) */
  uint8_t trailer[4];
  uint32_t have = 0;
  if (s->read_in_length > 0) {
    uint64_t bits = s->read_in >> (s->read_in_length % 8);
    for (uint32_t n = (uint32_t)s->read_in_length / 8; have < 4 && have < n; have++, bits >>= 8)
      trailer[have] = (uint8_t)(bits & 0xff);
  }
  while (have < 4) {
    if (feed(r))
      return -1;
    uint32_t k = s->avail_in < 4 - have ? s->avail_in : 4 - have;
    memcpy(trailer + have, s->next_in, k);
    if (took(r, s->next_in, k))
      return -1;
    s->next_in += k;
    s->avail_in -= k;
    have += k;
  }
  if (be32(trailer) != r->adler)
    return fail(r, "the compressed pixel data is corrupt (Adler-32 mismatch)");
  /* the rest of this chunk, then its CRC */
  if (s->avail_in > 0 && took(r, s->next_in, s->avail_in))
    return -1;
  s->avail_in = 0;
  while (r->chunk_left > 0) {
    int got = fill(r);
    if (got <= 0)
      return fail(r, "truncated: the file ends in the pixel data");
    size_t k = r->buf_len - r->buf_pos;
    if (k > r->chunk_left)
      k = r->chunk_left;
    if (took(r, r->buf + r->buf_pos, k))
      return -1;
  }
  uint8_t tail[4];
  if (read_exact(r, tail, 4))
    return fail(r, "truncated: the file ends in the pixel data");
  if (be32(tail) != r->crc)
    return fail(r, "an IDAT chunk is corrupt (CRC mismatch)");
  return 0;
}

/* ---- marks: where a later reader of the same file may start ---- */

/* A PNG's rows are one deflate stream: a reader asked for rows far down the image
 * inflates every row above them. An incremental rebuild reads its source twice: once
 * whole, to digest its pixels and find what changed, then again for the strips that
 * changed. So the whole read (tc_png_scan, the digest pass; no other read, so that a
 * full build holds no marks) leaves marks behind as it goes (every mark_rows rows, at the
 * start of a batch): the inflater's state, 32 KB of history included, the row above
 * and where in the file its input stood. A later reader of the same file (device,
 * inode, size and times the same) that is asked for a row past its own starts at the
 * last mark above that row, once it has read the IDAT chunks up to the mark again
 * and found their bytes the same as when the mark was left (the deflate bytes'
 * CRC-32, every chunk's own CRC): that is a read of the compressed bytes, a small
 * part of inflating them. Marks are kept for the process, within TC_MARKS_BUDGET
 * bytes (the oldest file's dropped first). */

#define TC_MARK_ROWS 256u           /* rows between marks, at least */
#define TC_MARKS_BUDGET (48u << 20) /* bytes of marks in all; one file's at most half */

typedef struct {
  uint32_t row; /* the first row after the mark; the row above is `prev` */
  off_t chunk_start;
  uint32_t chunk_length, chunk_left, crc, adler, data_crc;
  struct inflate_state *inflate;
  uint8_t *prev;
} TcPngMark;

typedef struct TcPngMarks {
  struct TcPngMarks *next;
  dev_t dev;
  ino_t ino;
  off_t size, idat_offset;
  struct timespec mtime, ctime;
  uint32_t width, height;
  int depth, colour;
  TcPngMark *marks;
  uint32_t count, capacity;
  size_t bytes;
} TcPngMarks;

static GMutex marks_lock;
static TcPngMarks *marks_files; /* newest first */
static size_t marks_bytes;
static int marks_jumps;

static size_t mark_bytes(const TcPngReader *r) {
  return sizeof(struct inflate_state) + r->row_bytes + sizeof(TcPngMark);
}

/* Rows between marks for this image: a whole number of batches, TC_MARK_ROWS or
 * more, and no more marks than half the budget holds. */
static uint32_t mark_spacing(const TcPngReader *r) {
  uint32_t rows = r->batch_capacity * ((TC_MARK_ROWS + r->batch_capacity - 1) / r->batch_capacity);
  while (rows < r->height && (uint64_t)(r->height / rows) * mark_bytes(r) > TC_MARKS_BUDGET / 2)
    rows *= 2;
  return rows;
}

static int same_file(const TcPngMarks *m, const TcPngReader *r) {
  const struct stat *st = &r->file;
  return m->dev == st->st_dev && m->ino == st->st_ino && m->size == st->st_size &&
         m->mtime.tv_sec == st->st_mtim.tv_sec && m->mtime.tv_nsec == st->st_mtim.tv_nsec &&
         m->ctime.tv_sec == st->st_ctim.tv_sec && m->ctime.tv_nsec == st->st_ctim.tv_nsec &&
         m->idat_offset == r->idat_offset && m->width == r->width && m->height == r->height && m->depth == r->depth &&
         m->colour == r->colour;
}

/* With marks_lock held. */
static TcPngMarks *marks_of(const TcPngReader *r) {
  for (TcPngMarks *m = marks_files; m; m = m->next)
    if (same_file(m, r))
      return m;
  return NULL;
}

static void marks_free(TcPngMarks *m) {
  for (uint32_t i = 0; i < m->count; i++) {
    free(m->marks[i].inflate);
    free(m->marks[i].prev);
  }
  free(m->marks);
  free(m);
}

/* Leaves a mark at r->next_row, the start of a batch not inflated yet. */
static void leave_mark(TcPngReader *r) {
  if (!r->identified || !r->leaving_marks || r->next_row == 0 || r->next_row % r->mark_rows)
    return;
  size_t need = mark_bytes(r);
  g_mutex_lock(&marks_lock);
  TcPngMarks *m = marks_of(r);
  if (m && m->count > 0 && m->marks[m->count - 1].row >= r->next_row)
    goto done; /* a reader before this one left it */
  /* room: the oldest files' marks go first, never this file's */
  while (marks_bytes + need > TC_MARKS_BUDGET) {
    TcPngMarks **last = &marks_files, *victim = NULL, **victim_at = NULL;
    for (; *last; last = &(*last)->next)
      if (*last != m) {
        victim = *last;
        victim_at = last;
      }
    if (!victim)
      goto done;
    *victim_at = victim->next;
    marks_bytes -= victim->bytes;
    marks_free(victim);
  }
  if (!m) {
    m = calloc(1, sizeof *m);
    if (!m)
      goto done;
    m->dev = r->file.st_dev;
    m->ino = r->file.st_ino;
    m->size = r->file.st_size;
    m->mtime = r->file.st_mtim;
    m->ctime = r->file.st_ctim;
    m->idat_offset = r->idat_offset;
    m->width = r->width;
    m->height = r->height;
    m->depth = r->depth;
    m->colour = r->colour;
    m->next = marks_files;
    marks_files = m;
  }
  if (m->count == m->capacity) {
    uint32_t capacity = m->capacity ? 2 * m->capacity : 16;
    TcPngMark *grown = realloc(m->marks, capacity * sizeof *grown);
    if (!grown)
      goto done;
    m->marks = grown;
    m->capacity = capacity;
  }
  TcPngMark mark = {
      .row = r->next_row,
      .chunk_start = r->chunk_start,
      .chunk_length = r->chunk_length,
      .chunk_left = r->chunk_left,
      .crc = r->crc,
      .adler = r->adler,
      .data_crc = r->data_crc,
      .inflate = malloc(sizeof *r->inflate),
      .prev = malloc(r->row_bytes),
  };
  if (!mark.inflate || !mark.prev) {
    free(mark.inflate);
    free(mark.prev);
    goto done;
  }
  memcpy(mark.inflate, r->inflate, sizeof *r->inflate);
  /* its input is read again from the file; its output goes where the next reader says */
  mark.inflate->next_in = NULL;
  mark.inflate->avail_in = 0;
  mark.inflate->next_out = NULL;
  mark.inflate->avail_out = 0;
  memcpy(mark.prev, r->prev, r->row_bytes);
  m->marks[m->count++] = mark;
  m->bytes += need;
  marks_bytes += need;
done:
  g_mutex_unlock(&marks_lock);
}

/* Reads the IDAT chunks from the top up to `mark`'s place in the file, checking
 * every chunk's CRC as a read does; 1 there with the same bytes, 0 when the bytes
 * differ (the reader is back at the top), -1 on an error. */
static int skim_to(TcPngReader *r, const TcPngMark *mark) {
  if (rewind_stream(r))
    return -1;
  while (!(r->chunk_start == mark->chunk_start && r->chunk_left == mark->chunk_left)) {
    if (r->chunk_start > mark->chunk_start || (r->chunk_start == mark->chunk_start && r->chunk_left < mark->chunk_left))
      return rewind_stream(r) ? -1 : 0;
    if (r->chunk_left == 0) {
      if (next_chunk(r))
        return -1;
      continue;
    }
    size_t k;
    if (chunk_bytes(r, &k))
      return -1;
    if (r->chunk_start == mark->chunk_start && k > r->chunk_left - mark->chunk_left)
      k = r->chunk_left - mark->chunk_left;
    if (took(r, r->buf + r->buf_pos, k))
      return -1;
  }
  if (r->chunk_length != mark->chunk_length || r->crc != mark->crc || r->data_crc != mark->data_crc)
    return rewind_stream(r) ? -1 : 0;
  return 1;
}

/* Moves the reader to the last mark at or above row `want` when that is past the
 * rows it has inflated; 0 when it moved or stays, -1 on an error. */
static int jump_towards(TcPngReader *r, uint32_t want) {
  if (!r->identified)
    return 0;
  uint32_t inflated = r->next_row - r->batch_next + r->batch_rows;
  TcPngMark mark = {0};
  g_mutex_lock(&marks_lock);
  TcPngMarks *m = marks_of(r);
  for (uint32_t i = 0; m && i < m->count && m->marks[i].row <= want; i++)
    mark = m->marks[i];
  g_mutex_unlock(&marks_lock);
  if (mark.row <= inflated)
    return 0;
  int at = skim_to(r, &mark);
  if (at <= 0)
    return at;
  /* the mark's state, copied under the lock: its file's marks may be dropped meanwhile */
  g_mutex_lock(&marks_lock);
  m = marks_of(r);
  const TcPngMark *held = NULL;
  for (uint32_t i = 0; m && i < m->count; i++)
    if (m->marks[i].row == mark.row)
      held = &m->marks[i];
  if (held) {
    memcpy(r->inflate, held->inflate, sizeof *r->inflate);
    memcpy(r->prev, held->prev, r->row_bytes);
    marks_jumps++;
  }
  g_mutex_unlock(&marks_lock);
  if (!held)
    return rewind_stream(r);
  r->adler = mark.adler;
  r->next_row = mark.row;
  r->batch_rows = r->batch_next = 0;
  return 0;
}

int tc_png_marks_held(const char *filename) {
  struct stat st;
  if (stat(filename, &st) != 0)
    return 0;
  int n = 0;
  g_mutex_lock(&marks_lock);
  for (TcPngMarks *m = marks_files; m; m = m->next)
    if (m->dev == st.st_dev && m->ino == st.st_ino && m->size == st.st_size && m->mtime.tv_sec == st.st_mtim.tv_sec &&
        m->mtime.tv_nsec == st.st_mtim.tv_nsec && m->ctime.tv_sec == st.st_ctim.tv_sec && m->ctime.tv_nsec == st.st_ctim.tv_nsec)
      n += (int)m->count;
  g_mutex_unlock(&marks_lock);
  return n;
}

int tc_png_rewinds(void) { return __atomic_load_n(&stream_rewinds, __ATOMIC_RELAXED); }

int tc_png_mark_jumps(void) {
  g_mutex_lock(&marks_lock);
  int n = marks_jumps;
  g_mutex_unlock(&marks_lock);
  return n;
}

/* The next row, unfiltered (row_bytes, no filter byte), or NULL after an error. */
static const uint8_t *next_row(TcPngReader *r) {
  size_t stride = r->row_bytes + 1;
  if (r->batch_next == r->batch_rows) {
    if (r->batch_rows > 0)
      memcpy(r->prev, r->batch + (size_t)(r->batch_rows - 1) * stride + 1, r->row_bytes);
    leave_mark(r);
    uint32_t rows = r->height - r->next_row;
    if (rows > r->batch_capacity)
      rows = r->batch_capacity;
    r->batch_rows = r->batch_next = 0;
    if (inflate_rows(r, rows))
      return NULL;
    r->batch_rows = rows;
  }
  uint8_t *row = r->batch + (size_t)r->batch_next * stride;
  const uint8_t *prev = r->batch_next == 0 ? r->prev : row - stride + 1;
  uint8_t *data = row + 1;
  if (tc_png_unfilter(row[0], data, prev, r->row_bytes, r->bpp) != 0) {
    fail(r, "a row has an unknown filter type (bad adaptive filter value)");
    return NULL;
  }
  r->batch_next++;
  r->next_row++;
  if (r->next_row == r->height && finish_stream(r))
    return NULL;
  return data;
}

/* ---- rows to RGBA ---- */

static inline uint8_t sample(const uint8_t *row, uint32_t x, int depth) {
  if (depth == 8)
    return row[x];
  uint32_t bit = x * (uint32_t)depth;
  return (uint8_t)((row[bit >> 3] >> (8 - depth - (bit & 7))) & ((1 << depth) - 1));
}

/* 1 when a palette row names an entry past the palette (libpng draws it black and
 * says nothing unless asked to check): a damaged file. */
static int past_palette(const TcPngReader *r, const uint8_t *row) {
  if (r->colour != 3 || r->palette_size >= (1 << r->depth))
    return 0;
  uint8_t top = 0;
  for (uint32_t x = 0; x < r->width; x++) {
    uint8_t v = sample(row, x, r->depth);
    top = v > top ? v : top;
  }
  return top >= r->palette_size;
}

/* Columns [left, left + width) of an unfiltered row as RGBA8. */
static void expand(const TcPngReader *r, const uint8_t *row, uint32_t left, uint32_t width, uint8_t *restrict out) {
  uint32_t end = left + width;
  switch (r->colour) {
  case 6:
    memcpy(out, row + 4 * (size_t)left, 4 * (size_t)width);
    break;
  case 4:
    for (uint32_t x = left; x < end; x++, out += 4) {
      uint8_t g = row[2 * x];
      out[0] = out[1] = out[2] = g;
      out[3] = row[2 * x + 1];
    }
    break;
  case 2: {
    const uint8_t *p = row + 3 * (size_t)left;
    if (r->has_trns) {
      for (uint32_t x = left; x < end; x++, p += 3, out += 4) {
        out[0] = p[0];
        out[1] = p[1];
        out[2] = p[2];
        out[3] = (p[0] == r->trns[0] && p[1] == r->trns[1] && p[2] == r->trns[2]) ? 0 : 255;
      }
    } else {
      for (uint32_t x = left; x < end; x++, p += 3, out += 4) {
        out[0] = p[0];
        out[1] = p[1];
        out[2] = p[2];
        out[3] = 255;
      }
    }
    break;
  }
  case 0: {
    /* libpng scales 1, 2 and 4 bit grey to 8 by repeating the bits */
    int scale = r->depth == 8 ? 1 : 255 / ((1 << r->depth) - 1);
    for (uint32_t x = left; x < end; x++, out += 4) {
      uint8_t v = sample(row, x, r->depth);
      out[0] = out[1] = out[2] = (uint8_t)(v * scale);
      out[3] = (r->has_trns && v == r->trns[0]) ? 0 : 255;
    }
    break;
  }
  case 3:
    if (r->depth == 8) {
      for (uint32_t x = left; x < end; x++, out += 4)
        memcpy(out, r->lut[row[x]], 4);
    } else {
      for (uint32_t x = left; x < end; x++, out += 4)
        memcpy(out, r->lut[sample(row, x, r->depth)], 4);
    }
    break;
  }
}

/* ---- the libvips image ---- */

/* Opens the file for its pixels, the first time they are asked for. */
static int open_stream(TcPngReader *r) {
  if (r->fd >= 0)
    return 0;
  r->fd = open(r->filename, O_RDONLY | O_CLOEXEC);
  if (r->fd < 0) {
    vips_error("pngload", "cannot open the file again");
    return -1;
  }
  if (fstat(r->fd, &r->file) == 0)
    r->identified = 1;
  return rewind_stream(r);
}

/* Rows [top, top + count), columns [left, left + width) as RGBA8 into `out`, rows
 * `stride` bytes apart: from the row the reader stands at, from the top again for a
 * row above it, from a mark for a row far below it. With r->lock held. */
static int read_rows(TcPngReader *r, uint32_t top, uint32_t count, uint32_t left, uint32_t width, uint8_t *out,
                     size_t stride) {
  if (open_stream(r))
    return -1;
  if (top < r->next_row && rewind_stream(r))
    return -1;
  if (top > r->next_row && jump_towards(r, top))
    return -1;
  while (r->next_row < top)
    if (!next_row(r))
      return -1;
  for (uint32_t y = 0; y < count; y++, out += stride) {
    const uint8_t *row = next_row(r);
    if (!row)
      return -1;
    if (past_palette(r, row)) {
      vips_error("pngload", "row %u names a colour past the palette's %d entries: the file is damaged", top + y,
                 r->palette_size);
      return -1;
    }
    expand(r, row, left, width, out);
  }
  return 0;
}

static int generate(VipsRegion *region, void *seq, void *a, void *b, gboolean *stop) {
  (void)seq;
  (void)b;
  (void)stop;
  TcPngReader *r = a;
  VipsRect *want = &region->valid;
  g_mutex_lock(&r->lock);
  int result = read_rows(r, (uint32_t)want->top, (uint32_t)want->height, (uint32_t)want->left, (uint32_t)want->width,
                         VIPS_REGION_ADDR(region, want->left, want->top), VIPS_REGION_LSKIP(region));
  g_mutex_unlock(&r->lock);
  return result;
}

int tc_png_fetch(VipsImage *image, int top, int count, unsigned char *out) {
  TcPngReader *r = g_object_get_data(G_OBJECT(image), "tc-png-reader");
  if (!r)
    return 0;
  if (top < 0 || count < 0 || (uint64_t)top + (uint64_t)count > r->height) {
    vips_error("pngload", "rows %d to %d are outside the image", top, top + count);
    return -1;
  }
  if (tc_cancel_requested()) {
    vips_error("tilecut", "interrupted");
    return -1;
  }
  g_mutex_lock(&r->lock);
  int result = read_rows(r, (uint32_t)top, (uint32_t)count, 0, r->width, out, 4 * (size_t)r->width);
  g_mutex_unlock(&r->lock);
  return result < 0 ? -1 : 1;
}

int tc_png_fetch_columns(VipsImage *image, int top, int count, int left, int width, unsigned char *out, size_t stride) {
  TcPngReader *r = g_object_get_data(G_OBJECT(image), "tc-png-reader");
  if (!r)
    return 0;
  if (top < 0 || count < 0 || (uint64_t)top + (uint64_t)count > r->height || left < 0 || width < 0 ||
      (uint64_t)left + (uint64_t)width > r->width || stride < 4 * (size_t)width) {
    vips_error("pngload", "rows %d to %d, columns %d to %d are outside the image", top, top + count, left, left + width);
    return -1;
  }
  if (tc_cancel_requested()) {
    vips_error("tilecut", "interrupted");
    return -1;
  }
  g_mutex_lock(&r->lock);
  int result = read_rows(r, (uint32_t)top, (uint32_t)count, (uint32_t)left, (uint32_t)width, out, stride);
  g_mutex_unlock(&r->lock);
  return result < 0 ? -1 : 1;
}

int tc_png_scan(VipsImage *image, TcPngRows rows, void *context) {
  TcPngReader *r = g_object_get_data(G_OBJECT(image), "tc-png-reader");
  if (!r)
    return 0;
  int result = -1;
  g_mutex_lock(&r->lock);
  if (open_stream(r) || (r->next_row > 0 && rewind_stream(r)))
    goto done;
  r->leaving_marks = 1;
  size_t stride = r->row_bytes + 1;
  /* RGBA8 rows are handed over where they were unfiltered; others expanded first */
  int direct = r->colour == 6 && r->depth == 8;
  if (direct && !r->batch_other)
    r->batch_other = malloc(stride * r->batch_capacity);
  for (int i = 0; i < 2 && !direct; i++)
    if (!r->rgba[i])
      r->rgba[i] = malloc(4 * (size_t)r->width * r->batch_capacity);
  if (direct ? !r->batch_other : !r->rgba[0] || !r->rgba[1]) {
    vips_error("pngload", "out of memory");
    goto done;
  }
  for (int turn = 0; r->next_row < r->height; turn ^= 1) {
    if (tc_cancel_requested()) {
      vips_error("tilecut", "interrupted");
      goto done;
    }
    uint32_t top = r->next_row, count = 0;
    const uint8_t *first = NULL;
    do {
      const uint8_t *row = next_row(r);
      if (!row)
        goto done;
      if (past_palette(r, row)) {
        vips_error("pngload", "row %u names a colour past the palette's %d entries: the file is damaged",
                   r->next_row - 1, r->palette_size);
        goto done;
      }
      if (!first)
        first = row;
      if (!direct)
        expand(r, row, 0, r->width, r->rgba[turn] + 4 * (size_t)r->width * count);
      count++;
    } while (r->batch_next < r->batch_rows);
    if (rows(context, direct ? first : r->rgba[turn], top, count, direct ? stride : 4 * (size_t)r->width))
      goto done;
    /* the next batch goes to the other buffer while `rows` may still read this one:
     * the row above it kept first, as next_row would */
    if (direct && r->next_row < r->height) {
      memcpy(r->prev, r->batch + (size_t)(r->batch_rows - 1) * stride + 1, r->row_bytes);
      uint8_t *other = r->batch_other;
      r->batch_other = r->batch;
      r->batch = other;
      r->batch_rows = r->batch_next = 0;
    }
  }
  result = 1;
done:
  r->leaving_marks = 0;
  g_mutex_unlock(&r->lock);
  return result;
}

int tc_png_open(const char *filename, VipsImage **out) {
  TcPngReader *r = calloc(1, sizeof *r);
  if (!r)
    return 0;
  g_mutex_init(&r->lock);
  r->fd = open(filename, O_RDONLY | O_CLOEXEC);
  r->filename = strdup(filename);
  r->buf = malloc(TC_FILE_BUFFER);
  if (r->fd < 0 || !r->filename || !r->buf || read_header(r) != 1) {
    reader_free(r);
    return 0;
  }
  /* the pixels are read when asked for, from a descriptor opened then */
  close(r->fd);
  r->fd = -1;
  r->idat_limit = idat_limit_of(r);
  size_t stride = r->row_bytes + 1;
  r->batch_capacity = (uint32_t)(TC_BATCH_BYTES / stride);
  if (r->batch_capacity == 0)
    r->batch_capacity = 1;
  if (r->batch_capacity > r->height)
    r->batch_capacity = r->height;
  r->inflate = malloc(sizeof *r->inflate);
  r->batch = malloc(stride * r->batch_capacity);
  r->prev = calloc(1, r->row_bytes);
  r->mark_rows = mark_spacing(r);
  if (!r->inflate || !r->batch || !r->prev) {
    reader_free(r);
    return 0;
  }
  VipsImage *image = tc_rows_image((int)r->width, (int)r->height, generate, r, (void (*)(void *))reader_free);
  if (!image)
    return 0;
  /* for tc_png_scan: this image, not one made from it */
  g_object_set_data(G_OBJECT(image), "tc-png-reader", r);
  *out = image;
  return 1;
}

int tc_png_reads(const char *filename) {
  TcPngReader *r = calloc(1, sizeof *r);
  if (!r)
    return 0;
  g_mutex_init(&r->lock);
  r->fd = open(filename, O_RDONLY | O_CLOEXEC);
  r->buf = malloc(TC_FILE_BUFFER);
  int reads = r->fd >= 0 && r->buf && read_header(r) == 1;
  reader_free(r);
  return reads;
}
