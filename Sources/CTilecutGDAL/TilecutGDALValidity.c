#include "TilecutGDALValidity.h"
#include "TilecutGDAL.h"

#include "TilecutGDALTable.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  char *text;
  size_t size;
} reason_buffer;

/* GEOS's reason, as GDAL passes it on ("GEOS warning: Self-intersection at or near point
 * 30.1 60.2"): the last one kept, without its prefix */
static void keep_reason(CPLErr level, CPLErrorNum number, const char *message) {
  (void)level;
  (void)number;
  reason_buffer *buffer = tc_gdal.CPLGetErrorHandlerUserData();
  if (!buffer || !buffer->text || buffer->size == 0 || !message)
    return;
  const char *prefix = "GEOS warning: ";
  if (strncmp(message, prefix, strlen(prefix)) == 0)
    message += strlen(prefix);
  snprintf(buffer->text, buffer->size, "%s", message);
}

int tc_gdal_has_geos(void) {
  if (tc_gdal_load())
    return 0;
  int major = 0, minor = 0, patch = 0;
  return tc_gdal.OGRGetGEOSVersion(&major, &minor, &patch) ? 1 : 0;
}

int tc_gdal_polygon_valid(const double *xy, const int *counts, int rings, char *reason, size_t reason_size) {
  if (reason && reason_size)
    reason[0] = 0;
  if (!tc_gdal_has_geos() || !xy || !counts || rings < 1)
    return -1;
  OGRGeometryH polygon = tc_gdal.OGR_G_CreateGeometry(wkbPolygon);
  if (!polygon)
    return -1;
  const double *p = xy;
  for (int r = 0; r < rings; r++) {
    OGRGeometryH ring = tc_gdal.OGR_G_CreateGeometry(wkbLinearRing);
    if (!ring) {
      tc_gdal.OGR_G_DestroyGeometry(polygon);
      return -1;
    }
    for (int i = 0; i < counts[r]; i++, p += 2)
      tc_gdal.OGR_G_AddPoint_2D(ring, p[0], p[1]);
    if (tc_gdal.OGR_G_AddGeometryDirectly(polygon, ring) != OGRERR_NONE) {
      tc_gdal.OGR_G_DestroyGeometry(ring);
      tc_gdal.OGR_G_DestroyGeometry(polygon);
      return -1;
    }
  }
  /* GEOS's notices (where a ring crosses itself) are kept, never printed */
  reason_buffer buffer = {reason, reason_size};
  tc_gdal.CPLPushErrorHandlerEx(keep_reason, &buffer);
  int valid = tc_gdal.OGR_G_IsValid(polygon);
  tc_gdal.CPLPopErrorHandler();
  tc_gdal.OGR_G_DestroyGeometry(polygon);
  return valid ? 1 : 0;
}
