#ifndef TILECUT_PNG_READ_H
#define TILECUT_PNG_READ_H

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

/* Whether tilecut's own PNG reader (TilecutPNGRead.h) decodes this file, which
 * checks the stream itself as it reads. */
int tc_png_reads(const char *filename);

#endif
