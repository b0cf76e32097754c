#define _GNU_SOURCE
#include "TilecutCheck.h"
#include "TilecutJPEGScan.h"
#include "TilecutTIFFPage.h"

#include <errno.h>
#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Why this file exists: libvips' loaders trust a header's sizes and allocate
 * from them (libpng a chunk's claimed length, libjpeg a progressive image's
 * coefficients), and libpng skips a stream's Adler-32. These checks read only
 * what the header says and the bytes that are there, before any decoder runs. */

#define TC_PIECE (64u << 10)

int tc_check_refuse(TcFileCheck *out, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  vsnprintf(out->reason, sizeof out->reason, format, ap);
  va_end(ap);
  return -1;
}

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static int read_all(int fd, uint8_t *dst, size_t n) {
  while (n > 0) {
    ssize_t k = read(fd, dst, n);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return -1;
    dst += k;
    n -= (size_t)k;
  }
  return 0;
}

static int printable_type(const uint8_t *t) {
  for (int i = 0; i < 4; i++)
    if (!((t[i] >= 'A' && t[i] <= 'Z') || (t[i] >= 'a' && t[i] <= 'z')))
      return 0;
  return 1;
}

/* Bytes of filtered rows (a filter byte each) the IDAT stream holds. */
static uint64_t png_stream_bytes(uint32_t width, uint32_t height, int bits, int interlaced) {
  if (!interlaced)
    return (uint64_t)height * (((uint64_t)width * (uint64_t)bits + 7) / 8 + 1);
  static const int x0[7] = {0, 4, 0, 2, 0, 1, 0}, y0[7] = {0, 0, 4, 0, 2, 0, 1};
  static const int dx[7] = {8, 8, 4, 4, 2, 2, 1}, dy[7] = {8, 8, 8, 4, 4, 2, 2};
  uint64_t total = 0;
  for (int p = 0; p < 7; p++) {
    uint64_t w = width > (uint32_t)x0[p] ? (width - (uint32_t)x0[p] + (uint32_t)dx[p] - 1) / (uint32_t)dx[p] : 0;
    uint64_t h = height > (uint32_t)y0[p] ? (height - (uint32_t)y0[p] + (uint32_t)dy[p] - 1) / (uint32_t)dy[p] : 0;
    if (w && h)
      total += h * ((w * (uint64_t)bits + 7) / 8 + 1);
  }
  return total;
}

typedef struct {
  struct inflate_state state;
  uint8_t out[TC_PIECE];
  uint64_t produced;
  uint64_t limit; /* the filtered rows and TC_PNG_EXCESS_SLACK; 0 until IHDR is read */
  int finished;
} TcStream;

/* Inflates `n` more bytes of the IDAT stream; -1 with the reason in `out`. */
static int stream_feed(TcStream *z, uint8_t *in, size_t n, TcFileCheck *out) {
  struct inflate_state *s = &z->state;
  s->next_in = in;
  s->avail_in = (uint32_t)n;
  while (s->avail_in > 0 && !z->finished) {
    s->next_out = z->out;
    s->avail_out = sizeof z->out;
    int status = isal_inflate(s);
    z->produced += sizeof z->out - s->avail_out;
    if (status == ISAL_INCORRECT_CHECKSUM)
      return tc_check_refuse(out, "is damaged: the compressed pixel data is corrupt (Adler-32 mismatch)");
    if (status < 0)
      return tc_check_refuse(out, "is damaged: the compressed pixel data is corrupt");
    /* stops after one more piece than the rows need, however far the stream goes */
    if (z->limit && z->produced > z->limit)
      return tc_check_refuse(out, "is damaged: its pixel data inflates to more than the rows its header declares (too much image data)");
    if (s->block_state == ISAL_BLOCK_FINISH)
      z->finished = 1;
  }
  return 0;
}

/* Where a PNG's bytes come from: a file (read, skipped by seeking) or memory. */
typedef struct {
  int fd;
  const uint8_t *data;
  uint64_t size, pos;
} TcSource;

