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
 * RGBA8 pixels per output row at out + r·out_stride.
 *
 * `filter` (--resampling) picks the kernel: TC_FILTER_BILINEAR is the above;
 * TC_FILTER_NEAREST copies the source pixel whose centre is nearest (no new
 * colours); TC_FILTER_AVERAGE weighs each source pixel by the area it shares with
 * the output pixel's footprint (max(rx, 1) × max(ry, 1) source pixels);
 * TC_FILTER_LANCZOS3 is the separable Lanczos-3 kernel, stretched by rx and ry
 * when reducing (it reads source rows within 3·ry of the sample, see
 * tc_filter_support). */
enum { TC_FILTER_BILINEAR = 0, TC_FILTER_NEAREST = 1, TC_FILTER_AVERAGE = 2, TC_FILTER_LANCZOS3 = 3 };

/* How far from a sample, in units of the radius r, a filter reads source pixels. */
double tc_filter_support(int filter);

void tc_resample_rows(const uint8_t *const *rows, int band_top, int band_rows, int src_width, int src_height,
                      const double *sx0, const double *sy0, double dsx, double dsy, double rx, double ry,
                      int filter, int out_width, int out_rows, uint8_t *out, size_t out_stride);

#endif
