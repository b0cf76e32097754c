#ifndef TILECUT_GDAL_H
#define TILECUT_GDAL_H

#include <stddef.h>

/* A raster's georeferencing as GDAL reads it (libgdal): GDAL's GeoTIFF driver for TIFF,
 * its PNG, JPEG, GIF and WebP drivers for the rest, each with GDAL's own precedence of
 * .aux.xml (PAM), embedded keys, .tab and world files; and JP2OpenJPEG, HFA, ENVI and
 * GPKG for the rasters whose pixels GDAL reads too (tc_gdal_raster_open). */
typedef struct {
  /* GDAL's short name of the driver that opened the file ("GTiff", "PNG", ...) */
  char *driver;
  int width, height;
  /* 1 when GDAL reports a geotransform (not its default 0,1,0,0,0,1) */
  int has_geotransform;
  /* X = t[0] + t[1]·col + t[2]·row, Y = t[3] + t[4]·col + t[5]·row, from pixel corners */
  double geotransform[6];
  /* the raster's CRS as WKT2:2019 (NULL when it has none) */
  char *crs_wkt;
  /* 1 when GDAL's data axes are the CRS's axes swapped (its traditional GIS order:
   * easting first), so coordinates go to PROJ as (Y, X) */
  int crs_axis_swap;
  /* control points: gcp_count × (pixel, line, X, Y), and their CRS (may be NULL) */
  int gcp_count;
  double *gcps;
  char *gcp_crs_wkt;
  int gcp_crs_axis_swap;
  /* files GDAL read beside the raster (world file, .aux.xml, ...), newline separated */
  char *files;
  /* GDAL's warnings while reading, newline separated (NULL when none) */
  char *warnings;
  /* why GDAL could not open it (NULL on success) */
  char *error;
} tc_gdal_info;

/* Reads a raster's georeferencing. Returns 0 when GDAL opened it, 1 when no registered
 * driver reads it (info->error says why), -1 on another failure. Nothing reaches stderr. */
/* Loads libgdal (once; thread-safe) and registers its drivers; NULL when it is
 * ready, else why it could not be loaded (one line). */
const char *tc_gdal_load(void);

/* 0 on success; 1 when GDAL cannot open the file (info->error says why); -2 when
 * libgdal cannot be loaded (info->error says why). `siblings`: the names in the
 * file's folder GDAL may open as its sidecars (NULL-terminated, holding the file's own
 * name). GDAL's GeoTIFF driver lists the folder again when asked for its files, so
 * tilecut gives it a folder of vetted links only (GDALFolder.swift). */
int tc_gdal_read(const char *path, const char *const *siblings, tc_gdal_info *info);

/* Frees what tc_gdal_read allocated. */
void tc_gdal_free(tc_gdal_info *info);

/* What GDAL's drivers make of a file: 1 when one whose pixels tilecut reads through
 * GDAL (JP2OpenJPEG, HFA, ENVI, GPKG) knows it (*driver: its short name); 0 when
 * another driver built into libgdal knows it (*driver: that driver's long name, as
 * "MS Windows Device Independent Bitmap"); -1 when none does; -2 when libgdal cannot be
 * loaded (*driver: why). `siblings` as for tc_gdal_read. Free *driver with free(). */
int tc_gdal_identify(const char *path, const char *const *siblings, char **driver);

/* Registers every driver built into libgdal (plugins are not loaded), to name formats. */
void tc_gdal_register_all(void);

/* A raster opened for its pixels (mask 0: only through JP2OpenJPEG, HFA, ENVI, GPKG) or
 * for GDAL's mask of its first band (mask 1: through any driver tilecut registers). */
typedef struct tc_gdal_raster tc_gdal_raster;

