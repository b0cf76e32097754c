#define _GNU_SOURCE 1 /* memmem */
#include "TilecutDXFMText.h"
#include "TilecutDXFLines.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Heights kept for one MTEXT: more columns flow on as high as the last. */
#define MAX_COLUMN_HEIGHTS 256
/* The most of an MTEXT's text read for its \H: a longer one keeps its own height. */
#define MAX_TEXT_READ 65536

/* The MTEXT being read. */
typedef struct {
  int mtext, has_columns, embedded, long_text;
  char handle[24];
  double reference_width, defined_height, total_width, width, gutter;
  int count;
  double heights[MAX_COLUMN_HEIGHTS];
  int height_count;
  /* ACAD XDATA: 0 elsewhere, 1 in ACAD_MTEXT_COLUMN_INFO, 2 in ACAD_MTEXT_DEFINED_HEIGHT */
  int xdata_acad, xdata_part;
  int key, heights_left;
} mtext_entity;

/* Whether the file holds column data at all: most drawings have none, and their
 * MTEXTs need no second pass over the text. -1 when it cannot be read. */
static int has_column_data(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return -1;
  struct stat st;
  if (fstat(fd, &st) || st.st_size <= 0) {
    close(fd);
    return st.st_size == 0 ? 0 : -1;
  }
  void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED)
    return -1;
  size_t n = (size_t)st.st_size;
  int found = n >= 18 && memcmp(map, "AutoCAD Binary DXF", 18) != 0 &&
              (memmem(map, n, "Embedded Object", 15) || memmem(map, n, "ACAD_MTEXT_COLUMN_INFO", 22) ||
               memmem(map, n, "\\H", 2));
  munmap(map, n);
  return found;
}

/* The height an MTEXT's one \H sets for all its text: "\H120;" (absolute, *height)
 * or "\H0.8x;" (relative, *factor) before any character drawn, with no other \H and
 * nothing drawn after the braces it is in close; 0 when the text has none such. */
static int whole_text_height(const char *t, double *height, double *factor) {
  int depth = 0, found = 0, found_depth = 0;
  double value = 0;
  int relative = 0;
  for (const char *p = t; *p;) {
    if (*p == '{') {
      depth++, p++;
      continue;
    }
    if (*p == '}') {
      depth--, p++;
      if (found && depth < found_depth) {
        /* the group that set it closes: nothing may be drawn after it */
        while (*p == '}' || *p == ' ')
          p++;
        if (*p)
          return 0;
        break;
      }
      continue;
    }
    if (*p == '\\' && p[1]) {
      char c = p[1];
      if (c == 'H') {
        if (found)
          return 0;
        char *end = NULL;
        value = strtod(p + 2, &end);
        if (!end || end == p + 2 || !(value > 0) || !isfinite(value))
          return 0;
        relative = *end == 'x' || *end == 'X';
        if (relative)
          end++;
        if (*end != ';')
          return 0;
        found = 1, found_depth = depth;
        p = end + 1;
        continue;
      }
      if (strchr("fFACcQWTp", c)) {
        /* formatting up to its ';', nothing drawn */
        const char *semi = strchr(p, ';');
        if (!semi)
          return 0;
        p = semi + 1;
        continue;
      }
      if (strchr("LlOoKk", c)) {
        p += 2;
        continue;
      }
    }
    /* something drawn: the \H must come before it */
    if (!found)
      return 0;
    p++;
  }
  if (!found)
    return 0;
  if (relative)
    *factor = value;
  else
    *height = value;
  return 1;
}

