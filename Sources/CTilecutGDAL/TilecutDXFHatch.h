/* A HATCH's boundary read from its own group codes (not a public header), for the
   hatches GDAL 3.6 cannot read. */
#ifndef TILECUT_DXF_HATCH_H
#define TILECUT_DXF_HATCH_H

#include <stddef.h>

/* The boundary paths of a HATCH from its group codes (`codes[i]`, `values[i]`, `count`
 * of them, in the file's order, from the entity's start), flattened in its OCS as
 * ezdxf's path converter builds them (ezdxf.path.from_hatch): polyline paths with their
 * bulges, edge paths of lines, arcs, elliptic arcs and splines, each edge joined to the
 * loop at whichever of its ends meets it, a gap closed by a line; a SPLINE edge given
 * by fit points alone is the cubic B-spline CAD interpolates through them. Only for a
 * hatch that GDAL cannot draw: one with such a spline edge (it gives no boundary) or an
 * edge path whose edges leave a gap (it gives lines, not an area): then 1, with `*xy` (x, y
 * pairs, `*point_count` of them) and `*rings` (`*ring_count` sizes) allocated; 0 for any
 * other hatch (or codes that are not a boundary), -1 when out of memory. */
int tc_dxf_hatch_boundary(const int *codes, const double *values, size_t count, double **xy, int *point_count,
                          int **rings, int *ring_count);

/* The curve CAD and ezdxf (fit_points_to_cad_cv) draw through `n` fit points (x, y
 * pairs) alone, for a SPLINE entity as for a hatch's spline edge: the cubic spline over
 * their chord lengths, its ends natural, or its end derivatives the unit `tangents`
 * (start x, y, end x, y; NULL for none), 16 steps a segment. 0 with `*xy` allocated
 * (`*count` points), -1 when out of memory. */
int tc_dxf_fit_curve(const double *fit, int n, const double *tangents, double **xy, int *count);

#endif
