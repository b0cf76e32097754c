#ifndef TILECUT_PNG_READ_H
#define TILECUT_PNG_READ_H

#include <stddef.h>

/* libvips' image, declared here so that this header does not own libvips' */
struct _VipsImage;

/* Opens the common PNGs on ISA-L's inflate instead of libpng + zlib: bit depth
 * 8 or less, not interlaced, grey, grey + alpha, RGB, RGBA or palette, with or
 * without tRNS. The result is an sRGB RGBA8 libvips image whose rows are
 * decoded in order as they are asked for (a request above the last row read
 * starts again from the top), with the pixels libvips' pngload followed by
 * tc_to_srgba gives. Returns 1 and sets *out for such a file, 0 for any other
 * file (interlaced, 16-bit, an ICC profile, anything irregular before the pixel
 * data, not a PNG at all): open that one with libvips, which reads it or says
 * what is wrong in its own words. Errors in the pixel data (truncated, corrupt)
 * fail the read with a one-line reason in libvips' error buffer. */
int tc_png_open(const char *filename, struct _VipsImage **out);

/* Takes `count` rows from row `top`, each RGBA8, `stride` bytes apart, readable
 * until the next call returns (so that they can be digested while the next rows
 * are decoded); nonzero stops the read. */
typedef int (*TcPngRows)(void *context, const unsigned char *rows, unsigned top, unsigned count, size_t stride);

/* Reads an image tc_png_open made (itself, not an image made from it) whole, top to
 * bottom, handing its rows to `rows` as they are decoded, without libvips' regions
 * between (no copies of the rows for an RGBA8 file). Returns 1 when every row was
 * read, 0 when `image` is not one this reader made (read it through libvips), -1 on
 * an error (said in libvips' error buffer). */
int tc_png_scan(struct _VipsImage *image, TcPngRows rows, void *context);

/* Rows [top, top + count) of an image tc_png_open made (itself, not an image made from
 * it), whole, RGBA8, into `out` (4 × width bytes a row), decoded as libvips would ask
 * for them but without its region between (one copy of each row fewer). Returns 1
 * when the rows were read, 0 when `image` is not one this reader made (fetch them
 * through libvips), -1 on an error (said in libvips' error buffer). */
int tc_png_fetch(struct _VipsImage *image, int top, int count, unsigned char *out);

/* Columns [left, left + width) of rows [top, top + count), as tc_png_fetch reads them
 * (every row is still inflated whole), into `out`, rows `stride` bytes apart: what an
 * incremental rebuild's resampler reads of a wide source around a small edit. */
int tc_png_fetch_columns(struct _VipsImage *image, int top, int count, int left, int width, unsigned char *out,
                         size_t stride);

/* How many times a reader of this process started at a mark another reader of
 * the same file left (rows far down a PNG read without inflating those above
 * them again; TilecutPNGRead.c says how), for tests. */
int tc_png_mark_jumps(void);

/* How many times a reader of this process went back to the top of its file's pixel
 * data (for a row above the one it stands at, or to skim to a mark), for tests: a
 * caller that asks for a row in pieces must not make each piece do so. */
int tc_png_rewinds(void);

/* How many marks this process holds for the file at `filename` (by device and inode),
 * for tests: only tc_png_scan leaves them. */
int tc_png_marks_held(const char *filename);

/* Whether tilecut's own PNG reader (TilecutPNGRead.h) decodes this file, which
 * checks the stream itself as it reads. */
int tc_png_reads(const char *filename);

#endif
