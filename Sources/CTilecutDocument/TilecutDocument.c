#include "TilecutDocument.h"

#include <cairo.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <poppler.h>
#include <stdlib.h>
#include <string.h>

/* Widest surface cairo is asked for at once (its limit is 32767). */
#define TC_CAIRO_COLUMNS 16384

/* A page of more bands than TC_SLABS is walked once per slab of bands (see
 * render_band): a quarter of its bands, at most TC_SLAB_BANDS, so that the
 * recording holds at most a quarter of the page's drawing, and no more than
 * what meets 4 bands. */
#define TC_SLABS 4
#define TC_SLAB_BANDS 4

typedef struct {
  GMutex lock;
  PopplerDocument *doc;
  PopplerPage *page;
  double scale;
  int width;
  int height;
  int band_rows;
  /* rows recorded by one walk of the page (a multiple of band_rows), or 0 when
   * each band walks the page itself */
  int slab_rows;
  /* the drawing over rows [slab_top, slab_top + slab_height) of the page, at the
   * render scale, shifted up by slab_top; NULL when none is held */
  cairo_surface_t *slab;
  int slab_top;
  int slab_height;
  /* RGBA8 rows [band_top, band_top + band_height) of the page, the whole width */
  uint8_t *band;
  int band_top;
  int band_height;
} TcDocument;

static void document_free(TcDocument *d) {
  if (!d)
    return;
  if (d->slab)
    cairo_surface_destroy(d->slab);
  if (d->page)
    g_object_unref(d->page);
  if (d->doc)
    g_object_unref(d->doc);
  free(d->band);
  g_mutex_clear(&d->lock);
  free(d);
}

/* Cairo's premultiplied BGRA (native-endian ARGB32) to RGBA, as libvips' pdfload
 * converts it. */
static void unpremultiply_bgra(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++, p += 4) {
    uint8_t b = p[0], g = p[1], r = p[2], a = p[3];
    if (a == 0 || a == 255) {
      p[0] = r;
      p[2] = b;
      continue;
    }
    int rr = (255 * r + a / 2) / a, gg = (255 * g + a / 2) / a, bb = (255 * b + a / 2) / a;
    p[0] = (uint8_t)(rr > 255 ? 255 : rr);
    p[1] = (uint8_t)(gg > 255 ? 255 : gg);
    p[2] = (uint8_t)(bb > 255 ? 255 : bb);
  }
}

/* 0 for success, else -1 with a libvips error naming cairo's status. */
static int cairo_failed(cairo_status_t status) {
  if (status == CAIRO_STATUS_SUCCESS)
    return 0;
  vips_error("pdfload", "cannot render the page (%s)", cairo_status_to_string(status));
  return -1;
}

/* Walks the page's content stream once into a cairo recording surface that keeps
 * what falls on rows [top, top + slab_rows): drawing outside it is dropped as it
 * is recorded. Same scale and translation as a direct render, so the paths are
 * the same in device space. */
static int record_slab(TcDocument *d, int top) {
  if (d->slab)
    cairo_surface_destroy(d->slab);
  d->slab = NULL;
  int rows = d->height - top < d->slab_rows ? d->height - top : d->slab_rows;
  cairo_rectangle_t extents = {0, 0, d->width, rows};
  cairo_surface_t *slab = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, &extents);
  cairo_t *cr = cairo_create(slab);
  cairo_translate(cr, 0, -top);
  cairo_scale(cr, d->scale, d->scale);
  poppler_page_render(d->page, cr);
  cairo_status_t status = cairo_status(cr);
  cairo_destroy(cr);
  if (cairo_failed(status != CAIRO_STATUS_SUCCESS ? status : cairo_surface_status(slab))) {
    cairo_surface_destroy(slab);
    return -1;
  }
  d->slab = slab;
  d->slab_top = top;
  d->slab_height = rows;
  return 0;
}

/* Renders the band that starts at row `top` into d->band, at most
 * TC_CAIRO_COLUMNS columns at a time. poppler walks the whole content stream
 * for any render, whatever the clip; a page of many bands is therefore walked
 * once per slab of bands, into a recording that each band of the slab replays
 * (cairo replays only the drawing that meets the band). */
