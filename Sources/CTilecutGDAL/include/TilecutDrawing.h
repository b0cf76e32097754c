#ifndef TILECUT_DRAWING_H
#define TILECUT_DRAWING_H

#include <stddef.h>
#include <stdint.h>

/* A CAD drawing (DXF, or DWG through GDAL's CAD driver) as GDAL's OGR driver reads
 * its model space, blocks inlined: a display list of strokes, fills, texts and dots
 * in drawing units (y up), each with its colour, for cairo to draw at any scale. */

/* TC_DRAWING_MASK: a WIPEOUT, its rings cleared to the background (transparent) */
typedef enum {
  TC_DRAWING_STROKE = 0,
  TC_DRAWING_FILL = 1,
  TC_DRAWING_TEXT = 2,
  TC_DRAWING_DOT = 3,
  TC_DRAWING_MASK = 4,
  /* a pattern HATCH: a fill's rings, drawn as its pattern's lines clipped to them (a
   * solid fill where they are under 2 pixels apart); the pattern in `dashes`, per
   * line family: angle (degrees), base x, y, offset x, y, n, then n dash lengths
   * (DXF groups 53, 43, 44, 45, 46, 79, 49; drawing units) */
  TC_DRAWING_PATTERN = 5
} tc_drawing_kind;

typedef struct {
  uint8_t kind;
  /* straight RGBA; ACI 7 (white) is drawn dark, as CAD plots it */
  uint8_t rgba[4];
  /* a stroke's lineweight in millimetres (0: the default, a hairline) */
  float lineweight_mm;
  /* a polyline's constant width (DXF group 43) in drawing units, 0 when none */
  float width_units;
  /* an MTEXT's column width in drawing units (group 41, or its columns' width): its
   * lines are wrapped to it; 0 for none */
  float column_width;
  /* points [first, first + count) of `xy`; a fill's rings are `ring_count` runs of
   * `rings[ring_first ...]` points each; a text or dot has one point */
  uint32_t first, count;
  uint32_t ring_first, ring_count;
  /* a stroke's dash pattern: `dash_count` lengths in drawing units from `dashes[dash_first]` */
  uint32_t dash_first, dash_count;
  /* a text: UTF-8 lines separated by '\n' at `text[text_offset]`, NUL-terminated; its
   * height in drawing units, turn in degrees counterclockwise, width factor (negative:
   * mirrored in x about the anchor), OGR's anchor (1-9 as a keypad from the bottom
   * left, 10-12 the baseline) and offset */
  uint32_t text_offset;
  float size, angle, stretch;
  uint8_t anchor;
  /* an MTEXT's columns (see TilecutDXFMText.h), 0 for a text without: its paragraphs
   * flow through `column_count` columns `column_width` wide and `gutter` apart, each
   * as high as `column_heights[column_first + i]` (drawing units; negative: as high
   * as its text needs), more as high as the last; a '\f' in its text (\N) breaks to
   * the next column */
  uint8_t column_count;
  float dx, dy;
  float gutter;
  uint32_t column_first;
  /* an MTEXT's line spacing factor (44; 0.25 to 4, 0 for the default 1): its lines
   * are 5/3 of its height times it apart */
  float line_spacing;
  /* an MTEXT whose text is its raw content, inline codes and all (stacked fractions,
   * heights, width factors and oblique angles changed in mid-note), laid out as
   * ezdxf's MTEXT renderer lays it out; `code_scale` times an absolute \H of it is
   * in drawing units (the insert's scale that inlines it) */
  uint8_t rich;
  float code_scale;
  /* a TEXT aligned or fitted between two points (72 = 3 or 5, which GDAL 3.6 gives
   * as a baseline-left text at the second point): the distance between them, drawing
   * units, that its line is stretched across, centred on their midpoint (its anchor
   * then 11), as ezdxf draws both; 0 for any other text */
  float fit_length;
  /* an MTEXT ezdxf draws as a plain text (no inline code but \P and \~, no columns):
   * its middle (anchors 4-6) is halfway between its first line's x-height and its
   * last baseline, as ezdxf places it, not its capitals' middle */
  uint8_t plain_mtext;
  /* a text fitted between two points (fit_length) scaled in height as in width: the
   * name ezdxf writes across an IMAGE whose picture it cannot show */
  uint8_t fit_uniform;
} tc_drawing_item;

typedef struct {
  tc_drawing_item *items;
  size_t item_count;
  double *xy;
  size_t point_count;
  uint32_t *rings;
  size_t ring_count;
  double *dashes;
  size_t dash_count;
  char *text;
  size_t text_bytes;
  double *column_heights;
  size_t column_height_count;
  /* the extent of the strokes, fills and dots drawn (not texts: their ink is measured
   * where they are laid out, tc_dxf_measure), drawing units */
  double min_x, min_y, max_x, max_y;
  /* features read, and those left out (hidden layers: off or frozen; --layers) */
  size_t features, hidden;
  /* model-space ACAD_TABLEs and ARC_DIMENSIONs past the most tilecut draws: not drawn */
  size_t refs_not_drawn;
  /* GDAL's driver ("DXF", "CAD") */
  char driver[16];
  char *warnings;
  /* GDAL's warnings past those `warnings` holds (its first megabyte), counted */
  size_t warnings_dropped;
  char *error;
} tc_drawing;

/* Reads a drawing. `layers`: NULL for every visible layer, else patterns (fnmatch,
 * case-insensitive) one a line, each "+name" (include) or "-name" (exclude): a layer
 * is drawn when no include pattern is given or one matches, and no exclude matches.
 * `max_bytes`: the display list may not grow past this, nor may one text exceed
 * `max_text` bytes (both refused with drawing->error). 0 on success; 1 when GDAL
 * cannot read it or a bound is passed (drawing->error says why); -2 when libgdal
 * cannot be loaded. `dwg`: the file is a DWG (GDAL's CAD driver), else a DXF. */
int tc_drawing_read(const char *path, int dwg, const char *layers, size_t max_bytes, size_t max_text, tc_drawing *drawing);

void tc_drawing_free(tc_drawing *drawing);

#endif