static int source_read(TcSource *src, uint8_t *dst, size_t n) {
  if (!src->data)
    return read_all(src->fd, dst, n);
  if (n > src->size - src->pos)
    return -1;
  memcpy(dst, src->data + src->pos, n);
  src->pos += n;
  return 0;
}

static int source_skip(TcSource *src, uint64_t n) {
  if (!src->data)
    return lseek(src->fd, (off_t)n, SEEK_CUR) < 0 ? -1 : 0;
  if (n > src->size - src->pos)
    return -1;
  src->pos += n;
  return 0;
}

static int check_png(TcSource *src, int verify_stream, TcFileCheck *out);

int tc_check_png(const char *filename, int verify_stream, TcFileCheck *out) {
  memset(out, 0, sizeof *out);
  int fd = open(filename, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return tc_check_refuse(out, "cannot be read (%s)", strerror(errno));
  struct stat st;
  if (fstat(fd, &st)) {
    close(fd);
    return tc_check_refuse(out, "cannot be read");
  }
  TcSource src = {fd, NULL, (uint64_t)st.st_size, 0};
  int result = check_png(&src, verify_stream, out);
  close(fd);
  return result;
}

int tc_check_png_buffer(const void *data, size_t length, int verify_stream, TcFileCheck *out) {
  memset(out, 0, sizeof *out);
  TcSource src = {-1, data, length, 0};
  return check_png(&src, verify_stream, out);
}

static int check_png(TcSource *src, int verify_stream, TcFileCheck *out) {
  uint8_t *piece = malloc(TC_PIECE);
  TcStream *z = verify_stream ? calloc(1, sizeof *z) : NULL;
  int result = -1;
  if (!piece || (verify_stream && !z)) {
    tc_check_refuse(out, "cannot be read");
    goto done;
  }
  uint64_t size = src->size, at = 8;
  uint8_t head[13];
  static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (source_read(src, head, 8) || memcmp(head, signature, 8)) {
    tc_check_refuse(out, "is not a PNG (no PNG signature)");
    goto done;
  }
  int bits = 0, interlaced = 0, seen_end = 0, chunks = 0;
  uint64_t expected = 0;
  if (z) {
    isal_inflate_init(&z->state);
    z->state.crc_flag = ISAL_ZLIB;
  }
  while (!seen_end) {
    if (at + 12 > size) {
      tc_check_refuse(out, chunks == 0 ? "is truncated: it ends before its header (IHDR)"
                              : "is truncated: it ends before its IEND chunk");
      goto done;
    }
    if (source_read(src, head, 8)) {
      tc_check_refuse(out, "cannot be read");
      goto done;
    }
    uint32_t length = be32(head);
    const uint8_t *type = head + 4;
    char name[5] = {0};
    memcpy(name, type, 4);
    if (!printable_type(type) || length > 0x7fffffffu) {
      tc_check_refuse(out, "is damaged: chunk %d has an invalid type or length", chunks + 1);
      goto done;
    }
    if (length > size - at - 12) {
      tc_check_refuse(out, "is truncated: its %s chunk claims %u bytes, but the file ends %llu bytes later", printable_type(type) ? name : "?",
             length, (unsigned long long)(size - at - 12 + 4));
      goto done;
    }
    if (chunks == 0) {
      if (memcmp(type, "IHDR", 4) || length != 13) {
        tc_check_refuse(out, "is damaged: it does not start with a header (IHDR)");
        goto done;
      }
    }
    int is_idat = !memcmp(type, "IDAT", 4);
    seen_end = !memcmp(type, "IEND", 4);
    if (is_idat && !z) {
      /* the PNG reader checks these itself as it reads */
      if (source_skip(src, (uint64_t)length + 4)) {
        tc_check_refuse(out, "cannot be read");
        goto done;
      }
    } else {
      uint32_t crc = libdeflate_crc32(0, type, 4);
      for (uint32_t left = length; left > 0;) {
        uint32_t k = left < TC_PIECE ? left : TC_PIECE;
        if (source_read(src, piece, k)) {
          tc_check_refuse(out, "cannot be read");
          goto done;
        }
        if (chunks == 0) {
          out->width = be32(piece);
          out->height = be32(piece + 4);
          static const int channels[7] = {1, 0, 3, 1, 2, 0, 4};
          int colour = piece[9] <= 6 ? piece[9] : 1;
          bits = piece[8] * channels[colour];
          interlaced = piece[12] == 1;
          if (out->width == 0 || out->height == 0 || bits == 0) {
            tc_check_refuse(out, "is damaged: its header (IHDR) declares no pixels or an unknown colour type");
            goto done;
          }
          expected = png_stream_bytes(out->width, out->height, bits, interlaced);
          if (z)
            z->limit = expected + TC_PNG_EXCESS_SLACK;
          if (interlaced) {
            /* libpng's whole-image buffer, rows as libvips asks for them */
            int samples = colour == 3 ? 4 : channels[colour];
            out->whole_image_bytes = (uint64_t)out->width * out->height * (uint64_t)samples * (piece[8] == 16 ? 2u : 1u);
            out->whole_image_kind = "interlaced PNG";
          }
        }
        crc = libdeflate_crc32(crc, piece, k);
        if (is_idat && stream_feed(z, piece, k, out))
          goto done;
        left -= k;
      }
      uint8_t tail[4];
      if (source_read(src, tail, 4)) {
        tc_check_refuse(out, "cannot be read");
        goto done;
      }
      if (be32(tail) != crc) {
        tc_check_refuse(out, "is damaged: its %s chunk is corrupt (CRC mismatch)", name);
        goto done;
      }
    }
    at += 12 + (uint64_t)length;
    chunks++;
  }
  if (z && !z->finished) {
    tc_check_refuse(out, z->produced < expected ? "is truncated: the pixel data ends before the last row"
                                       : "is truncated: the compressed pixel data has no end");
    goto done;
  }
  if (z && z->produced < expected) {
    tc_check_refuse(out, "is damaged: the pixel data ends before the last row (%llu of %llu bytes)", (unsigned long long)z->produced,
           (unsigned long long)expected);
    goto done;
  }
  result = 0;
done:
  free(piece);
  free(z);
  return result;
}

int tc_check_jpeg(const char *filename, TcFileCheck *out) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(filename, "rbe");
  if (!f)
    return tc_check_refuse(out, "cannot be read (%s)", strerror(errno));
  int result = -1;
  struct stat st;
  if (fstat(fileno(f), &st)) {
    tc_check_refuse(out, "cannot be read");
    goto done;
  }
  uint64_t size = (uint64_t)st.st_size;
  int c0 = fgetc(f), c1 = fgetc(f);
  if (c0 != 0xFF || c1 != 0xD8) {
    tc_check_refuse(out, "is not a JPEG (no start-of-image marker)");
    goto done;
  }
  int components = 0, progressive = 0, seen_frame = 0;
  int h[4] = {0}, v[4] = {0}, hmax = 1, vmax = 1;
  for (;;) {
    int c = fgetc(f);
    if (c == EOF) {
      tc_check_refuse(out, seen_frame ? "is truncated: it ends before its image data" : "is truncated: it ends before its frame header");
      goto done;
    }
    if (c != 0xFF) {
      tc_check_refuse(out, "is damaged: bytes where a marker should be, before the image data");
      goto done;
    }
    int m;
    do
      m = fgetc(f);
    while (m == 0xFF);
    if (m == EOF) {
      tc_check_refuse(out, "is truncated: it ends before its image data");
      goto done;
    }
    if (m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7))
      continue;
    if (m == 0xD9) {
      tc_check_refuse(out, "is damaged: it ends (EOI) before any image data");
      goto done;
    }
    int l0 = fgetc(f), l1 = fgetc(f);
    if (l1 == EOF) {
      tc_check_refuse(out, "is truncated: it ends in a marker");
      goto done;
    }
    long length = (long)(l0 << 8 | l1);
    long at = ftell(f);
    if (length < 2 || (uint64_t)at + (uint64_t)length - 2 > size) {
      tc_check_refuse(out, "is truncated: a segment claims %ld bytes, more than the file holds", length);
      goto done;
    }
    int is_frame = m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
    if (is_frame) {
      uint8_t b[6 + 3 * 4];
      if (length < 8 || fread(b, 1, 6, f) != 6) {
        tc_check_refuse(out, "is damaged: its frame header is too short");
        goto done;
      }
      out->height = (uint32_t)(b[1] << 8 | b[2]);
      out->width = (uint32_t)(b[3] << 8 | b[4]);
      components = b[5];
      if (components < 1 || length != 8 + 3 * components) {
        tc_check_refuse(out, "is damaged: its frame header is inconsistent");
        goto done;
      }
      for (int i = 0; i < components; i++) {
        uint8_t comp[3];
        if (fread(comp, 1, 3, f) != 3) {
          tc_check_refuse(out, "is truncated: it ends in its frame header");
          goto done;
        }
        if (i < 4) {
          h[i] = comp[1] >> 4;
          v[i] = comp[1] & 15;
          if (h[i] < 1 || v[i] < 1) {
            tc_check_refuse(out, "is damaged: a component has no sampling factor");
            goto done;
          }
          hmax = h[i] > hmax ? h[i] : hmax;
          vmax = v[i] > vmax ? v[i] : vmax;
        }
      }
      progressive = m == 0xC2 || m == 0xC6 || m == 0xCA || m == 0xCE;
      seen_frame = 1;
      continue;
    }
    if (m == 0xDA) {
      if (!seen_frame) {
        tc_check_refuse(out, "is damaged: its image data comes before its frame header");
        goto done;
      }
      int ns = fgetc(f);
      /* progressive, or one component a scan: libjpeg keeps every coefficient of
       * the image (2 bytes each) until the last scan */
      if (progressive || (ns >= 1 && ns < components)) {
        uint64_t bytes = 0;
        for (int i = 0; i < components && i < 4; i++) {
          uint64_t mcus_x = ((uint64_t)out->width + 8u * (uint64_t)hmax - 1) / (8u * (uint64_t)hmax);
          uint64_t mcus_y = ((uint64_t)out->height + 8u * (uint64_t)vmax - 1) / (8u * (uint64_t)vmax);
          bytes += mcus_x * (uint64_t)h[i] * mcus_y * (uint64_t)v[i] * 64u * 2u;
        }
        out->whole_image_bytes = bytes;
        out->whole_image_kind = progressive ? "progressive JPEG" : "multi-scan JPEG";
      }
      result = 0;
      goto done;
    }
    if (fseek(f, at + length - 2, SEEK_SET)) {
      tc_check_refuse(out, "cannot be read");
      goto done;
    }
  }
