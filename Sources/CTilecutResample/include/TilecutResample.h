#ifndef TILECUT_RESAMPLE_H
#define TILECUT_RESAMPLE_H

#include <stddef.h>
#include <stdint.h>

/* Resampling of packed RGBA8 rows, premultiplied by alpha, with pixels outside
 * the source transparent (libvips' affine with extend black, in the same index
 * convention: source pixel i has its centre at index i).
 *
 * Output row r (0 ≤ r < out_rows), column X samples the source at index
 * (sx0[r] + dsx·X, sy0[r] + dsy·X), bilinearly; an output pixel much coarser
 * than the source (rx or ry, the source pixels one output step spans, from 1 to
 * 4, over 1.25) takes a separable tent filter of those radii instead, like GDAL's
 * bilinear when it reduces, so that thin lines are averaged, not skipped.
 * `rows` holds pointers to the source rows band_top ..< band_top + band_rows
 * (each src_width pixels); samples outside the band are treated as outside the
 * source, so the band must cover every row the output touches. Writes out_width
 * RGBA8 pixels per output row at out + r·out_stride. */
void tc_resample_rows(const uint8_t *const *rows, int band_top, int band_rows, int src_width, int src_height,
                      const double *sx0, const double *sy0, double dsx, double dsy, double rx, double ry,
                      int out_width, int out_rows, uint8_t *out, size_t out_stride);

#endif
