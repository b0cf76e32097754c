#include <string.h>
#include "TilecutDigest.h"

#include <nettle/sha2.h>
#include <stdlib.h>

/* SHA-256 with Nettle: no library state to set up (OpenSSL 3's first digest loaded its
 * providers, 2 MB of libcrypto made resident in every run), the SHA extensions where the
 * CPU has them (Nettle's own dispatch). */
int tc_sha256(const void *data, size_t length, unsigned char digest[32]) {
  struct sha256_ctx context;
  sha256_init(&context);
  sha256_update(&context, length, data);
  sha256_digest(&context, SHA256_DIGEST_SIZE, digest);
  return 0;
}

void *tc_sha256_begin(void) {
  struct sha256_ctx *context = malloc(sizeof *context);
  if (context)
    sha256_init(context);
  return context;
}

int tc_sha256_update(void *context, const void *data, size_t length) {
  sha256_update(context, length, data);
  return 0;
}

int tc_sha256_end(void *context, unsigned char digest[32]) {
  sha256_digest(context, SHA256_DIGEST_SIZE, digest);
  free(context);
  return 0;
}

#define XXH_INLINE_ALL
#include <xxhash.h>

static void canonical(XXH128_hash_t hash, unsigned char digest[16]) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, hash);
  memcpy(digest, c.digest, 16);
}

int tc_xxh3(const void *data, size_t length, unsigned char digest[16]) {
  canonical(XXH3_128bits(data, length), digest);
  return 0;
}

void *tc_xxh3_begin(void) {
  XXH3_state_t *state = XXH3_createState();
  if (state && XXH3_128bits_reset(state) != XXH_OK) {
    XXH3_freeState(state);
    return NULL;
  }
  return state;
}

/* tc_xxh3_update: TilecutXXH3Wide.c, on the CPU's widest vectors */

int tc_xxh3_end(void *context, unsigned char digest[16]) {
  canonical(XXH3_128bits_digest(context), digest);
  XXH3_freeState(context);
  return 0;
}
