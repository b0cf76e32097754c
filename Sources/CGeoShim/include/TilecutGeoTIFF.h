#ifndef TILECUT_GEOTIFF_H
#define TILECUT_GEOTIFF_H

#include <stddef.h>

/* What a GeoTIFF's tags say about where its pixels lie, read with libtiff and
 * libgeotiff (the first image of the file). */
typedef struct {
  /* 1 when ModelTiepoint + ModelPixelScale or ModelTransformation place the image */
  int has_transform;
  /* GDAL geotransform order, from pixel corners (GDAL's continuous convention,
   * PixelIsPoint already shifted by half a pixel): X = t[0] + t[1]·col + t[2]·row,
   * Y = t[3] + t[4]·col + t[5]·row, in the CRS's own units and axis order (easting, northing) */
  double transform[6];
  /* 1 for RasterPixelIsPoint, 0 for RasterPixelIsArea (the default) */
  int pixel_is_point;
  /* number of tie points; without a pixel scale, more than one are control points */
  int tiepoint_count;
  /* the first 64 tie points as I, J, K, X, Y, Z (pixel space, PixelIsPoint not yet applied) */
  double tiepoints[6 * 64];
  /* 1 when the file has GeoKeys at all */
  int has_keys;
  /* GTModelTypeGeoKey: 1 projected, 2 geographic, 3 geocentric, 0 missing */
  int model_type;
  /* EPSG code of the projected (model 1) or geographic (model 2) CRS; 0 when user-defined */
  int epsg;
  /* for user-defined CRSs: the definition as a PROJ string (libgeotiff's GTIFGetProj4Defn) */
  char proj_definition[2048];
  /* linear unit of the projected CRS in metres (1 for metres, 0.3048006096 for US survey feet) */
  double linear_unit_meters;
  /* the GDAL_NODATA tag */
  int has_nodata;
  double nodata;
} tc_geotiff_info;

/* Reads the georeferencing tags. Returns 0 on success (has_transform/has_keys say what
 * was found), -1 when the file cannot be opened as TIFF (message in error). */
int tc_geotiff_read(const char *path, tc_geotiff_info *info, char *error, size_t error_size);

/* GDAL's nodata tag (ASCII), which libtiff learns from `tc_geotiff_open`. */
#define TC_TAG_GDAL_NODATA 42113

/* Opens a TIFF through libgeotiff (XTIFFOpen) with GDAL's nodata tag known and
 * libtiff's messages silenced; a `TIFF *`, or NULL. */
void *tc_geotiff_open(const char *path, const char *mode);

#endif
