#include "TilecutResample.h"

#include <libdeflate.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define G TC_PACKED_GROUP_ROWS
#define T TC_PACKED_TILE_PX

/* One group of rows: `tiles` tiles, tile k's bytes at data + offset[k] (size[k]
 * bytes; raw when size[k] is the tile's raw size). */
typedef struct {
  int rows;
  uint32_t *offset;
  uint32_t *size;
  uint8_t *data;
  size_t bytes;
} group;

struct tc_packed_rows {
  int width, height, tiles;
  int end;   /* rows appended */
  int first; /* first group still held */
  group *groups;
  size_t bytes;
  struct libdeflate_compressor *compressor;
  uint8_t *tile, *packed; /* one raw tile, its deflated bytes */
  size_t packed_cap;
};

struct tc_packed_scratch {
  struct libdeflate_decompressor *decompressor;
  uint8_t *window, *tile;
  size_t window_cap;
  const uint8_t **rows;
  size_t rows_cap;
};

static int tile_width(const tc_packed_rows *p, int k) {
  int w = p->width - k * T;
  return w < T ? w : T;
}

tc_packed_rows *tc_packed_new(int src_width, int src_height) {
  if (src_width <= 0 || src_height <= 0)
    return NULL;
  tc_packed_rows *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  p->width = src_width;
  p->height = src_height;
  p->tiles = (src_width + T - 1) / T;
  p->groups = calloc((size_t)(src_height + G - 1) / G, sizeof(group));
  p->compressor = libdeflate_alloc_compressor(1);
  p->tile = malloc((size_t)G * T * 4);
  p->packed_cap = libdeflate_deflate_compress_bound(p->compressor, (size_t)G * T * 4);
  p->packed = malloc(p->packed_cap);
  if (!p->groups || !p->compressor || !p->tile || !p->packed) {
    tc_packed_free(p);
    return NULL;
  }
  return p;
}

static void free_group(tc_packed_rows *p, group *g) {
  p->bytes -= g->bytes;
  free(g->offset);
  free(g->data);
  memset(g, 0, sizeof *g);
}

void tc_packed_free(tc_packed_rows *p) {
  if (!p)
    return;
  if (p->groups) {
    int n = (p->height + G - 1) / G;
    for (int i = 0; i < n; i++)
      free_group(p, &p->groups[i]);
    free(p->groups);
  }
  if (p->compressor)
    libdeflate_free_compressor(p->compressor);
  free(p->tile);
  free(p->packed);
  free(p);
}

/* Deflates one group (rows of row_bytes each) into g. */
static int pack_group(tc_packed_rows *p, group *g, const uint8_t *rows, int count, size_t row_bytes) {
  g->rows = count;
  g->offset = malloc(2 * sizeof(uint32_t) * (size_t)p->tiles);
  if (!g->offset)
    return -1;
  g->size = g->offset + p->tiles;
  size_t cap = 0, used = 0;
  for (int k = 0; k < p->tiles; k++) {
    int w = tile_width(p, k);
    size_t raw = (size_t)w * 4 * (size_t)count;
    for (int i = 0; i < count; i++)
      memcpy(p->tile + (size_t)i * w * 4, rows + (size_t)i * row_bytes + (size_t)k * T * 4, (size_t)w * 4);
    size_t n = libdeflate_deflate_compress(p->compressor, p->tile, raw, p->packed, p->packed_cap);
    const uint8_t *bytes = p->packed;
    if (n == 0 || n >= raw) {
      n = raw;
      bytes = p->tile;
    }
    if (used + n > cap) {
      size_t grown = cap ? cap * 2 : 4096;
      while (grown < used + n)
        grown *= 2;
      uint8_t *d = realloc(g->data, grown);
      if (!d)
        return -1;
      g->data = d;
      cap = grown;
    }
    memcpy(g->data + used, bytes, n);
    g->offset[k] = (uint32_t)used;
    g->size[k] = (uint32_t)n;
    used += n;
  }
  /* give back what the doubling left over */
  uint8_t *d = realloc(g->data, used ? used : 1);
  if (d)
    g->data = d;
  g->bytes = used + 2 * sizeof(uint32_t) * (size_t)p->tiles;
  p->bytes += g->bytes;
  return 0;
}

int tc_packed_append(tc_packed_rows *p, const uint8_t *rows, int top, int count, size_t row_bytes) {
  if (top != p->end || top % G != 0 || count < 0 || top + count > p->height)
    return -1;
  for (int done = 0; done < count; done += G) {
    int n = count - done < G ? count - done : G;
    if (n < G && top + done + n != p->height)
      return -1;
    group *g = &p->groups[(top + done) / G];
    if (pack_group(p, g, rows + (size_t)done * row_bytes, n, row_bytes) != 0) {
      free_group(p, g);
      return -1;
    }
    p->end = top + done + n;
  }
  return 0;
}

void tc_packed_drop_before(tc_packed_rows *p, int row) {
  int last = row / G; /* groups before this one end at or above row */
  int held = (p->end + G - 1) / G;
  if (last > held)
    last = held;
  for (; p->first < last; p->first++)
    free_group(p, &p->groups[p->first]);
}

int tc_packed_rows_end(const tc_packed_rows *p) { return p->end; }
size_t tc_packed_bytes(const tc_packed_rows *p) { return p->bytes; }

