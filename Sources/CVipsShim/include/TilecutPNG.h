#ifndef TILECUT_PNG_H
#define TILECUT_PNG_H

#include <stddef.h>
#include <stdint.h>

/* Encodes packed RGBA8 pixels as a PNG with libdeflate: each row gets the filter
 * with the smallest sum of absolute differences, and an image whose alpha is all
 * 255 is written as RGB. Returns a malloc'd buffer (free with tc_png_free) and
 * its length, or NULL on failure. */
uint8_t *tc_png_encode(const uint8_t *rgba, int width, int height, int level, size_t *length);
void tc_png_free(uint8_t *buffer);

#endif
