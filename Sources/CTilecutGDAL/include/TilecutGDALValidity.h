#ifndef TILECUT_GDAL_VALIDITY_H
#define TILECUT_GDAL_VALIDITY_H

/* Whether a polygon is valid as OGC Simple Features define it (no self-intersection,
 * no ring crossing another, holes inside their shell), as GDAL's OGR_G_IsValid says
 * through GEOS: `xy` holds the rings' points (x, y) one after another, `counts` each
 * ring's number of points (the first ring the shell). `reason` (of `reason_size` bytes)
 * receives GEOS's words where it gives any ("Hole lies outside shell at or near point …").
 * Returns 1 valid, 0 invalid, -1 when it cannot be told (libgdal not loaded, or built
 * without GEOS). */
#include <stddef.h>

int tc_gdal_polygon_valid(const double *xy, const int *counts, int rings, char *reason, size_t reason_size);

/* 1 when libgdal is loaded and has GEOS (so that tc_gdal_polygon_valid can tell), else 0. */
int tc_gdal_has_geos(void);

#endif
