#include "TilecutPixels.h"

#include <math.h>

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

/* The share of each of `n` unit cells from 0 that lies in lo..hi. */
static float *coverage(int n, double lo, double hi) {
  float *share = g_try_malloc((size_t)n * sizeof(float));
  if (!share)
    return NULL;
  for (int i = 0; i < n; i++) {
    double a = fmax(lo, (double)i), b = fmin(hi, (double)i + 1);
    share[i] = (float)fmax(0, fmin(1, b - a));
  }
  return share;
}

int tc_clip_alpha(VipsImage *in, VipsImage **out, double x0, double y0, double x1, double y1, int paper) {
  int width = in->Xsize, height = in->Ysize;
  if (in->Bands != 4) {
    vips_error("tc_clip_alpha", "needs RGBA");
    return -1;
  }
  float *across = coverage(width, x0, x1), *down = coverage(height, y0, y1);
  VipsImage *row = NULL, *column = NULL, *rows = NULL, *columns = NULL, *mask = NULL;
  VipsImage *colour = NULL, *alpha = NULL, *scaled = NULL, *rounded = NULL, *alpha8 = NULL, *colour8 = NULL;
  int result = -1;
  if (!across || !down)
    goto done;
  row = vips_image_new_from_memory_copy(across, (size_t)width * sizeof(float), width, 1, 1, VIPS_FORMAT_FLOAT);
  column = vips_image_new_from_memory_copy(down, (size_t)height * sizeof(float), 1, height, 1, VIPS_FORMAT_FLOAT);
  if (!row || !column || vips_replicate(row, &rows, 1, height, NULL) || vips_replicate(column, &columns, width, 1, NULL) ||
      vips_multiply(rows, columns, &mask, NULL))
    goto done;
  if (paper) {
    /* the page's paper is white, as GDAL and PDF viewers draw it: opaque inside the box */
    double white[] = {255, 255, 255};
    VipsArrayDouble *background = vips_array_double_new(white, 3);
    int r = vips_flatten(in, &colour, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    if (r || vips_linear1(mask, &scaled, 255, 0, NULL))
      goto done;
  } else if (vips_extract_band(in, &colour, 0, "n", 3, NULL) || vips_extract_band(in, &alpha, 3, NULL) ||
             vips_multiply(alpha, mask, &scaled, NULL))
    goto done;
  if (
      vips_linear1(scaled, &rounded, 1, 0.5, NULL) || vips_cast(rounded, &alpha8, VIPS_FORMAT_UCHAR, NULL) ||
      vips_cast(colour, &colour8, VIPS_FORMAT_UCHAR, NULL) || vips_bandjoin2(colour8, alpha8, out, NULL))
    goto done;
  result = 0;
done:
  g_free(across);
  g_free(down);
  VipsImage *all[] = {row, column, rows, columns, mask, colour, alpha, scaled, rounded, alpha8, colour8};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (all[i])
      g_object_unref(all[i]);
  return result;
}
