#ifndef TILECUT_SVG_H
#define TILECUT_SVG_H

#include <vips/vips.h>

/* An SVG rendered by librsvg at `scale`, as an RGBA8 libvips image the size libvips'
 * svgload (8.14) gives it at that scale, measured by svgload's rules on the same
 * parse that renders it, with a transparent background. Rows are rendered
 * when asked for, in bands of the whole width and `band_rows` rows, one band held
 * at a time: libvips' svgload renders 2000 × 2000 tiles and keeps two rows of them,
 * 16 KB a column (800 MB for a drawing 50000 px wide). Read top to bottom, each
 * band is rendered once. The file is read as svgload reads it: its own directory
 * is the base for references, librsvg's limits stay on. */
int tc_svg_open_banded(const char *filename, double scale, int band_rows, VipsImage **out);

#endif
