/* The PNG reader (Sources/CTilecutPNGRead) alone, without the rest of tilecut: the CPU
 * time of its whole read with tc_png_scan (an incremental rebuild's digest pass, without
 * the hashing) and of rows fetched with tc_png_fetch after such a scan (a rebuild's
 * render, from the scan's marks). libvips' image is a stub: tc_png_scan and tc_png_fetch
 * use only the reader the image carries.
 *
 *   cc -O2 -o /tmp/png_read bench/png_read.c Sources/CTilecutPNGRead/TilecutPNGRead.c \
 *     Sources/CTilecutPNG/TilecutPNGFilter.c -ISources/CTilecutPNGRead/include \
 *     -ISources/CTilecutInputCheck/include -ISources/CVipsShim/include \
 *     -ISources/CTilecutPNG/include $(pkg-config --cflags --libs vips) -lisal -ldeflate
 *   /tmp/png_read plan.png 8 scan              eight whole reads, a line each
 *   /tmp/png_read plan.png 8 fetch 6000 9640   rows 6000..9640 in runs of 113, after a scan
 *
 * Each line is the CPU time (user + system) of one read; take the least of several. */
#include <vips/vips.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "TilecutPNGRead.h"

int tc_cancel_requested(void) { return 0; }

VipsImage *tc_rows_image(int width, int height, VipsGenerateFn generate, void *state, void (*release)(void *)) {
  (void)width;
  (void)height;
  (void)generate;
  (void)state;
  (void)release;
  return vips_image_new();
}

static unsigned long long seen;

static int take(void *context, const unsigned char *rows, unsigned top, unsigned count, size_t stride) {
  (void)context;
  seen += rows[0] + rows[(size_t)(count - 1) * stride] + top;
  return 0;
}

/* the width IHDR gives (the stub image has none) */
static size_t png_width(const char *path) {
  unsigned char head[24] = {0};
  FILE *f = fopen(path, "rb");
  if (!f || fread(head, 1, sizeof head, f) != sizeof head) {
    if (f)
      fclose(f);
    return 0;
  }
  fclose(f);
  return (size_t)head[16] << 24 | (size_t)head[17] << 16 | (size_t)head[18] << 8 | head[19];
}

static double cpu(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

int main(int argc, char **argv) {
  if (argc < 4 || (strcmp(argv[3], "scan") && argc < 6)) {
    fprintf(stderr, "usage: %s file.png runs scan | %s file.png runs fetch first end\n", argv[0], argv[0]);
    return 2;
  }
  VIPS_INIT(argv[0]);
  int runs = atoi(argv[2]);
  int scan = !strcmp(argv[3], "scan");
  int first = scan ? 0 : atoi(argv[4]), end = scan ? 0 : atoi(argv[5]);
  enum { RUN = 113 };
  unsigned char *out = NULL;
  for (int i = 0; i < runs; i++) {
    VipsImage *image;
    if (tc_png_open(argv[1], &image) != 1) {
      fprintf(stderr, "%s: not a PNG tilecut's reader opens\n", argv[1]);
      return 1;
    }
    if (!scan) {
      /* the digest pass before it, which leaves the marks */
      VipsImage *whole;
      if (tc_png_open(argv[1], &whole) != 1 || tc_png_scan(whole, take, NULL) != 1)
        return 1;
      g_object_unref(whole);
      if (!out)
        out = malloc(4 * png_width(argv[1]) * RUN);
    }
    double start = cpu();
    int result = 1;
    if (scan)
      result = tc_png_scan(image, take, NULL);
    for (int y = first; y < end && result == 1; y += RUN) {
      result = tc_png_fetch(image, y, end - y < RUN ? end - y : RUN, out);
      seen += out[0];
    }
    printf("%s %.4f s\n", argv[3], cpu() - start);
    if (result != 1) {
      fprintf(stderr, "%s\n", vips_error_buffer());
      return 1;
    }
    g_object_unref(image);
  }
  fprintf(stderr, "(%llu)\n", seen);
  return 0;
}