static int add_layout(tc_mtext_scan *scan, size_t *cap, size_t *height_cap, const mtext_entity *e, const char *text) {
  double height = 0, factor = 0;
  int sized = text && strstr(text, "\\H") && whole_text_height(text, &height, &factor);
  if (!e->mtext || !(e->has_columns || sized) || !e->handle[0])
    return 0;
  double heights[MAX_COLUMN_HEIGHTS];
  int n = 0;
  /* as ezdxf's column_heights: the heights given (the last as high as its text
   * needs), else `count` columns of the defined height, else one as high as needed */
  if (!e->has_columns) {
    /* no columns */
  } else if (e->height_count > 0) {
    memcpy(heights, e->heights, sizeof(double) * (size_t)e->height_count);
    n = e->height_count;
    heights[n - 1] = -1;
  } else if (!(fabs(e->defined_height) >= 1e-6)) {
    heights[n++] = -1;
  } else {
    int count = e->count;
    if (count <= 0 && e->total_width > 0 && fabs(e->width + e->gutter) > 1e-6)
      count = (int)lround((e->total_width + e->gutter) / fabs(e->width + e->gutter));
    if (count < 1)
      count = 1;
    if (count > MAX_COLUMN_HEIGHTS)
      count = MAX_COLUMN_HEIGHTS;
    for (; n < count; n++)
      heights[n] = fabs(e->defined_height);
  }
  if (tc_grow_array((void **)&scan->layouts, cap, scan->count + 1, sizeof(tc_mtext_layout), 16) ||
      tc_grow_array((void **)&scan->heights, height_cap, scan->height_count + (size_t)n, sizeof(double), 64))
    return -1;
  tc_mtext_layout *c = &scan->layouts[scan->count++];
  c->handle = strtoull(e->handle, NULL, 16);
  c->width = e->width > 0 ? e->width : e->reference_width;
  c->gutter = e->gutter > 0 ? e->gutter : 0;
  c->first = (uint32_t)scan->height_count;
  c->count = (uint32_t)n;
  c->height = height;
  c->height_factor = factor;
  memcpy(scan->heights + scan->height_count, heights, sizeof(double) * (size_t)n);
  scan->height_count += (size_t)n;
  return 0;
}

/* One ACAD_MTEXT_COLUMN_INFO value: a 1070 names the setting, the next value is it;
 * 50 (the heights) is followed by that many 1040 heights. */
static void column_info(mtext_entity *e, int group, double v) {
  if (e->heights_left > 0) {
    if (group == 1040) {
      if (e->height_count < MAX_COLUMN_HEIGHTS)
        e->heights[e->height_count++] = v;
      e->heights_left--;
      return;
    }
    e->heights_left = 0;
  }
  if (!e->key) {
    e->key = group == 1070 ? (int)v : -1;
    return;
  }
  switch (e->key) {
  case 76: e->count = (int)v; break;
  case 48: e->width = v; break;
  case 49: e->gutter = v; break;
  case 50: e->heights_left = (int)fmin(fmax(v, 0), 100000); break;
  default: break;
  }
  e->key = 0;
}

static int by_handle(const void *a, const void *b) {
  unsigned long long x = ((const tc_mtext_layout *)a)->handle, y = ((const tc_mtext_layout *)b)->handle;
  return (x > y) - (x < y);
}