done:
  fclose(f);
  return result;
}

/* ---- PDF: how deep the content streams nest q (save graphics state) ---- */

#include <sys/mman.h>

typedef struct {
  long depth, max_depth;
  int in_string; /* nesting of ( ) */
  int escape, in_comment;
  uint8_t prev; /* the byte before, for token boundaries */
  int pending; /* a lone 'q' or 'Q' seen; counted when the next byte ends the token */
} TcQDepth;

static int pdf_delimiter(uint8_t c) {
  return c == 0 || c == 9 || c == 10 || c == 12 || c == 13 || c == 32 || c == '(' || c == ')' || c == '<' ||
         c == '>' || c == '[' || c == ']' || c == '{' || c == '}' || c == '/' || c == '%';
}

static void qdepth_feed(TcQDepth *q, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint8_t c = p[i];
    if (q->pending) {
      if (pdf_delimiter(c)) {
        if (q->pending == 'q') {
          if (++q->depth > q->max_depth)
            q->max_depth = q->depth;
        } else if (q->depth > 0) {
          q->depth--;
        }
      }
      q->pending = 0;
    }
    if (q->in_comment) {
      if (c == 10 || c == 13)
        q->in_comment = 0;
    } else if (q->in_string) {
      if (q->escape)
        q->escape = 0;
      else if (c == '\\')
        q->escape = 1;
      else if (c == '(')
        q->in_string++;
      else if (c == ')')
        q->in_string--;
    } else if (c == '(') {
      q->in_string = 1;
    } else if (c == '%') {
      q->in_comment = 1;
    } else if ((c == 'q' || c == 'Q') && pdf_delimiter(q->prev)) {
      q->pending = c;
    }
    q->prev = c;
  }
}

