#include "TilecutSVG.h"

#include <cairo.h>
#include <librsvg/rsvg.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Widest surface cairo is asked for at once (its limit is 32767). */
#define TC_SVG_CAIRO_COLUMNS 16384

typedef struct {
  GMutex lock;
  RsvgHandle *handle;
  int width;
  int height;
  int band_rows;
  /* RGBA8 rows [band_top, band_top + band_height) of the drawing, the whole width */
  uint8_t *band;
  int band_top;
  int band_height;
} TcSvg;

static void svg_free(TcSvg *s) {
  if (!s)
    return;
  if (s->handle)
    g_object_unref(s->handle);
  free(s->band);
  g_mutex_clear(&s->lock);
  free(s);
}

/* Cairo's premultiplied BGRA (native-endian ARGB32) to RGBA, with the truncating
 * division libvips' svgload uses, so that the two renders agree exactly. */
static void svg_bgra_to_rgba(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++, p += 4) {
    uint8_t b = p[0], g = p[1], r = p[2], a = p[3];
    if (a == 0 || a == 255) {
      p[0] = r;
      p[2] = b;
      continue;
    }
    p[0] = (uint8_t)(255 * r / a);
    p[1] = (uint8_t)(255 * g / a);
    p[2] = (uint8_t)(255 * b / a);
  }
}

/* Renders the band that starts at row `top` into s->band, as svgload renders a
 * tile: the whole drawing's viewport, moved by the band's offset. */
static int svg_render_band(TcSvg *s, int top) {
  int rows = s->height - top < s->band_rows ? s->height - top : s->band_rows;
  size_t stride = 4 * (size_t)s->width;
  memset(s->band, 0, stride * (size_t)rows);
  s->band_top = -1;
  RsvgRectangle viewport = {0, 0, s->width, s->height};
  for (int left = 0; left < s->width; left += TC_SVG_CAIRO_COLUMNS) {
    int columns = s->width - left < TC_SVG_CAIRO_COLUMNS ? s->width - left : TC_SVG_CAIRO_COLUMNS;
    cairo_surface_t *surface =
        cairo_image_surface_create_for_data(s->band + 4 * (size_t)left, CAIRO_FORMAT_ARGB32, columns, rows, (int)stride);
    cairo_t *cr = cairo_create(surface);
    cairo_surface_destroy(surface);
    cairo_translate(cr, -left, -top);
    GError *error = NULL;
    gboolean ok = rsvg_handle_render_document(s->handle, cr, &viewport, &error);
    cairo_status_t status = cairo_status(cr);
    cairo_destroy(cr);
    if (!ok || status != CAIRO_STATUS_SUCCESS) {
      vips_error("svgload", "SVG rendering failed (%s)",
                 error ? error->message : cairo_status_to_string(status));
      if (error)
        g_error_free(error);
      return -1;
    }
  }
  svg_bgra_to_rgba(s->band, (size_t)s->width * (size_t)rows);
  s->band_top = top;
  s->band_height = rows;
  return 0;
}

#if LIBRSVG_CHECK_VERSION(2, 54, 0)
/* A CSS length in pixels at 72 dpi with a 12 px font, as libvips' svgload measures
 * one; a percentage is 0, since it has no size without a viewport. */
static double svg_length_pixels(RsvgLength length) {
  switch (length.unit) {
  case RSVG_UNIT_PX:
  case RSVG_UNIT_PT:
    return length.length;
  case RSVG_UNIT_EM:
    return length.length * 12;
  case RSVG_UNIT_EX:
    return length.length * 6;
  case RSVG_UNIT_PC:
    return length.length * 12;
  case RSVG_UNIT_IN:
    return length.length * 72;
  case RSVG_UNIT_CM:
    return length.length * 72 / 2.54;
  case RSVG_UNIT_MM:
    return length.length * 72 / 25.4;
  default:
    return 0;
  }
}

/* The drawing's size at 72 dpi by svgload's rules (libvips 8.14 with librsvg 2.54
 * or later): librsvg's own pixel size when it has one; else its width and height,
 * one of them with the viewBox's aspect, or the viewBox alone; else the extent of
 * what it draws. One parse serves both measuring and rendering. */