int tc_dxf_mtext_layouts(const char *path, tc_mtext_scan *scan) {
  memset(scan, 0, sizeof *scan);
  int found = has_column_data(path);
  if (found <= 0)
    return found;
  FILE *file = fopen(path, "rb");
  if (!file)
    return -1;
  char *code_line = NULL, *value_line = NULL, *text = NULL;
  size_t code_cap = 0, value_cap = 0, cap = 0, height_cap = 0, text_length = 0, text_cap = 0;
  int entities = 0, expect_name = 0, failed = 0;
  mtext_entity *e = calloc(1, sizeof *e);
  if (!e) {
    fclose(file);
    return -1;
  }
  while (!failed && getline(&code_line, &code_cap, file) > 0 && getline(&value_line, &value_cap, file) > 0) {
    int group = atoi(tc_trim_line(code_line));
    char *value = tc_trim_line(value_line);
    if (group == 0) {
      if (entities && add_layout(scan, &cap, &height_cap, e, text_length ? text : NULL))
        failed = 1;
      memset(e, 0, sizeof *e);
      text_length = 0;
      if (!strcmp(value, "SECTION"))
        expect_name = 1;
      else if (!strcmp(value, "ENDSEC"))
        entities = 0;
      e->mtext = entities && !strcmp(value, "MTEXT");
      continue;
    }
    if (expect_name && group == 2) {
      expect_name = 0;
      entities = !strcmp(value, "ENTITIES");
      continue;
    }
    if (!e->mtext)
      continue;
    double v = strtod(value, NULL);
    if (!isfinite(v))
      v = 0;
    if (group == 5 && !e->embedded && !e->xdata_acad) {
      snprintf(e->handle, sizeof e->handle, "%s", value);
    } else if ((group == 1 || group == 3) && !e->embedded && !e->xdata_acad) {
      /* its text: 250-character chunks (3), the last in 1 */
      size_t n = strlen(value);
      if (text_length + n > MAX_TEXT_READ) {
        text_length = 0;
        e->long_text = 1;
        continue;
      }
      if (e->long_text)
        continue;
      if (tc_grow_array((void **)&text, &text_cap, text_length + n + 1, 1, 256)) {
        failed = 1;
        break;
      }
      memcpy(text + text_length, value, n + 1);
      text_length += n;
    } else if (group == 1001) {
      e->xdata_acad = !strcmp(value, "ACAD");
      e->xdata_part = 0;
    } else if (e->xdata_acad && group == 1000) {
      e->xdata_part = !strcmp(value, "ACAD_MTEXT_COLUMN_INFO_BEGIN")       ? 1
                      : !strcmp(value, "ACAD_MTEXT_DEFINED_HEIGHT_BEGIN") ? 2
                                                                          : 0;
      e->key = e->heights_left = 0;
      if (e->xdata_part == 1) {
        e->has_columns = 1;
        e->count = 1;
      }
    } else if (e->xdata_acad && e->xdata_part == 1 && (group == 1070 || group == 1040)) {
      column_info(e, group, v);
    } else if (e->xdata_acad && e->xdata_part == 2 && group == 1040) {
      e->defined_height = v;
    } else if (e->xdata_acad) {
      /* other XDATA */
    } else if (group == 101) {
      e->embedded = !strcmp(value, "Embedded Object");
      if (e->embedded) {
        e->has_columns = 1;
        e->count = 1;
      }
    } else if (e->embedded) {
      switch (group) {
      case 41: e->defined_height = v; break;
      case 42: e->total_width = v; break;
      case 44: e->width = v; break;
      case 45: e->gutter = v; break;
      case 72: e->count = (int)v; break;
      case 46:
        if (e->height_count < MAX_COLUMN_HEIGHTS)
          e->heights[e->height_count++] = v;
        break;
      default: break;
      }
    } else if (group == 41) {
      e->reference_width = v;
    }
  }
  if (!failed && entities && add_layout(scan, &cap, &height_cap, e, text_length ? text : NULL))
    failed = 1;
  free(e);
  free(text);
  free(code_line);
  free(value_line);
  fclose(file);
  if (failed) {
    tc_mtext_scan_free(scan);
    return -1;
  }
  qsort(scan->layouts, scan->count, sizeof *scan->layouts, by_handle);
  return 0;
}

const tc_mtext_layout *tc_dxf_find_mtext(const tc_mtext_scan *scan, const char *handle) {
  if (!scan->count || !handle || !*handle)
    return NULL;
  tc_mtext_layout key = {.handle = strtoull(handle, NULL, 16)};
  return bsearch(&key, scan->layouts, scan->count, sizeof key, by_handle);
}

void tc_mtext_scan_free(tc_mtext_scan *scan) {
  free(scan->layouts);
  free(scan->heights);
  memset(scan, 0, sizeof *scan);
}
