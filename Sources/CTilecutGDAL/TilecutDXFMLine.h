/* MLINEs and their styles read from a DXF's group codes (not a public header). */
#ifndef TILECUT_DXF_MLINE_H
#define TILECUT_DXF_MLINE_H

#include "TilecutDXFWipeout.h"

#define TC_MLINE_ELEMENTS 16

/* An MLINESTYLE: its handle and name, flags (70: 1 fill, 2 miters, 16/256 square
 * start/end caps, 32/512 inner arcs, 64/1024 round caps), fill colour and, per element,
 * offset (49) and colour (62; ACI, 256 by layer, 0 by block). */
typedef struct {
  char handle[24], name[256];
  int flags, fill, count;
  double offset[TC_MLINE_ELEMENTS];
  int colour[TC_MLINE_ELEMENTS];
} tc_mline_style;

/* An MLINE as read: its style's handle (340) and name (2), flags (71: 2 closed), and
 * per vertex x, y, miter direction and each element's offset along it (the first of
 * its parameters), 4 + TC_MLINE_ELEMENTS values a vertex. */
typedef struct {
  char style_handle[24], style_name[256];
  int flags, element, param, bad;
  double *v;
  size_t count, cap;
} tc_mline_raw;

/* One group code of an MLINE (`raw`) or of an MLINESTYLE (`style`); 0, or -1 when out of memory. */
int tc_dxf_mline_code(tc_mline_raw *raw, int group, const char *value, double x);
void tc_dxf_mline_style_code(tc_mline_style *style, int group, const char *value, double x);

/* `raw` drawn with `style` as ezdxf draws it, its by-layer colours `layer_colour`
 * (ACI): 1 with `out`'s pieces and points allocated (its handle left to the caller); 0
 * when ezdxf draws nothing of it (a vertex whose parameters do not match the style,
 * fewer than two vertices); -1 when out of memory. */
int tc_dxf_mline_build(const tc_mline_raw *raw, const tc_mline_style *style, int layer_colour, tc_mline *out);

#endif
