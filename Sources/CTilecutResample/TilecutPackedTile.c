#include "TilecutResample.h"

#include <libdeflate.h>
#include <pthread.h>
#include <string.h>

/* One compressor and one decompressor per thread, made on first use and freed when
 * the thread ends: a level-1 compressor is a few hundred KiB, too much to make per
 * tile, and libdeflate's are not safe to share between threads. */
static pthread_key_t compressor_key, decompressor_key;
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;

static void free_compressor(void *c) { libdeflate_free_compressor(c); }
static void free_decompressor(void *d) { libdeflate_free_decompressor(d); }

static void make_keys(void) {
  pthread_key_create(&compressor_key, free_compressor);
  pthread_key_create(&decompressor_key, free_decompressor);
}

static struct libdeflate_compressor *thread_compressor(void) {
  pthread_once(&keys_once, make_keys);
  struct libdeflate_compressor *c = pthread_getspecific(compressor_key);
  if (!c) {
    c = libdeflate_alloc_compressor(1);
    if (c && pthread_setspecific(compressor_key, c) != 0) {
      libdeflate_free_compressor(c);
      c = NULL;
    }
  }
  return c;
}

static struct libdeflate_decompressor *thread_decompressor(void) {
  pthread_once(&keys_once, make_keys);
  struct libdeflate_decompressor *d = pthread_getspecific(decompressor_key);
  if (!d) {
    d = libdeflate_alloc_decompressor();
    if (d && pthread_setspecific(decompressor_key, d) != 0) {
      libdeflate_free_decompressor(d);
      d = NULL;
    }
  }
  return d;
}

int tc_tile_is_zero(const uint8_t *raw, size_t size) {
  if (size == 0)
    return 1;
  return raw[0] == 0 && memcmp(raw, raw + 1, size - 1) == 0;
}

size_t tc_tile_deflate(const uint8_t *raw, size_t size, uint8_t *out, size_t capacity) {
  struct libdeflate_compressor *c = thread_compressor();
  if (!c)
    return 0;
  return libdeflate_deflate_compress(c, raw, size, out, capacity);
}

int tc_tile_inflate(const uint8_t *packed, size_t packed_size, uint8_t *raw, size_t size) {
  struct libdeflate_decompressor *d = thread_decompressor();
  if (!d)
    return -1;
  size_t got = 0;
  if (libdeflate_deflate_decompress(d, packed, packed_size, raw, size, &got) != LIBDEFLATE_SUCCESS || got != size)
    return -1;
  return 0;
}
