#include "TilecutSVG.h"
#include "TilecutBands.h"

#include <cairo.h>
#include <librsvg/rsvg.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "TilecutPlatform.h"

/* An open drawing and its size in pixels at the render scale. */
typedef struct {
  RsvgHandle *handle;
  int width;
  int height;
  /* the file, named by the line a library's abort ends the run with */
  char *path;
} TcSvg;

static void svg_free(void *p) {
  TcSvg *s = p;
  if (!s)
    return;
  if (s->handle)
    g_object_unref(s->handle);
  free(s->path);
  free(s);
}

/* The drawing moved so that pixel (left, top) is the origin, as libvips' svgload
 * renders a tile: the whole drawing's viewport, shifted. */
static int svg_draw(void *ctx, cairo_t *cr, int left, int top) {
  TcSvg *s = ctx;
  cairo_translate(cr, -left, -top);
  RsvgRectangle viewport = {0, 0, s->width, s->height};
  GError *error = NULL;
  const char *was = tc_enter_input(s->path);
  gboolean drawn = rsvg_handle_render_document(s->handle, cr, &viewport, &error);
  tc_leave_input(was);
  if (!drawn) {
    vips_error("svgload", "SVG rendering failed (%s)", error ? error->message : "librsvg gave no reason");
    if (error)
      g_error_free(error);
    return -1;
  }
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
  /* read as svgload reads a file: the file is the base for relative references
   * (librsvg allows only those in its directory or below), no RSVG_HANDLE_FLAG_UNLIMITED */
  GError *error = NULL;
  s->path = strdup(filename);
  GFile *file = g_file_new_for_path(filename);
  const char *was = tc_enter_input(filename);
  s->handle = rsvg_handle_new_from_gfile_sync(file, RSVG_HANDLE_FLAGS_NONE, NULL, &error);
  tc_leave_input(was);
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
  /* every band draws the drawing itself: replayed from a recording, librsvg's
   * drawing (images, text) came out up to 31 levels off svgload's; walked, it is
   * svgload's to the bit, for the CPU svgload spends on its own tiles */
  return tc_bands_open("svgload", s->width, s->height, band_rows, 0, svg_draw, s, svg_free, TC_UNPREMULTIPLY_TRUNCATE,
                       out);
}
