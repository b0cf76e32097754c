#include "TilecutGDAL.h"
#include "TilecutGDALTable.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Pixels of the raster formats libvips does not read (JPEG 2000, ERDAS Imagine, ENVI,
 * GeoPackage), and GDAL's mask of any raster, read through libgdal in strips of whole
 * rows (a multiple of GDAL's block height, at most TC_STRIP_BYTES), two held at a time:
 * one RasterIO a strip lets GDAL decode the strip's blocks together (JP2OpenJPEG on
 * its threads), and libvips' regions are copied out of the strips. */

/* Bytes of one strip of rows. */
#define TC_STRIP_BYTES (8 << 20)
/* Rows of a strip at least (ENVI and ERDAS blocks are one row). */
#define TC_STRIP_MIN_ROWS 64
#define TC_STRIPS 2

#define CPLPushErrorHandlerEx tc_gdal.CPLPushErrorHandlerEx
#define CPLPopErrorHandler tc_gdal.CPLPopErrorHandler
#define CPLGetErrorHandlerUserData tc_gdal.CPLGetErrorHandlerUserData
#define CSLDestroy tc_gdal.CSLDestroy

/* The drivers whose pixels tilecut reads (the README lists them with the reason). */
static const char *const pixel_drivers[] = {"JP2OpenJPEG", "HFA", "ENVI", "GPKG", NULL};
/* Every driver tilecut opens a raster with: for its mask, and for the pixels of a
 * raster detected as one of the above or of a TIFF whose samples libvips does not
 * read (64-bit float, …). */
static const char *const open_drivers[] = {"GTiff", "PNG", "JPEG", "GIF", "WEBP", "JP2OpenJPEG", "HFA", "ENVI", "GPKG", NULL};

static size_t sample_size(GDALDataType type);

