#ifndef TILECUT_DOCUMENT_H
#define TILECUT_DOCUMENT_H

#include <vips/vips.h>

/* Page `page` of a PDF rendered by poppler at `scale` (1 = one pixel a point, the
 * size libvips' pdfload gives: each side rounded to nearest), as an RGBA8 libvips
 * image with a transparent background. Rows are rendered when asked for, in bands
 * of the whole width and `band_rows` rows, one band held at a time: libvips'
 * pdfload renders 4000 × 4000 tiles and keeps two rows of them, 512 MB for a
 * page 14000 px wide. Read top to bottom, each band is rendered once. */
int tc_pdf_open_banded(const char *filename, int page, double scale, int band_rows, VipsImage **out);

#endif
