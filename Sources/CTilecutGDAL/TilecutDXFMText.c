#define _GNU_SOURCE 1 /* memmem, strcasecmp */
#include "TilecutDXFMText.h"
#include "TilecutDXFLines.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Heights kept for one MTEXT: more columns flow on as high as the last. */
#define MAX_COLUMN_HEIGHTS 256
/* The most of an MTEXT's text read for its \H: a longer one keeps its own height. */
#define MAX_TEXT_READ 65536

/* The MTEXT being read (or, `kind` 2, an INSERT or DIMENSION: the block it inlines in
 * `name`; 3 a BLOCK's header: its name). */
typedef struct {
  int mtext, has_columns, embedded, long_text, kind;
  char handle[24];
  char name[256];
  double reference_width, defined_height, total_width, width, gutter, char_height, extrusion_z;
  int count, times, dimension;
  double heights[MAX_COLUMN_HEIGHTS];
  int height_count;
  /* ACAD XDATA: 0 elsewhere, 1 in ACAD_MTEXT_COLUMN_INFO, 2 in ACAD_MTEXT_DEFINED_HEIGHT */
  int xdata_acad, xdata_part;
  int key, heights_left;
} mtext_entity;

/* The MTEXTs (their layouts, -1 for one that needs none) and inserts of the
 * blocks, in the order of each block, for the inserts of model space to inline. */
typedef struct {
  int layout;   /* an MTEXT: its layout in block_layouts, or -1; an insert: -2 */
  char *target; /* an insert: the block it inlines */
  int block;    /* its index once resolved, -1 when undefined */
  int times;    /* a MINSERT's copies */
} block_item;

typedef struct {
  char *name;
  size_t first, count; /* items[first, first + count) */
  double mtexts, needed; /* the MTEXTs it inlines, and those with a layout (memoised) */
  int state;             /* 0 not counted, 1 counting (a cycle when met again), 2 counted */
} block_entry;

typedef struct {
  unsigned long long handle;
  char *target;
  int times;
} model_insert;

typedef struct {
  tc_mtext_layout *block_layouts;
  size_t block_layout_count, block_layout_cap;
  block_item *items;
  size_t item_count, item_cap;
  block_entry *blocks;
  size_t block_count, block_cap;
  model_insert *inserts;
  size_t insert_count, insert_cap;
} block_scan;

/* The most MTEXT places the inserts' expansion visits: past it, later ones are drawn as GDAL gives them. */
#define MAX_INLINED_MTEXTS 4000000
/* The most layouts kept that only scale an inlined MTEXT's width: past it, later ones
 * wrap at their block's width, as GDAL gives it. */
#define MAX_SCALED_ONLY 200000

/* Whether `n` bytes at `t` hold a backslash that is not MTEXT's \P (a paragraph break)
 * or \~ (a hard space): for ezdxf, an MTEXT holding one is a rich text. */
static int has_code(const char *t, size_t n) {
  for (const char *p = t, *end = t + n; p < end && (p = memchr(p, '\\', (size_t)(end - p))); p++)
    if (p + 1 >= end || (p[1] != 'P' && p[1] != '~'))
      return 1;
  return 0;
}

/* Whether `n` bytes at `t` hold a group 230 (an extrusion's z) whose value is negative. */
static int has_down_extrusion(const char *t, size_t n) {
  const char *end = t + n;
  for (const char *p = t; p < end && (p = memmem(p, (size_t)(end - p), "230", 3)); p += 3) {
    if (p > t && p[-1] != '\n' && p[-1] != ' ')
      continue;
    const char *q = p + 3;
    while (q < end && *q == '\r')
      q++;
    if (q >= end || *q != '\n')
      continue;
    for (q++; q < end && *q == ' '; q++) {
    }
    if (q < end && *q == '-')
      return 1;
  }
  return 0;
}

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
               memmem(map, n, "\\H", 2) || memmem(map, n, "\\S", 2) || memmem(map, n, "\\W", 2) ||
               memmem(map, n, "\\Q", 2) || memmem(map, n, "\\p", 2) || memmem(map, n, "\\C", 2) ||
               memmem(map, n, "\\c", 2) || memmem(map, n, "\\L", 2) || memmem(map, n, "\\O", 2) ||
               memmem(map, n, "\\K", 2) || has_code(map, n) || has_down_extrusion(map, n));
  if (!found && n >= 18 && memcmp(map, "AutoCAD Binary DXF", 18) != 0) {
    /* an MTEXT in a block: an insert scales its width, which GDAL does not */
    const char *blocks = memmem(map, n, "BLOCKS", 6);
    const char *entities = blocks ? memmem(blocks, n - (size_t)(blocks - (const char *)map), "ENTITIES", 8) : NULL;
    found = entities && memmem(blocks, (size_t)(entities - blocks), "MTEXT", 5) != NULL;
  }
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

