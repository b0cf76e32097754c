#ifndef TILECUT_BANDS_H
#define TILECUT_BANDS_H

/* The band renderer the PDF and SVG readers share (internal to CTilecutDocument). */

#include <cairo.h>
#include <vips/vips.h>

/* Draws the whole document at the render scale so that its pixel (left, top) lands
 * on the surface's origin. 0, or -1 with a libvips error set. */
typedef int (*TcDrawFn)(void *ctx, cairo_t *cr, int left, int top);

/* How cairo's premultiplied pixels are turned back into straight RGBA: rounded to
 * nearest (as libvips' pdfload does) or truncated (as its svgload does). */
typedef enum { TC_UNPREMULTIPLY_ROUND, TC_UNPREMULTIPLY_TRUNCATE } TcUnpremultiply;

/* A `width` × `height` RGBA8 libvips image whose rows `draw` renders when asked
 * for, in bands of the whole width and `band_rows` rows, one band held at a time,
 * through one lock (the document libraries are not thread-safe). With `slabs`, a
 * document of more than 4 bands is drawn once per slab of bands (a quarter of them, at most 4)
 * into a cairo recording of what falls on the slab, which its bands replay: the
 * libraries walk the whole document for any render, whatever the clip. The image
 * owns `ctx` and frees it with `free_ctx`, on failure too. `domain` names the
 * loader in errors. */
int tc_bands_open(const char *domain, int width, int height, int band_rows, int slabs, TcDrawFn draw, void *ctx,
                  void (*free_ctx)(void *), TcUnpremultiply unpremultiply, VipsImage **out);

#endif
