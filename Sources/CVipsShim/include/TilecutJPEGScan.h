#ifndef TILECUT_JPEG_SCAN_H
#define TILECUT_JPEG_SCAN_H

#include <stddef.h>

/* A JPEG's whole entropy-coded data decoded by libjpeg (at 1/8 scale, a row at a
 * time): 0 when it decodes without a single warning; -1 with libjpeg's first
 * warning or error in `reason` ("Corrupt JPEG data: premature end of data
 * segment"). A file, or bytes in memory (a PDF's DCT stream). */
int tc_verify_jpeg_file(const char *filename, char *reason, size_t reason_size);
int tc_verify_jpeg_buffer(const void *data, size_t length, char *reason, size_t reason_size);

/* libvips' image, declared here so that this header does not own libvips' */
struct _VipsImage;

/* Opens a JPEG on tilecut's reader (libjpeg, rows decoded in order as they are
 * asked for; a request above the last row read starts again from the top): 8-bit
 * greyscale or YCbCr/RGB, as an sRGB RGBA8 image with the pixels libvips'
 * jpegload followed by tc_to_srgba gives. Any libjpeg warning, to the end of the
 * file, fails the read with libjpeg's words in libvips' error buffer. Returns 1 and
 * sets *out for such a file, 0 for any other (CMYK, 12-bit, not a JPEG): open that
 * one with libvips. */
int tc_jpeg_open(const char *filename, struct _VipsImage **out);

/* 1 when tilecut's reader has decoded this version of the file (device, inode,
 * size, modification time) to its end marker without a warning. */
int tc_jpeg_read_whole(const char *filename);

/* Whether tc_jpeg_open reads this file (and so checks its scan as it reads). */
int tc_jpeg_reads(const char *filename);

#endif