static int render_band(TcDocument *d, int top) {
  int rows = d->height - top < d->band_rows ? d->height - top : d->band_rows;
  d->band_top = -1;
  if (d->slab_rows && !(d->slab && top >= d->slab_top && top + rows <= d->slab_top + d->slab_height) &&
      record_slab(d, top))
    return -1;
  size_t stride = 4 * (size_t)d->width;
  /* a transparent page stays transparent: nothing painted under the drawing */
  memset(d->band, 0, stride * (size_t)rows);
  for (int left = 0; left < d->width; left += TC_CAIRO_COLUMNS) {
    int columns = d->width - left < TC_CAIRO_COLUMNS ? d->width - left : TC_CAIRO_COLUMNS;
    cairo_surface_t *surface =
        cairo_image_surface_create_for_data(d->band + 4 * (size_t)left, CAIRO_FORMAT_ARGB32, columns, rows, (int)stride);
    cairo_t *cr = cairo_create(surface);
    cairo_surface_destroy(surface);
    if (d->slab) {
      /* SOURCE onto the cleared band: cairo 1.16 replays the recorded drawing
       * straight onto the band; with OVER it took 3× as long (a building.pdf page
       * at 17.2: 0.16 s against 0.05 s) and 16 MB more, as if through a scratch
       * image */
      cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
      cairo_set_source_surface(cr, d->slab, -left, d->slab_top - top);
      cairo_paint(cr);
    } else {
      cairo_scale(cr, d->scale, d->scale);
      cairo_translate(cr, -left / d->scale, -top / d->scale);
      poppler_page_render(d->page, cr);
    }
    cairo_status_t status = cairo_status(cr);
    cairo_destroy(cr);
    if (cairo_failed(status))
      return -1;
  }
  /* read top to bottom, the slab is done with its last band */
  if (d->slab && top + rows >= d->slab_top + d->slab_height) {
    cairo_surface_destroy(d->slab);
    d->slab = NULL;
  }
  unpremultiply_bgra(d->band, (size_t)d->width * (size_t)rows);
  d->band_top = top;
  d->band_height = rows;
  return 0;
}

static int generate(VipsRegion *region, void *seq, void *a, void *b, gboolean *stop) {
  (void)seq;
  (void)b;
  (void)stop;
  TcDocument *d = a;
  VipsRect *want = &region->valid;
  int result = 0;
  g_mutex_lock(&d->lock);
  for (int y = want->top; y < VIPS_RECT_BOTTOM(want); y++) {
    if (d->band_top < 0 || y < d->band_top || y >= d->band_top + d->band_height) {
      if (render_band(d, (y / d->band_rows) * d->band_rows)) {
        result = -1;
        break;
      }
    }
    const uint8_t *row = d->band + 4 * ((size_t)(y - d->band_top) * (size_t)d->width + (size_t)want->left);
    memcpy(VIPS_REGION_ADDR(region, want->left, y), row, 4 * (size_t)want->width);
  }
  g_mutex_unlock(&d->lock);
  return result;
}

static void close_document(VipsImage *image, TcDocument *d) {
  (void)image;
  document_free(d);
}

int tc_pdf_open_banded(const char *filename, int page, double scale, int band_rows, VipsImage **out) {
  *out = NULL;
  if (!(scale > 0) || band_rows < 1) {
    vips_error("pdfload", "bad scale or band height");
    return -1;
  }
  TcDocument *d = calloc(1, sizeof *d);
  if (!d) {
    vips_error("pdfload", "out of memory");
    return -1;
  }
  g_mutex_init(&d->lock);
  d->scale = scale;
  d->band_top = -1;
  GError *error = NULL;
  char *absolute = realpath(filename, NULL);
  char *uri = absolute ? g_filename_to_uri(absolute, NULL, &error) : NULL;
  free(absolute);
  if (uri)
    d->doc = poppler_document_new_from_file(uri, NULL, &error);
  g_free(uri);
  if (!d->doc) {
    vips_error("pdfload", "%s", error ? error->message : "cannot open the document");
    if (error)
      g_error_free(error);
    document_free(d);
    return -1;
  }
  if (page < 0 || page >= poppler_document_get_n_pages(d->doc) || !(d->page = poppler_document_get_page(d->doc, page))) {
    vips_error("pdfload", "unable to load page %d", page);
    document_free(d);
    return -1;
  }
  double w = 0, h = 0;
  poppler_page_get_size(d->page, &w, &h);
  /* rounded to nearest, as libvips' pdfload sizes a page */
  double width = rint(w * scale), height = rint(h * scale);
  if (!(width >= 1 && height >= 1 && width <= INT_MAX / 8 && height <= INT_MAX)) {
    vips_error("pdfload", "the page is %g × %g pt, which cannot be rendered at scale %g", w, h, scale);
    document_free(d);
    return -1;
  }
  d->width = (int)width;
  d->height = (int)height;
  d->band_rows = band_rows < d->height ? band_rows : d->height;
  int bands = (d->height + d->band_rows - 1) / d->band_rows;
  int slab_bands = (bands + TC_SLABS - 1) / TC_SLABS;
  if (slab_bands > 1)
    d->slab_rows = (slab_bands < TC_SLAB_BANDS ? slab_bands : TC_SLAB_BANDS) * d->band_rows;
  d->band = malloc(4 * (size_t)d->width * (size_t)d->band_rows);
  if (!d->band) {
    vips_error("pdfload", "out of memory for a band of %d × %d pixels", d->width, d->band_rows);
    document_free(d);
    return -1;
  }
  VipsImage *image = vips_image_new();
  vips_image_init_fields(image, d->width, d->height, 4, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE, VIPS_INTERPRETATION_sRGB,
                         72.0 / 25.4, 72.0 / 25.4);
  g_signal_connect(image, "close", G_CALLBACK(close_document), d);
  if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, NULL) ||
      vips_image_generate(image, NULL, generate, NULL, d, NULL)) {
    g_object_unref(image);
    return -1;
  }
  *out = image;
  return 0;
}
