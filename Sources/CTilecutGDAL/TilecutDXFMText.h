#ifndef TILECUT_DXF_MTEXT_H
#define TILECUT_DXF_MTEXT_H

#include <stddef.h>
#include <stdint.h>

/* What GDAL 3.6 does not read of an MTEXT. Its columns: the width of each column and
 * the gap between them, and the height of each column the text flows through before
 * it goes on in the next (`heights[first, first + count)` of tc_mtext_scan, drawing
 * units; negative: as high as its text needs; `count` 0 for no columns). Past the
 * last listed column the text flows on in columns as high as the last, as ezdxf lays
 * them out. And the height one \H at its start sets for all its text (AutoCAD's
 * "{\fArial|b0;\H150;ROOM}"): `height` in drawing units, or `height_factor` times
 * its own; 0 for none. And, for a text whose inline codes GDAL loses (stacked
 * fractions \S, a \H in mid-note, \W, \Q), its raw content (groups 3 and 1) at
 * `content[rich]` (NUL-terminated; `rich` 0 for none, the content starting at 1) and
 * its own height (40), which its absolute \H values are relative to once an insert
 * scales it. An MTEXT of a block is found by the model-space INSERT (or DIMENSION)
 * that inlines it: that insert's `handle` and its place among the MTEXTs the insert
 * inlines (`index`, in the order of the block, nested blocks where they are
 * inserted), as GDAL gives them the insert's handle; a model-space MTEXT's index is 0.
 * An MTEXT with an inline code other than \P and \~ has a layout, `coded`; in a file
 * without any such code none has one. */
typedef struct {
  unsigned long long handle;
  uint32_t index;
  double width, gutter;
  uint32_t first, count;
  double height, height_factor;
  uint32_t rich;
  double char_height;
  int inlined; /* an insert's */
  /* its text holds an inline code other than \P and \~ (or is too long to read):
   * ezdxf lays it out as a rich text, whose middle is its box's (an MTEXT without
   * a layout holds none) */
  int coded;
  /* its extrusion points down (230 < 0), which GDAL 3.6 leaves: seen from above its
   * text runs along its direction (11, 21, or its rotation) with its up turned over,
   * mirrored about its insertion point, as ezdxf draws it */
  int mirrored;
} tc_mtext_layout;

typedef struct {
  tc_mtext_layout *layouts; /* sorted by handle, then index */
  size_t count;
  double *heights;
  size_t height_count;
  char *content;
  size_t content_bytes;
} tc_mtext_scan;

/* Reads the columns and heights of the model space's MTEXTs from a text DXF: R2018's
 * embedded object (101 "Embedded Object": 71 type, 72 count, 44 width, 45 gutter, 41
 * defined height, 46 each height) and older versions' ACAD XDATA
 * (ACAD_MTEXT_COLUMN_INFO: 75, 76, 48, 49, 50 and the heights;
 * ACAD_MTEXT_DEFINED_HEIGHT); the height a \H at the start of its text (groups 3
 * and 1) sets; the raw content of a text with inline codes GDAL loses; of the
 * model space's MTEXTs and of those its inserts inline. A file without any of them is not parsed. 0 (`scan` empty when there
 * are none, or for a binary DXF); -1 when the file cannot be read or memory runs out,
 * or when `stopped` (unless NULL, asked now and then with `context`) says to stop. */
int tc_dxf_mtext_layouts(const char *path, tc_mtext_scan *scan, int (*stopped)(void *), void *context);

/* What the DXF says of the MTEXT with `handle` (hexadecimal; an insert's, the
 * `index`th MTEXT it inlines), or NULL. */
const tc_mtext_layout *tc_dxf_find_mtext(const tc_mtext_scan *scan, const char *handle, uint32_t index);

void tc_mtext_scan_free(tc_mtext_scan *scan);

#endif
