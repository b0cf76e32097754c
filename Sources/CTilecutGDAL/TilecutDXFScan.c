#define _GNU_SOURCE 1 /* strcasecmp */
#include "TilecutDXFScan.h"
#include "TilecutDXFLines.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A text DXF's block-insert graph, read before GDAL inlines it: GDAL explodes each
 * INSERT into its block's entities before tilecut sees a feature, so eight levels of
 * blocks each inserting the next ten times make 10^8 features that take minutes to
 * count. Here each block's entities are counted, each INSERT (and MINSERT's rows and
 * columns) multiplies its block's inlined count, and the model space's total is known
 * after one pass over the text. */

typedef struct {
  char *name;
  double own;   /* entities of the block that are not inserts */
  int state;    /* 0 not computed, 1 in progress (a cycle when met again), 2 done */
  size_t first, count; /* its inserts: inserts[first, first + count) once sorted by owner */
  double total; /* inlined entities once computed */
} scan_block;

typedef struct {
  int owner;    /* block index, or -1 for the ENTITIES section */
  char *target; /* the inserted block's name */
  double times; /* MINSERT columns × rows */
  int block;    /* the target's index once resolved, -1 when undefined */
} scan_insert;

typedef struct {
  scan_block *blocks;
  size_t block_count, block_cap;
  scan_insert *inserts;
  size_t insert_count, insert_cap;
  double top_own;
  int failed;
} scan;

static int by_name(const void *a, const void *b) {
  return strcasecmp(((const scan_block *)a)->name, ((const scan_block *)b)->name);
}

