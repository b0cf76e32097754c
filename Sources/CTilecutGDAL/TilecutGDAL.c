#include "TilecutGDAL.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>
#include <gdal_alg.h>
#include <gdal_frmts.h>
#include <ogr_srs_api.h>

/* Only the drivers of the formats tilecut reads: no plugins, nothing that could start
 * a program or reach the network. */
static pthread_once_t register_once = PTHREAD_ONCE_INIT;

static void register_drivers(void) {
  GDALRegister_GTiff();
  GDALRegister_PNG();
  GDALRegister_JPEG();
  GDALRegister_GIF();
  GDALRegister_WEBP();
}

/* GDAL's messages go into a buffer, never to stderr. */
typedef struct {
  char text[4096];
  size_t used;
  int errors;
} message_buffer;

static void collect(CPLErr level, CPLErrorNum number, const char *message) {
  (void)number;
  message_buffer *buffer = (message_buffer *)CPLGetErrorHandlerUserData();
  if (!buffer || !message || level < CE_Warning)
    return;
  if (level >= CE_Failure)
    buffer->errors++;
  size_t length = strlen(message);
  if (buffer->used + length + 2 >= sizeof(buffer->text))
    return;
  if (buffer->used)
    buffer->text[buffer->used++] = '\n';
  memcpy(buffer->text + buffer->used, message, length);
  buffer->used += length;
  buffer->text[buffer->used] = 0;
}

static char *copy(const char *text) { return text && *text ? strdup(text) : NULL; }

static char *export_wkt(OGRSpatialReferenceH srs) {
  if (!srs)
    return NULL;
  char *wkt = NULL;
  const char *options[] = {"FORMAT=WKT2_2019", "MULTILINE=NO", NULL};
  if (OSRExportToWktEx(srs, &wkt, options) != OGRERR_NONE) {
    CPLFree(wkt);
    return NULL;
  }
  char *out = copy(wkt);
  CPLFree(wkt);
  return out;
}

static int axis_swap(OGRSpatialReferenceH srs) {
  int count = 0;
  const int *mapping = srs ? OSRGetDataAxisToSRSAxisMapping(srs, &count) : NULL;
  return mapping && count >= 2 && mapping[0] == 2 && mapping[1] == 1;
}

int tc_gdal_read(const char *path, tc_gdal_info *info) {
  memset(info, 0, sizeof(*info));
  pthread_once(&register_once, register_drivers);
  /* a path GDAL would read as a virtual file system (/vsicurl/, /vsizip/) is not a file */
  if (strncmp(path, "/vsi", 4) == 0) {
    info->error = strdup("is not a plain file path");
    return 1;
  }
  message_buffer *buffer = calloc(1, sizeof(message_buffer));
  if (!buffer)
    return -1;
  CPLPushErrorHandlerEx(collect, buffer);
  const char *drivers[] = {"GTiff", "PNG", "JPEG", "GIF", "WEBP", NULL};
  GDALDatasetH dataset = GDALOpenEx(path, GDAL_OF_RASTER | GDAL_OF_READONLY, drivers, NULL, NULL);
  int result = 0;
  if (!dataset) {
    info->error = copy(buffer->used ? buffer->text : "GDAL cannot open it as a raster");
    result = 1;
  } else {
    GDALDriverH driver = GDALGetDatasetDriver(dataset);
    info->driver = copy(driver ? GDALGetDriverShortName(driver) : NULL);
    info->width = GDALGetRasterXSize(dataset);
    info->height = GDALGetRasterYSize(dataset);
    double t[6] = {0, 1, 0, 0, 0, 1};
    if (GDALGetGeoTransform(dataset, t) == CE_None) {
      info->has_geotransform = 1;
      memcpy(info->geotransform, t, sizeof(t));
    }
    info->crs_wkt = export_wkt(GDALGetSpatialRef(dataset));
    info->crs_axis_swap = axis_swap(GDALGetSpatialRef(dataset));
    int count = GDALGetGCPCount(dataset);
    const GDAL_GCP *gcps = count > 0 ? GDALGetGCPs(dataset) : NULL;
    if (gcps) {
      info->gcps = malloc(sizeof(double) * 4 * (size_t)count);
      if (info->gcps) {
        info->gcp_count = count;
        for (int i = 0; i < count; i++) {
          info->gcps[4 * i] = gcps[i].dfGCPPixel;
          info->gcps[4 * i + 1] = gcps[i].dfGCPLine;
          info->gcps[4 * i + 2] = gcps[i].dfGCPX;
          info->gcps[4 * i + 3] = gcps[i].dfGCPY;
        }
      }
      info->gcp_crs_wkt = export_wkt(GDALGetGCPSpatialRef(dataset));
      info->gcp_crs_axis_swap = axis_swap(GDALGetGCPSpatialRef(dataset));
    }
    char **files = GDALGetFileList(dataset);
    if (files) {
      size_t length = 0;
      for (int i = 1; files[i]; i++)
        length += strlen(files[i]) + 1;
      if (length > 0 && (info->files = calloc(1, length + 1))) {
        for (int i = 1; files[i]; i++) {
          if (i > 1)
            strcat(info->files, "\n");
          strcat(info->files, files[i]);
        }
      }
      CSLDestroy(files);
    }
    GDALClose(dataset);
    info->warnings = copy(buffer->used ? buffer->text : NULL);
  }
  CPLPopErrorHandler();
  free(buffer);
  return result;
}

