#ifndef TILECUT_DIGEST_H
#define TILECUT_DIGEST_H

#include <stddef.h>

/* SHA-256 through Nettle (the SHA extensions where the CPU has them): the digests of
 * tiles, sources and store files. */

/* One-shot: the 32-byte digest of `length` bytes. Returns 0 (-1 is kept for a library that can fail). */
int tc_sha256(const void *data, size_t length, unsigned char digest[32]);

/* Streamed: a context (NULL when it cannot be allocated), bytes added to it, then its digest;
 * tc_sha256_end frees the context whatever it returns. */
void *tc_sha256_begin(void);
int tc_sha256_update(void *context, const void *data, size_t length);
int tc_sha256_end(void *context, unsigned char digest[32]);

/* XXH3-128 (xxHash 0.8, compiled in from libxxhash-dev's header): the digests of a
 * source's decoded pixel blocks (`PixelBlocks`), where SHA-256 was a sixth of an edited
 * plan's rebuild. The 16 bytes are the hash's canonical (big-endian) form. */
int tc_xxh3(const void *data, size_t length, unsigned char digest[16]);
void *tc_xxh3_begin(void);
int tc_xxh3_update(void *context, const void *data, size_t length);
/* Frees the context whatever it returns. */
int tc_xxh3_end(void *context, unsigned char digest[16]);

#endif