tc_packed_scratch *tc_packed_scratch_new(void) {
  tc_packed_scratch *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->decompressor = libdeflate_alloc_decompressor();
  s->tile = malloc((size_t)G * T * 4);
  if (!s->decompressor || !s->tile) {
    tc_packed_scratch_free(s);
    return NULL;
  }
  return s;
}

void tc_packed_scratch_free(tc_packed_scratch *s) {
  if (!s)
    return;
  if (s->decompressor)
    libdeflate_free_decompressor(s->decompressor);
  free(s->window);
  free(s->tile);
  free(s->rows);
  free(s);
}

static int grow(void **buffer, size_t *cap, size_t need) {
  if (need <= *cap)
    return 0;
  void *b = realloc(*buffer, need);
  if (!b)
    return -1;
  *buffer = b;
  *cap = need;
  return 0;
}

int tc_packed_resample(const tc_packed_rows *p, tc_packed_scratch *s, int band_top, int band_rows, const double *sx0,
                       const double *sy0, int x_first, double dsx, double dsy, double rx, double ry, int filter,
                       int out_width, int out_rows, uint8_t *out, size_t out_stride) {
  if (out_width <= 0 || out_rows <= 0)
    return 0;
  int band_end = band_top + band_rows;
  if (band_end > p->height)
    band_end = p->height;
  /* where this block samples: the extremes over its rows of sx0 + dsx·X at its two
   * end columns, widened by more than any kernel reaches (Lanczos-3: 3 radii) */
  double ax = dsx * x_first, bx = dsx * (x_first + out_width - 1);
  double ay = dsy * x_first, by = dsy * (x_first + out_width - 1);
  double min_x = INFINITY, max_x = -INFINITY, min_y = INFINITY, max_y = -INFINITY;
  for (int r = 0; r < out_rows; r++) {
    double x0 = sx0[r] + (ax < bx ? ax : bx), x1 = sx0[r] + (ax < bx ? bx : ax);
    double y0 = sy0[r] + (ay < by ? ay : by), y1 = sy0[r] + (ay < by ? by : ay);
    if (x0 < min_x)
      min_x = x0;
    if (x1 > max_x)
      max_x = x1;
    if (y0 < min_y)
      min_y = y0;
    if (y1 > max_y)
      max_y = y1;
  }
  double pad = 3 * (rx > ry ? rx : ry) + 3;
  /* the window: source columns and rows the samples can reach, within the band
   * (rows outside it are outside the source to the resampler, window or not) */
  double c0 = floor(min_x - pad), c1 = ceil(max_x + pad) + 1;
  double r0 = floor(min_y - pad), r1 = ceil(max_y + pad) + 1;
  int col0 = c0 < 0 ? 0 : (c0 > p->width ? p->width : (int)c0);
  int col1 = c1 < 0 ? 0 : (c1 > p->width ? p->width : (int)c1);
  int row0 = r0 < band_top ? band_top : (r0 > band_end ? band_end : (int)r0);
  int row1 = r1 < band_top ? band_top : (r1 > band_end ? band_end : (int)r1);
  if (!(min_x == min_x && max_x == max_x && min_y == min_y && max_y == max_y))
    col0 = 0, col1 = p->width, row0 = band_top, row1 = band_end; /* NaN: the whole band */
  if (col0 >= col1 || row0 >= row1) {
    /* nothing of the source within reach: the resampler would write transparency */
    for (int r = 0; r < out_rows; r++)
      memset(out + (size_t)r * out_stride, 0, (size_t)out_width * 4);
    return 0;
  }
  int t0 = col0 / T, t1 = (col1 - 1) / T;
  int origin = t0 * T;
  int span = (t1 * T + tile_width(p, t1)) - origin;
  int g0 = row0 / G, g1 = (row1 - 1) / G;
  if (g0 < p->first || row1 > p->end)
    return -1;
  int wrows = 0;
  for (int gi = g0; gi <= g1; gi++)
    wrows += p->groups[gi].rows;
  size_t stride = (size_t)span * 4;
  if (grow((void **)&s->window, &s->window_cap, stride * (size_t)wrows) != 0 ||
      grow((void **)&s->rows, &s->rows_cap, sizeof(*s->rows) * (size_t)(row1 - row0)) != 0)
    return -1;
  for (int gi = g0; gi <= g1; gi++) {
    const group *g = &p->groups[gi];
    uint8_t *dst = s->window + (size_t)(gi - g0) * G * stride;
    for (int k = t0; k <= t1; k++) {
      int w = tile_width(p, k);
      size_t raw = (size_t)w * 4 * (size_t)g->rows;
      const uint8_t *tile = g->data + g->offset[k];
      if (g->size[k] != raw) {
        size_t got = 0;
        if (libdeflate_deflate_decompress(s->decompressor, tile, g->size[k], s->tile, raw, &got) != LIBDEFLATE_SUCCESS ||
            got != raw)
          return -1;
        tile = s->tile;
      }
      for (int i = 0; i < g->rows; i++)
        memcpy(dst + (size_t)i * stride + (size_t)(k * T - origin) * 4, tile + (size_t)i * w * 4, (size_t)w * 4);
    }
  }
  for (int r = row0; r < row1; r++)
    s->rows[r - row0] = s->window + (size_t)(r - g0 * G) * stride;
  tc_resample_window(s->rows, row0, row1 - row0, origin, p->width, p->height, sx0, sy0, x_first, dsx, dsy, rx, ry,
                     filter, out_width, out_rows, out, out_stride);
  return 0;
}
