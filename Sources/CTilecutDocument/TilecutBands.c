#include "TilecutBands.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Widest surface cairo is asked for at once (its limit is 32767). */
#define TC_CAIRO_COLUMNS 16384

/* A document of more bands than TC_SLABS is drawn once per slab of bands (see
 * render_band): a quarter of its bands, at most TC_SLAB_BANDS, so that the
 * recording holds at most a quarter of the drawing, and no more than what meets
 * 4 bands. */
#define TC_SLABS 4
#define TC_SLAB_BANDS 4

typedef struct {
  GMutex lock;
  const char *domain;
  TcDrawFn draw;
  void *ctx;
  void (*free_ctx)(void *);
  TcUnpremultiply unpremultiply;
  int width;
  int height;
  int band_rows;
  /* rows recorded by one drawing of the document (a multiple of band_rows), or 0
   * when each band draws the document itself */
  int slab_rows;
  /* the drawing over rows [slab_top, slab_top + slab_height), shifted up by
   * slab_top; NULL when none is held */
  cairo_surface_t *slab;
  int slab_top;
  int slab_height;
  /* RGBA8 rows [band_top, band_top + band_height) of the document, the whole width */
  uint8_t *band;
  /* its bytes: mapped (zero until written, see band_alloc) or malloc'd (band_mapped 0) */
  size_t band_bytes;
  int band_mapped;
  /* the band still holds the zeros it was mapped with: no band was drawn in it yet */
  int band_fresh;
  int band_top;
  int band_height;
} TcBands;

static void bands_free(TcBands *b) {
  if (!b)
    return;
  if (b->slab)
    cairo_surface_destroy(b->slab);
  if (b->free_ctx && b->ctx)
    b->free_ctx(b->ctx);
  if (b->band_mapped)
    munmap(b->band, b->band_bytes);
  else
    free(b->band);
  g_mutex_clear(&b->lock);
  free(b);
}

/* The band's buffer of `bytes`: mapped anonymous memory, whose pages are zero and cost
 * nothing until touched, so that a band's first drawing needs no clearing and its blank
 * stretches are never written (see render_band, unpremultiply_bgra); malloc'd when no
 * mapping is had. */
static int band_alloc(TcBands *b, size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p != MAP_FAILED) {
    b->band = p;
    b->band_mapped = 1;
    b->band_fresh = 1;
  } else {
    b->band = malloc(bytes);
  }
  b->band_bytes = bytes;
  return b->band ? 0 : -1;
}

/* Cairo's premultiplied BGRA (native-endian ARGB32) to straight RGBA. Runs of 16
 * transparent pixels (all bytes zero, the same in both) are only read: a drawing's
 * blank stretches stay unwritten. */
static void unpremultiply_bgra(uint8_t *p, size_t n, TcUnpremultiply how) {
  int half = how == TC_UNPREMULTIPLY_ROUND;
  for (size_t i = 0; i < n; i++, p += 4) {
    if ((i & 15) == 0 && n - i >= 16) {
      uint64_t w[8];
      memcpy(w, p, sizeof w);
      if ((w[0] | w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7]) == 0) {
        i += 15;
        p += 60;
        continue;
      }
    }
    uint8_t b = p[0], g = p[1], r = p[2], a = p[3];
    if (a == 0 || a == 255) {
      p[0] = r;
      p[2] = b;
      continue;
    }
    int rounding = half ? a / 2 : 0;
    int rr = (255 * r + rounding) / a, gg = (255 * g + rounding) / a, bb = (255 * b + rounding) / a;
    p[0] = (uint8_t)(rr > 255 ? 255 : rr);
    p[1] = (uint8_t)(gg > 255 ? 255 : gg);
    p[2] = (uint8_t)(bb > 255 ? 255 : bb);
  }
}

/* 0 for success, else -1 with a libvips error naming cairo's status. */
static int cairo_failed(const TcBands *b, cairo_status_t status) {
  if (status == CAIRO_STATUS_SUCCESS)
    return 0;
  vips_error(b->domain, "cannot render the document (%s)", cairo_status_to_string(status));
  return -1;
}

/* Draws the document once into a cairo recording surface that keeps what falls on
 * rows [top, top + slab_rows): drawing outside it is dropped as it is recorded.
 * The same transformation as a direct render, so the paths are the same in device
 * space. */
static int record_slab(TcBands *b, int top) {
  if (b->slab)
    cairo_surface_destroy(b->slab);
  b->slab = NULL;
  int rows = b->height - top < b->slab_rows ? b->height - top : b->slab_rows;
  cairo_rectangle_t extents = {0, 0, b->width, rows};
  cairo_surface_t *slab = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, &extents);
  cairo_t *cr = cairo_create(slab);
  int drawn = b->draw(b->ctx, cr, 0, top);
  cairo_status_t status = cairo_status(cr);
  cairo_destroy(cr);
  if (drawn || cairo_failed(b, status != CAIRO_STATUS_SUCCESS ? status : cairo_surface_status(slab))) {
    cairo_surface_destroy(slab);
    return -1;
  }
  b->slab = slab;
  b->slab_top = top;
  b->slab_height = rows;
  return 0;
}

/* Renders the band that starts at row `top` into b->band, at most
 * TC_CAIRO_COLUMNS columns at a time: replayed from its slab's recording (cairo
 * replays only the drawing that meets the band), or drawn directly when the
 * document has few bands. */
