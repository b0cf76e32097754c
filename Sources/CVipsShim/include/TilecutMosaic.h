#ifndef TILECUT_MOSAIC_H
#define TILECUT_MOSAIC_H

#include <vips/vips.h>
#include <stddef.h>

/* A tile store read as one raster (a source given as MBTiles, PMTiles or a tilecut
 * output): each tile decoded lazily from memory, the grid joined by arrayjoin. */

/* One tile's bytes, copied (the copy is freed when the image closes), opened by
 * the named loader ("pngload", "jpegload", "webpload": never libvips' guess),
 * header only; damage is an error when its pixels are read (fail_on warning). */
int tc_load_tile_copy(const char *loader, const void *data, size_t length, VipsImage **out);

/* A transparent sRGB RGBA8 image of width × height: a cell with no tile. */
int tc_blank_rgba(int width, int height, VipsImage **out);

/* `count` images of one size joined `across` per row, left to right, top to bottom. */
int tc_arrayjoin(VipsImage **in, int count, int across, VipsImage **out);

#endif