static void qdepth_end(TcQDepth *q) {
  uint8_t space = ' ';
  qdepth_feed(q, &space, 1);
  q->in_string = q->in_comment = q->escape = 0;
  q->prev = ' ';
}

static const uint8_t *find_bytes(const uint8_t *from, const uint8_t *end, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(end - from) < n)
    return NULL;
  return memmem(from, (size_t)(end - from), word, n);
}

/* The next stream of a PDF from *at: its data starts at *at (after "stream" and its
 * end of line), *keyword is where "stream" stands and *dict the start of its object
 * (the last "obj" within 4 KB before it). Returns 0 when no stream is left. */
static int next_stream(const uint8_t **at, const uint8_t *data, const uint8_t *end, const uint8_t **keyword,
                       const uint8_t **dict) {
  const uint8_t *p = *at;
  while ((p = find_bytes(p, end, "stream"))) {
    const uint8_t *k = p;
    p += 6;
    if (k > data && k[-1] == 'd') /* endstream */
      continue;
    if (p < end && *p == '\r')
      p++;
    if (p >= end || *p != '\n')
      continue;
    p++;
    const uint8_t *d = (size_t)(k - data) > 4096 ? k - 4096 : data;
    const uint8_t *obj = d;
    for (const uint8_t *o; (o = find_bytes(obj, k, "obj")); obj = o + 3)
      d = o;
    *at = p;
    *keyword = k;
    *dict = d;
    return 1;
  }
  *at = end;
  return 0;
}

