#ifndef TILECUT_LOSSY_H
#define TILECUT_LOSSY_H

#include <stddef.h>
#include <stdint.h>

/* Lossy tiles encoded straight from RGBA8 rows `stride` bytes apart (a tile read in
 * place from a wider strip), with libwebp and libjpeg directly: no libvips image,
 * no packed copy of the tile. Both return a malloc'd buffer (free with
 * tc_lossy_free) and its length, or NULL on failure. */

/* libwebp's settings for one tile; tc_webp_options_default gives libwebp's own
 * defaults (those of vips webpsave) at the given quality and method. */
typedef struct {
  int quality;          /* 0–100 */
  int method;           /* 0 (fast) – 6 (small): libwebp's effort */
  int segments;         /* 1–4 */
  int sns_strength;     /* 0–100 */
  int filter_strength;  /* 0–100 */
  int filter_sharpness; /* 0–7 */
  int autofilter;       /* 0 or 1 */
  int preprocessing;    /* 0–7 */
} tc_webp_options;

tc_webp_options tc_webp_options_default(int quality, int method);

/* Lossy WebP; an alpha plane only where some pixel is not opaque, kept losslessly
 * (libwebp's alpha_quality 100, as vips webpsave writes it). */
uint8_t *tc_webp_encode_rows(const uint8_t *rgba, size_t stride, int width, int height, const tc_webp_options *options,
                             size_t *length);

/* Baseline JPEG at `quality` (libjpeg's standard tables, 4:2:0 below quality 90 and
 * 4:4:4 from 90, as vips jpegsave does; the accurate integer DCT), with optimised
 * Huffman tables when `optimize` is set (the same pixels, fewer bytes). Pixels that are
 * not opaque are flattened onto fill (RGB) as vips_flatten does. */
uint8_t *tc_jpeg_encode_rows(const uint8_t *rgba, size_t stride, int width, int height, int quality, int optimize,
                             const uint8_t fill[3], size_t *length);

void tc_lossy_free(uint8_t *buffer);

#endif
