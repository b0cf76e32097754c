#include "TilecutCheck.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Why this file exists: libvips' GIF loader pads a frame whose LZW data ends
 * before its last pixel (a truncated download is tiled with a blank band), and
 * allocates the logical screen and each frame whole from what their headers say.
 * The blocks are walked and each frame's codes decoded, counting pixels only (a
 * table of string lengths, no pixels): time follows the file's size. */

static unsigned le16(const uint8_t *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }

/* Skips sub-blocks from *at to their terminator; 0, or -1 when the file ends first. */
static int skip_blocks(const uint8_t *data, size_t n, size_t *at) {
  while (*at < n) {
    size_t size = data[*at];
    *at += 1;
    if (size == 0) return 0;
    if (size > n - *at) return -1;
    *at += size;
  }
  return -1;
}

/* The pixels one frame's LZW data (sub-blocks from *at) decodes to, counted up
 * to `want`; *at ends after the terminator. -1: the file ends inside the data;
 * -2: a code that is not in the table. */
static long long count_pixels(const uint8_t *data, size_t n, size_t *at, unsigned min_size, uint64_t want) {
  static const unsigned max_codes = 4096;
  uint16_t length[4096];
  unsigned clear = 1u << min_size, end = clear + 1;
  for (unsigned k = 0; k < clear; k++) length[k] = 1;
  unsigned width = min_size + 1, next = end + 1;
  int prev = -1, ended = 0;
  uint64_t count = 0;
  uint32_t bits = 0;
  unsigned have = 0;
  while (*at < n) {
    size_t size = data[*at];
    *at += 1;
    if (size == 0) return (long long)count;
    if (size > n - *at) return -1;
    const uint8_t *p = data + *at;
    *at += size;
    for (size_t k = 0; k < size && !ended; k++) {
      bits |= (uint32_t)p[k] << have;
      have += 8;
      while (have >= width && !ended) {
        unsigned code = bits & ((1u << width) - 1);
        bits >>= width;
        have -= width;
        if (code == clear) {
          width = min_size + 1;
          next = end + 1;
          prev = -1;
          continue;
        }
        if (code == end) {
          ended = 1;
          break;
        }
        unsigned len;
        if (prev < 0) {
          if (code >= clear) return -2;
          len = 1;
        } else if (code < next) {
          len = length[code];
        } else if (code == next && next < max_codes) {
          len = length[prev] + 1u;
        } else {
          return -2;
        }
        if (count < want) count += len;
        if (prev >= 0 && next < max_codes) {
          length[next] = (uint16_t)(length[prev] + 1u > 4096u ? 4096u : length[prev] + 1u);
          next++;
          if (next == (1u << width) && width < 12) width++;
        }
        prev = (int)code;
      }
    }
  }
  return -1;
}

int tc_check_gif_buffer(const void *buffer, size_t n, TcFileCheck *out) {
  const uint8_t *data = buffer;
  memset(out, 0, sizeof *out);
  if (n < 13 || memcmp(data, "GIF", 3) != 0) return tc_check_refuse(out, "is truncated inside its GIF header");
  unsigned screen_w = le16(data + 6), screen_h = le16(data + 8);
  uint64_t largest = (uint64_t)screen_w * screen_h;
  out->width = screen_w;
  out->height = screen_h;
  size_t at = 13;
  if (data[10] & 0x80) at += 3u * (2u << (data[10] & 7));
  int frame = 0;
  for (;;) {
    if (at >= n) return tc_check_refuse(out, "is truncated: it ends before its trailer (after %d frame%s)", frame, frame == 1 ? "" : "s");
    uint8_t kind = data[at];
    if (kind == 0x3B) break;
    if (kind == 0x21) {
      at += 2;
      if (at > n || skip_blocks(data, n, &at) != 0)
        return tc_check_refuse(out, "is truncated inside an extension block (after %d frame%s)", frame, frame == 1 ? "" : "s");
      continue;
    }
    if (kind != 0x2C) return tc_check_refuse(out, "is damaged: byte 0x%02X at offset %zu is no GIF block", kind, at);
    frame++;
    if (n - at < 11) return tc_check_refuse(out, "is truncated inside frame %d's descriptor", frame);
    unsigned w = le16(data + at + 5), h = le16(data + at + 7);
    uint8_t flags = data[at + 9];
    at += 10;
    if (flags & 0x80) at += 3u * (2u << (flags & 7));
    if ((uint64_t)w * h > largest) {
      largest = (uint64_t)w * h;
      out->width = w;
      out->height = h;
    }
    if (at >= n) return tc_check_refuse(out, "is truncated before frame %d's image data", frame);
    unsigned min_size = data[at++];
    if (min_size < 1 || min_size > 11) return tc_check_refuse(out, "is damaged: frame %d's LZW code size is %u", frame, min_size);
    uint64_t want = (uint64_t)w * h;
    long long got = count_pixels(data, n, &at, min_size, want);
    if (got == -1) return tc_check_refuse(out, "is truncated inside frame %d's image data", frame);
    if (got == -2) return tc_check_refuse(out, "is damaged: frame %d's image data has a code outside its LZW table", frame);
    if ((uint64_t)got < want)
      return tc_check_refuse(out, "is damaged: frame %d's image data holds %lld of its %u × %u pixels", frame, got, w, h);
  }
  out->whole_image_bytes = largest * 4;
  out->whole_image_kind = "GIF";
  return 0;
}

int tc_check_gif(const char *filename, TcFileCheck *out) {
  memset(out, 0, sizeof *out);
  int fd = open(filename, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return tc_check_refuse(out, "cannot be opened");
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size < 13) {
    close(fd);
    return tc_check_refuse(out, "is truncated inside its GIF header");
  }
  void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return tc_check_refuse(out, "cannot be read");
  int status = tc_check_gif_buffer(map, (size_t)st.st_size, out);
  munmap(map, (size_t)st.st_size);
  return status;
}