static int find_block(const scan *s, const char *name) {
  size_t lo = 0, hi = s->block_count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = strcasecmp(s->blocks[mid].name, name);
    if (c == 0)
      return (int)mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

/* The entities block `index` makes once inlined, each block counted once (memoised);
 * nesting past 1000 levels is INFINITY. */
static double total(scan *s, int index, int depth) {
  scan_block *b = &s->blocks[index];
  if (b->state == 2)
    return b->total;
  /* GDAL skips an insert of a block into itself (with a warning): it adds nothing */
  if (b->state == 1)
    return 0;
  if (depth > 1000)
    return INFINITY;
  b->state = 1;
  double sum = b->own;
  for (size_t i = b->first; i < b->first + b->count; i++) {
    const scan_insert *insert = &s->inserts[i];
    if (insert->block >= 0)
      sum += insert->times * total(s, insert->block, depth + 1);
  }
  b->state = 2;
  b->total = sum;
  return sum;
}

static int by_owner(const void *a, const void *b) {
  int x = ((const scan_insert *)a)->owner, y = ((const scan_insert *)b)->owner;
  return (x > y) - (x < y);
}

double tc_dxf_inlined_entities(const char *path) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return -1;
  char head[22] = {0};
  size_t got = fread(head, 1, sizeof head - 1, file);
  /* a binary DXF: GDAL's own bounds apply */
  if (got >= 18 && memcmp(head, "AutoCAD Binary DXF", 18) == 0) {
    fclose(file);
    return -1;
  }
  rewind(file);
  scan s = {0};
  char *code_line = NULL, *value_line = NULL;
  size_t code_cap = 0, value_cap = 0;
  /* 0 elsewhere, 1 BLOCKS, 2 ENTITIES */
  int section = 0, expect_section_name = 0, open_section = 0;
  int block = -1, in_block_header = 0;
  scan_insert *insert = NULL; /* the INSERT being read */
  while (!s.failed && getline(&code_line, &code_cap, file) > 0 && getline(&value_line, &value_cap, file) > 0) {
    const char *code = tc_trim_line(code_line);
    char *value = tc_trim_line(value_line);
    int group = atoi(code);
    if (group == 0) {
      insert = NULL;
      in_block_header = 0;
      if (!strcmp(value, "SECTION")) {
        expect_section_name = 1;
        open_section = 1;
        continue;
      }
      if (!strcmp(value, "ENDSEC")) {
        section = 0;
        open_section = 0;
        block = -1;
        continue;
      }
      if (section == 1 && !strcmp(value, "BLOCK")) {
        if (tc_grow_array((void **)&s.blocks, &s.block_cap, s.block_count + 1, sizeof(scan_block), 64)) {
          s.failed = 1;
          break;
        }
        block = (int)s.block_count++;
        s.blocks[block] = (scan_block){.name = NULL};
        in_block_header = 1;
        continue;
      }
      if (section == 1 && !strcmp(value, "ENDBLK")) {
        block = -1;
        continue;
      }
      if (section == 0 || (section == 1 && block < 0))
        continue;
      /* parts of a polyline, not features of their own */
      if (!strcmp(value, "VERTEX") || !strcmp(value, "SEQEND"))
        continue;
      if (!strcmp(value, "INSERT")) {
        if (tc_grow_array((void **)&s.inserts, &s.insert_cap, s.insert_count + 1, sizeof(scan_insert), 64)) {
          s.failed = 1;
          break;
        }
        insert = &s.inserts[s.insert_count++];
        *insert = (scan_insert){.owner = section == 2 ? -1 : block, .target = NULL, .times = 1, .block = -1};
        continue;
      }
      if (section == 2)
        s.top_own += 1;
      else
        s.blocks[block].own += 1;
      continue;
    }
    if (expect_section_name && group == 2) {
      expect_section_name = 0;
      section = !strcmp(value, "BLOCKS") ? 1 : !strcmp(value, "ENTITIES") ? 2 : 0;
      continue;
    }
    if (in_block_header && group == 2 && !s.blocks[block].name) {
      s.blocks[block].name = strdup(value);
      if (!s.blocks[block].name)
        s.failed = 1;
      continue;
    }
    if (insert) {
      if (group == 2 && !insert->target) {
        insert->target = strdup(value);
        if (!insert->target)
          s.failed = 1;
      } else if (group == 70 || group == 71) {
        /* MINSERT's column and row counts */
        long n = strtol(value, NULL, 10);
        if (n > 1)
          insert->times *= (double)n;
      }
    }
  }
  fclose(file);
  free(code_line);
  free(value_line);
  double result = -1;
  if (!s.failed) {
    /* unnamed blocks cannot be inserted: named "" so the search never finds them */
    for (size_t i = 0; i < s.block_count; i++)
      if (!s.blocks[i].name && !(s.blocks[i].name = strdup("")))
        s.failed = 1;
  }
  if (!s.failed) {
    /* owners recorded by index before sorting: keep each insert's owner by name */
    char **owner_names = calloc(s.insert_count + 1, sizeof(char *));
    if (!owner_names) {
      s.failed = 1;
    } else {
      for (size_t i = 0; i < s.insert_count; i++)
        owner_names[i] = s.inserts[i].owner >= 0 ? s.blocks[s.inserts[i].owner].name : NULL;
      qsort(s.blocks, s.block_count, sizeof(scan_block), by_name);
      for (size_t i = 0; i < s.insert_count; i++) {
        s.inserts[i].owner = owner_names[i] ? find_block(&s, owner_names[i]) : -1;
        s.inserts[i].block = s.inserts[i].target ? find_block(&s, s.inserts[i].target) : -1;
      }
      free(owner_names);
      qsort(s.inserts, s.insert_count, sizeof(scan_insert), by_owner);
      for (size_t i = s.insert_count; i-- > 0;) {
        int owner = s.inserts[i].owner;
        if (owner >= 0) {
          s.blocks[owner].first = i;
          s.blocks[owner].count++;
        }
      }
      result = s.top_own;
      for (size_t i = 0; i < s.insert_count && s.inserts[i].owner == -1; i++) {
        if (s.inserts[i].block >= 0)
          result += s.inserts[i].times * total(&s, s.inserts[i].block, 1);
      }
    }
  }
  for (size_t i = 0; i < s.block_count; i++)
    free(s.blocks[i].name);
  for (size_t i = 0; i < s.insert_count; i++)
    free(s.inserts[i].target);
  free(s.blocks);
  free(s.inserts);
  /* a section the file ends in: cut short, and GDAL would draw what came before */
  return s.failed ? -1 : open_section ? NAN : result;
}
