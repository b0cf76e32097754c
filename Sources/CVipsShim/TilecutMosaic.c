#include "TilecutMosaic.h"

#include <string.h>

static void tc_free_copy(VipsImage *image, void *data) {
  (void)image;
  g_free(data);
}

int tc_load_tile_copy(const char *loader, const void *data, size_t length, VipsImage **out) {
  *out = NULL;
  if (length == 0) {
    vips_error("tilecut", "%s", "an empty tile");
    return -1;
  }
  void *copy = g_malloc(length);
  memcpy(copy, data, length);
  VipsImage *image = NULL;
  int status;
  if (!strcmp(loader, "pngload"))
    status = vips_pngload_buffer(copy, length, &image, "fail_on", VIPS_FAIL_ON_WARNING, NULL);
  else if (!strcmp(loader, "jpegload"))
    status = vips_jpegload_buffer(copy, length, &image, "fail_on", VIPS_FAIL_ON_WARNING, NULL);
  else if (!strcmp(loader, "webpload"))
    status = vips_webpload_buffer(copy, length, &image, "fail_on", VIPS_FAIL_ON_WARNING, NULL);
  else {
    vips_error("tilecut", "no tile loader %s", loader);
    status = -1;
  }
  if (status || !image) {
    g_free(copy);
    return -1;
  }
  g_signal_connect(image, "postclose", G_CALLBACK(tc_free_copy), copy);
  *out = image;
  return 0;
}

int tc_blank_rgba(int width, int height, VipsImage **out) {
  VipsImage *black = NULL;
  if (vips_black(&black, width, height, "bands", 4, NULL))
    return -1;
  int status = vips_copy(black, out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
  g_object_unref(black);
  return status;
}

int tc_arrayjoin(VipsImage **in, int count, int across, VipsImage **out) {
  return vips_arrayjoin(in, out, count, "across", across, NULL);
}