/* Whether `t` holds inline codes GDAL 3.6 loses and ezdxf draws: a stacked fraction
 * (\S), a width factor (\W), an oblique angle (\Q), a colour (\C, \c), a stroke
 * (\L under, \O over, \K through its words), a
 * paragraph's alignment, indents or tab stops (\p..q, \p..i, l, r, t), or a \H
 * that is not one height for all of it (whole_text_height). */
static int needs_rich(const char *t) {
  int heights = 0;
  for (const char *p = t; *p; p++) {
    if (*p != '\\' || !p[1])
      continue;
    char c = p[1];
    if (c == 'S' || c == 'W' || c == 'Q' || c == 'C' || c == 'c' || c == 'L' || c == 'O' || c == 'K')
      return 1;
    /* a paragraph's alignment (\pxqc;), indents (\pi, \pl, \pr) or tab stops (\pt) */
    if (c == 'p') {
      const char *semi = strchr(p, ';');
      for (const char *q = p + 2; *q && (!semi || q < semi); q++)
        if (strchr("qilrt", *q))
          return 1;
    }
    if (c == 'H')
      heights = 1;
    /* an escaped backslash is no code */
    p++;
  }
  double height = 0, factor = 0;
  return heights && !whole_text_height(t, &height, &factor);
}

/* Appends the layout of MTEXT `e` (its text `text`, NULL when unread) to `*layouts`,
 * when it has one: columns, a height for all its text, or inline codes GDAL loses; or,
 * for an MTEXT of a block (not `keyed`) with a width, its height, by which the drawing
 * finds how much an insert scales its width. */
static int add_layout(tc_mtext_scan *scan, tc_mtext_layout **layouts, size_t *count, size_t *cap, size_t *height_cap,
                      size_t *content_cap, const mtext_entity *e, const char *text, int keyed) {
  int rich = text && needs_rich(text);
  double height = 0, factor = 0;
  int sized = !rich && text && strstr(text, "\\H") && whole_text_height(text, &height, &factor);
  int scaled = !keyed && e->reference_width > 0 && e->char_height > 0;
  int coded = e->long_text || (text && has_code(text, strlen(text)));
  int mirrored = e->extrusion_z < 0;
  if (!e->mtext || !(e->has_columns || sized || rich || scaled || coded || mirrored) || (keyed && !e->handle[0]))
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
    int columns = e->count;
    if (columns <= 0 && e->total_width > 0 && fabs(e->width + e->gutter) > 1e-6)
      columns = (int)lround((e->total_width + e->gutter) / fabs(e->width + e->gutter));
    if (columns < 1)
      columns = 1;
    if (columns > MAX_COLUMN_HEIGHTS)
      columns = MAX_COLUMN_HEIGHTS;
    for (; n < columns; n++)
      heights[n] = fabs(e->defined_height);
  }
  size_t length = rich ? strlen(text) : 0;
  if (tc_grow_array((void **)layouts, cap, *count + 1, sizeof(tc_mtext_layout), 16) ||
      tc_grow_array((void **)&scan->heights, height_cap, scan->height_count + (size_t)n, sizeof(double), 64) ||
      (rich && (scan->content_bytes + length + 2 > UINT32_MAX ||
                tc_grow_array((void **)&scan->content, content_cap, scan->content_bytes + length + 2, 1, 256))))
    return -1;
  tc_mtext_layout *c = &(*layouts)[(*count)++];
  memset(c, 0, sizeof *c);
  c->handle = keyed ? strtoull(e->handle, NULL, 16) : 0;
  c->width = e->width > 0 ? e->width : e->reference_width;
  c->gutter = e->gutter > 0 ? e->gutter : 0;
  c->first = (uint32_t)scan->height_count;
  c->count = (uint32_t)n;
  c->height = height;
  c->height_factor = factor;
  c->char_height = e->char_height;
  c->coded = coded;
  c->mirrored = mirrored;
  memcpy(scan->heights + scan->height_count, heights, sizeof(double) * (size_t)n);
  scan->height_count += (size_t)n;
  if (rich) {
    /* offset 0 is "none": the first content starts at 1 */
    if (scan->content_bytes == 0)
      scan->content[scan->content_bytes++] = 0;
    c->rich = (uint32_t)scan->content_bytes;
    memcpy(scan->content + scan->content_bytes, text, length + 1);
    scan->content_bytes += length + 1;
  }
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
  const tc_mtext_layout *x = a, *y = b;
  if (x->handle != y->handle)
    return x->handle < y->handle ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