typedef struct {
  char *driver;
  /* the driver's long name ("JPEG-2000 driver based on OpenJPEG library") */
  char *driver_name;
  int width, height, bands;
  /* GDAL's GDALDataType of the samples (1 Byte, 2 UInt16, 3 Int16, 4 UInt32, 5 Int32,
   * 6 Float32, 7 Float64); every band has the same */
  int data_type;
  int has_nodata;
  double nodata;
  /* 1 when the last band is GDAL's alpha band */
  int alpha;
  /* 1 when band 1 holds palette indices: its pixels are read as RGBA through the palette */
  int palette;
  /* GDALGetMaskFlags of band 1 (GMF_ALL_VALID 1, GMF_PER_DATASET 2, GMF_ALPHA 4, GMF_NODATA 8) */
  int mask_flags;
  /* why it could not be opened (NULL on success) */
  char *error;
} tc_gdal_raster_info;

/* NULL when it cannot be opened (info->error says why). Thread-safe: reads take a lock. */
tc_gdal_raster *tc_gdal_raster_open(const char *path, const char *const *siblings, int mask, tc_gdal_raster_info *info);

/* Reads a window into `buffer` (rows `line_bytes` apart): samples interleaved by pixel,
 * every band (palette indices as RGBA), or the mask's bytes (0 masked, 255 valid).
 * 0, or -1 with *error (free()) saying why. */
int tc_gdal_raster_read(tc_gdal_raster *raster, int left, int top, int width, int height, void *buffer, ptrdiff_t line_bytes,
                        char **error);

void tc_gdal_raster_close(tc_gdal_raster *raster);

void tc_gdal_raster_info_free(tc_gdal_raster_info *info);


/* GDAL's own transformer through control points (pixel, line, X, Y) × count: a
 * polynomial of `order` 1-3, or a thin-plate spline for order -1. NULL when GDAL cannot
 * fit them (too few points for the order, or degenerate). */
void *tc_gdal_gcp_create(const double *gcps, int count, int order);

/* Maps n points in place, pixel → X, Y (inverse 0) or back (inverse 1); ok[i] is 1
 * where GDAL could. */
void tc_gdal_gcp_apply(void *transformer, int inverse, int n, double *xs, double *ys, int *ok);

void tc_gdal_gcp_destroy(void *transformer);

/* A PDF page's georeferencing as GDAL's PDF driver reads it, at GDAL's own DPI (150,
 * or GDAL_PDF_DPI), with the file's .aux.xml (GDAL's PAM) for its first page. */
typedef struct {
  /* GDAL's size of the page in its pixels */
  int width, height;
  int has_geotransform;
  /* GDAL's pixel (x right, y down from the top-left corner) → CRS, GDAL's convention */
  double geotransform[6];
  char *crs_wkt;
  int crs_axis_swap;
  /* control points GDAL gives instead of a geotransform (their number) */
  int gcp_count;
  /* GDAL's NEATLINE metadata (WKT in the CRS), and its outer ring: neatline_count × (X, Y) */
  char *neatline_wkt;
  double *neatline;
  int neatline_count;
  /* 1: OGC best practice (LGIDict); 2: ISO 32000 (/VP /Measure /GEO); 0: neither */
  int encoding;
  /* 1: a viewport whose /Measure is /RL (a drawing scale, not georeferencing) */
  int drawing_scale;
  /* files GDAL read beside the PDF (its .aux.xml), newline separated */
  char *files;
  char *warnings;
  char *error;
} tc_gdal_pdf_info;

/* Reads page `page` (from 0) of a PDF: the file itself for the first, as GDAL opens it,
 * else GDAL's subdataset PDF:page+1:path. `siblings` as for tc_gdal_read. 0 on
 * success, 1 when GDAL cannot open it (info->error says why), -2 when libgdal cannot
 * be loaded. Nothing reaches stderr. */
int tc_gdal_read_pdf(const char *path, int page, const char *const *siblings, tc_gdal_pdf_info *info);

void tc_gdal_pdf_free(tc_gdal_pdf_info *info);

#endif