static int svg_natural_size(RsvgHandle *handle, double *width, double *height) {
  double w = 0, h = 0;
  if (!rsvg_handle_get_intrinsic_size_in_pixels(handle, &w, &h)) {
    gboolean has_width, has_height, has_viewbox;
    RsvgLength iw, ih;
    RsvgRectangle viewbox;
    rsvg_handle_get_intrinsic_dimensions(handle, &has_width, &iw, &has_height, &ih, &has_viewbox, &viewbox);
    w = svg_length_pixels(iw);
    h = svg_length_pixels(ih);
    if (w > 0 && h > 0) {
      /* both given */
    } else if (w > 0 && has_viewbox && viewbox.width > 0) {
      h = w * viewbox.height / viewbox.width;
    } else if (h > 0 && has_viewbox && viewbox.height > 0) {
      w = h * viewbox.width / viewbox.height;
    } else if (has_viewbox) {
      w = viewbox.width;
      h = viewbox.height;
    }
    if (!(w > 0 && h > 0)) {
      RsvgRectangle ink;
      if (!rsvg_handle_get_geometry_for_element(handle, NULL, &ink, NULL, NULL))
        return -1;
      w = ink.x + ink.width;
      h = ink.y + ink.height;
    }
  }
  if (!(w >= 0.5 && h >= 0.5))
    return -1;
  *width = w;
  *height = h;
  return 0;
}
#endif

static int svg_generate(VipsRegion *region, void *seq, void *a, void *b, gboolean *stop) {
  (void)seq;
  (void)b;
  (void)stop;
  TcSvg *s = a;
  VipsRect *want = &region->valid;
  int result = 0;
  g_mutex_lock(&s->lock);
  for (int y = want->top; y < VIPS_RECT_BOTTOM(want); y++) {
    if (s->band_top < 0 || y < s->band_top || y >= s->band_top + s->band_height) {
      if (svg_render_band(s, (y / s->band_rows) * s->band_rows)) {
        result = -1;
        break;
      }
    }
    const uint8_t *row = s->band + 4 * ((size_t)(y - s->band_top) * (size_t)s->width + (size_t)want->left);
    memcpy(VIPS_REGION_ADDR(region, want->left, y), row, 4 * (size_t)want->width);
  }
  g_mutex_unlock(&s->lock);
  return result;
}

static void svg_close(VipsImage *image, TcSvg *s) {
  (void)image;
  svg_free(s);
}

int tc_svg_open_banded(const char *filename, double scale, int band_rows, VipsImage **out) {
  *out = NULL;
  if (!(scale > 0) || band_rows < 1) {
    vips_error("svgload", "bad scale or band height");
    return -1;
  }
  TcSvg *s = calloc(1, sizeof *s);
  if (!s) {
    vips_error("svgload", "out of memory");
    return -1;
  }
  g_mutex_init(&s->lock);
  s->band_top = -1;
  /* read as svgload reads a file: the file is the base for relative references
   * (librsvg allows only those in its directory or below), no RSVG_HANDLE_FLAG_UNLIMITED */
  GError *error = NULL;
  GFile *file = g_file_new_for_path(filename);
  s->handle = rsvg_handle_new_from_gfile_sync(file, RSVG_HANDLE_FLAGS_NONE, NULL, &error);
  g_object_unref(file);
  if (!s->handle) {
    vips_error("svgload", "%s", error ? error->message : "cannot read the drawing");
    if (error)
      g_error_free(error);
    svg_free(s);
    return -1;
  }
  /* svgload measures and renders at 72 dpi and scales with cairo */
  rsvg_handle_set_dpi(s->handle, 72.0);
  double width, height;
#if LIBRSVG_CHECK_VERSION(2, 54, 0)
  if (svg_natural_size(s->handle, &width, &height)) {
    vips_error("svgload", "the drawing has no usable size");
    svg_free(s);
    return -1;
  }
  /* rounded as svgload rounds, half up */
  width = floor(width * scale + 0.5);
  height = floor(height * scale + 0.5);
#else
  /* an older librsvg: svgload's own answer at this scale (a second parse) */
  VipsImage *header = NULL;
  if (vips_svgload(filename, &header, "scale", scale, NULL)) {
    svg_free(s);
    return -1;
  }
  width = header->Xsize;
  height = header->Ysize;
  g_object_unref(header);
#endif
  if (!(width >= 1 && height >= 1 && width <= INT_MAX / 8 && height <= INT_MAX)) {
    vips_error("svgload", "the drawing cannot be rendered %g × %g pixels", width, height);
    svg_free(s);
    return -1;
  }
  s->width = (int)width;
  s->height = (int)height;
  s->band_rows = band_rows < s->height ? band_rows : s->height;
  s->band = malloc(4 * (size_t)s->width * (size_t)s->band_rows);
  if (!s->band) {
    vips_error("svgload", "out of memory for a band of %d × %d pixels", s->width, s->band_rows);
    svg_free(s);
    return -1;
  }
  VipsImage *image = vips_image_new();
  /* svgload's resolution: 72 dpi in pixels a millimetre */
  vips_image_init_fields(image, s->width, s->height, 4, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE, VIPS_INTERPRETATION_sRGB,
                         72.0 / 25.4, 72.0 / 25.4);
  g_signal_connect(image, "close", G_CALLBACK(svg_close), s);
  if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, NULL) ||
      vips_image_generate(image, NULL, svg_generate, NULL, s, NULL)) {
    g_object_unref(image);
    return -1;
  }
  *out = image;
  return 0;
}