void tc_gdal_free(tc_gdal_info *info) {
  free(info->driver);
  free(info->crs_wkt);
  free(info->gcps);
  free(info->gcp_crs_wkt);
  free(info->files);
  free(info->warnings);
  free(info->error);
  memset(info, 0, sizeof(*info));
}

typedef struct {
  void *argument;
  GDALTransformerFunc function;
  void (*destroy)(void *);
} gcp_transformer;

void *tc_gdal_gcp_create(const double *values, int count, int order) {
  pthread_once(&register_once, register_drivers);
  if (count <= 0)
    return NULL;
  GDAL_GCP *gcps = calloc((size_t)count, sizeof(GDAL_GCP));
  gcp_transformer *t = calloc(1, sizeof(gcp_transformer));
  if (!gcps || !t) {
    free(gcps);
    free(t);
    return NULL;
  }
  for (int i = 0; i < count; i++) {
    gcps[i].pszId = "";
    gcps[i].pszInfo = "";
    gcps[i].dfGCPPixel = values[4 * i];
    gcps[i].dfGCPLine = values[4 * i + 1];
    gcps[i].dfGCPX = values[4 * i + 2];
    gcps[i].dfGCPY = values[4 * i + 3];
  }
  CPLPushErrorHandler(CPLQuietErrorHandler);
  if (order < 0) {
    t->argument = GDALCreateTPSTransformer(count, gcps, FALSE);
    t->function = GDALTPSTransform;
    t->destroy = GDALDestroyTPSTransformer;
  } else {
    t->argument = GDALCreateGCPTransformer(count, gcps, order, FALSE);
    t->function = GDALGCPTransform;
    t->destroy = GDALDestroyGCPTransformer;
  }
  CPLPopErrorHandler();
  free(gcps);
  if (!t->argument) {
    free(t);
    return NULL;
  }
  return t;
}

void tc_gdal_gcp_apply(void *transformer, int inverse, int n, double *xs, double *ys, int *ok) {
  gcp_transformer *t = transformer;
  double *zs = calloc((size_t)n, sizeof(double));
  if (!zs) {
    memset(ok, 0, sizeof(int) * (size_t)n);
    return;
  }
  CPLPushErrorHandler(CPLQuietErrorHandler);
  t->function(t->argument, inverse, n, xs, ys, zs, ok);
  CPLPopErrorHandler();
  free(zs);
}

void tc_gdal_gcp_destroy(void *transformer) {
  gcp_transformer *t = transformer;
  if (!t)
    return;
  t->destroy(t->argument);
  free(t);
}