/* The dictionary text before a stream keyword: back to the nearest "obj". */
static int dict_has(const uint8_t *dict, const uint8_t *stream, const char *word) {
  return find_bytes(dict, stream, word) != NULL;
}

/* A stream's /Filter as letters, in the order they apply: 'H' ASCIIHexDecode, '8'
 * ASCII85Decode, 'F' FlateDecode (last only). 0 for none; -1 for any other filter
 * or order. */
static int filter_chain(const uint8_t *dict, const uint8_t *stream, char *chain, int room) {
  const uint8_t *f = find_bytes(dict, stream, "/Filter");
  if (!f)
    return 0;
  f += 7;
  while (f < stream && (*f == ' ' || *f == '\r' || *f == '\n' || *f == '\t' || *f == '\f'))
    f++;
  int array = f < stream && *f == '[';
  if (array)
    f++;
  int n = 0;
  for (;;) {
    while (f < stream && (*f == ' ' || *f == '\r' || *f == '\n' || *f == '\t' || *f == '\f'))
      f++;
    if (f >= stream)
      return -1;
    if (array && *f == ']')
      break;
    if (*f != '/')
      return -1;
    const uint8_t *name = ++f;
    while (f < stream && !pdf_delimiter(*f))
      f++;
    size_t length = (size_t)(f - name);
#define TC_IS(word) (length == strlen(word) && memcmp(name, word, length) == 0)
    char c = TC_IS("FlateDecode") || TC_IS("Fl")           ? 'F'
             : TC_IS("ASCIIHexDecode") || TC_IS("AHx")     ? 'H'
             : TC_IS("ASCII85Decode") || TC_IS("A85")      ? '8'
             : TC_IS("DCTDecode") || TC_IS("DCT")          ? 'D'
                                                          : 0;
#undef TC_IS
    if (!c || n >= room || (n > 0 && (chain[n - 1] == 'F' || chain[n - 1] == 'D')))
      return -1;
    chain[n++] = c;
    if (!array)
      break;
  }
  return n;
}

/* An ASCIIHex ('H') or ASCII85 ('8') layer decoded whole, to at most `cap` bytes
 * (base-85's 'z' gives 4 bytes for one); NULL when it cannot be. */
