/* Fixture writers for the tests: files of kinds tilecut reads but never writes.
 * Kept out of the tilecut binary (a test-support target). */
#include "TilecutFixtures.h"

#include <stdint.h>
#include <string.h>

#include "CVipsShim.h"

#include <TilecutGeoTIFF.h>
#include <geotiff/geotiffio.h>
#include <geotiff/xtiffio.h>
#include <tiffio.h>
#include <qpdf/qpdf-c.h>

int tc_save_file(VipsImage *in, const char *filename) {
  /* libvips' HEIF module is opened when first named (CVipsShim) */
  if (strstr(filename, ".avif") || strstr(filename, ".heic"))
    (void)tc_has_operation("heifsave");
  return vips_image_write_to_file(in, filename, NULL);
}

int tc_save_oriented(VipsImage *rgba, int orientation, const char *filename) {
  VipsImage *rgb = NULL, *copy = NULL;
  int r = -1;
  if (vips_extract_band(rgba, &rgb, 0, "n", 3, NULL) || vips_copy(rgb, &copy, NULL))
    goto done;
  vips_image_set_int(copy, "orientation", orientation);
  r = vips_image_write_to_file(copy, filename, "Q", 95, NULL);
done:
  if (rgb)
    g_object_unref(rgb);
  if (copy)
    g_object_unref(copy);
  return r;
}

int tc_save_variant(VipsImage *rgba, int variant, const char *filename) {
  VipsImage *t = NULL, *u = NULL;
  int r = -1;
  if (variant == 0) {
    if (vips_linear1(rgba, &t, 257.0, 0.0, NULL) || vips_cast(t, &u, VIPS_FORMAT_USHORT, NULL))
      goto done;
    u->Type = VIPS_INTERPRETATION_RGB16;
    r = vips_image_write_to_file(u, filename, NULL);
  } else if (variant == 1) {
    VipsImage *grey = NULL, *alpha = NULL;
    if (vips_extract_band(rgba, &grey, 1, NULL))
      goto done;
    if (vips_extract_band(rgba, &alpha, 3, NULL)) {
      g_object_unref(grey);
      goto done;
    }
    r = vips_bandjoin2(grey, alpha, &t, NULL);
    g_object_unref(grey);
    g_object_unref(alpha);
    if (r)
      goto done;
    t->Type = VIPS_INTERPRETATION_B_W;
    r = vips_image_write_to_file(t, filename, NULL);
  } else {
    if (vips_extract_band(rgba, &t, 0, "n", 3, NULL))
      goto done;
    t->Type = VIPS_INTERPRETATION_sRGB;
    if (vips_icc_export(t, &u, "output_profile", "cmyk", NULL))
      goto done;
    r = vips_image_write_to_file(u, filename, NULL);
  }
done:
  if (t)
    g_object_unref(t);
  if (u)
    g_object_unref(u);
  return r;
}

int tc_save_pages(VipsImage *tall, int page_height, const char *filename) {
  VipsImage *copy = NULL;
  if (vips_copy(tall, &copy, NULL))
    return -1;
  vips_image_set_int(copy, "page-height", page_height);
  int r = vips_image_write_to_file(copy, filename, NULL);
  g_object_unref(copy);
  return r;
}

int tc_geotiff_write(const char *path, int width, int height, int bands, int bits, int sample_format,
                     const void *pixels, const double *tiepoints, int tiepoint_values, const double *scale,
                     const double *matrix,
                     const int *short_keys, const int *short_values, int short_count, const int *double_keys,
                     const double *double_values, int double_count, const char *nodata) {
  TIFF *tif = tc_geotiff_open(path, "w");
  if (!tif)
    return -1;
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)width);
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)height);
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)bands);
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)bits);
  TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, (uint16_t)sample_format);
  TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, bands >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, (uint32_t)16);
  int base = bands >= 3 ? 3 : 1;
  if (bands > base) {
    uint16_t extra[16];
    int n = bands - base > 16 ? 16 : bands - base;
    for (int i = 0; i < n; i++)
      extra[i] = (bands == 4 || bands == 2) && i == 0 ? EXTRASAMPLE_UNASSALPHA : EXTRASAMPLE_UNSPECIFIED;
    TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, (uint16_t)n, extra);
  }
  if (tiepoints && tiepoint_values >= 6)
    TIFFSetField(tif, TIFFTAG_GEOTIEPOINTS, (uint16_t)tiepoint_values, tiepoints);
  if (scale)
    TIFFSetField(tif, TIFFTAG_GEOPIXELSCALE, (uint16_t)3, scale);
  if (matrix)
    TIFFSetField(tif, TIFFTAG_GEOTRANSMATRIX, (uint16_t)16, matrix);
  if (nodata)
    TIFFSetField(tif, TC_TAG_GDAL_NODATA, nodata);
  GTIF *gtif = GTIFNew(tif);
  if (!gtif) {
    XTIFFClose(tif);
    return -1;
  }
  for (int i = 0; i < short_count; i++)
    GTIFKeySet(gtif, (geokey_t)short_keys[i], TYPE_SHORT, 1, (unsigned short)short_values[i]);
  for (int i = 0; i < double_count; i++)
    GTIFKeySet(gtif, (geokey_t)double_keys[i], TYPE_DOUBLE, 1, double_values[i]);
  GTIFWriteKeys(gtif);
  GTIFFree(gtif);
  size_t row_bytes = (size_t)width * bands * (bits / 8);
  int result = 0;
  for (int y = 0; y < height && result == 0; y++) {
    if (TIFFWriteScanline(tif, (uint8_t *)pixels + (size_t)y * row_bytes, (uint32_t)y, 0) < 0)
      result = -1;
  }
  XTIFFClose(tif);
  return result;
}

int tc_fixture_pdf_rewrite(const char *in, const char *out, int mode) {
  qpdf_data q = qpdf_init();
  qpdf_silence_errors(q);
  qpdf_set_suppress_warnings(q, QPDF_TRUE);
  int result = -1;
  if ((qpdf_read(q, in, NULL) & QPDF_ERRORS) || (qpdf_init_write(q, out) & QPDF_ERRORS))
    goto done;
  qpdf_set_stream_data_mode(q, qpdf_s_preserve);
  qpdf_set_decode_level(q, qpdf_dl_none);
  qpdf_set_static_ID(q, QPDF_TRUE);
  if (mode == 0)
    qpdf_set_object_stream_mode(q, qpdf_o_generate);
  else if (mode == 1)
    qpdf_set_r3_encryption_parameters_insecure(q, "", "owner", QPDF_TRUE, QPDF_TRUE, QPDF_TRUE, QPDF_TRUE, QPDF_TRUE,
                                               QPDF_TRUE, qpdf_r3p_full);
  else
    qpdf_set_r6_encryption_parameters2(q, "", "owner", QPDF_TRUE, QPDF_TRUE, QPDF_TRUE, QPDF_TRUE, QPDF_TRUE, QPDF_TRUE,
                                       qpdf_r3p_full, QPDF_TRUE);
  result = qpdf_write(q) & QPDF_ERRORS ? -1 : 0;
done:
  qpdf_cleanup(&q);
  return result;
}
