#define _GNU_SOURCE 1 /* strcasecmp */
#include "TilecutDXFScan.h"
#include "TilecutDXFLines.h"
#include "TilecutDXFWipeout.h"

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
  double features; /* its entities and inserts, each one, up to GDAL's limit a block */
  int state;    /* 0 not computed, 1 in progress (a cycle when met again), 2 done */
  size_t first, count; /* its inserts: inserts[first, first + count) once sorted by owner */
  double total; /* inlined entities once computed */
} scan_block;

typedef struct {
  int owner;    /* block index, or -1 for the ENTITIES section */
  char *target; /* the inserted block's name */
  double times; /* MINSERT columns × rows */
  int block;    /* the target's index once resolved, -1 when undefined */
  int single;   /* a dimension or table: its 70 and 71 are no MINSERT counts */
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


/* One entity's cost to GDAL, counted while its groups are read (tc_dxf_inlined_entities'
 * bounds). GDAL builds a hatch's edge path into a ring by comparing each edge with the
 * others (OGRBuildPolygonFromEdges) and keeps an entity's untranslated group values in a
 * list it appends to one by one (DXF_INCLUDE_RAW_CODE_VALUES): both grow with the square
 * of the count, so single entities are bounded here, before GDAL opens the file. */
/* measured with this machine's GDAL (tilecut's time for the whole file, at z12): a
 * hatch path of line edges that do not meet 1.7 s for 10^4, 14 s for 3·10^4 (more than
 * 120 s for 10^6); an LWPOLYLINE of 3·10^5 vertices 1.1 s, 10^6 3.0 s; one with start
 * and end widths on 500 vertices 0.7 s, on 1000 2.3 s, on 2000 13 s */
#define TC_DXF_MAX_PATH_EDGES 10000
#define TC_DXF_MAX_VERTICES 500000
#define TC_DXF_MAX_RAW_VALUES 2000
/* the points GDAL makes in 2° steps of a full circle or ellipse (a hatch's arc edge) */
#define TC_DXF_ARC_POINTS 181
/* the memory a point GDAL makes costs the process, as measured (peak RSS over points):
 * 155 bytes for a hatch's arc edges, 310 for a wide polyline's bulges, 320 for MLINEs */
#define TC_DXF_BYTES_PER_POINT 256

typedef struct {
  char type[24], handle[24];
  int kind;         /* 0 not bounded, 1 HATCH, 2 LWPOLYLINE, 3 POLYLINE, 4 MLINE, 5 a text */
  int path;         /* HATCH: 0 outside paths, 1 an edge path, 2 a polyline path */
  double path_edges; /* HATCH: edges (or vertices) of the current boundary path */
  double vertices;  /* polylines and MLINEs */
  double raw;       /* LWPOLYLINE: untranslated values (widths) GDAL lists */
  double points;    /* points GDAL makes of arcs, bulges and MLINE elements */
  double text;      /* bytes of a text's strings */
  /* the largest value of its groups 40, 41 (a POLYLINE's own, not its VERTEXes'), 43,
   * 44 and 71, and whether it has a 53: what tilecut would read of GDAL's raw code
   * values (tc_raw_entry) */
  double r40, r41, r43, r44, r71;
  int r53;
  /* its subclass markers (100) joined by ':', as GDAL's SubClasses (tc_raw_kind), and
   * whether it is past an embedded object (101) */
  char classes[160];
  int embedded;
} scan_entity;

/* Describes the first bound `e` crosses in `refusal`; 1 when it crosses one. */
static int entity_refused(const scan_entity *e, size_t max_bytes, size_t max_text, char *refusal,
                          size_t size) {
  if (!e->kind || !refusal || !size)
    return 0;
  char named[64];
  snprintf(named, sizeof named, "%s%s%s", e->type, e->handle[0] ? " " : "", e->handle);
  if (e->kind == 5 && e->text > (double)max_text) {
    snprintf(refusal, size, "its %s holds a text of %.0f bytes, more than the %zu tilecut draws; shorten or split it", named,
             e->text, max_text);
    return 1;
  }
  if (e->kind == 1 && e->path_edges > TC_DXF_MAX_PATH_EDGES) {
    snprintf(refusal, size,
             "its %s has a boundary path of %.0f edges, more than the %d tilecut reads; simplify or split the hatch", named,
             e->path_edges, TC_DXF_MAX_PATH_EDGES);
    return 1;
  }
  if ((e->kind == 2 || e->kind == 3 || e->kind == 4) && e->vertices > TC_DXF_MAX_VERTICES) {
    snprintf(refusal, size, "its %s has %.0f vertices, more than the %d tilecut reads; simplify or split it", named,
             e->vertices, TC_DXF_MAX_VERTICES);
    return 1;
  }
  /* max_bytes is half of --max-memory (the drawing's list): the whole budget here */
  if (e->points * TC_DXF_BYTES_PER_POINT > 2 * (double)max_bytes) {
    snprintf(refusal, size,
             "its %s makes %.0f points of arcs, bulges or lines (about %.0f MB), more than --max-memory allows; "
             "simplify or split it, or raise --max-memory",
             named, e->points, e->points * TC_DXF_BYTES_PER_POINT / (1 << 20));
    return 1;
  }
  return 0;
}

/* Whether `e` has crossed a bound entity_refused describes (counted so far). */
static int entity_over(const scan_entity *e, size_t max_bytes, size_t max_text) {
  return (e->kind == 5 && e->text > (double)max_text) || (e->kind == 1 && e->path_edges > TC_DXF_MAX_PATH_EDGES) ||
         ((e->kind == 2 || e->kind == 3 || e->kind == 4) && e->vertices > TC_DXF_MAX_VERTICES) ||
         e->points * TC_DXF_BYTES_PER_POINT > 2 * (double)max_bytes;
}

/* The points GDAL adds for a segment's bulge: its arc of 4·atan(bulge) in 2° steps. */
static double bulge_points(const char *value) {
  double bulge = fabs(strtod(value, NULL));
  if (!(bulge > 0))
    return 0;
  double degrees = 4 * atan(fmin(bulge, 1e300)) * 180 / M_PI;
  return ceil(degrees / 2);
}

/* Starts counting the entity named `type`. */
static void entity_start(scan_entity *e, const char *type) {
  *e = (scan_entity){.kind = 0};
  snprintf(e->type, sizeof e->type, "%s", type);
  if (!strcmp(type, "HATCH"))
    e->kind = 1;
  else if (!strcmp(type, "LWPOLYLINE"))
    e->kind = 2;
  else if (!strcmp(type, "POLYLINE"))
    e->kind = 3;
  else if (!strcmp(type, "MLINE"))
    e->kind = 4;
  else if (!strcmp(type, "TEXT") || !strcmp(type, "MTEXT") || !strcmp(type, "ATTRIB") || !strcmp(type, "ATTDEF"))
    e->kind = 5;
}

/* Whether tilecut needs GDAL's raw code values for entity `e` (an entity of a block
 * when `in_block`): values it reads of them (tc_raw_entry) that tilecut's own scan does
 * not give, which it gives of the model space's TEXTs, ATTRIBs, ATTDEFs, MTEXTs,
 * polylines and HATCHes that have a handle, and of a block's TEXTs, MTEXTs, polylines
 * and HATCHes that have subclass markers (tc_raw_inlined: found by their kind's, which
 * those markers give, and their place among their insert's features; the insert needs
 * a handle, see `fed`). The texts GDAL makes of other entities (DIMENSIONs without
 * their block, MULTILEADERs) take their 41 and 44; lines, curves, inserts and the like
 * have nothing read (nor has a LEADER: GDAL makes no text of it; nor have the types
 * GDAL does not read, such as ARC_DIMENSION and the underlays, nor a block's ATTDEFs,
 * of which GDAL makes no feature when it inlines the block). */
static int entity_needs_raw(const scan_entity *e, int in_block, int *fed) {
  static const char *const none[] = {"LINE", "POINT", "CIRCLE", "ARC", "ELLIPSE", "SPLINE", "SOLID", "TRACE", "3DFACE",
                                     "INSERT", "VERTEX", "SEQEND", "WIPEOUT", "IMAGE", "XLINE", "RAY", "MLINE", "VIEWPORT",
                                     "3DSOLID", "REGION", "BODY", "MESH", "OLE2FRAME", "HELIX", "BLOCK", "ENDBLK", "LEADER", "ARC_DIMENSION",
                                     "PDFUNDERLAY", "DWFUNDERLAY", "DGNUNDERLAY"};
  const char *t = e->type;
  int read, scanned = 1;
  if (in_block && !strcmp(t, "ATTDEF"))
    return 0;
  if (!strcmp(t, "TEXT") || !strcmp(t, "ATTRIB") || !strcmp(t, "ATTDEF"))
    read = e->r71 > 0;
  else if (!strcmp(t, "MTEXT"))
    read = e->r41 > 0 || e->r44 > 0;
  else if (!strcmp(t, "LWPOLYLINE") || !strcmp(t, "POLYLINE"))
    read = e->r40 > 0 || e->r41 > 0 || e->r43 > 0;
  else if (!strcmp(t, "HATCH"))
    read = e->r53;
  else {
    for (size_t i = 0; i < sizeof none / sizeof *none; i++)
      if (!strcmp(t, none[i]))
        return 0;
    read = e->r41 > 0 || e->r44 > 0;
    scanned = 0;
  }
  if (read && in_block && scanned && strcmp(t, "ATTRIB") && strcmp(t, "ATTDEF") && tc_raw_kind(e->classes)) {
    *fed = 1;
    return 0;
  }
  return read && (in_block || !scanned || !e->handle[0]);
}

/* Counts one group of the entity being read (a POLYLINE's VERTEX groups included). */
static void entity_group(scan_entity *e, int group, const char *value, int in_vertex) {
  if (group == 5 && !e->handle[0] && !in_vertex) {
    snprintf(e->handle, sizeof e->handle, "%s", value);
    return;
  }
  if (group == 101)
    e->embedded = 1;
  if (group == 100 && !in_vertex && !e->embedded) {
    size_t used = strlen(e->classes);
    if (used + 1 < sizeof e->classes)
      snprintf(e->classes + used, sizeof e->classes - used, "%s%s", used ? ":" : "", value);
  }
  if (!in_vertex && (group == 40 || group == 41 || group == 43 || group == 44 || group == 71)) {
    double v = strtod(value, NULL);
    double *r = group == 40 ? &e->r40 : group == 41 ? &e->r41 : group == 43 ? &e->r43 : group == 44 ? &e->r44 : &e->r71;
    if (isfinite(v) && v > *r)
      *r = v;
  } else if (group == 53) {
    e->r53 = 1;
  }
  switch (e->kind) {
  case 1:
    if (group == 92) {
      e->path = (atoi(value) & 2) ? 2 : 1;
      e->path_edges = 0;
    } else if (group == 75 || group == 97) {
      e->path = 0;
    } else if (e->path == 1 && group == 72) {
      e->path_edges += 1;
      int type = atoi(value);
      e->points += type == 2 || type == 3 ? TC_DXF_ARC_POINTS : 2;
    } else if (e->path == 2 && group == 10) {
      e->path_edges += 1;
      e->points += 1;
    } else if (e->path == 2 && group == 42) {
      e->points += bulge_points(value);
    }
    break;
  case 2:
    if (group == 10) {
      e->vertices += 1;
      e->points += 1;
    } else if (group == 40 || group == 41) {
      e->raw += 1;
    } else if (group == 42) {
      e->points += bulge_points(value);
    }
    break;
  case 3:
    if (in_vertex && group == 42)
      e->points += bulge_points(value);
    break;
  case 4:
    /* a vertex's 74: its element's parameter count, once per element and vertex */
    if (group == 11)
      e->vertices += 1;
    else if (group == 74)
      e->points += 1;
    break;
  case 5:
    if (group == 1 || group == 3)
      e->text += (double)strlen(value);
    break;
  }
}

/* At the end of entity `e` (in `section`, 1 BLOCKS, within block `block`): whether
 * GDAL's raw code values are needed for it (`*raw` set), and the first LWPOLYLINE with
 * more vertex widths than they list in seconds (`widths`); `*fed` set when it is an
 * entity of a block whose values tilecut's scan gives, `*unhandled` when it is a
 * model-space INSERT or DIMENSION without a handle, or a table or arc dimension (what
 * it inlines cannot be found). */
static void entity_ended(const scan_entity *e, const scan *s, int section, int block, int *raw, int *fed, int *unhandled,
                         char *widths, size_t size) {
  if (!e->kind && !e->type[0])
    return;
  int in_block = section == 1 && block >= 0;
  /* a layout's block is never inserted (GDAL reads the active paper space from ENTITIES) */
  if (in_block) {
    const char *name = s->blocks[block].name;
    if (name && (!strncasecmp(name, "*Model_Space", 12) || !strncasecmp(name, "*Paper_Space", 12)))
      return;
  }
  if (section == 2 && !e->handle[0] && (!strcmp(e->type, "INSERT") || !strcmp(e->type, "DIMENSION")))
    *unhandled = 1;
  /* a table's or arc dimension's block, drawn through an insert of it that tilecut makes
   * (open_block_refs), whose features the scan's inlined entries do not list */
  if (section == 2 && (!strcmp(e->type, "ACAD_TABLE") || !strcmp(e->type, "ARC_DIMENSION") ||
                       !strcmp(e->type, "LARGE_RADIAL_DIMENSION")))
    *unhandled = 1;
  if ((section == 2 || in_block) && !*raw)
    *raw = entity_needs_raw(e, in_block, fed);
  if (e->kind == 2 && e->raw > TC_DXF_MAX_RAW_VALUES && !widths[0]) {
    char named[64];
    snprintf(named, sizeof named, "%s%s%s", e->type, e->handle[0] ? " " : "", e->handle);
    snprintf(widths, size, "its %s has %.0f vertex widths, more than the %d tilecut reads; give it one constant width or split it",
             named, e->raw, TC_DXF_MAX_RAW_VALUES);
  }
}

double tc_dxf_inlined_entities(const char *path, size_t max_bytes, size_t max_text, char *refusal, size_t refusal_size,
                               int *needs_raw, void (*crossed)(void *), void *context) {
  if (needs_raw)
    *needs_raw = 1;
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
  if (refusal && refusal_size)
    refusal[0] = 0;
  scan s = {0};
  scan_entity entity = {.kind = 0};
  int in_vertex = 0, refused = 0, raw = 0, fed = 0, unhandled = 0;
  /* an LWPOLYLINE whose vertex widths GDAL's raw code values would take minutes to list:
   * refused only when those values are read */
  char widths[200] = "";
  char *code_line = NULL, *value_line = NULL;
  size_t code_cap = 0, value_cap = 0;
  /* 0 elsewhere, 1 BLOCKS, 2 ENTITIES */
  int section = 0, expect_section_name = 0, open_section = 0;
  int block = -1, in_block_header = 0;
  scan_insert *insert = NULL; /* the INSERT being read */
  /* GDAL's own default, or what the environment sets it to (0 or less: no limit) */
  const char *limit = getenv("DXF_FEATURE_LIMIT_PER_BLOCK");
  const double per_block = limit ? atof(limit) : 10000;
  while (!s.failed && getline(&code_line, &code_cap, file) > 0 && getline(&value_line, &value_cap, file) > 0) {
    const char *code = tc_trim_line(code_line);
    char *value = tc_trim_line(value_line);
    int group = atoi(code);
    if (group == 0) {
      insert = NULL;
      in_block_header = 0;
      /* a POLYLINE's vertices are part of it: counted until its SEQEND */
      if (entity.kind == 3 && (!strcmp(value, "VERTEX") || !strcmp(value, "SEQEND"))) {
        in_vertex = !strcmp(value, "VERTEX");
        if (in_vertex) {
          entity.vertices += 1;
          entity.points += 1;
        }
      } else {
        if ((refused = entity_refused(&entity, max_bytes, max_text, refusal, refusal_size)))
          break;
        entity_ended(&entity, &s, section, block, &raw, &fed, &unhandled, widths, sizeof widths);
        in_vertex = 0;
        entity_start(&entity, value);
      }
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
      /* GDAL keeps the first DXF_FEATURE_LIMIT_PER_BLOCK features of a block (entities and
       * inserts, one each) and makes none of the rest: neither are counted */
      if (section == 1) {
        if (per_block > 0 && s.blocks[block].features >= per_block)
          continue;
        s.blocks[block].features += 1;
      }
      /* GDAL inlines a DIMENSION's block (2) as it inlines an insert's, and a table or
       * arc dimension (in model space, or in a block for each insert that places it) is
       * drawn through an insert of its block that tilecut makes (open_block_refs): each
       * counted as an insert */
      int single = !strcmp(value, "DIMENSION") || !strcmp(value, "ACAD_TABLE") || !strcmp(value, "ARC_DIMENSION") ||
                   !strcmp(value, "LARGE_RADIAL_DIMENSION");
      if (!strcmp(value, "INSERT") || single) {
        if (tc_grow_array((void **)&s.inserts, &s.insert_cap, s.insert_count + 1, sizeof(scan_insert), 64)) {
          s.failed = 1;
          break;
        }
        insert = &s.inserts[s.insert_count++];
        *insert = (scan_insert){.owner = section == 2 ? -1 : block, .target = NULL, .times = 1, .block = -1, .single = single};
        /* a dimension or table is also one entity of its own: without its block (none
         * named, or none defined) GDAL still draws a DIMENSION's lines and text itself */
        if (!single)
          continue;
      }
      if (section == 2)
        s.top_own += 1;
      else
        s.blocks[block].own += 1;
      continue;
    }
    if (entity.type[0]) {
      entity_group(&entity, group, value, in_vertex);
      /* the file will be refused: what reads it beside this pass can stop now */
      if (crossed && entity_over(&entity, max_bytes, max_text)) {
        crossed(context);
        crossed = NULL;
      }
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
      } else if ((group == 70 || group == 71) && !insert->single) {
        /* MINSERT's column and row counts */
        long n = strtol(value, NULL, 10);
        if (n > 1)
          insert->times *= (double)n;
      }
    }
  }
  /* the last entity of a file cut short */
  if (!refused && !s.failed) {
    refused = entity_refused(&entity, max_bytes, max_text, refusal, refusal_size);
    entity_ended(&entity, &s, section, block, &raw, &fed, &unhandled, widths, sizeof widths);
  }
  /* a block's values given by tilecut's scan, which an insert without a handle inlines */
  if (fed && unhandled)
    raw = 1;
  if (!refused && !s.failed && raw && widths[0] && refusal && refusal_size) {
    snprintf(refusal, refusal_size, "%s", widths);
    refused = 1;
  }
  if (needs_raw && !s.failed && !refused)
    *needs_raw = raw;
  fclose(file);
  free(code_line);
  free(value_line);
  double result = -1;
  if (refused)
    s.failed = 1;
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
      /* the most entities one model-space insert makes: GDAL makes them all before it
       * gives the first (a block's, nested or not, within its features' limit) */
      double at_once = 0;
      for (size_t i = 0; i < s.insert_count && s.inserts[i].owner == -1; i++) {
        if (s.inserts[i].block >= 0) {
          double made = total(&s, s.inserts[i].block, 1);
          result += s.inserts[i].times * made;
          if (made > at_once)
            at_once = made;
        }
      }
      /* within the entities tilecut draws (past them the count is the refusal), what
       * GDAL would hold of one insert at once must fit the drawing's half of the budget */
      if (refusal && refusal_size && !refusal[0] && result <= TC_DRAWING_MAX_FEATURES &&
          at_once * TC_NESTED_ENTITY_BYTES > (double)max_bytes)
        snprintf(refusal, refusal_size,
                 "one of its block inserts makes %.0f entities, which GDAL holds in memory "
                 "together (about %.0f MB, more than --max-memory allows); raise --max-memory or explode the block",
                 at_once, ceil(at_once * TC_NESTED_ENTITY_BYTES / 1e6));
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