static uint8_t *ascii_decode(char kind, const uint8_t *in, size_t n, size_t cap, size_t *length) {
  size_t room = kind == 'H' ? n / 2 + 1 : n * 4 + 4;
  room = room < cap ? room : cap;
  uint8_t *out = malloc(room + 4);
  if (!out)
    return NULL;
  size_t o = 0;
  if (kind == 'H') {
    int half = -1;
    for (size_t i = 0; i < n && in[i] != '>' && o < room; i++) {
      int c = in[i], v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (v < 0)
        continue;
      if (half < 0) {
        half = v;
      } else {
        out[o++] = (uint8_t)(half << 4 | v);
        half = -1;
      }
    }
    if (half >= 0)
      out[o++] = (uint8_t)(half << 4);
  } else {
    uint32_t group = 0;
    int count = 0;
    for (size_t i = 0; i < n && o + 4 <= room; i++) {
      int c = in[i];
      if (c == '~')
        break;
      if (c == 'z' && count == 0) {
        memset(out + o, 0, 4);
        o += 4;
        continue;
      }
      if (c < '!' || c > 'u')
        continue;
      group = group * 85 + (uint32_t)(c - '!');
      if (++count == 5) {
        for (int k = 3; k >= 0; k--)
          out[o++] = (uint8_t)(group >> (8 * k));
        group = 0;
        count = 0;
      }
    }
    if (count > 1) {
      for (int k = count; k < 5; k++)
        group = group * 85 + 84;
      for (int k = 3; k >= 5 - count; k--)
        out[o++] = (uint8_t)(group >> (8 * k));
    }
  }
  *length = o;
  return out;
}

long tc_pdf_q_depth(const char *filename, uint64_t max_inflated) {
  int fd = open(filename, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  struct stat st;
  if (fstat(fd, &st) || st.st_size <= 0) {
    close(fd);
    return -1;
  }
  size_t size = (size_t)st.st_size;
  const uint8_t *data = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (data == MAP_FAILED)
    return -1;
  const uint8_t *end = data + size, *at = data;
  TcQDepth q = {0};
  q.prev = ' ';
  uint64_t inflated = 0;
  struct inflate_state *z = malloc(sizeof *z);
  uint8_t *out = malloc(TC_PIECE);
  const uint8_t *keyword, *dict;
  while (z && out && inflated < max_inflated && next_stream(&at, data, end, &keyword, &dict)) {
    if (dict_has(dict, keyword, "/Image") || dict_has(dict, keyword, "/XRef") || dict_has(dict, keyword, "/ObjStm") ||
        dict_has(dict, keyword, "/Predictor") || dict_has(dict, keyword, "/Length1") || dict_has(dict, keyword, "/Metadata"))
      continue;
    /* the filters, in order: any ASCII layers (hex, base-85) and then Flate, or
     * none; a stream in any other filter is left to poppler */
    char chain[8];
    int layers = filter_chain(dict, keyword, chain, (int)sizeof chain);
    if (layers < 0 || (layers > 0 && chain[layers - 1] == 'D'))
      continue;
    int flate = layers > 0 && chain[layers - 1] == 'F';
    const uint8_t *stop = find_bytes(at, end, "endstream");
    const uint8_t *raw = at, *raw_end = stop ? stop : end;
    uint8_t *decoded = NULL;
    for (int k = 0; k < layers - flate; k++) {
      size_t decoded_length = 0;
      uint64_t left = max_inflated - inflated;
      uint8_t *next = ascii_decode(chain[k], raw, (size_t)(raw_end - raw), left > SIZE_MAX / 8 ? SIZE_MAX / 8 : (size_t)left,
                                   &decoded_length);
      free(decoded);
      decoded = next;
      if (!decoded)
        break;
      raw = decoded;
      raw_end = decoded + decoded_length;
    }
    if (layers - flate > 0 && !decoded) {
      at = stop ? stop : end;
      continue;
    }
    if (flate) {
      isal_inflate_init(z);
      z->crc_flag = ISAL_ZLIB;
      z->next_in = (uint8_t *)raw;
      z->avail_in = (uint32_t)(raw_end - raw > 0x7fffffff ? 0x7fffffff : raw_end - raw);
      for (;;) {
        z->next_out = out;
        z->avail_out = TC_PIECE;
        int status = isal_inflate(z);
        size_t made = TC_PIECE - z->avail_out;
        qdepth_feed(&q, out, made);
        inflated += made;
        if (status < 0 || z->block_state == ISAL_BLOCK_FINISH || made == 0 || inflated >= max_inflated)
          break;
      }
      at = decoded ? (stop ? stop : end) : z->next_in;
    } else {
      if (!stop && !decoded)
        break;
      qdepth_feed(&q, raw, (size_t)(raw_end - raw));
      if (decoded)
        inflated += (uint64_t)(raw_end - raw);
      at = stop ? stop : end;
    }
    free(decoded);
    qdepth_end(&q);
  }
  free(z);
  free(out);
  munmap((void *)data, size);
  return q.max_depth;
}

/* ---- TIFF: every Deflate strip or tile of a page inflates whole, Adler-32 and all ---- */

typedef struct {
  int fd;
  uint64_t size;
  int big, swap; /* BigTIFF; big-endian file */
} TcTiff;

static int tiff_read(TcTiff *t, uint64_t at, void *dst, size_t n) {
  if (at > t->size || n > t->size - at)
    return -1;
  return pread(t->fd, dst, n, (off_t)at) == (ssize_t)n ? 0 : -1;
}

static uint64_t tiff_uint(const TcTiff *t, const uint8_t *p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++)
    v |= (uint64_t)p[t->swap ? bytes - 1 - i : i] << (8 * i);
  return v;
}

