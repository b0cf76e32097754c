#include "TilecutGeoTIFF.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiffio.h>

#include "TilecutGeoTIFFTable.h"
#include "TilecutProj.h"

/* libgeotiff and PROJ are loaded when a TIFF is first read (tc_proj_load): their calls
 * go through the tables TilecutProj.c fills */
#define GTIFAllocDefn tc_geotiff.GTIFAllocDefn
#define GTIFAttachPROJContext tc_geotiff.GTIFAttachPROJContext
#define GTIFFree tc_geotiff.GTIFFree
#define GTIFFreeDefn tc_geotiff.GTIFFreeDefn
#define GTIFFreeMemory tc_geotiff.GTIFFreeMemory
#define GTIFGetDefn tc_geotiff.GTIFGetDefn
#define GTIFGetProj4Defn tc_geotiff.GTIFGetProj4Defn
#define GTIFKeyGetSHORT tc_geotiff.GTIFKeyGetSHORT
#define GTIFNewEx tc_geotiff.GTIFNewEx
#define XTIFFClose tc_geotiff.XTIFFClose
#define XTIFFOpen tc_geotiff.XTIFFOpen

/* GDAL keeps a raster's nodata value in this private ASCII tag. */

static const TIFFFieldInfo nodata_field[] = {
    {TC_TAG_GDAL_NODATA, -1, -1, TIFF_ASCII, FIELD_CUSTOM, 1, 0, "GDALNoDataValue"}};

static TIFFExtendProc parent_extender = NULL;
static pthread_once_t extender_once = PTHREAD_ONCE_INIT;

static void tag_extender(TIFF *tif) {
  TIFFMergeFieldInfo(tif, nodata_field, 1);
  if (parent_extender)
    parent_extender(tif);
}

static void install_extender(void) { parent_extender = TIFFSetTagExtender(tag_extender); }

/* libtiff reports problems through handlers; keep them off stderr. */
static void quiet_handler(const char *module, const char *fmt, va_list ap) {
  (void)module;
  (void)fmt;
  (void)ap;
}

/* libgeotiff's own problems (a key it cannot read) go to stderr by default */
static void quiet_geotiff(struct gtiff *gtif, int level, const char *msg, ...) {
  (void)gtif;
  (void)level;
  (void)msg;
}

void *tc_geotiff_open(const char *path, const char *mode) {
  if (tc_proj_load())
    return NULL;
  pthread_once(&extender_once, install_extender);
  TIFFErrorHandler old_error = TIFFSetErrorHandler(quiet_handler);
  TIFFErrorHandler old_warning = TIFFSetWarningHandler(quiet_handler);
  TIFF *tif = XTIFFOpen(path, mode);
  TIFFSetErrorHandler(old_error);
  TIFFSetWarningHandler(old_warning);
  return tif;
}

