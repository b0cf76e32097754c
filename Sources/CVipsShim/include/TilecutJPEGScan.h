#ifndef TILECUT_JPEG_SCAN_H
#define TILECUT_JPEG_SCAN_H

#include <stddef.h>

/* A JPEG's whole entropy-coded data decoded by libjpeg (at 1/8 scale, a row at a
 * time): 0 when it decodes without a single warning; -1 with libjpeg's first
 * warning or error in `reason` ("Corrupt JPEG data: premature end of data
 * segment"). A file, or bytes in memory (a PDF's DCT stream). */
int tc_verify_jpeg_file(const char *filename, char *reason, size_t reason_size);
int tc_verify_jpeg_buffer(const void *data, size_t length, char *reason, size_t reason_size);

#endif