static int by_block_name(const void *a, const void *b) {
  return strcasecmp(((const block_entry *)a)->name, ((const block_entry *)b)->name);
}

static int find_block(const block_scan *bs, const char *name) {
  if (!name)
    return -1;
  size_t lo = 0, hi = bs->block_count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = strcasecmp(bs->blocks[mid].name, name);
    if (c == 0)
      return (int)mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

/* The MTEXTs block `index` inlines, and those of them with a layout (memoised; an
 * insert of a block into itself, which GDAL skips, adds none). */
static void count_mtexts(block_scan *bs, int index, int depth) {
  block_entry *b = &bs->blocks[index];
  if (b->state)
    return;
  b->state = 1;
  double mtexts = 0, needed = 0;
  for (size_t i = b->first; i < b->first + b->count; i++) {
    const block_item *item = &bs->items[i];
    if (item->layout >= -1) {
      mtexts += 1;
      needed += item->layout >= 0;
    } else if (item->block >= 0 && depth < 64) {
      count_mtexts(bs, item->block, depth + 1);
      const block_entry *t = &bs->blocks[item->block];
      if (t->state == 2) {
        mtexts += item->times * t->mtexts;
        needed += item->times * t->needed;
      }
    }
  }
  b->mtexts = mtexts;
  b->needed = needed;
  b->state = 2;
}

/* Adds to `scan` the layouts of the MTEXTs block `index` inlines for the insert
 * `handle`, numbered from *at on; `budget` the MTEXT places still to visit. */
static int expand(tc_mtext_scan *scan, size_t *cap, const block_scan *bs, int index, unsigned long long handle, double *at,
                  double *budget, int depth) {
  const block_entry *b = &bs->blocks[index];
  for (size_t i = b->first; i < b->first + b->count; i++) {
    const block_item *item = &bs->items[i];
    if (item->layout >= -1) {
      const tc_mtext_layout *l = item->layout >= 0 ? &bs->block_layouts[item->layout] : NULL;
      int scaled_only = l && l->count == 0 && !l->rich && l->height == 0 && l->height_factor == 0;
      if (l && !(scaled_only && scan->count >= MAX_SCALED_ONLY)) {
        if (tc_grow_array((void **)&scan->layouts, cap, scan->count + 1, sizeof(tc_mtext_layout), 16))
          return -1;
        tc_mtext_layout *c = &scan->layouts[scan->count++];
        *c = bs->block_layouts[item->layout];
        c->handle = handle;
        c->index = (uint32_t)*at;
        c->inlined = 1;
      }
      *at += 1;
      *budget -= 1;
      continue;
    }
    if (item->block < 0 || bs->blocks[item->block].state != 2)
      continue;
    const block_entry *t = &bs->blocks[item->block];
    for (int copy = 0; copy < item->times; copy++) {
      /* a block with nothing to find, or past the budget: only counted */
      if (t->needed == 0 || *budget < t->mtexts || depth >= 64 || *at + t->mtexts >= UINT32_MAX) {
        *at += t->mtexts;
        *budget -= t->needed > 0 ? t->mtexts : 0;
        continue;
      }
      if (expand(scan, cap, bs, item->block, handle, at, budget, depth + 1))
        return -1;
    }
  }
  return 0;
}

/* The layouts of the MTEXTs the model space's inserts inline, keyed by insert. */
static int inline_blocks(tc_mtext_scan *scan, size_t *cap, block_scan *bs) {
  if (!bs->block_layout_count || !bs->insert_count)
    return 0;
  for (size_t i = 0; i < bs->block_count; i++)
    if (!bs->blocks[i].name && !(bs->blocks[i].name = strdup("")))
      return -1;
  /* items refer to blocks by name: resolved once the blocks are sorted */
  qsort(bs->blocks, bs->block_count, sizeof *bs->blocks, by_block_name);
  for (size_t i = 0; i < bs->item_count; i++)
    bs->items[i].block = bs->items[i].layout == -2 ? find_block(bs, bs->items[i].target) : -1;
  for (size_t i = 0; i < bs->block_count; i++)
    count_mtexts(bs, (int)i, 0);
  double budget = MAX_INLINED_MTEXTS;
  for (size_t i = 0; i < bs->insert_count; i++) {
    const model_insert *insert = &bs->inserts[i];
    int index = find_block(bs, insert->target);
    if (index < 0 || bs->blocks[index].needed == 0 || !insert->handle)
      continue;
    double at = 0;
    for (int copy = 0; copy < insert->times && budget > 0; copy++)
      if (expand(scan, cap, bs, index, insert->handle, &at, &budget, 0))
        return -1;
  }
  return 0;
}

static void block_scan_free(block_scan *bs) {
  for (size_t i = 0; i < bs->item_count; i++)
    free(bs->items[i].target);
  for (size_t i = 0; i < bs->block_count; i++)
    free(bs->blocks[i].name);
  for (size_t i = 0; i < bs->insert_count; i++)
    free(bs->inserts[i].target);
  free(bs->block_layouts);
  free(bs->items);
  free(bs->blocks);
  free(bs->inserts);
}

/* The entity just read ends: its layout, its place in its block, or the model-space insert. */
static int end_entity(tc_mtext_scan *scan, size_t *cap, size_t *height_cap, size_t *content_cap, block_scan *bs, int section,
                      int block, const mtext_entity *e, const char *text) {
  if (section == 2 && e->mtext)
    return add_layout(scan, &scan->layouts, &scan->count, cap, height_cap, content_cap, e, text, 1);
  if (section == 2 && e->kind == 2) {
    if (!e->handle[0] || !e->name[0])
      return 0;
    if (tc_grow_array((void **)&bs->inserts, &bs->insert_cap, bs->insert_count + 1, sizeof(model_insert), 64))
      return -1;
    model_insert *insert = &bs->inserts[bs->insert_count];
    insert->handle = strtoull(e->handle, NULL, 16);
    insert->times = e->times > 1 ? e->times : 1;
    if (!(insert->target = strdup(e->name)))
      return -1;
    bs->insert_count++;
    return 0;
  }
  if (section != 1 || block < 0 || !(e->mtext || e->kind == 2))
    return 0;
  if (tc_grow_array((void **)&bs->items, &bs->item_cap, bs->item_count + 1, sizeof(block_item), 64))
    return -1;
  block_item *item = &bs->items[bs->item_count];
  *item = (block_item){.layout = -2, .target = NULL, .block = -1, .times = e->times > 1 ? e->times : 1};
  if (e->mtext) {
    size_t before = bs->block_layout_count;
    if (add_layout(scan, &bs->block_layouts, &bs->block_layout_count, &bs->block_layout_cap, height_cap, content_cap, e, text,
                   0))
      return -1;
    item->layout = bs->block_layout_count > before ? (int)before : -1;
  } else if (!(item->target = strdup(e->name))) {
    return -1;
  }
  bs->item_count++;
  bs->blocks[block].count++;
  return 0;
}

int tc_dxf_mtext_layouts(const char *path, tc_mtext_scan *scan, int (*stopped)(void *), void *context) {
  memset(scan, 0, sizeof *scan);
  int found = has_column_data(path);
  if (found <= 0)
    return found;
  FILE *file = fopen(path, "rb");
  if (!file)
    return -1;
  char *code_line = NULL, *value_line = NULL, *text = NULL;
  size_t code_cap = 0, value_cap = 0, cap = 0, height_cap = 0, content_cap = 0, text_length = 0, text_cap = 0;
  /* 0 elsewhere, 1 BLOCKS, 2 ENTITIES */
  int section = 0, expect_name = 0, failed = 0, block = -1;
  block_scan bs = {0};
  mtext_entity *e = calloc(1, sizeof *e);
  if (!e) {
    fclose(file);
    return -1;
  }
  unsigned groups = 0;
  while (!failed && getline(&code_line, &code_cap, file) > 0 && getline(&value_line, &value_cap, file) > 0) {
    /* stopped: its drawing is refused */
    if (stopped && ++groups % 4096 == 0 && stopped(context)) {
      failed = 1;
      break;
    }
    int group = atoi(tc_trim_line(code_line));
    char *value = tc_trim_line(value_line);
    if (group == 0) {
      if (section && end_entity(scan, &cap, &height_cap, &content_cap, &bs, section, block, e, text_length ? text : NULL))
        failed = 1;
      memset(e, 0, sizeof *e);
      text_length = 0;
      if (!strcmp(value, "SECTION")) {
        expect_name = 1;
      } else if (!strcmp(value, "ENDSEC")) {
        section = 0;
        block = -1;
      } else if (section == 1 && !strcmp(value, "BLOCK")) {
        if (tc_grow_array((void **)&bs.blocks, &bs.block_cap, bs.block_count + 1, sizeof(block_entry), 64)) {
          failed = 1;
          break;
        }
        block = (int)bs.block_count++;
        bs.blocks[block] = (block_entry){.name = NULL, .first = bs.item_count};
        e->kind = 3;
      } else if (section == 1 && !strcmp(value, "ENDBLK")) {
        block = -1;
      }
      e->mtext = section && !strcmp(value, "MTEXT");
      if (section && (!strcmp(value, "INSERT") || !strcmp(value, "DIMENSION"))) {
        e->kind = 2;
        e->dimension = value[0] == 'D';
      }
      continue;
    }
    if (expect_name && group == 2) {
      expect_name = 0;
      section = !strcmp(value, "BLOCKS") ? 1 : !strcmp(value, "ENTITIES") ? 2 : 0;
      continue;
    }
    if (e->kind == 3) {
      if (group == 2 && block >= 0 && !bs.blocks[block].name && !(bs.blocks[block].name = strdup(value)))
        failed = 1;
      continue;
    }
    if (e->kind == 2) {
      if (group == 5)
        snprintf(e->handle, sizeof e->handle, "%s", value);
      else if (group == 2 && !e->name[0])
        snprintf(e->name, sizeof e->name, "%s", value);
      else if ((group == 70 || group == 71) && !e->dimension) {
        /* a MINSERT's columns and rows (a DIMENSION's 70 and 71 are no counts) */
        long n = strtol(value, NULL, 10);
        if (n > 1)
          e->times = (int)fmin((e->times > 1 ? e->times : 1) * (double)n, 100000);
      }
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
    } else if (group == 40 && !e->embedded && !e->xdata_acad) {
      e->char_height = v;
    } else if (group == 230 && !e->embedded && !e->xdata_acad) {
      e->extrusion_z = v;
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
  if (!failed && section && end_entity(scan, &cap, &height_cap, &content_cap, &bs, section, block, e, text_length ? text : NULL))
    failed = 1;
  if (!failed && inline_blocks(scan, &cap, &bs))
    failed = 1;
  block_scan_free(&bs);
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

const tc_mtext_layout *tc_dxf_find_mtext(const tc_mtext_scan *scan, const char *handle, uint32_t index) {
  if (!scan->count || !handle || !*handle)
    return NULL;
  tc_mtext_layout key = {.handle = strtoull(handle, NULL, 16), .index = index};
  return bsearch(&key, scan->layouts, scan->count, sizeof key, by_handle);
}

void tc_mtext_scan_free(tc_mtext_scan *scan) {
  free(scan->layouts);
  free(scan->heights);
  free(scan->content);
  memset(scan, 0, sizeof *scan);
}
