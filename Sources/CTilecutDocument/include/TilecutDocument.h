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
 * more than 4 bands is walked once per slab of bands (a quarter of them, at most
 * 4) into a cairo recording of what falls on the slab, which its bands replay:
 * 9 walks instead of 36 for a 14500 × 10200 px page in 16 MB bands (libvips'
 * pdfload: 12), for the memory of the drawing that meets the slab. */
int tc_pdf_open_banded(const char *filename, int page, double scale, int band_rows, VipsImage **out);

#endif
