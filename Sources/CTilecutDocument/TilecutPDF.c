#include "TilecutPDF.h"
#include "TilecutBands.h"

#include <cairo.h>
#include <limits.h>
#include <math.h>
#include <poppler.h>
#include <stdlib.h>
#include <string.h>

#include "TilecutPlatform.h"

/* One page of an open PDF and the scale it is rendered at. */
typedef struct {
  PopplerDocument *doc;
  PopplerPage *page;
  double scale;
  /* the file, named by the line a library's abort ends the run with (NULL: from bytes) */
  char *path;
} TcPdfPage;

static void pdf_page_free(void *p) {
  TcPdfPage *d = p;
  if (!d)
    return;
  if (d->page)
    g_object_unref(d->page);
  if (d->doc)
    g_object_unref(d->doc);
  free(d->path);
  free(d);
}

/* The page at its scale, moved so that pixel (left, top) is the origin: scaled
 * first, then moved in points, as libvips' pdfload renders a tile. poppler walks
 * the whole content stream whatever the clip. */
static int pdf_draw(void *ctx, cairo_t *cr, int left, int top) {
  TcPdfPage *d = ctx;
  cairo_scale(cr, d->scale, d->scale);
  cairo_translate(cr, -left / d->scale, -top / d->scale);
  const char *was = tc_enter_input(d->path);
  poppler_page_render(d->page, cr);
  tc_leave_input(was);
  return 0;
}

/* Renders page `page` of the document `d` holds (taking `d` and `error`) in bands;
 * -1 with `error`'s message when the document did not open. */
static int open_page(TcPdfPage *d, GError *error, int page, double scale, int band_rows, VipsImage **out) {
  if (!d->doc) {
    vips_error("pdfload", "%s", error ? error->message : "cannot open the document");
    if (error)
      g_error_free(error);
    pdf_page_free(d);
    return -1;
  }
  if (error)
    g_error_free(error);
  if (page < 0 || page >= poppler_document_get_n_pages(d->doc) || !(d->page = poppler_document_get_page(d->doc, page))) {
    vips_error("pdfload", "unable to load page %d", page);
    pdf_page_free(d);
    return -1;
  }
  double w = 0, h = 0;
  poppler_page_get_size(d->page, &w, &h);
  /* rounded to nearest, as libvips' pdfload sizes a page */
  double width = rint(w * scale), height = rint(h * scale);
  if (!(width >= 1 && height >= 1 && width <= INT_MAX / 8 && height <= INT_MAX)) {
    vips_error("pdfload", "the page is %g × %g pt, which cannot be rendered at scale %g", w, h, scale);
    pdf_page_free(d);
    return -1;
  }
  /* recorded a slab at a time: a replayed band equals the walked one (at 64 rows
   * or more, the fewest banded() asks for) */
  return tc_bands_open("pdfload", (int)width, (int)height, band_rows, 1, pdf_draw, d, pdf_page_free,
                       TC_UNPREMULTIPLY_ROUND, out);
}

/* A new page record at `scale`, or NULL with a libvips error. */
static TcPdfPage *new_page(double scale, int band_rows) {
  if (!(scale > 0) || band_rows < 1) {
    vips_error("pdfload", "bad scale or band height");
    return NULL;
  }
  TcPdfPage *d = calloc(1, sizeof *d);
  if (!d) {
    vips_error("pdfload", "out of memory");
    return NULL;
  }
  d->scale = scale;
  return d;
}

int tc_pdf_open_banded(const char *filename, int page, double scale, int band_rows, VipsImage **out) {
  *out = NULL;
  TcPdfPage *d = new_page(scale, band_rows);
  if (!d)
    return -1;
  GError *error = NULL;
  char *absolute = realpath(filename, NULL);
  char *uri = absolute ? g_filename_to_uri(absolute, NULL, &error) : NULL;
  free(absolute);
  d->path = strdup(filename);
  const char *was = tc_enter_input(filename);
  if (uri)
    d->doc = poppler_document_new_from_file(uri, NULL, &error);
  tc_leave_input(was);
  g_free(uri);
  return open_page(d, error, page, scale, band_rows, out);
}

int tc_pdf_open_banded_bytes(GBytes *bytes, int page, double scale, int band_rows, VipsImage **out) {
  *out = NULL;
  TcPdfPage *d = new_page(scale, band_rows);
  if (!d)
    return -1;
  GError *error = NULL;
  d->doc = poppler_document_new_from_bytes(bytes, NULL, &error);
  return open_page(d, error, page, scale, band_rows, out);
}
