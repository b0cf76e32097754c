#include "TilecutPixels.h"

#include <math.h>
#include <string.h>

void tc_pixel_layout(VipsImage *in, int *bands, int *format, int *interpretation) {
  *bands = in->Bands;
  *format = in->BandFmt;
  *interpretation = vips_image_get_interpretation(in);
}

int tc_data_range(VipsImage *in, int has_nodata, double nodata, double *min, double *max) {
  VipsImage *band = NULL, *d = NULL;
  if (vips_extract_band(in, &band, 0, NULL))
    return -1;
  int r = vips_cast(band, &d, VIPS_FORMAT_DOUBLE, NULL);
  g_object_unref(band);
  if (r)
    return -1;
  VipsRegion *region = vips_region_new(d);
  if (!region) {
    g_object_unref(d);
    return -1;
  }
  int found = 0;
  double lo = 0, hi = 0;
  int width = d->Xsize;
  for (int top = 0; top < d->Ysize; top += 64) {
    int rows = d->Ysize - top < 64 ? d->Ysize - top : 64;
    VipsRect rect = {0, top, width, rows};
    if (vips_region_prepare(region, &rect)) {
      g_object_unref(region);
      g_object_unref(d);
      return -1;
    }
    for (int y = 0; y < rows; y++) {
      const double *p = (const double *)VIPS_REGION_ADDR(region, 0, top + y);
      for (int x = 0; x < width; x++) {
        double v = p[x];
        if (isnan(v) || (has_nodata && v == nodata))
          continue;
        if (!found) {
          lo = hi = v;
          found = 1;
        } else if (v < lo) {
          lo = v;
        } else if (v > hi) {
          hi = v;
        }
      }
    }
  }
  g_object_unref(region);
  g_object_unref(d);
  *min = lo;
  *max = hi;
  return found;
}

int tc_select_bands(VipsImage *in, VipsImage **out, const int *bands, int count) {
  VipsImage *parts[16];
  if (count < 1 || count > 16)
    return -1;
  for (int i = 0; i < count; i++) {
    if (vips_extract_band(in, &parts[i], bands[i], NULL)) {
      for (int k = 0; k < i; k++)
        g_object_unref(parts[k]);
      return -1;
    }
  }
  int r = vips_bandjoin(parts, out, count, NULL);
  for (int i = 0; i < count; i++)
    g_object_unref(parts[i]);
  if (r == 0 && count >= 3) {
    VipsImage *tagged = NULL;
    if (vips_copy(*out, &tagged, "interpretation", VIPS_INTERPRETATION_sRGB, NULL) == 0) {
      g_object_unref(*out);
      *out = tagged;
    }
  }
  return r;
}

int tc_scale_to_srgba(VipsImage *in, VipsImage **out, double min, double max, int has_nodata, double nodata) {
  VipsImage *band = NULL, *valid = NULL, *known = NULL, *grey = NULL, *grey8 = NULL, *joined = NULL;
  int result = -1;
  if (vips_extract_band(in, &band, 0, NULL))
    goto done;
  /* NaN is the one value not equal to itself */
  if (vips_relational(band, band, &valid, VIPS_OPERATION_RELATIONAL_EQUAL, NULL))
    goto done;
  if (has_nodata) {
    VipsImage *differs = NULL;
    if (vips_relational_const1(band, &differs, VIPS_OPERATION_RELATIONAL_NOTEQ, nodata, NULL))
      goto done;
    if (vips_boolean(valid, differs, &known, VIPS_OPERATION_BOOLEAN_AND, NULL)) {
      g_object_unref(differs);
      goto done;
    }
    g_object_unref(differs);
  } else {
    known = valid;
    g_object_ref(known);
  }
  double span = max > min ? max - min : 1;
  double a = 255.0 / span, b = -min * a + 0.5;
  if (vips_linear1(band, &grey, a, b, NULL))
    goto done;
  if (vips_cast(grey, &grey8, VIPS_FORMAT_UCHAR, NULL))
    goto done;
  VipsImage *four[4] = {grey8, grey8, grey8, known};
  if (vips_bandjoin(four, &joined, 4, NULL))
    goto done;
  if (vips_copy(joined, out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL))
    goto done;
  result = 0;
done:
  if (band)
    g_object_unref(band);
  if (valid)
    g_object_unref(valid);
  if (known)
    g_object_unref(known);
  if (grey)
    g_object_unref(grey);
  if (grey8)
    g_object_unref(grey8);
  if (joined)
    g_object_unref(joined);
  return result;
}

