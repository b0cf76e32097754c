#ifndef TILECUT_DIGEST_H
#define TILECUT_DIGEST_H

#include <stddef.h>

/* SHA-256 through OpenSSL's libcrypto (its EVP interface, the SHA extensions where the
 * CPU has them): the digests of tiles, sources and store files. */

/* One-shot: the 32-byte digest of `length` bytes. Returns 0, or -1 when libcrypto failed. */
int tc_sha256(const void *data, size_t length, unsigned char digest[32]);

/* Streamed: a context (NULL when libcrypto failed), bytes added to it, then its digest;
 * tc_sha256_end frees the context whatever it returns. */
void *tc_sha256_begin(void);
int tc_sha256_update(void *context, const void *data, size_t length);
int tc_sha256_end(void *context, unsigned char digest[32]);

#endif
