#include "CVipsShim.h"

int tc_save_webp_effort(VipsImage *in, int quality, int effort, void **buffer, size_t *length) {
  return vips_webpsave_buffer(in, buffer, length, "Q", quality, "effort", effort, "strip", TRUE, NULL);
}