struct tc_gdal_raster {
  pthread_mutex_t lock;
  GDALDatasetH dataset;
  int mask;
  int bands;
  GDALDataType type;
  /* band 1's palette as RGBA (256 entries) when its pixels are palette indices */
  unsigned char *palette;
  /* one strip of palette indices */
  unsigned char *indices;
  int width, height;
  /* bytes of one pixel as read: bands × sample size, 4 for a palette, 1 for the mask */
  size_t pixel_bytes;
  int strip_rows;
  /* strips of whole rows [top, top + rows) (rows 0: empty), the older one replaced */
  struct {
    unsigned char *pixels;
    int top, rows;
    unsigned long used;
  } strips[TC_STRIPS];
  unsigned long clock;
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
  for (int i = 0; i < TC_STRIPS; i++)
    free(r->strips[i].pixels);
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
  r->dataset = tc_gdal.GDALOpenEx(path, GDAL_OF_RASTER | GDAL_OF_READONLY, open_drivers, NULL,
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
  r->width = info->width;
  r->height = info->height;
  r->pixel_bytes = mask ? 1 : r->palette ? 4 : sample_size(r->type) * (size_t)r->bands;
  int block_width = 0, block_height = 0;
  tc_gdal.GDALGetBlockSize(first, &block_width, &block_height);
  int rows = block_height > 0 ? block_height : 1;
  while (rows < TC_STRIP_MIN_ROWS)
    rows += block_height > 0 ? block_height : 1;
  size_t row_bytes = (size_t)r->width * r->pixel_bytes;
  if (row_bytes > 0 && (size_t)rows * row_bytes > TC_STRIP_BYTES)
    rows = (int)(TC_STRIP_BYTES / row_bytes) > 0 ? (int)(TC_STRIP_BYTES / row_bytes) : 1;
  r->strip_rows = rows < r->height ? rows : r->height;
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

/* Reads the strip of rows [top, top + rows) into `out` (rows of the whole width). */
static CPLErr read_strip(tc_gdal_raster *r, int top, int rows, unsigned char *out, first_message *m) {
  int width = r->width;
  GSpacing line = (GSpacing)((size_t)width * r->pixel_bytes);
  if (r->mask) {
    GDALRasterBandH band = tc_gdal.GDALGetMaskBand(tc_gdal.GDALGetRasterBand(r->dataset, 1));
    return tc_gdal.GDALRasterIO(band, GF_Read, 0, top, width, rows, out, width, rows, GDT_Byte, 1, (int)line);
  }
  if (r->palette) {
    if (!r->indices && !(r->indices = malloc((size_t)width * (size_t)r->strip_rows))) {
      snprintf(m->text, sizeof m->text, "out of memory");
      m->count = 1;
      return CE_Failure;
    }
    CPLErr status = tc_gdal.GDALRasterIO(tc_gdal.GDALGetRasterBand(r->dataset, 1), GF_Read, 0, top, width, rows, r->indices, width,
                                         rows, GDT_Byte, 1, width);
    for (size_t i = 0; status == CE_None && i < (size_t)width * (size_t)rows; i++)
      memcpy(out + 4 * i, r->palette + 4 * (size_t)r->indices[i], 4);
    return status;
  }
  size_t size = sample_size(r->type);
  return tc_gdal.GDALDatasetRasterIO(r->dataset, GF_Read, 0, top, width, rows, out, width, rows, r->type, r->bands, NULL,
                                     (int)r->pixel_bytes, line, (GSpacing)size);
}

/* The strip that holds row y, read when no slot holds it (into the least recently used). */
static const unsigned char *strip_for(tc_gdal_raster *r, int y, first_message *m) {
  int top = (y / r->strip_rows) * r->strip_rows;
  int slot = 0;
  for (int i = 0; i < TC_STRIPS; i++) {
    if (r->strips[i].rows > 0 && r->strips[i].top == top) {
      r->strips[i].used = ++r->clock;
      return r->strips[i].pixels;
    }
    if (r->strips[i].used < r->strips[slot].used)
      slot = i;
  }
  if (!r->strips[slot].pixels && !(r->strips[slot].pixels = malloc((size_t)r->width * r->pixel_bytes * (size_t)r->strip_rows))) {
    snprintf(m->text, sizeof m->text, "out of memory for a strip of %d rows", r->strip_rows);
    m->count = 1;
    return NULL;
  }
  int rows = r->height - top < r->strip_rows ? r->height - top : r->strip_rows;
  r->strips[slot].rows = 0;
  if (read_strip(r, top, rows, r->strips[slot].pixels, m) != CE_None || m->count)
    return NULL;
  r->strips[slot].top = top;
  r->strips[slot].rows = rows;
  r->strips[slot].used = ++r->clock;
  return r->strips[slot].pixels;
}

int tc_gdal_raster_read(tc_gdal_raster *r, int left, int top, int width, int height, void *buffer, ptrdiff_t line_bytes,
                        char **error) {
  *error = NULL;
  first_message m = {{0}, 0};
  int failed = 0;
  if (left < 0 || top < 0 || width < 0 || height < 0 || left + width > r->width || top + height > r->height) {
    *error = strdup("a window outside the raster");
    return -1;
  }
  pthread_mutex_lock(&r->lock);
  CPLPushErrorHandlerEx(keep_first, &m);
  size_t row_bytes = (size_t)r->width * r->pixel_bytes;
  for (int y = top; y < top + height; y++) {
    const unsigned char *strip = strip_for(r, y, &m);
    if (!strip) {
      failed = 1;
      break;
    }
    int first_row = (y / r->strip_rows) * r->strip_rows;
    memcpy((unsigned char *)buffer + (size_t)(y - top) * (size_t)line_bytes,
           strip + (size_t)(y - first_row) * row_bytes + (size_t)left * r->pixel_bytes, (size_t)width * r->pixel_bytes);
  }
  CPLPopErrorHandler();
  pthread_mutex_unlock(&r->lock);
  if (failed || m.count) {
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
