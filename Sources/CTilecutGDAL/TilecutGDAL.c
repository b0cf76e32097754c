#define _GNU_SOURCE 1 /* RTLD_DEEPBIND */
#include "TilecutGDAL.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "TilecutGDALTable.h"
#include "TilecutPlatform.h"

tc_gdal_table tc_gdal;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void *open_library(void) {
  /* linked (a plain swift build), or loaded already by another library */
  if (dlsym(RTLD_DEFAULT, "GDALOpenEx"))
    return dlopen(NULL, RTLD_NOW);
  char names[6][1024];
  int count = 0;
#if defined(__APPLE__)
  snprintf(names[count++], sizeof names[0], "libgdal.%d.dylib", 26 + GDAL_VERSION_MINOR);
  snprintf(names[count++], sizeof names[0], "libgdal.dylib");
  if (tc_library_beside("vips_init", names[0], names[count], sizeof names[0]))
    count++;
  if (tc_library_beside("vips_init", "libgdal.dylib", names[count], sizeof names[0]))
    count++;
#else
  /* GDAL 3.x's soname is libgdal.so.(26 + minor): 3.6 → 32 */
  snprintf(names[count++], sizeof names[0], "libgdal.so.%d", 26 + GDAL_VERSION_MINOR);
  snprintf(names[count++], sizeof names[0], "libgdal.so");
  if (tc_library_beside("vips_init", names[0], names[count], sizeof names[0]))
    count++;
#endif
  const char *last = "no candidate";
  /* glibc: RTLD_DEEPBIND binds libgdal and the hundred libraries it brings to their own
   * scope first, the same loaded objects (libproj, libtiff, libcurl … are one copy each),
   * without first searching the 130 objects tilecut has loaded for every symbol: in a
   * process that links libvips, dlopen("libgdal.so.32") took 130–138 ms of CPU this way
   * against 163–192 ms (perf stat -r 5, a C program linking libvips). */
#if defined(RTLD_DEEPBIND)
  const int flags = RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND;
#else
  const int flags = RTLD_NOW | RTLD_LOCAL;
#endif
  for (int i = 0; i < count; i++) {
    void *handle = dlopen(names[i], flags);
    if (handle)
      return handle;
    last = dlerror();
  }
  snprintf(load_error, sizeof load_error, "libgdal %d.%d could not be loaded (%s); install GDAL (Debian: libgdal-dev)",
           GDAL_VERSION_MAJOR, GDAL_VERSION_MINOR, last ? last : "not found");
  return NULL;
}

