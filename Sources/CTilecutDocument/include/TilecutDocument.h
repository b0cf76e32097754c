#ifndef TILECUT_DOCUMENT_H
#define TILECUT_DOCUMENT_H

#include <vips/vips.h>

/* Page `page` of a PDF rendered by poppler at `scale` (1 = one pixel a point, the
 * size libvips' pdfload gives: each side rounded to nearest), as an RGBA8 libvips
 * image with a transparent background. Rows are rendered when asked for, in bands
 * of the whole width and `band_rows` rows, one band held at a time: libvips'
 * pdfload renders 4000 × 4000 tiles and keeps two rows of them, 512 MB for a
 * page 14000 px wide. Read top to bottom, each band is rendered once.
 * poppler walks the page's whole content stream for every render, so a page of
 * more than 4 bands is walked once per quarter of its height, into a cairo
 * recording of what falls on that quarter, which its bands replay: 4 walks of
 * the page instead of one a band (35 for a 14000 × 10000 px page in 16 MB bands),
 * for the memory of a quarter of the page's drawing. */
int tc_pdf_open_banded(const char *filename, int page, double scale, int band_rows, VipsImage **out);

#endif
