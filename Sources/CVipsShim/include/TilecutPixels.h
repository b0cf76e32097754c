#ifndef TILECUT_PIXELS_H
#define TILECUT_PIXELS_H

#include <vips/vips.h>

/* Sources that are not 8-bit colour: band choice, scaling of one-band data
 * (elevation models, 16-bit scans) to 8 bits, nodata as transparency. */

/* The image's band count, band format (VipsBandFormat) and interpretation. */
void tc_pixel_layout(VipsImage *in, int *bands, int *format, int *interpretation);

/* The smallest and largest value of band 0 over the whole image, skipping NaN and,
 * when has_nodata, the nodata value. Returns 1 when some value was found, 0 when
 * none, -1 on a read error. Reads the image once, top to bottom. */
int tc_data_range(VipsImage *in, int has_nodata, double nodata, double *min, double *max);

/* Keeps the listed bands (0-based), in that order. */
int tc_select_bands(VipsImage *in, VipsImage **out, const int *bands, int count);

/* One band scaled to RGBA8: grey = (v − min) · 255 / (max − min), clipped; alpha 0
 * where v is NaN or (when has_nodata) equals nodata, 255 elsewhere. */
int tc_scale_to_srgba(VipsImage *in, VipsImage **out, double min, double max, int has_nodata, double nodata);

/* 8-bit colour with a nodata value: alpha 0 where every colour band equals it
 * (a black or white collar around an aerial photo), kept otherwise (an existing
 * alpha band is combined). */
int tc_nodata_to_alpha(VipsImage *in, VipsImage **out, double nodata);

/* RGBA8 whose alpha is kept only inside a polygon (a GeoPDF's map frame; outside it,
 * alpha 0): `n` points (x, y pairs, pixel corners of the image, any fraction, either
 * winding); each pixel's alpha times the share of it inside (exact across, 8 sub-rows
 * down), computed band by band as the image is read. `paper`: the page is first
 * flattened on white paper, so that inside the polygon it is opaque, as GDAL renders
 * a GeoPDF. */
int tc_clip_polygon(VipsImage *in, VipsImage **out, const double *xy, int n, int paper);

#endif