static int render_band(TcBands *b, int top) {
  int rows = b->height - top < b->band_rows ? b->height - top : b->band_rows;
  b->band_top = -1;
  if (b->slab_rows && !(b->slab && top >= b->slab_top && top + rows <= b->slab_top + b->slab_height) &&
      record_slab(b, top))
    return -1;
  size_t stride = 4 * (size_t)b->width;
  /* a transparent document stays transparent: nothing painted under the drawing (a
   * fresh mapping is all zeros already) */
  if (!b->band_fresh)
    memset(b->band, 0, stride * (size_t)rows);
  b->band_fresh = 0;
  for (int left = 0; left < b->width; left += TC_CAIRO_COLUMNS) {
    int columns = b->width - left < TC_CAIRO_COLUMNS ? b->width - left : TC_CAIRO_COLUMNS;
    cairo_surface_t *surface =
        cairo_image_surface_create_for_data(b->band + 4 * (size_t)left, CAIRO_FORMAT_ARGB32, columns, rows, (int)stride);
    cairo_t *cr = cairo_create(surface);
    cairo_surface_destroy(surface);
    int drawn = 0;
    if (b->slab) {
      /* SOURCE onto the cleared band: cairo 1.16 replays the recorded drawing
       * straight onto the band; with OVER it took 3× as long (a building.pdf page
       * at 17.2: 0.16 s against 0.05 s) and 16 MB more, as if through a scratch
       * image */
      cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
      cairo_set_source_surface(cr, b->slab, -left, b->slab_top - top);
      cairo_paint(cr);
    } else {
      drawn = b->draw(b->ctx, cr, left, top);
    }
    cairo_status_t status = cairo_status(cr);
    cairo_destroy(cr);
    if (drawn || cairo_failed(b, status))
      return -1;
  }
  /* read top to bottom, the slab is done with its last band */
  if (b->slab && top + rows >= b->slab_top + b->slab_height) {
    cairo_surface_destroy(b->slab);
    b->slab = NULL;
  }
  unpremultiply_bgra(b->band, (size_t)b->width * (size_t)rows, b->unpremultiply);
  b->band_top = top;
  b->band_height = rows;
  return 0;
}

static int generate(VipsRegion *region, void *seq, void *a, void *unused, gboolean *stop) {
  (void)seq;
  (void)unused;
  (void)stop;
  TcBands *b = a;
  VipsRect *want = &region->valid;
  int result = 0;
  g_mutex_lock(&b->lock);
  for (int y = want->top; y < VIPS_RECT_BOTTOM(want); y++) {
    if (b->band_top < 0 || y < b->band_top || y >= b->band_top + b->band_height) {
      if (render_band(b, (y / b->band_rows) * b->band_rows)) {
        result = -1;
        break;
      }
    }
    const uint8_t *row = b->band + 4 * ((size_t)(y - b->band_top) * (size_t)b->width + (size_t)want->left);
    memcpy(VIPS_REGION_ADDR(region, want->left, y), row, 4 * (size_t)want->width);
  }
  g_mutex_unlock(&b->lock);
  return result;
}

static void close_bands(VipsImage *image, TcBands *b) {
  (void)image;
  bands_free(b);
}

int tc_bands_open(const char *domain, int width, int height, int band_rows, int slabs, TcDrawFn draw, void *ctx,
                  void (*free_ctx)(void *), TcUnpremultiply unpremultiply, VipsImage **out) {
  *out = NULL;
  TcBands *b = calloc(1, sizeof *b);
  if (!b) {
    if (free_ctx && ctx)
      free_ctx(ctx);
    vips_error(domain, "out of memory");
    return -1;
  }
  g_mutex_init(&b->lock);
  b->domain = domain;
  b->draw = draw;
  b->ctx = ctx;
  b->free_ctx = free_ctx;
  b->unpremultiply = unpremultiply;
  b->band_top = -1;
  if (width < 1 || height < 1 || band_rows < 1) {
    vips_error(domain, "bad size or band height");
    bands_free(b);
    return -1;
  }
  b->width = width;
  b->height = height;
  b->band_rows = band_rows < height ? band_rows : height;
  int bands = (height + b->band_rows - 1) / b->band_rows;
  int slab_bands = (bands + TC_SLABS - 1) / TC_SLABS;
  if (slabs && slab_bands > 1)
    b->slab_rows = (slab_bands < TC_SLAB_BANDS ? slab_bands : TC_SLAB_BANDS) * b->band_rows;
  if (band_alloc(b, 4 * (size_t)width * (size_t)b->band_rows)) {
    vips_error(domain, "out of memory for a band of %d × %d pixels", width, b->band_rows);
    bands_free(b);
    return -1;
  }
  VipsImage *image = vips_image_new();
  /* 72 dpi in pixels a millimetre, as pdfload and svgload say */
  vips_image_init_fields(image, width, height, 4, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE, VIPS_INTERPRETATION_sRGB,
                         72.0 / 25.4, 72.0 / 25.4);
  g_signal_connect(image, "close", G_CALLBACK(close_bands), b);
  if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, NULL) ||
      vips_image_generate(image, NULL, generate, NULL, b, NULL)) {
    g_object_unref(image);
    return -1;
  }
  *out = image;
  return 0;
}
