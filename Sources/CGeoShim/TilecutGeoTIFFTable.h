#ifndef TILECUT_GEOTIFF_TABLE_H
#define TILECUT_GEOTIFF_TABLE_H

#include <geotiff/geo_normalize.h>
#include <geotiff/geotiffio.h>
#include <geotiff/xtiffio.h>

/* The libgeotiff functions TilecutGeoTIFF.c calls, loaded with PROJ by tc_proj_load
 * (TilecutProj.c): libgeotiff links libproj, so it is not linked into tilecut either. */
#define TC_GEOTIFF_FUNCTIONS(X) \
  X(GTIFAllocDefn)              \
  X(GTIFAttachPROJContext)      \
  X(GTIFFree)                   \
  X(GTIFFreeDefn)               \
  X(GTIFFreeMemory)             \
  X(GTIFGetDefn)                \
  X(GTIFGetProj4Defn)           \
  X(GTIFKeyGetSHORT)            \
  X(GTIFNewEx)                  \
  X(XTIFFClose)                 \
  X(XTIFFOpen)

typedef struct {
#define TC_GEOTIFF_FIELD(name) __typeof__(&name) name;
  TC_GEOTIFF_FUNCTIONS(TC_GEOTIFF_FIELD)
#undef TC_GEOTIFF_FIELD
} tc_geotiff_table;

extern tc_geotiff_table tc_geotiff;

#endif
