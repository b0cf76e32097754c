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
 * its own; 0 for none. */
typedef struct {
  unsigned long long handle;
  double width, gutter;
  uint32_t first, count;
  double height, height_factor;
} tc_mtext_layout;

typedef struct {
  tc_mtext_layout *layouts; /* sorted by handle */
  size_t count;
  double *heights;
  size_t height_count;
} tc_mtext_scan;

/* Reads the columns and heights of the model space's MTEXTs from a text DXF: R2018's
 * embedded object (101 "Embedded Object": 71 type, 72 count, 44 width, 45 gutter, 41
 * defined height, 46 each height) and older versions' ACAD XDATA
 * (ACAD_MTEXT_COLUMN_INFO: 75, 76, 48, 49, 50 and the heights;
 * ACAD_MTEXT_DEFINED_HEIGHT); and the height a \H at the start of its text (groups 3
 * and 1) sets. A file without any of them is not parsed. 0 (`scan` empty when there
 * are none, or for a binary DXF); -1 when the file cannot be read or memory runs out. */
int tc_dxf_mtext_layouts(const char *path, tc_mtext_scan *scan);

/* What the DXF says of the MTEXT with `handle` (hexadecimal), or NULL. */
const tc_mtext_layout *tc_dxf_find_mtext(const tc_mtext_scan *scan, const char *handle);

void tc_mtext_scan_free(tc_mtext_scan *scan);

#endif
