#include "TilecutGDAL.h"
#include "TilecutGDALTable.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Pixels of the raster formats libvips does not read (JPEG 2000, ERDAS Imagine, ENVI,
 * GeoPackage), and GDAL's mask of any raster, read through libgdal a window at a time
 * (the rows libvips asks for), through GDAL's block cache (TC_GDAL_CACHE_BYTES). */

#define CPLPushErrorHandlerEx tc_gdal.CPLPushErrorHandlerEx
#define CPLPopErrorHandler tc_gdal.CPLPopErrorHandler
#define CPLGetErrorHandlerUserData tc_gdal.CPLGetErrorHandlerUserData
#define CSLDestroy tc_gdal.CSLDestroy

/* The drivers whose pixels tilecut reads (the README lists them with the reason). */
static const char *const pixel_drivers[] = {"JP2OpenJPEG", "HFA", "ENVI", "GPKG", NULL};
/* Every driver tilecut opens a raster with, for its mask. */
static const char *const mask_drivers[] = {"GTiff", "PNG", "JPEG", "GIF", "WEBP", "JP2OpenJPEG", "HFA", "ENVI", "GPKG", NULL};

struct tc_gdal_raster {
  pthread_mutex_t lock;
  GDALDatasetH dataset;
  int mask;
  int bands;
  GDALDataType type;
  /* band 1's palette as RGBA (256 entries) when its pixels are palette indices */
  unsigned char *palette;
  /* one window of palette indices */
  unsigned char *indices;
  size_t indices_size;
};

/* The first error GDAL reports while a call runs (a failure: GDAL's warnings while
 * decoding, as JP2OpenJPEG's notes on codestream options, are not errors). */
typedef struct {
  char text[1024];
  int count;
} first_message;

static void keep_first(CPLErr level, CPLErrorNum number, const char *message) {
  (void)number;
  first_message *m = (first_message *)CPLGetErrorHandlerUserData();
  if (!m || !message || level < CE_Failure)
    return;
  if (m->count++ == 0)
    snprintf(m->text, sizeof m->text, "%s", message);
}

static char *dup_text(const char *text) { return text && *text ? strdup(text) : NULL; }

int tc_gdal_identify(const char *path, const char *const *siblings, char **driver) {
  *driver = NULL;
  const char *unloadable = tc_gdal_load();
  if (unloadable) {
    *driver = strdup(unloadable);
    return -2;
  }
  if (strncmp(path, "/vsi", 4) == 0)
    return -1;
  first_message m = {{0}, 0};
  CPLPushErrorHandlerEx(keep_first, &m);
  GDALDriverH found = tc_gdal.GDALIdentifyDriverEx(path, GDAL_OF_RASTER, pixel_drivers, siblings);
  int result = -1;
  if (found) {
    *driver = dup_text(tc_gdal.GDALGetDriverShortName(found));
    result = 1;
  } else {
    /* to name what it is: every driver built into libgdal (no plugin loaded), only
     * asked whether it knows the file's bytes; none opens it */
    static pthread_once_t all_once = PTHREAD_ONCE_INIT;
    pthread_once(&all_once, (void (*)(void))tc_gdal_register_all);
    found = tc_gdal.GDALIdentifyDriverEx(path, GDAL_OF_RASTER, NULL, siblings);
    if (found) {
      *driver = dup_text(tc_gdal.GDALGetDriverLongName(found));
      result = 0;
    }
  }
  CPLPopErrorHandler();
  return result;
}

void tc_gdal_register_all(void) {
  /* plugins are shared libraries of their own, loaded from GDAL's plugin folder: none */
  tc_gdal.CPLSetConfigOption("GDAL_DRIVER_PATH", "disable");
  tc_gdal.GDALAllRegister();
}

static void raster_free(tc_gdal_raster *r) {
  if (!r)
    return;
  if (r->dataset)
    tc_gdal.GDALClose(r->dataset);
  free(r->palette);
  free(r->indices);
  pthread_mutex_destroy(&r->lock);
  free(r);
}

