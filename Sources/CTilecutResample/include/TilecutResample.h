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


/* tc_resample_rows over a window of the source: rows[i] points at source column
 * `origin` of row band_top + i, and only output columns x_first ..< x_first +
 * out_width are written, at out (column X still samples sx0[r] + dsx·X, so a
 * window gives the bytes the whole rows would). */
void tc_resample_window(const uint8_t *const *rows, int band_top, int band_rows, int origin, int src_width,
                        int src_height, const double *sx0, const double *sy0, int x_first, double dsx, double dsy,
                        double rx, double ry, int filter, int out_width, int out_rows, uint8_t *out,
                        size_t out_stride);

/* Source rows held deflated, for a band of rows far taller than a strip (a wide
 * source turned far from north-up): rows arrive in order in groups of
 * TC_PACKED_GROUP_ROWS, each cut into tiles of TC_PACKED_TILE_PX columns and
 * deflated (libdeflate, level 1; a tile that does not shrink is kept as is), and
 * `tc_packed_resample` inflates only the tiles under one block of output into a
 * small window before sampling it as tc_resample_rows would the whole band, so
 * the bytes are the same. Not thread-safe for appending; resampling from several
 * threads at once is safe, each with its own scratch. */
enum { TC_PACKED_GROUP_ROWS = 16, TC_PACKED_TILE_PX = 256 };
typedef struct tc_packed_rows tc_packed_rows;
typedef struct tc_packed_scratch tc_packed_scratch;
tc_packed_rows *tc_packed_new(int src_width, int src_height);
void tc_packed_free(tc_packed_rows *packed);
/* Appends rows top ..< top + count (top: the next row not yet appended; count a
 * multiple of TC_PACKED_GROUP_ROWS unless it reaches the source's end), each
 * row_bytes apart. Returns 0, or -1 when out of memory or out of order. */
int tc_packed_append(tc_packed_rows *packed, const uint8_t *rows, int top, int count, size_t row_bytes);
/* Frees the groups wholly above `row`. */
void tc_packed_drop_before(tc_packed_rows *packed, int row);
/* Rows appended so far; bytes held (deflated tiles and their tables). */
int tc_packed_rows_end(const tc_packed_rows *packed);
size_t tc_packed_bytes(const tc_packed_rows *packed);
tc_packed_scratch *tc_packed_scratch_new(void);
void tc_packed_scratch_free(tc_packed_scratch *scratch);
/* tc_resample_rows of output columns x_first ..< x_first + out_width (written at
 * out), the band band_top ..< band_top + band_rows read from `packed`. Returns 0,
 * or -1 when a row it needs was dropped or not appended yet, or memory ran out. */
int tc_packed_resample(const tc_packed_rows *packed, tc_packed_scratch *scratch, int band_top, int band_rows,
                       const double *sx0, const double *sy0, int x_first, double dsx, double dsy, double rx,
                       double ry, int filter, int out_width, int out_rows, uint8_t *out, size_t out_stride);

/* A composited tile waiting for the next building (LayerCompositor.pending), held
 * packed: tc_tile_is_zero says whether all `size` bytes are 0 (such a tile is kept
 * as a marker with no pixels); tc_tile_deflate deflates (libdeflate, level 1) into
 * out and returns the deflated size, or 0 when it does not fit in `capacity`;
 * tc_tile_inflate inflates exactly `size` bytes into raw and returns 0, or -1 when
 * the bytes are not a deflate stream of that size. Safe from several threads at
 * once (each thread has its own compressor and decompressor). */
int tc_tile_is_zero(const uint8_t *raw, size_t size);
size_t tc_tile_deflate(const uint8_t *raw, size_t size, uint8_t *out, size_t capacity);
int tc_tile_inflate(const uint8_t *packed, size_t packed_size, uint8_t *raw, size_t size);

#endif
