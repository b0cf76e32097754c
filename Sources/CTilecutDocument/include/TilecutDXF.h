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
 * thinner than one pixel; texts at least `min_text_px` pixels high where that takes at
 * most three times their size (0: as drawn). `layers` as for tc_drawing_read; the
 * display list may hold `max_bytes`, a text `max_text` bytes. The file is parsed once
 * for every image of it (and its measure) while one of them is open, and kept for the
 * next until another drawing is read or tc_dxf_forget. *out: a VipsImage (not named here: this header
 * stays free of libvips', whose enumerations Swift then no longer finds in CVips).
 * 0, or -1 with a libvips error. */
int tc_dxf_open_banded(const char *filename, int dwg, const char *layers, double x0, double y_top, double units_per_pixel,
                       int width, int height, double scale, double px_per_mm, double min_text_px, int band_rows,
                       size_t max_bytes, size_t max_text, void **out);

/* The same drawing drawn straight onto another pixel grid (a level of a pyramid):
 * drawing point (x, y) is image pixel (map[0]·x + map[1]·y + map[2], map[3]·x +
 * map[4]·y + map[5]), any invertible affine map (turned, mirrored, sheared); the image
 * `width` × `height`, drawn only within the quadrilateral `clip` (x, y of 4 corners in
 * image pixels; NULL: not clipped). Strokes are `px_per_mm` pixels a millimetre of
 * lineweight; sizes in drawing units (texts, widths, dashes, hatch spacings) are
 * scaled by the map's scale, √|det|. Otherwise as tc_dxf_open_banded, which is this
 * with a north-up map of the frame. */
int tc_dxf_open_placed(const char *filename, int dwg, const char *layers, const double map[6], const double clip[8], int width,
                       int height, double px_per_mm, double min_text_px, int band_rows, size_t max_bytes, size_t max_text,
                       void **out);

/* Starts, on a thread of its own, what reading and drawing a drawing first waits for:
 * libgdal loaded (tc_gdal_load) and the face texts are drawn in found (fontconfig's
 * configuration read); returns at once. Safe to call many times. */
void tc_dxf_preload(void);

/* Starts reading the text DXF at `path` (at most one a process) into its display list on
 * a thread of its own, as tc_dxf_measure reads it under these bounds: its own scans while
 * libgdal loads, GDAL's parse as soon as it has; returns at once. A measure or an image
 * of the same drawing under the same bounds then waits for it and shares its list. */
void tc_dxf_read_ahead(const char *path, size_t max_bytes, size_t max_text);

/* Returns once the threads tc_dxf_preload and tc_dxf_read_ahead started (if any) are
 * done: before the process exits, so that libgdal's destructors never run under its
 * driver registration or a parse. */
void tc_dxf_preload_finish(void);

/* What tc_dxf_open_banded draws of a drawing, measured: the extent of what is
 * drawn (extent: min x, min y, max x, max y in drawing units), the number of
 * things drawn, the features read and those left out (off or frozen layers), and the
 * model-space tables and arc dimensions past the most drawn (`not_drawn`, left out),
 * and GDAL's warnings while reading it (*warnings, newline separated, to free(); NULL
 * when none: the file's own text may be in them; *warnings_dropped: those past them). 0 on success; 1 when it cannot be
 * read or a bound is passed, -2 when libgdal cannot be loaded (*error, to free(), says
 * why). */
int tc_dxf_measure(const char *filename, int dwg, size_t max_bytes, size_t max_text, double extent[4], size_t *drawn,
                   size_t *features, size_t *hidden, size_t *not_drawn, char **warnings, size_t *warnings_dropped,
                   char **error);

/* Frees the display lists of `path` (NULL: of every drawing) that no image draws from. */
void tc_dxf_forget(const char *path);

#endif
