#ifndef TILECUT_DXF_MTEXT_H
#define TILECUT_DXF_MTEXT_H

#include <stddef.h>
#include <stdint.h>

/* An MTEXT's columns, which GDAL 3.6 does not read: the width of each column and the
 * gap between them, and the height of each column the text flows through before it
 * goes on in the next (`heights[first, first + count)` of tc_mtext_scan, drawing
 * units; negative: as high as its text needs). Past the last listed column the text
 * flows on in columns as high as the last, as ezdxf lays them out. */
typedef struct {
  unsigned long long handle;
  double width, gutter;
  uint32_t first, count;
} tc_mtext_columns;

typedef struct {
  tc_mtext_columns *columns; /* sorted by handle */
  size_t count;
  double *heights;
  size_t height_count;
} tc_mtext_scan;

/* Reads the columns of the model space's MTEXTs from a text DXF: R2018's embedded
 * object (101 "Embedded Object": 71 type, 72 count, 44 width, 45 gutter, 41 defined
 * height, 46 each height) and older versions' ACAD XDATA (ACAD_MTEXT_COLUMN_INFO: 75,
 * 76, 48, 49, 50 and the heights; ACAD_MTEXT_DEFINED_HEIGHT). A file without either
 * is not parsed. 0 (`scan` empty when there are none, or for a binary DXF); -1 when
 * the file cannot be read or memory runs out. */
int tc_dxf_mtext_columns(const char *path, tc_mtext_scan *scan);

/* The columns of the MTEXT with `handle` (hexadecimal), or NULL. */
const tc_mtext_columns *tc_dxf_find_columns(const tc_mtext_scan *scan, const char *handle);

void tc_mtext_scan_free(tc_mtext_scan *scan);

#endif