tc_gdal_raster *tc_gdal_raster_open(const char *path, const char *const *siblings, int mask, tc_gdal_raster_info *info) {
  memset(info, 0, sizeof(*info));
  const char *unloadable = tc_gdal_load();
  if (unloadable) {
    info->error = strdup(unloadable);
    return NULL;
  }
  if (strncmp(path, "/vsi", 4) == 0) {
    info->error = strdup("is not a plain file path");
    return NULL;
  }
  tc_gdal_raster *r = calloc(1, sizeof *r);
  if (!r) {
    info->error = strdup("out of memory");
    return NULL;
  }
  pthread_mutex_init(&r->lock, NULL);
  r->mask = mask;
  first_message m = {{0}, 0};
  CPLPushErrorHandlerEx(keep_first, &m);
  r->dataset = tc_gdal.GDALOpenEx(path, GDAL_OF_RASTER | GDAL_OF_READONLY, mask ? mask_drivers : pixel_drivers, NULL,
                                  siblings);
  if (!r->dataset) {
    info->error = strdup(m.count ? m.text : "GDAL cannot open it as a raster");
    goto fail;
  }
  GDALDriverH driver = tc_gdal.GDALGetDatasetDriver(r->dataset);
  info->driver = dup_text(driver ? tc_gdal.GDALGetDriverShortName(driver) : NULL);
  info->driver_name = dup_text(driver ? tc_gdal.GDALGetDriverLongName(driver) : NULL);
  info->width = tc_gdal.GDALGetRasterXSize(r->dataset);
  info->height = tc_gdal.GDALGetRasterYSize(r->dataset);
  r->bands = tc_gdal.GDALGetRasterCount(r->dataset);
  info->bands = r->bands;
  if (r->bands < 1) {
    info->error = strdup("has no raster bands");
    goto fail;
  }
  GDALRasterBandH first = tc_gdal.GDALGetRasterBand(r->dataset, 1);
  r->type = tc_gdal.GDALGetRasterDataType(first);
  info->data_type = (int)r->type;
  int has_nodata = 0;
  double nodata = tc_gdal.GDALGetRasterNoDataValue(first, &has_nodata);
  info->has_nodata = has_nodata;
  info->nodata = nodata;
  info->mask_flags = tc_gdal.GDALGetMaskFlags(first);
  info->alpha = r->bands > 1 && tc_gdal.GDALGetRasterColorInterpretation(tc_gdal.GDALGetRasterBand(r->dataset, r->bands)) == GCI_AlphaBand;
  for (int b = 2; b <= r->bands; b++) {
    if (tc_gdal.GDALGetRasterDataType(tc_gdal.GDALGetRasterBand(r->dataset, b)) != r->type) {
      info->error = strdup("has bands of different sample types, which tilecut does not read");
      goto fail;
    }
  }
  if (mask) {
    /* the mask band exists now: an external .msk is opened here, not while reading */
    if (!tc_gdal.GDALGetMaskBand(first)) {
      info->error = strdup(m.count ? m.text : "GDAL gives no mask band");
      goto fail;
    }
  } else if (r->bands == 1 && tc_gdal.GDALGetRasterColorInterpretation(first) == GCI_PaletteIndex) {
    GDALColorTableH table = tc_gdal.GDALGetRasterColorTable(first);
    if (table && r->type == GDT_Byte) {
      r->palette = calloc(256, 4);
      if (!r->palette) {
        info->error = strdup("out of memory");
        goto fail;
      }
      int entries = tc_gdal.GDALGetColorEntryCount(table);
      for (int i = 0; i < entries && i < 256; i++) {
        GDALColorEntry e;
        if (tc_gdal.GDALGetColorEntryAsRGB(table, i, &e)) {
          unsigned char *p = r->palette + 4 * i;
          p[0] = (unsigned char)e.c1;
          p[1] = (unsigned char)e.c2;
          p[2] = (unsigned char)e.c3;
          p[3] = (unsigned char)e.c4;
        }
      }
      info->palette = 1;
    }
  }
  switch (r->type) {
  case GDT_Byte:
  case GDT_UInt16:
  case GDT_Int16:
  case GDT_UInt32:
  case GDT_Int32:
  case GDT_Float32:
  case GDT_Float64:
    break;
  default:
    info->error = strdup("has complex or 64-bit integer samples, which tilecut does not read");
    goto fail;
  }
  CPLPopErrorHandler();
  return r;
fail:
  CPLPopErrorHandler();
  raster_free(r);
  return NULL;
}

static size_t sample_size(GDALDataType type) {
  switch (type) {
  case GDT_Byte:
    return 1;
  case GDT_UInt16:
  case GDT_Int16:
    return 2;
  case GDT_Float64:
    return 8;
  default:
    return 4;
  }
}

int tc_gdal_raster_read(tc_gdal_raster *r, int left, int top, int width, int height, void *buffer, ptrdiff_t line_bytes,
                        char **error) {
  *error = NULL;
  first_message m = {{0}, 0};
  pthread_mutex_lock(&r->lock);
  CPLPushErrorHandlerEx(keep_first, &m);
  CPLErr status;
  if (r->mask) {
    GDALRasterBandH band = tc_gdal.GDALGetMaskBand(tc_gdal.GDALGetRasterBand(r->dataset, 1));
    status = tc_gdal.GDALRasterIO(band, GF_Read, left, top, width, height, buffer, width, height, GDT_Byte, 1, line_bytes);
  } else if (r->palette) {
    size_t need = (size_t)width * (size_t)height;
    if (need > r->indices_size) {
      free(r->indices);
      r->indices = malloc(need);
      r->indices_size = r->indices ? need : 0;
    }
    if (!r->indices) {
      status = CE_Failure;
      snprintf(m.text, sizeof m.text, "out of memory");
      m.count = 1;
    } else {
      status = tc_gdal.GDALRasterIO(tc_gdal.GDALGetRasterBand(r->dataset, 1), GF_Read, left, top, width, height, r->indices, width,
                                    height, GDT_Byte, 1, width);
      for (int y = 0; status == CE_None && y < height; y++) {
        unsigned char *out = (unsigned char *)buffer + (size_t)y * (size_t)line_bytes;
        const unsigned char *in = r->indices + (size_t)y * (size_t)width;
        for (int x = 0; x < width; x++)
          memcpy(out + 4 * (size_t)x, r->palette + 4 * (size_t)in[x], 4);
      }
    }
  } else {
    size_t size = sample_size(r->type);
    status = tc_gdal.GDALDatasetRasterIO(r->dataset, GF_Read, left, top, width, height, buffer, width, height, r->type, r->bands,
                                         NULL, (int)(size * (size_t)r->bands), line_bytes, (GSpacing)size);
  }
  CPLPopErrorHandler();
  pthread_mutex_unlock(&r->lock);
  if (status != CE_None || m.count) {
    *error = strdup(m.count ? m.text : "GDAL could not read the pixels");
    return -1;
  }
  return 0;
}

void tc_gdal_raster_close(tc_gdal_raster *r) { raster_free(r); }

void tc_gdal_raster_info_free(tc_gdal_raster_info *info) {
  free(info->driver);
  free(info->driver_name);
  free(info->error);
  memset(info, 0, sizeof(*info));
}
