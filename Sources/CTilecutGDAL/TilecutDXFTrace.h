#ifndef TILECUT_DXF_TRACE_H
#define TILECUT_DXF_TRACE_H

/* A polyline of varying width as the filled outlines ezdxf's drawing add-on draws
 * (ezdxf.render.trace.TraceBuilder.from_polyline): each run of straight segments one
 * outline, its offset edges meeting where they cross (a mitre; not past 1.8° of
 * parallel), from each segment's start width to its end width; each bulge an arc of
 * `segments` steps a full circle (at least 3), its width changing evenly along it.
 * `v`: `count` vertices, each x, y, start width, end width, bulge. Calls
 * `polygon(context, xy, n)` for each outline of 3 points or more (x, y pairs). 0, or
 * -1 when out of memory. */
int tc_dxf_trace(const double *v, int count, int closed, int segments,
                 void (*polygon)(void *context, const double *xy, int n), void *context);

#endif