static void load_gdal(void) {
  void *handle = open_library();
  if (!handle)
    return;
#define TC_GDAL_LOAD(name)                                                                        \
  tc_gdal.name = (__typeof__(&name))dlsym(handle, #name);                                            \
  if (!tc_gdal.name) {                                                                               \
    snprintf(load_error, sizeof load_error, "libgdal has no %s; install GDAL %d.%d or newer", #name, \
             GDAL_VERSION_MAJOR, GDAL_VERSION_MINOR);                                             \
    return;                                                                                       \
  }
  TC_GDAL_FUNCTIONS(TC_GDAL_LOAD)
#undef TC_GDAL_LOAD
  /* Only the drivers of the formats tilecut reads: no plugins, nothing that could
   * start a program or reach the network. */
  tc_gdal.GDALRegister_GTiff();
  tc_gdal.GDALRegister_PNG();
  tc_gdal.GDALRegister_JPEG();
  tc_gdal.GDALRegister_GIF();
  tc_gdal.GDALRegister_WEBP();
  /* a GeoPDF's georeferencing (its pixels are poppler's, rendered by tilecut) */
  tc_gdal.GDALRegister_PDF();
  /* the raster formats libvips does not read whose pixels tilecut reads through GDAL
   * (TilecutGDALRaster.c): JPEG 2000 through OpenJPEG, ERDAS Imagine, ENVI, GeoPackage */
  tc_gdal.GDALRegister_JP2OpenJPEG();
  tc_gdal.GDALRegister_HFA();
  tc_gdal.GDALRegister_ENVI();
  tc_gdal.RegisterOGRGeoPackage();
  /* GDAL's block cache: what it holds of decoded blocks while tilecut reads strips */
  tc_gdal.GDALSetCacheMax64((GIntBig)TC_GDAL_CACHE_BYTES);
}

const char *tc_gdal_load(void) {
  pthread_once(&load_once, load_gdal);
  return load_error[0] ? load_error : NULL;
}

#define CPLGetErrorHandlerUserData tc_gdal.CPLGetErrorHandlerUserData
#define CPLPushErrorHandler tc_gdal.CPLPushErrorHandler
#define CPLPushErrorHandlerEx tc_gdal.CPLPushErrorHandlerEx
#define CPLPopErrorHandler tc_gdal.CPLPopErrorHandler
#define CPLQuietErrorHandler tc_gdal.CPLQuietErrorHandler
#define VSIFree tc_gdal.VSIFree
#define CSLDestroy tc_gdal.CSLDestroy
#define OSRExportToWktEx tc_gdal.OSRExportToWktEx
#define OSRGetDataAxisToSRSAxisMapping tc_gdal.OSRGetDataAxisToSRSAxisMapping
#define GDALOpenEx tc_gdal.GDALOpenEx
#define GDALClose tc_gdal.GDALClose
#define GDALGetDatasetDriver tc_gdal.GDALGetDatasetDriver
#define GDALGetDriverShortName tc_gdal.GDALGetDriverShortName
#define GDALGetRasterXSize tc_gdal.GDALGetRasterXSize
#define GDALGetRasterYSize tc_gdal.GDALGetRasterYSize
#define GDALGetGeoTransform tc_gdal.GDALGetGeoTransform
#define GDALGetSpatialRef tc_gdal.GDALGetSpatialRef
#define GDALGetGCPCount tc_gdal.GDALGetGCPCount
#define GDALGetGCPs tc_gdal.GDALGetGCPs
#define GDALGetGCPSpatialRef tc_gdal.GDALGetGCPSpatialRef
#define GDALGetFileList tc_gdal.GDALGetFileList
#define GDALCreateTPSTransformer tc_gdal.GDALCreateTPSTransformer
#define GDALTPSTransform tc_gdal.GDALTPSTransform
#define GDALDestroyTPSTransformer tc_gdal.GDALDestroyTPSTransformer
#define GDALCreateGCPTransformer tc_gdal.GDALCreateGCPTransformer
#define GDALGCPTransform tc_gdal.GDALGCPTransform
#define GDALDestroyGCPTransformer tc_gdal.GDALDestroyGCPTransformer
#define CPLSetThreadLocalConfigOption tc_gdal.CPLSetThreadLocalConfigOption
#define GDALGetMetadataItem tc_gdal.GDALGetMetadataItem
#define OGR_G_CreateFromWkt tc_gdal.OGR_G_CreateFromWkt
#define OGR_G_DestroyGeometry tc_gdal.OGR_G_DestroyGeometry
#define OGR_G_GetGeometryType tc_gdal.OGR_G_GetGeometryType
#define OGR_G_GetGeometryCount tc_gdal.OGR_G_GetGeometryCount
#define OGR_G_GetGeometryRef tc_gdal.OGR_G_GetGeometryRef
#define OGR_G_GetPointCount tc_gdal.OGR_G_GetPointCount
#define OGR_G_GetX tc_gdal.OGR_G_GetX
#define OGR_G_GetY tc_gdal.OGR_G_GetY

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

/* The files GDAL read besides the dataset's own (sidecars: world files, .prj,
 * .aux.xml, .msk), one a line, or NULL when there are none. */
static char *sidecar_list(GDALDatasetH dataset) {
  char **files = GDALGetFileList(dataset);
  char *list = NULL;
  if (files) {
    size_t total = 0;
    for (int i = 1; files[i]; i++)
      total += strlen(files[i]) + 1;
    if (total > 0 && (list = calloc(1, total + 1))) {
      for (int i = 1; files[i]; i++) {
        if (i > 1)
          strcat(list, "\n");
        strcat(list, files[i]);
      }
    }
    CSLDestroy(files);
  }
  return list;
}

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

int tc_gdal_read(const char *path, const char *const *siblings, tc_gdal_info *info) {
  memset(info, 0, sizeof(*info));
  const char *unloadable = tc_gdal_load();
  if (unloadable) {
    info->error = strdup(unloadable);
    return -2;
  }
  /* a path GDAL would read as a virtual file system (/vsicurl/, /vsizip/) is not a file */
  if (strncmp(path, "/vsi", 4) == 0) {
    info->error = strdup("is not a plain file path");
    return 1;
  }
  message_buffer *buffer = calloc(1, sizeof(message_buffer));
  if (!buffer)
    return -1;
  CPLPushErrorHandlerEx(collect, buffer);
  const char *drivers[] = {"GTiff", "PNG", "JPEG", "GIF", "WEBP", "JP2OpenJPEG", "HFA", "ENVI", "GPKG", NULL};
  /* GDAL looks for sidecars among these names (the folder is tilecut's own folder of
   * vetted links); the list always holds the file's own name, as an empty one would
   * let GDAL probe every name it wants */
  GDALDatasetH dataset = GDALOpenEx(path, GDAL_OF_RASTER | GDAL_OF_READONLY, drivers, NULL, siblings);
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
    info->files = sidecar_list(dataset);
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
  if (count <= 0 || tc_gdal_load())
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

/* GDAL's debug lines while it opens a PDF page tell which georeferencing it read:
 * "OGC Encoding Best Practice style detected" (an LGIDict), "Subtype = GEO" (an ISO
 * 32000 viewport measure), "Subtype = RL" (a drawing scale, no georeferencing). */
typedef struct {
  message_buffer messages;
  int lgidict, geo, rl;
} pdf_messages;

static void collect_pdf(CPLErr level, CPLErrorNum number, const char *message) {
  pdf_messages *found = (pdf_messages *)CPLGetErrorHandlerUserData();
  if (!found || !message)
    return;
  if (level == CE_Debug) {
    if (strstr(message, "OGC Encoding Best Practice style detected"))
      found->lgidict = 1;
    if (strstr(message, "Subtype = GEO"))
      found->geo = 1;
    if (strstr(message, "Subtype = RL"))
      found->rl = 1;
    return;
  }
  (void)number;
  message_buffer *buffer = &found->messages;
  if (level < CE_Warning)
    return;
  size_t length = strlen(message);
  if (buffer->used + length + 2 >= sizeof(buffer->text))
    return;
  if (buffer->used)
    buffer->text[buffer->used++] = '\n';
  memcpy(buffer->text + buffer->used, message, length);
  buffer->used += length;
  buffer->text[buffer->used] = 0;
}

/* The points of a polygon's (or each polygon's) outer ring. */
static void ring_points(OGRGeometryH geometry, tc_gdal_pdf_info *info) {
  /* the 2D type of a 2.5D (high bit) or ISO Z/M (thousands) one */
  int type = (int)((unsigned)OGR_G_GetGeometryType(geometry) & 0x7fffffffu) % 1000;
  if (type == wkbMultiPolygon) {
    for (int i = 0; i < OGR_G_GetGeometryCount(geometry); i++)
      ring_points(OGR_G_GetGeometryRef(geometry, i), info);
    return;
  }
  if (type != wkbPolygon || OGR_G_GetGeometryCount(geometry) < 1)
    return;
  OGRGeometryH ring = OGR_G_GetGeometryRef(geometry, 0);
  int count = OGR_G_GetPointCount(ring);
  if (count <= 0 || count > 100000)
    return;
  double *grown = realloc(info->neatline, sizeof(double) * 2 * (size_t)(info->neatline_count + count));
  if (!grown)
    return;
  info->neatline = grown;
  for (int i = 0; i < count; i++) {
    info->neatline[2 * info->neatline_count] = OGR_G_GetX(ring, i);
    info->neatline[2 * info->neatline_count + 1] = OGR_G_GetY(ring, i);
    info->neatline_count++;
  }
}

int tc_gdal_read_pdf(const char *path, int page, const char *const *siblings, tc_gdal_pdf_info *info) {
  memset(info, 0, sizeof(*info));
  const char *unloadable = tc_gdal_load();
  if (unloadable) {
    info->error = strdup(unloadable);
    return -2;
  }
  if (strncmp(path, "/vsi", 4) == 0 || strncmp(path, "PDF:", 4) == 0) {
    info->error = strdup("is not a plain file path");
    return 1;
  }
  size_t length = strlen(path) + 32;
  char *name = malloc(length);
  pdf_messages *found = calloc(1, sizeof(pdf_messages));
  if (!name || !found) {
    free(name);
    free(found);
    return -1;
  }
  /* the first page is the file itself, as GDAL opens it (with its .aux.xml, GDAL's PAM);
   * another is GDAL's subdataset of the page (they count from 1) */
  if (page == 0)
    snprintf(name, length, "%s", path);
  else
    snprintf(name, length, "PDF:%d:%s", page + 1, path);
  CPLPushErrorHandlerEx(collect_pdf, found);
  /* this thread's debug lines only, while the page is opened */
  CPLSetThreadLocalConfigOption("CPL_DEBUG", "PDF");
  const char *drivers[] = {"PDF", NULL};
  /* at GDAL's own DPI (150, or GDAL_PDF_DPI): the pixels an .aux.xml's geotransform means */
  GDALDatasetH dataset = GDALOpenEx(name, GDAL_OF_RASTER | GDAL_OF_READONLY, drivers, NULL, siblings);
  CPLSetThreadLocalConfigOption("CPL_DEBUG", NULL);
  int result = 0;
  if (!dataset) {
    info->error = copy(found->messages.used ? found->messages.text : "GDAL cannot open the page");
    result = 1;
  } else {
    info->width = GDALGetRasterXSize(dataset);
    info->height = GDALGetRasterYSize(dataset);
    double t[6] = {0, 1, 0, 0, 0, 1};
    if (GDALGetGeoTransform(dataset, t) == CE_None) {
      info->has_geotransform = 1;
      memcpy(info->geotransform, t, sizeof(t));
    }
    info->crs_wkt = export_wkt(GDALGetSpatialRef(dataset));
    info->crs_axis_swap = axis_swap(GDALGetSpatialRef(dataset));
    info->gcp_count = GDALGetGCPCount(dataset);
    const char *neatline = GDALGetMetadataItem(dataset, "NEATLINE", NULL);
    if (neatline && *neatline) {
      info->neatline_wkt = strdup(neatline);
      char *cursor = info->neatline_wkt;
      OGRGeometryH geometry = NULL;
      if (OGR_G_CreateFromWkt(&cursor, NULL, &geometry) == OGRERR_NONE && geometry)
        ring_points(geometry, info);
      if (geometry)
        OGR_G_DestroyGeometry(geometry);
    }
    info->files = sidecar_list(dataset);
    GDALClose(dataset);
    info->warnings = copy(found->messages.used ? found->messages.text : NULL);
  }
  info->encoding = found->lgidict ? 1 : found->geo ? 2 : 0;
  info->drawing_scale = found->rl;
  CPLPopErrorHandler();
  free(found);
  free(name);
  return result;
}

void tc_gdal_pdf_free(tc_gdal_pdf_info *info) {
  free(info->files);
  free(info->crs_wkt);
  free(info->neatline_wkt);
  free(info->neatline);
  free(info->warnings);
  free(info->error);
  memset(info, 0, sizeof(*info));
}
