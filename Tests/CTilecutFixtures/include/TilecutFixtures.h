#ifndef TILECUT_FIXTURES_H
#define TILECUT_FIXTURES_H

#include <vips/vips.h>

/* Writes an image in the format the file name's extension names (libvips' savers). */
int tc_save_file(VipsImage *in, const char *filename);
/* The RGB of `rgba` saved (as its extension says: a JPEG) with EXIF orientation `orientation`. */
int tc_save_oriented(VipsImage *rgba, int orientation, const char *filename);
/* Writes RGBA8 as another kind of file for tests: 0 = 16-bit RGBA PNG,
 * 1 = grey + alpha PNG, 2 = CMYK JPEG (libvips' built-in profile). */
int tc_save_variant(VipsImage *rgba, int variant, const char *filename);
/* Writes a tall image as pages of `page_height` (multi-page TIFF, GIF, WebP). */
int tc_save_pages(VipsImage *tall, int page_height, const char *filename);

/* Writes a small striped GeoTIFF, for tests: `bands` samples of `bits` (8, 16 or 32)
 * per pixel, `sample_format` 1 unsigned, 2 signed, 3 float; `tiepoints` (6 numbers
 * each, `tiepoint_values` in all) and `scale` (3) or `matrix` (16) may be NULL; GeoKeys as (key, value) pairs of
 * SHORT keys and of DOUBLE keys; `nodata` (may be NULL) as the GDAL_NODATA tag.
 * Returns 0 on success. */
int tc_geotiff_write(const char *path, int width, int height, int bands, int bits, int sample_format,
                     const void *pixels, const double *tiepoints, int tiepoint_values, const double *scale,
                     const double *matrix,
                     const int *short_keys, const int *short_values, int short_count, const int *double_keys,
                     const double *double_values, int double_count, const char *nodata);

/* A PDF rewritten by qpdf with every stream's bytes and filters kept as they are:
 * `mode` 0 puts every object it can in compressed object streams (with an xref
 * stream), 1 encrypts it with 128-bit RC4, 2 with 256-bit AES, both with an empty
 * user password (which PDF readers open without asking). 0, or -1 when qpdf fails. */
int tc_fixture_pdf_rewrite(const char *in, const char *out, int mode);

#endif
