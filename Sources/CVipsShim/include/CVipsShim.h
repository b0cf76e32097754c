#ifndef TILECUT_CVIPSSHIM_H
#define TILECUT_CVIPSSHIM_H

#include <vips/vips.h>
#include <stddef.h>
#include <stdint.h>

/* One small function per variadic libvips call Swift cannot make. Each returns
 * 0 on success and -1 on failure, with the reason in libvips' error buffer. */

int tc_init(const char *argv0);
void tc_block_untrusted(int block);

void tc_block_foreign_loaders(void);
int tc_has_operation(const char *nickname);
/* Opens `filename` with the loader the caller decided from the file's bytes (its
 * nickname: "pngload", "pdfload", …), never libvips' own guess; `page` < 0 and
 * `scale` <= 0 are left at the loader's defaults, as are options it does not have.
 * Damage is an error (fail_on warning). */
int tc_load_named(const char *loader, const char *filename, int page, double scale, int sequential,
                  VipsImage **out);
/* After a signal: every later tc_fetch fails and marks its image killed. */
void tc_cancel_all(void);

int tc_load_buffer(const void *data, size_t length, VipsImage **out);
/* An image held in memory (a KMZ's overlay), read by the named loader's buffer form
 * (`jpegload` reads through `jpegload_buffer`), never by libvips' guess; the bytes are
 * copied and freed with the image. `sequential`, `fail_on` as in tc_load_named. */
int tc_load_named_buffer(const char *loader, const void *data, size_t length, int sequential, VipsImage **out);
/* The EXIF orientation libvips read with the header (1: as stored, 2-8: turned or
 * mirrored to display), and the bytes of one pixel. */
int tc_orientation(VipsImage *image, size_t *pixel_bytes);
/* The image turned and mirrored as its orientation says (vips_autorot): as displayed. */
int tc_autorot(VipsImage *in, VipsImage **out);
/* Whether `loader` gives the file (page < 0: the default page) an alpha band. */
int tc_has_alpha(const char *loader, const char *filename, int page, int *alpha);
int tc_header_pages(VipsImage *image);

int tc_to_srgba(VipsImage *in, VipsImage **out);
int tc_crop(VipsImage *in, VipsImage **out, int left, int top, int width, int height);
int tc_embed(VipsImage *in, VipsImage **out, int x, int y, int width, int height);
int tc_premultiply(VipsImage *in, VipsImage **out);
int tc_unpremultiply_uchar(VipsImage *in, VipsImage **out);
int tc_shrink(VipsImage *in, VipsImage **out, double hshrink, double vshrink);
/* Every xfac-th column and yfac-th row (nearest resampling's pre-shrink: no mean). */
int tc_subsample(VipsImage *in, VipsImage **out, int xfac, int yfac);
/* The same of a source read top to bottom: its rows asked for whole, once, in order. */
int tc_subsample_rows(VipsImage *in, VipsImage **out, int xfac, int yfac);
int tc_row_index(int width, int height, const float *rows, const double xcoeff[3], VipsImage **out);
/* `interpolator`: a libvips interpolator's name ("nearest", "bilinear"). */
int tc_affine(VipsImage *in, VipsImage **out, const double m[4], double odx, double ody, int width, int height,
              const char *interpolator);
int tc_mapim(VipsImage *in, VipsImage *index, VipsImage **out, const char *interpolator);

int tc_fetch(VipsRegion *region, int left, int top, int width, int height, uint8_t *out);

int tc_save_png(VipsImage *in, int compression, int palette, void **buffer, size_t *length);
int tc_save_webp(VipsImage *in, int quality, int lossless, void **buffer, size_t *length);
/* Lossy WebP at `quality` with libwebp's `effort` (its method, 0 fast … 6 small). */
int tc_save_webp_effort(VipsImage *in, int quality, int effort, void **buffer, size_t *length);
/* JPEG of `in` flattened onto `fill` (RGB, 0-255). */
int tc_save_jpeg(VipsImage *in, int quality, const double fill[3], void **buffer, size_t *length);

/* An sRGB RGBA8 image of width × height whose rows `generate` makes as libvips
 * asks for them (thin strips, top to bottom), from `state`, which `release` frees
 * when the image closes: tilecut's own readers (PNG, JPEG). On failure `release`
 * has freed `state` and NULL is returned. */
VipsImage *tc_rows_image(int width, int height, VipsGenerateFn generate, void *state, void (*release)(void *));

#endif
