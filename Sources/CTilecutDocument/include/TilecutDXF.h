#ifndef TILECUT_DXF_H
#define TILECUT_DXF_H

#include <stddef.h>

/* A CAD drawing's model space (a DXF, or a DWG GDAL's CAD driver reads; `dwg`) drawn
 * by cairo as an RGBA8 libvips image with a transparent background, in bands of the
 * whole width and `band_rows` rows, one band held at a time, as tc_svg_open_banded
 * draws an SVG. The frame: drawing point (x0, y_top) is the image's top-left corner,
 * `units_per_pixel` drawing units one pixel at scale 1, the image `width` × `height`
 * at scale 1 and each side rounded to nearest at `scale`. Strokes are
 * `px_per_mm` × `scale` pixels a millimetre of lineweight (0.25 mm by default), never
 * thinner than one pixel. `layers` as for tc_drawing_read; the display list may hold
 * `max_bytes`, a text `max_text` bytes. *out: a VipsImage (not named here: this header
 * stays free of libvips', whose enumerations Swift then no longer finds in CVips).
 * 0, or -1 with a libvips error. */
int tc_dxf_open_banded(const char *filename, int dwg, const char *layers, double x0, double y_top, double units_per_pixel,
                       int width, int height, double scale, double px_per_mm, int band_rows, size_t max_bytes,
                       size_t max_text, void **out);

/* What tc_dxf_open_banded draws of a drawing, measured: the extent of what is
 * drawn (extent: min x, min y, max x, max y in drawing units), the number of
 * things drawn, the features read and those left out (off or frozen layers).
 * 0 on success; 1 when it cannot be read or a bound is passed, -2 when libgdal
 * cannot be loaded (*error, to free(), says why). */
int tc_dxf_measure(const char *filename, int dwg, size_t max_bytes, size_t max_text, double extent[4], size_t *drawn,
                   size_t *features, size_t *hidden, char **error);

#endif
