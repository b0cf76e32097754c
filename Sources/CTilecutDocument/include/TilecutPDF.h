#ifndef TILECUT_PDF_H
#define TILECUT_PDF_H

#include <stdint.h>
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

/* Page `page` of a PDF whose visible content is only raster images (a scan, an
 * img2pdf or "print to PDF" page: the content stream is nothing but q, Q, cm and
 * Do of image XObjects), read from the embedded images themselves: DCT streams by
 * libvips' jpegload (shrink-on-load where the scale allows), Flate and LZW streams
 * as raw 8-bit pixels, each placed on the page by its transformation matrix, the
 * page's /Rotate and its crop box, at `scale` (the size and the pixel grid that
 * tc_pdf_open_banded gives the same page: poppler's render). RGBA8, transparent
 * where no image is. `sequential`: the page is read top to bottom (an upright
 * JPEG is then decoded as it is read).
 * 1 with *out set; 0 when the page is not one this reader fully understands
 * (anything else on the page, a soft mask, a /Decode array, an image mask,
 * another colour space or filter, a turned or skewed image, annotations, a file
 * qpdf cannot read): nothing is set and the caller renders the page with poppler;
 * -1 with a libvips error when libvips fails on an understood page. */
int tc_pdf_open_image_page(const char *filename, int page, double scale, int sequential, VipsImage **out);

/* tc_pdf_open_banded of a document held in memory. */
int tc_pdf_open_banded_bytes(GBytes *bytes, int page, double scale, int band_rows, VipsImage **out);

/* A mixed page: a scan with a drawing over it (markup, a plotted layer, a stamp).
 * Its content starts with images drawn as tc_pdf_open_image_page reads them, then
 * goes on with anything else. The images are read directly, as on an image page,
 * and poppler renders only what follows them (the same document with this page's
 * content cut to the rest), in bands, composited over the images: poppler never
 * decodes the images, and each slab's recording holds only the drawing.
 * `min_image_bytes`: a page whose images decode to fewer RGBA bytes than this is
 * left to poppler (0 when nothing else is on the page). 1 with *out set; 0 when
 * the page is not one (nothing set: render it with tc_pdf_open_banded); -1 with
 * a libvips error. */
int tc_pdf_open_mixed_page(const char *filename, int page, double scale, int sequential, int band_rows,
                           uint64_t min_image_bytes, VipsImage **out);

#endif