/* Element `k` of an entry's array of SHORT, LONG or LONG8 values. */
static int tiff_value(TcTiff *t, const uint8_t *entry, uint64_t k, uint64_t *out) {
  int type = (int)tiff_uint(t, entry + 2, 2);
  int size = type == 3 ? 2 : type == 4 ? 4 : type == 16 ? 8 : 0;
  if (!size)
    return -1;
  uint64_t count = tiff_uint(t, entry + 4, t->big ? 8 : 4);
  if (k >= count)
    return -1;
  const uint8_t *inline_at = entry + (t->big ? 12 : 8);
  uint8_t buf[8];
  if (count * (uint64_t)size <= (t->big ? 8u : 4u)) {
    memcpy(buf, inline_at + k * (uint64_t)size, (size_t)size);
  } else {
    uint64_t base = tiff_uint(t, inline_at, t->big ? 8 : 4);
    if (tiff_read(t, base + k * (uint64_t)size, buf, (size_t)size))
      return -1;
  }
  *out = tiff_uint(t, buf, size);
  return 0;
}

int tc_check_tiff(const char *filename, int page, TcFileCheck *out) {
  memset(out, 0, sizeof *out);
  TcTiff t = {.fd = open(filename, O_RDONLY | O_CLOEXEC)};
  if (t.fd < 0)
    return tc_check_refuse(out, "cannot be read (%s)", strerror(errno));
  int result = -1;
  struct stat st;
  uint8_t head[16];
  uint8_t *entries = NULL, *piece = malloc(TC_PIECE), *sink = malloc(TC_PIECE);
  struct inflate_state *z = malloc(sizeof *z);
  if (fstat(t.fd, &st) || !piece || !sink || !z) {
    tc_check_refuse(out, "cannot be read");
    goto done;
  }
  t.size = (uint64_t)st.st_size;
  if (tiff_read(&t, 0, head, 16) && tiff_read(&t, 0, head, 8)) {
    tc_check_refuse(out, "is truncated: it ends in its TIFF header");
    goto done;
  }
  t.swap = head[0] == 'M';
  t.big = tiff_uint(&t, head + 2, 2) == 43;
  uint64_t ifd;
  /* the page's directory, from the walk of the chain every reader of the file shares
   * (offsets only, no pixels, once per file: TilecutTIFFPage.h) */
  if (tc_tiff_directory(t.fd, page, &ifd))
    goto fine; /* libtiff says what is wrong with the chain */
  uint8_t n8[8];
  if (tiff_read(&t, ifd, n8, t.big ? 8 : 2))
    goto fine;
  uint64_t count = tiff_uint(&t, n8, t.big ? 8 : 2);
  size_t entry_size = t.big ? 20 : 12;
  if (count == 0 || count > 4096)
    goto fine;
  entries = malloc(count * entry_size);
  if (!entries || tiff_read(&t, ifd + (t.big ? 8 : 2), entries, count * entry_size))
    goto fine;
  uint64_t compression = 1;
  const uint8_t *offsets = NULL, *counts = NULL;
  for (uint64_t i = 0; i < count; i++) {
    const uint8_t *e = entries + i * entry_size;
    int tag = (int)tiff_uint(&t, e, 2);
    if (tag == 259)
      tiff_value(&t, e, 0, &compression);
    else if (tag == 273 || tag == 324)
      offsets = e;
    else if (tag == 279 || tag == 325)
      counts = e;
  }
  if (!offsets || !counts)
    goto fine;
  uint64_t pieces = tiff_uint(&t, offsets + 4, t.big ? 8 : 4);
  for (uint64_t k = 0; k < pieces; k++) {
    uint64_t at, length;
    if (tiff_value(&t, offsets, k, &at) || tiff_value(&t, counts, k, &length))
      break;
    if (length == 0)
      continue;
    if (at > t.size || length > t.size - at) {
      tc_check_refuse(out, "is truncated: strip or tile %llu of page %d lies past the end of the file", (unsigned long long)k, page);
      goto done;
    }
    if (compression != 8 && compression != 32946)
      continue;
    isal_inflate_init(z);
    z->crc_flag = ISAL_ZLIB;
    int finished = 0;
    for (uint64_t done_bytes = 0; done_bytes < length && !finished;) {
      size_t want = length - done_bytes < TC_PIECE ? (size_t)(length - done_bytes) : TC_PIECE;
      if (tiff_read(&t, at + done_bytes, piece, want)) {
        tc_check_refuse(out, "cannot be read");
        goto done;
      }
      done_bytes += want;
      z->next_in = piece;
      z->avail_in = (uint32_t)want;
      while (z->avail_in > 0 && !finished) {
        z->next_out = sink;
        z->avail_out = TC_PIECE;
        int status = isal_inflate(z);
        if (status == ISAL_INCORRECT_CHECKSUM) {
          tc_check_refuse(out, "is damaged: Deflate strip or tile %llu of page %d is corrupt (Adler-32 mismatch)", (unsigned long long)k, page);
          goto done;
        }
        if (status < 0) {
          tc_check_refuse(out, "is damaged: Deflate strip or tile %llu of page %d is corrupt", (unsigned long long)k, page);
          goto done;
        }
        finished = z->block_state == ISAL_BLOCK_FINISH;
        if (!finished && z->avail_out == TC_PIECE && z->avail_in > 0)
          break; /* no progress: let libtiff judge */
      }
    }
    if (!finished) {
      tc_check_refuse(out, "is damaged: Deflate strip or tile %llu of page %d ends before its data does", (unsigned long long)k, page);
      goto done;
    }
  }
fine:
  result = 0;
done:
  close(t.fd);
  free(entries);
  free(piece);
  free(sink);
  free(z);
  return result;
}

