#ifndef TILECUT_GDAL_TABLE_H
#define TILECUT_GDAL_TABLE_H

/* The libgdal functions tilecut calls, found when libgdal is loaded (internal to
 * CTilecutGDAL: TilecutGDAL.c loads it, TilecutGDALRaster.c reads pixels through it). */

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>
#include <gdal_alg.h>
#include <gdal_frmts.h>
#include <gdal_version.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>

/* GeoPackage's registration is declared in a C++ header (ogrsf_frmts.h); its symbol is C */
void RegisterOGRGeoPackage(void);
/* the same for the CAD drawings tilecut reads (TilecutGDALDrawing.c) */
void RegisterOGRDXF(void);
void RegisterOGRCAD(void);

/* Bytes of decoded blocks GDAL's cache may hold (JPEG 2000 tiles, GeoPackage tiles,
 * rows of ENVI and ERDAS bands) while tilecut reads strips through it. */
#define TC_GDAL_CACHE_BYTES (64 << 20)

/* libgdal is loaded when a file first asks for it, not when tilecut starts: linked,
 * it brings about a hundred libraries (HDF5, NetCDF, Xerces, MySQL, ...) that cost
 * every run 70 ms and 21 MB before it reads a byte, and most jobs (plans without a
 * georeference, PDFs, SVGs) never call it. `make` builds leave it out of the link
 * (`make quiet-pc`); a plain `swift build` links it, and the symbols are
 * then found in the process. Every GDAL function below goes through this table. */
#define TC_GDAL_FUNCTIONS(X)                                                                      \
  X(GDALRegister_GTiff)                                                                           \
  X(GDALRegister_PNG)                                                                             \
  X(GDALRegister_JPEG)                                                                            \
  X(GDALRegister_GIF)                                                                             \
  X(GDALRegister_WEBP)                                                                            \
  X(GDALRegister_PDF)                                                                             \
  X(GDALRegister_JP2OpenJPEG)                                                                     \
  X(GDALRegister_HFA)                                                                             \
  X(GDALRegister_ENVI)                                                                            \
  X(RegisterOGRGeoPackage)                                                                        \
  X(GDALAllRegister)                                                                              \
  X(GDALIdentifyDriverEx)                                                                         \
  X(GDALGetDriverLongName)                                                                        \
  X(GDALGetRasterCount)                                                                           \
  X(GDALGetRasterBand)                                                                            \
  X(GDALGetRasterDataType)                                                                        \
  X(GDALGetRasterNoDataValue)                                                                     \
  X(GDALGetRasterColorInterpretation)                                                             \
  X(GDALGetRasterColorTable)                                                                      \
  X(GDALGetColorEntryCount)                                                                       \
  X(GDALGetColorEntryAsRGB)                                                                       \
  X(GDALGetMaskFlags)                                                                             \
  X(GDALGetMaskBand)                                                                              \
  X(GDALGetBlockSize)                                                                             \
  X(GDALDatasetRasterIO)                                                                          \
  X(GDALRasterIO)                                                                                 \
  X(GDALSetCacheMax64)                                                                            \
  X(CPLSetConfigOption)                                                                           \
  X(CPLSetThreadLocalConfigOption)                                                                \
  X(GDALGetMetadataItem)                                                                          \
  X(OGR_G_CreateFromWkt)                                                                          \
  X(OGR_G_DestroyGeometry)                                                                        \
  X(OGR_G_GetGeometryType)                                                                        \
  X(OGR_G_GetGeometryCount)                                                                       \
  X(OGR_G_GetGeometryRef)                                                                         \
  X(OGR_G_GetPointCount)                                                                          \
  X(OGR_G_GetX)                                                                                   \
  X(OGR_G_GetY)                                                                                   \
  X(OGRGetGEOSVersion)                                                                            \
  X(OGR_G_CreateGeometry)                                                                         \
  X(OGR_G_AddPoint_2D)                                                                            \
  X(OGR_G_AddGeometryDirectly)                                                                    \
  X(OGR_G_IsValid)                                                                                \
  X(CPLGetErrorHandlerUserData)                                                                   \
  X(CPLPushErrorHandler)                                                                          \
  X(CPLPushErrorHandlerEx)                                                                        \
  X(CPLPopErrorHandler)                                                                           \
  X(CPLQuietErrorHandler)                                                                         \
  X(VSIFree)                                                                                      \
  X(CSLDestroy)                                                                                   \
  X(OSRExportToWktEx)                                                                             \
  X(OSRGetDataAxisToSRSAxisMapping)                                                               \
  X(GDALOpenEx)                                                                                   \
  X(GDALClose)                                                                                    \
  X(GDALGetDatasetDriver)                                                                         \
  X(GDALGetDriverShortName)                                                                       \
  X(GDALGetRasterXSize)                                                                           \
  X(GDALGetRasterYSize)                                                                           \
  X(GDALGetGeoTransform)                                                                          \
  X(GDALGetSpatialRef)                                                                            \
  X(GDALGetGCPCount)                                                                              \
  X(GDALGetGCPs)                                                                                  \
  X(GDALGetGCPSpatialRef)                                                                         \
  X(GDALGetFileList)                                                                              \
  X(GDALCreateTPSTransformer)                                                                     \
  X(GDALTPSTransform)                                                                             \
  X(GDALDestroyTPSTransformer)                                                                    \
  X(GDALCreateGCPTransformer)                                                                     \
  X(GDALGCPTransform)                                                                             \
  X(GDALDestroyGCPTransformer)                                                                     \
  X(RegisterOGRDXF)                                                                               \
  X(RegisterOGRCAD)                                                                               \
  X(GDALDatasetGetLayerCount)                                                                     \
  X(GDALDatasetGetLayer)                                                                          \
  X(OGR_L_ResetReading)                                                                           \
  X(OGR_L_GetNextFeature)                                                                         \
  X(OGR_F_Destroy)                                                                                \
  X(OGR_F_GetStyleString)                                                                         \
  X(OGR_F_GetGeometryRef)                                                                         \
  X(OGR_F_GetFieldIndex)                                                                          \
  X(OGR_F_GetFieldAsString)                                                                       \
  X(OGR_F_GetFieldAsInteger)                                                                      \
  X(OGR_F_IsFieldSetAndNotNull)                                                                   \
  X(OGR_F_GetFieldAsStringList)                                                                   \
  X(OGR_GT_Flatten)                                                                               \
  X(OGR_GT_IsNonLinear)                                                                           \
  X(OGR_G_GetLinearGeometry)                                                                       \
  X(VSIFileFromMemBuffer)                                                                         \
  X(VSIFCloseL)                                                                                   \
  X(VSIUnlink)

typedef struct {
#define TC_GDAL_FIELD(name) __typeof__(&name) name;
  TC_GDAL_FUNCTIONS(TC_GDAL_FIELD)
#undef TC_GDAL_FIELD
} tc_gdal_table;

/* the table, filled by tc_gdal_load (TilecutGDAL.c) */
extern tc_gdal_table tc_gdal;

#endif
