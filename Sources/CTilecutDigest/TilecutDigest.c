#include <string.h>
#include "TilecutDigest.h"

#include <openssl/evp.h>
#include <pthread.h>

/* The SHA-256 implementation fetched once: EVP_sha256() in OpenSSL 3 looks the
 * provider up again at every EVP_DigestInit, a cost that shows with small tiles. */
static EVP_MD *sha256_md;
static pthread_once_t fetched = PTHREAD_ONCE_INIT;

static void fetch(void) { sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL); }

static const EVP_MD *md(void) {
  pthread_once(&fetched, fetch);
  return sha256_md ? sha256_md : EVP_sha256();
}

int tc_sha256(const void *data, size_t length, unsigned char digest[32]) {
  unsigned int size = 0;
  if (EVP_Digest(data, length, digest, &size, md(), NULL) != 1 || size != 32)
    return -1;
  return 0;
}

void *tc_sha256_begin(void) {
  EVP_MD_CTX *context = EVP_MD_CTX_new();
  if (context && EVP_DigestInit_ex(context, md(), NULL) != 1) {
    EVP_MD_CTX_free(context);
    return NULL;
  }
  return context;
}

int tc_sha256_update(void *context, const void *data, size_t length) {
  return EVP_DigestUpdate((EVP_MD_CTX *)context, data, length) == 1 ? 0 : -1;
}

int tc_sha256_end(void *context, unsigned char digest[32]) {
  unsigned int size = 0;
  int ok = EVP_DigestFinal_ex((EVP_MD_CTX *)context, digest, &size) == 1 && size == 32;
  EVP_MD_CTX_free((EVP_MD_CTX *)context);
  return ok ? 0 : -1;
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

int tc_xxh3_update(void *context, const void *data, size_t length) {
  return XXH3_128bits_update(context, data, length) == XXH_OK ? 0 : -1;
}

int tc_xxh3_end(void *context, unsigned char digest[16]) {
  canonical(XXH3_128bits_digest(context), digest);
  XXH3_freeState(context);
  return 0;
}