/* ---- PDF: every JPEG (DCTDecode) image decodes without a warning ---- */

int tc_pdf_check_jpegs(const char *filename, char *reason, size_t reason_size) {
  int fd = open(filename, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  struct stat st;
  if (fstat(fd, &st) || st.st_size <= 0) {
    close(fd);
    return 0;
  }
  size_t size = (size_t)st.st_size;
  const uint8_t *data = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (data == MAP_FAILED)
    return 0;
  const uint8_t *end = data + size, *at = data;
  int result = 0;
  const uint8_t *keyword, *dict;
  while (next_stream(&at, data, end, &keyword, &dict)) {
    char chain[8];
    /* the JPEG bytes as they are in the file: DCTDecode the only filter */
    if (!dict_has(dict, keyword, "/DCT") || filter_chain(dict, keyword, chain, (int)sizeof chain) != 1 || chain[0] != 'D')
      continue;
    const uint8_t *stop = find_bytes(at, end, "endstream");
    if (!stop)
      break;
    char said[160];
    if (tc_verify_jpeg_buffer(at, (size_t)(stop - at), said, sizeof said)) {
      snprintf(reason, reason_size, "has a damaged JPEG image at byte %zu (libjpeg: %s)", (size_t)(at - data), said);
      result = -1;
      break;
    }
    at = stop;
  }
  munmap((void *)data, size);
  return result;
}
