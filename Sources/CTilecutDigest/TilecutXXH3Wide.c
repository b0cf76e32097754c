/* XXH3-128's streaming update on the CPU's widest vectors. xxhash.h, compiled in, picks
 * its vector code when it is compiled: SSE2 on x86-64, whatever the CPU running it
 * has. The block digests of a source's pixels (PixelBlockHasher) feed it a gigabyte
 * for a 16384² plan; with AVX-512 it took about half the CPU time of SSE2 there
 * (bench/README.md). The digests do not depend on the code that makes them (xxHash
 * gives the same value on every path), so the choice is made once, from the CPU,
 * as xxHash's own xxh_x86dispatch.c does it. */
#include "TilecutDigest.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))

#include <immintrin.h>

#define XXH_INLINE_ALL
#define XXH_ACC_ALIGN 64 /* AVX-512's aligned loads (the state's accumulators are 64-aligned) */
#define XXH_DISPATCH_AVX2 1
#define XXH_DISPATCH_AVX512 1
#define XXH_TARGET_AVX2 __attribute__((__target__("avx2")))
#define XXH_TARGET_AVX512 __attribute__((__target__("avx512f")))
#include <xxhash.h>

static XXH_TARGET_AVX512 XXH_errorcode update_avx512(XXH3_state_t *state, const void *data, size_t length) {
  return XXH3_update(state, (const xxh_u8 *)data, length, XXH3_accumulate_512_avx512, XXH3_scrambleAcc_avx512);
}

static XXH_TARGET_AVX2 XXH_errorcode update_avx2(XXH3_state_t *state, const void *data, size_t length) {
  return XXH3_update(state, (const xxh_u8 *)data, length, XXH3_accumulate_512_avx2, XXH3_scrambleAcc_avx2);
}

static XXH_errorcode update_sse2(XXH3_state_t *state, const void *data, size_t length) {
  return XXH3_update(state, (const xxh_u8 *)data, length, XXH3_accumulate_512, XXH3_scrambleAcc);
}

typedef XXH_errorcode (*Update)(XXH3_state_t *, const void *, size_t);

static Update choose(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return update_avx512;
  if (__builtin_cpu_supports("avx2"))
    return update_avx2;
  return update_sse2;
}

int tc_xxh3_update(void *context, const void *data, size_t length) {
  static Update chosen; /* threads that race here store the same value */
  Update update = __atomic_load_n(&chosen, __ATOMIC_RELAXED);
  if (!update) {
    update = choose();
    __atomic_store_n(&chosen, update, __ATOMIC_RELAXED);
  }
  return update(context, data, length) == XXH_OK ? 0 : -1;
}

#else

#define XXH_INLINE_ALL
#include <xxhash.h>

int tc_xxh3_update(void *context, const void *data, size_t length) {
  return XXH3_128bits_update(context, data, length) == XXH_OK ? 0 : -1;
}

#endif
