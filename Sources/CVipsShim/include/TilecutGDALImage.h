#ifndef TILECUT_GDAL_IMAGE_H
#define TILECUT_GDAL_IMAGE_H

#include "TilecutGDAL.h"
#include <vips/vips.h>

/* A libvips image whose pixels are read through libgdal when libvips asks for them:
 * each region a window of `raster` (tc_gdal_raster_read), read under its lock through
 * GDAL's block cache, never the whole raster at once. `bands` and `format` as the
 * raster's reads give them (a palette: 4 bands of uchar; a mask: 1 band of uchar). The
 * image owns `raster` and closes it with the image, on failure too. 0, or -1 with a
 * libvips error. */
int tc_gdal_image(tc_gdal_raster *raster, int width, int height, int bands, VipsBandFormat format,
                  VipsInterpretation interpretation, VipsImage **out);

/* `image` (sRGB RGBA8) with its alpha multiplied by `mask` (one band of uchar, 255
 * valid, 0 masked), as gdalwarp weighs source pixels by GDAL's mask. */
int tc_apply_mask(VipsImage *image, VipsImage *mask, VipsImage **out);

#endif