int tc_geotiff_read(const char *path, tc_geotiff_info *info, char *error, size_t error_size) {
  memset(info, 0, sizeof(*info));
  info->linear_unit_meters = 1;
  const char *unloadable = tc_proj_load();
  if (unloadable) {
    snprintf(error, error_size, "%s", unloadable);
    return -1;
  }
  TIFF *tif = tc_geotiff_open(path, "r");
  if (!tif) {
    snprintf(error, error_size, "cannot be opened as a TIFF");
    return -1;
  }
  TIFFErrorHandler old_warning = TIFFSetWarningHandler(quiet_handler);

  uint16_t count = 0;
  double *data = NULL;
  double *scale = NULL;
  uint16_t scale_count = 0;
  if (TIFFGetField(tif, TIFFTAG_GEOTRANSMATRIX, &count, &data) && count >= 16 && data) {
    info->has_transform = 1;
    double t[6] = {data[3], data[0], data[1], data[7], data[4], data[5]};
    memcpy(info->transform, t, sizeof(t));
  } else if (TIFFGetField(tif, TIFFTAG_GEOTIEPOINTS, &count, &data) && count >= 6 && data) {
    info->tiepoint_count = count / 6;
    int kept = info->tiepoint_count < 64 ? info->tiepoint_count : 64;
    memcpy(info->tiepoints, data, sizeof(double) * 6 * kept);
    if (TIFFGetField(tif, TIFFTAG_GEOPIXELSCALE, &scale_count, &scale) && scale_count >= 2 && scale) {
      /* the first tie point pins pixel (I, J) to model (X, Y); rows go south */
      info->has_transform = 1;
      info->transform[1] = scale[0];
      info->transform[2] = 0;
      info->transform[0] = data[3] - data[0] * scale[0];
      info->transform[4] = 0;
      info->transform[5] = -scale[1];
      info->transform[3] = data[4] + data[1] * scale[1];
    }
  }

  char *nodata = NULL;
  if (TIFFGetField(tif, TC_TAG_GDAL_NODATA, &nodata) && nodata) {
    char *end = NULL;
    double v = strtod(nodata, &end);
    if (end != nodata) {
      info->has_nodata = 1;
      info->nodata = v;
    }
  }

  GTIF *gtif = GTIFNewEx(tif, quiet_geotiff, NULL);
  /* GTIFGetDefn asks PROJ's database; PROJ logs an unknown code to stderr */
  PJ_CONTEXT *proj = tc_proj_context_create();
  if (proj) {
    tc_proj_log_level(proj, PJ_LOG_NONE);
    tc_proj_context_set_enable_network(proj, 0);
    if (gtif)
      GTIFAttachPROJContext(gtif, proj);
  }
  if (gtif) {
    unsigned short raster_type = 0;
    if (GTIFKeyGetSHORT(gtif, GTRasterTypeGeoKey, &raster_type, 0, 1) == 1 && raster_type == RasterPixelIsPoint) {
      info->pixel_is_point = 1;
      if (info->has_transform) {
        /* the tie point names a pixel centre: move to the corner as GDAL does */
        info->transform[0] -= 0.5 * info->transform[1] + 0.5 * info->transform[2];
        info->transform[3] -= 0.5 * info->transform[4] + 0.5 * info->transform[5];
      }
    }
    unsigned short model = 0;
    if (GTIFKeyGetSHORT(gtif, GTModelTypeGeoKey, &model, 0, 1) == 1) {
      info->has_keys = 1;
      info->model_type = model;
    }
    GTIFDefn *defn = GTIFAllocDefn();
    if (defn && GTIFGetDefn(gtif, defn)) {
      info->has_keys = 1;
      info->model_type = defn->Model;
      if (defn->UOMLengthInMeters > 0)
        info->linear_unit_meters = defn->UOMLengthInMeters;
      if (defn->Model == ModelTypeProjected && defn->PCS != KvUserDefined && defn->PCS > 0)
        info->epsg = defn->PCS;
      else if (defn->Model == ModelTypeGeographic && defn->GCS != KvUserDefined && defn->GCS > 0)
        info->epsg = defn->GCS;
      if (!info->epsg) {
        char *definition = GTIFGetProj4Defn(defn);
        if (definition) {
          snprintf(info->proj_definition, sizeof(info->proj_definition), "%s", definition);
          GTIFFreeMemory(definition);
        }
      }
    }
    if (!info->epsg && !info->proj_definition[0]) {
      /* a code PROJ does not know: keep it, so that the error names it rather
       * than saying the keys have no CRS */
      unsigned short code = 0;
      if ((GTIFKeyGetSHORT(gtif, ProjectedCSTypeGeoKey, &code, 0, 1) == 1 ||
           GTIFKeyGetSHORT(gtif, GeographicTypeGeoKey, &code, 0, 1) == 1) &&
          code > 0 && code != KvUserDefined) {
        info->has_keys = 1;
        info->epsg = code;
      }
    }
    if (defn)
      GTIFFreeDefn(defn);
    GTIFFree(gtif);
  }
  if (proj)
    tc_proj_context_destroy(proj);
  TIFFSetWarningHandler(old_warning);
  XTIFFClose(tif);
  return 0;
}