int tc_nodata_to_alpha(VipsImage *in, VipsImage **out, double nodata) {
  int colour = in->Bands == 2 || in->Bands == 4 ? in->Bands - 1 : in->Bands;
  VipsImage *colours = NULL, *differs = NULL, *any = NULL, *alpha = NULL, *joined = NULL;
  int result = -1;
  if (vips_extract_band(in, &colours, 0, "n", colour, NULL))
    goto done;
  /* a pixel is nodata when every colour band holds the value (GDAL's collar) */
  if (vips_relational_const1(colours, &differs, VIPS_OPERATION_RELATIONAL_NOTEQ, nodata, NULL))
    goto done;
  if (vips_bandbool(differs, &any, VIPS_OPERATION_BOOLEAN_OR, NULL))
    goto done;
  if (colour < in->Bands) {
    VipsImage *own = NULL;
    if (vips_extract_band(in, &own, colour, NULL))
      goto done;
    VipsImage *own8 = NULL;
    int r = vips_cast(own, &own8, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(own);
    if (r)
      goto done;
    r = vips_boolean(any, own8, &alpha, VIPS_OPERATION_BOOLEAN_AND, NULL);
    g_object_unref(own8);
    if (r)
      goto done;
  } else {
    alpha = any;
    g_object_ref(alpha);
  }
  if (vips_bandjoin2(colours, alpha, &joined, NULL))
    goto done;
  if (vips_copy(joined, out, "interpretation", colour >= 3 ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W, NULL))
    goto done;
  result = 0;
done:
  if (colours)
    g_object_unref(colours);
  if (differs)
    g_object_unref(differs);
  if (any)
    g_object_unref(any);
  if (alpha)
    g_object_unref(alpha);
  if (joined)
    g_object_unref(joined);
  return result;
}

/* A polygon (n points, x y pairs, in pixels of the image) whose inside keeps its alpha. */
typedef struct {
  int n;
  double xy[];
} clip_polygon;

/* Sub-rows a pixel row is sampled at: a horizontal edge is placed within 1/16 px. */
#define TC_CLIP_SUBROWS 8

static int clip_generate(VipsRegion *out, void *seq, void *a, void *b, gboolean *stop) {
  (void)a;
  (void)stop;
  VipsRegion *ir = (VipsRegion *)seq;
  const clip_polygon *polygon = (const clip_polygon *)b;
  VipsRect *r = &out->valid;
  if (vips_region_prepare(ir, r))
    return -1;
  float *cover = g_malloc((size_t)r->width * sizeof(float));
  double *xs = g_malloc((size_t)(polygon->n + 1) * sizeof(double));
  for (int y = r->top; y < r->top + r->height; y++) {
    memset(cover, 0, (size_t)r->width * sizeof(float));
    for (int k = 0; k < TC_CLIP_SUBROWS; k++) {
      double sy = y + (k + 0.5) / TC_CLIP_SUBROWS;
      int count = 0;
      for (int i = 0; i < polygon->n; i++) {
        int j = (i + 1) % polygon->n;
        double y0 = polygon->xy[2 * i + 1], y1 = polygon->xy[2 * j + 1];
        if ((y0 <= sy) == (y1 <= sy))
          continue;
        double x0 = polygon->xy[2 * i], x1 = polygon->xy[2 * j];
        xs[count++] = x0 + (sy - y0) / (y1 - y0) * (x1 - x0);
      }
      /* sorted crossings, inside between each pair (even-odd) */
      for (int i = 1; i < count; i++)
        for (int m = i; m > 0 && xs[m - 1] > xs[m]; m--) {
          double t = xs[m];
          xs[m] = xs[m - 1];
          xs[m - 1] = t;
        }
      for (int i = 0; i + 1 < count; i += 2) {
        double lo = fmax(xs[i], r->left), hi = fmin(xs[i + 1], r->left + r->width);
        for (int x = (int)floor(lo); x < hi && x < r->left + r->width; x++) {
          double share = fmin(hi, x + 1.0) - fmax(lo, (double)x);
          if (share > 0)
            cover[x - r->left] += (float)(share / TC_CLIP_SUBROWS);
        }
      }
    }
    VipsPel *p = VIPS_REGION_ADDR(ir, r->left, y);
    VipsPel *q = VIPS_REGION_ADDR(out, r->left, y);
    for (int x = 0; x < r->width; x++) {
      q[4 * x] = p[4 * x];
      q[4 * x + 1] = p[4 * x + 1];
      q[4 * x + 2] = p[4 * x + 2];
      double alpha = p[4 * x + 3] * fmin(1.0, (double)cover[x]) + 0.5;
      q[4 * x + 3] = (VipsPel)(alpha > 255 ? 255 : alpha);
    }
  }
  g_free(cover);
  g_free(xs);
  return 0;
}

int tc_clip_polygon(VipsImage *in, VipsImage **out, const double *xy, int n, int paper) {
  if (in->Bands != 4 || in->BandFmt != VIPS_FORMAT_UCHAR || n < 3) {
    vips_error("tc_clip_polygon", "needs RGBA8 and a polygon of 3 points or more");
    return -1;
  }
  VipsImage *source = in, *flat = NULL, *opaque = NULL;
  g_object_ref(source);
  if (paper) {
    /* the page's paper is white, as GDAL and PDF viewers draw it */
    double white[] = {255, 255, 255};
    VipsArrayDouble *background = vips_array_double_new(white, 3);
    int r = vips_flatten(in, &flat, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    VipsImage *flat8 = NULL;
    if (r || vips_cast(flat, &flat8, VIPS_FORMAT_UCHAR, NULL) || vips_bandjoin_const1(flat8, &opaque, 255, NULL)) {
      if (flat8)
        g_object_unref(flat8);
      if (flat)
        g_object_unref(flat);
      g_object_unref(source);
      return -1;
    }
    g_object_unref(flat8);
    g_object_unref(flat);
    g_object_unref(source);
    source = opaque;
  }
  clip_polygon *polygon = g_malloc(sizeof(clip_polygon) + sizeof(double) * 2 * (size_t)n);
  polygon->n = n;
  memcpy(polygon->xy, xy, sizeof(double) * 2 * (size_t)n);
  VipsImage *o = vips_image_new();
  /* the polygon and the source live as long as the image */
  g_object_set_data_full(G_OBJECT(o), "tc-clip-polygon", polygon, g_free);
  g_object_set_data_full(G_OBJECT(o), "tc-clip-source", source, g_object_unref);
  if (vips_image_pipelinev(o, VIPS_DEMAND_STYLE_THINSTRIP, source, NULL) ||
      vips_image_generate(o, vips_start_one, clip_generate, vips_stop_one, source, polygon)) {
    g_object_unref(o);
    return -1;
  }
  *out = o;
  return 0;
}
