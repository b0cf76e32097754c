#include "TilecutLossy.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <webp/encode.h>

tc_webp_options tc_webp_options_default(int quality, int method) {
  WebPConfig config;
  WebPConfigInit(&config);
  tc_webp_options o = {
      .quality = quality,
      .method = method,
      .segments = config.segments,
      .sns_strength = config.sns_strength,
      .filter_strength = config.filter_strength,
      .filter_sharpness = config.filter_sharpness,
      .autofilter = config.autofilter,
      .preprocessing = config.preprocessing,
  };
  return o;
}

/* Copies libwebp's output into a malloc'd buffer owned by the caller. */
uint8_t *tc_webp_encode_rows(const uint8_t *rgba, size_t stride, int width, int height, const tc_webp_options *o,
                             size_t *length) {
  WebPConfig config;
  if (!WebPConfigInit(&config))
    return NULL;
  config.quality = (float)o->quality;
  config.method = o->method;
  config.segments = o->segments;
  config.sns_strength = o->sns_strength;
  config.filter_strength = o->filter_strength;
  config.filter_sharpness = o->filter_sharpness;
  config.autofilter = o->autofilter;
  config.preprocessing = o->preprocessing;
  if (!WebPValidateConfig(&config))
    return NULL;
  WebPPicture picture;
  if (!WebPPictureInit(&picture))
    return NULL;
  picture.width = width;
  picture.height = height;
  /* RGB → YUV 4:2:0 as vips webpsave does it (ImportRGBA, no sharp YUV); libwebp
   * drops the alpha plane when every pixel is opaque */
  if (!WebPPictureImportRGBA(&picture, rgba, (int)stride)) {
    WebPPictureFree(&picture);
    return NULL;
  }
  WebPMemoryWriter writer;
  WebPMemoryWriterInit(&writer);
  picture.writer = WebPMemoryWrite;
  picture.custom_ptr = &writer;
  int ok = WebPEncode(&config, &picture);
  WebPPictureFree(&picture);
  uint8_t *out = NULL;
  if (ok && writer.size > 0 && (out = malloc(writer.size)) != NULL) {
    memcpy(out, writer.mem, writer.size);
    *length = writer.size;
  }
  WebPMemoryWriterClear(&writer);
  return out;
}

struct tc_jpeg_error {
  struct jpeg_error_mgr base;
  jmp_buf jump;
  /* libjpeg's output buffer, here so that the error path frees it */
  unsigned char *buffer;
  unsigned long size;
};

static void tc_jpeg_fail(j_common_ptr info) {
  struct tc_jpeg_error *e = (struct tc_jpeg_error *)info->err;
  longjmp(e->jump, 1);
}

static void tc_jpeg_quiet(j_common_ptr info, int level) {
  (void)info;
  (void)level;
}

uint8_t *tc_jpeg_encode_rows(const uint8_t *rgba, size_t stride, int width, int height, int quality, int optimize,
                             const uint8_t fill[3], size_t *length) {
  struct jpeg_compress_struct info;
  struct tc_jpeg_error error;
  /* volatile: read after a longjmp */
  uint8_t *volatile row = malloc((size_t)width * 4);
  if (row == NULL)
    return NULL;
  error.buffer = NULL;
  error.size = 0;
  info.err = jpeg_std_error(&error.base);
  error.base.error_exit = tc_jpeg_fail;
  error.base.emit_message = tc_jpeg_quiet;
  if (setjmp(error.jump)) {
    jpeg_destroy_compress(&info);
    free(error.buffer);
    free(row);
    return NULL;
  }
  jpeg_create_compress(&info);
  jpeg_mem_dest(&info, &error.buffer, &error.size);
  info.image_width = (JDIMENSION)width;
  info.image_height = (JDIMENSION)height;
  /* libjpeg-turbo reads RGBX rows as they are; the fourth byte is skipped */
  info.input_components = 4;
  info.in_color_space = JCS_EXT_RGBX;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality, TRUE);
  info.dct_method = JDCT_ISLOW;
  info.optimize_coding = optimize ? TRUE : FALSE;
  if (quality >= 90)
    for (int c = 0; c < info.num_components; c++)
      info.comp_info[c].h_samp_factor = info.comp_info[c].v_samp_factor = 1;
  jpeg_start_compress(&info, TRUE);
  for (int y = 0; y < height; y++) {
    const uint8_t *p = rgba + (size_t)y * stride;
    JSAMPROW line = (JSAMPROW)p;
    /* all alpha bytes ANDed: one pass the compiler vectorises */
    unsigned alpha = 255;
    for (int x = 0; x < width; x++)
      alpha &= p[x * 4 + 3];
    if (alpha != 255) {
      /* flattened as vips_flatten does: (colour·α + fill·(255 − α)) / 255 */
      for (int x = 0; x < width; x++) {
        unsigned a = p[x * 4 + 3];
        for (int c = 0; c < 3; c++)
          row[x * 4 + c] = (uint8_t)((p[x * 4 + c] * a + fill[c] * (255 - a)) / 255);
        row[x * 4 + 3] = 255;
      }
      line = row;
    }
    jpeg_write_scanlines(&info, &line, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  free(row);
  *length = error.size;
  return error.buffer;
}

void tc_lossy_free(uint8_t *buffer) { free(buffer); }
