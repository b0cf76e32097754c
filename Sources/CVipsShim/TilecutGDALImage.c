#include "TilecutGDALImage.h"

#include <stdlib.h>

static int generate(VipsRegion *region, void *seq, void *a, void *b, gboolean *stop) {
  (void)seq;
  (void)b;
  (void)stop;
  tc_gdal_raster *raster = a;
  VipsRect *r = &region->valid;
  char *error = NULL;
  if (tc_gdal_raster_read(raster, r->left, r->top, r->width, r->height, VIPS_REGION_ADDR(region, r->left, r->top),
                          (ptrdiff_t)VIPS_REGION_LSKIP(region), &error)) {
    vips_error("gdal", "%s", error ? error : "GDAL could not read the pixels");
    free(error);
    return -1;
  }
  return 0;
}

static void close_raster(VipsImage *image, tc_gdal_raster *raster) {
  (void)image;
  tc_gdal_raster_close(raster);
}

int tc_gdal_image(tc_gdal_raster *raster, int width, int height, int bands, VipsBandFormat format,
                  VipsInterpretation interpretation, VipsImage **out) {
  *out = NULL;
  if (width < 1 || height < 1 || bands < 1) {
    tc_gdal_raster_close(raster);
    vips_error("gdal", "bad size");
    return -1;
  }
  VipsImage *image = vips_image_new();
  vips_image_init_fields(image, width, height, bands, format, VIPS_CODING_NONE, interpretation, 1.0, 1.0);
  g_signal_connect(image, "close", G_CALLBACK(close_raster), raster);
  /* strips of whole rows: GDAL's blocks (ENVI and ERDAS rows, JPEG 2000 and GeoPackage
   * tiles) are read once per strip through its cache */
  if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, NULL) ||
      vips_image_generate(image, NULL, generate, NULL, raster, NULL)) {
    g_object_unref(image);
    return -1;
  }
  *out = image;
  return 0;
}

int tc_apply_mask(VipsImage *image, VipsImage *mask, VipsImage **out) {
  VipsImage *t[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
  int result = -1;
  /* alpha × mask / 255, rounded: 0/255 masks keep alpha or clear it exactly */
  if (vips_extract_band(image, &t[0], 0, "n", 3, NULL) || vips_extract_band(image, &t[1], 3, NULL) ||
      vips_multiply(t[1], mask, &t[2], NULL) || vips_linear1(t[2], &t[3], 1.0 / 255.0, 0.5, NULL) ||
      vips_cast(t[3], &t[4], VIPS_FORMAT_UCHAR, NULL) || vips_bandjoin2(t[0], t[4], &t[5], NULL))
    goto done;
  *out = t[5];
  t[5] = NULL;
  result = 0;
done:
  for (int i = 0; i < 6; i++)
    if (t[i])
      g_object_unref(t[i]);
  return result;
}
