#ifndef TILECUT_PROJ_H
#define TILECUT_PROJ_H

#include <proj.h>

/* PROJ and libgeotiff are loaded when something first needs a CRS (a world file's, a
 * GeoTIFF's tags, --source-crs), not at start: a job placed by --bounds or --center, or
 * tiled in raster mode, never maps them (linked, libproj alone kept 1.7 MB resident in
 * every run, most of it its relocated data). libgdal, when it loads, uses the same
 * loaded libproj. Every PROJ function tilecut calls goes through `tc_proj`; Swift calls
 * the tc_proj_* wrappers below, which have PROJ's own signatures. A plain `swift build`
 * without the quiet pkg-config files (make quiet-pc) links libproj as before, and the
 * loader then takes the linked one. */

/* Loads libproj and libgeotiff once; NULL when they are loaded, else why not (one line). */
const char *tc_proj_load(void);

#define TC_PROJ_FUNCTIONS(X) \
  X(proj_area_create) \
  X(proj_area_destroy) \
  X(proj_area_set_bbox) \
  X(proj_concatoperation_get_step) \
  X(proj_concatoperation_get_step_count) \
  X(proj_context_create) \
  X(proj_context_destroy) \
  X(proj_context_errno) \
  X(proj_context_errno_string) \
  X(proj_context_set_enable_network) \
  X(proj_coordoperation_get_accuracy) \
  X(proj_coordoperation_get_grid_used) \
  X(proj_coordoperation_get_grid_used_count) \
  X(proj_coordoperation_has_ballpark_transformation) \
  X(proj_coordoperation_is_instantiable) \
  X(proj_create) \
  X(proj_create_crs_to_crs_from_pj) \
  X(proj_create_operation_factory_context) \
  X(proj_create_operations) \
  X(proj_crs_get_coordinate_system) \
  X(proj_cs_get_axis_info) \
  X(proj_destroy) \
  X(proj_errno_reset) \
  X(proj_get_id_auth_name) \
  X(proj_get_id_code) \
  X(proj_get_name) \
  X(proj_get_type) \
  X(proj_is_crs) \
  X(proj_is_equivalent_to_with_ctx) \
  X(proj_list_destroy) \
  X(proj_list_get) \
  X(proj_list_get_count) \
  X(proj_log_level) \
  X(proj_normalize_for_visualization) \
  X(proj_operation_factory_context_destroy) \
  X(proj_operation_factory_context_set_area_of_interest) \
  X(proj_operation_factory_context_set_grid_availability_use) \
  X(proj_operation_factory_context_set_spatial_criterion) \
  X(proj_trans) \
  X(proj_trans_generic) \
  X(proj_trans_get_last_used_operation)

typedef struct {
#define TC_PROJ_FIELD(name) __typeof__(&name) name;
  TC_PROJ_FUNCTIONS(TC_PROJ_FIELD)
#undef TC_PROJ_FIELD
} tc_proj_table;

/* Filled by tc_proj_load. */
extern tc_proj_table tc_proj;

/* The wrappers: tc_proj_context_create and tc_proj_area_create load the library first
 * (NULL when it cannot be loaded); every other call needs a context or object they made. */
static inline PJ_AREA *tc_proj_area_create(void) {
  if (tc_proj_load())
    return NULL;
  return tc_proj.proj_area_create();
}
static inline void tc_proj_area_destroy(PJ_AREA* area) {
  tc_proj.proj_area_destroy(area);
}
static inline void tc_proj_area_set_bbox(PJ_AREA *area, double west_lon_degree, double south_lat_degree, double east_lon_degree, double north_lat_degree) {
  tc_proj.proj_area_set_bbox(area, west_lon_degree, south_lat_degree, east_lon_degree, north_lat_degree);
}
static inline PJ *tc_proj_concatoperation_get_step(PJ_CONTEXT *ctx, const PJ *concatoperation, int i_step) {
  return tc_proj.proj_concatoperation_get_step(ctx, concatoperation, i_step);
}
static inline int tc_proj_concatoperation_get_step_count(PJ_CONTEXT *ctx, const PJ *concatoperation) {
  return tc_proj.proj_concatoperation_get_step_count(ctx, concatoperation);
}
static inline PJ_CONTEXT *tc_proj_context_create(void) {
  if (tc_proj_load())
    return NULL;
  return tc_proj.proj_context_create();
}
static inline PJ_CONTEXT *tc_proj_context_destroy(PJ_CONTEXT *ctx) {
  return tc_proj.proj_context_destroy(ctx);
}
static inline int tc_proj_context_errno(PJ_CONTEXT *ctx) {
  return tc_proj.proj_context_errno(ctx);
}
static inline const char *tc_proj_context_errno_string(PJ_CONTEXT* ctx, int err) {
  return tc_proj.proj_context_errno_string(ctx, err);
}
static inline int tc_proj_context_set_enable_network(PJ_CONTEXT* ctx, int enabled) {
  return tc_proj.proj_context_set_enable_network(ctx, enabled);
}
/* proj_coord's union, built here: it needs nothing of the library */
static inline PJ_COORD tc_proj_coord(double x, double y, double z, double t) {
  PJ_COORD c = {{x, y, z, t}};
  return c;
}
static inline double tc_proj_coordoperation_get_accuracy(PJ_CONTEXT *ctx, const PJ *obj) {
  return tc_proj.proj_coordoperation_get_accuracy(ctx, obj);
}
static inline int tc_proj_coordoperation_get_grid_used(PJ_CONTEXT *ctx, const PJ *coordoperation, int index, const char **out_short_name, const char **out_full_name, const char **out_package_name, const char **out_url, int *out_direct_download, int *out_open_license, int *out_available) {
  return tc_proj.proj_coordoperation_get_grid_used(ctx, coordoperation, index, out_short_name, out_full_name, out_package_name, out_url, out_direct_download, out_open_license, out_available);
}
static inline int tc_proj_coordoperation_get_grid_used_count(PJ_CONTEXT *ctx, const PJ *coordoperation) {
  return tc_proj.proj_coordoperation_get_grid_used_count(ctx, coordoperation);
}
static inline int tc_proj_coordoperation_has_ballpark_transformation(PJ_CONTEXT *ctx, const PJ *coordoperation) {
  return tc_proj.proj_coordoperation_has_ballpark_transformation(ctx, coordoperation);
}
static inline int tc_proj_coordoperation_is_instantiable(PJ_CONTEXT *ctx, const PJ *coordoperation) {
  return tc_proj.proj_coordoperation_is_instantiable(ctx, coordoperation);
}
static inline PJ *tc_proj_create(PJ_CONTEXT *ctx, const char *definition) {
  return tc_proj.proj_create(ctx, definition);
}
static inline PJ *tc_proj_create_crs_to_crs_from_pj(PJ_CONTEXT *ctx, const PJ *source_crs, const PJ *target_crs, PJ_AREA *area, const char* const *options) {
  return tc_proj.proj_create_crs_to_crs_from_pj(ctx, source_crs, target_crs, area, options);
}
static inline PJ_OPERATION_FACTORY_CONTEXT *tc_proj_create_operation_factory_context(PJ_CONTEXT *ctx, const char *authority) {
  return tc_proj.proj_create_operation_factory_context(ctx, authority);
}
static inline PJ_OBJ_LIST *tc_proj_create_operations(PJ_CONTEXT *ctx, const PJ *source_crs, const PJ *target_crs, const PJ_OPERATION_FACTORY_CONTEXT *operationContext) {
  return tc_proj.proj_create_operations(ctx, source_crs, target_crs, operationContext);
}
static inline PJ *tc_proj_crs_get_coordinate_system(PJ_CONTEXT *ctx, const PJ *crs) {
  return tc_proj.proj_crs_get_coordinate_system(ctx, crs);
}
static inline int tc_proj_cs_get_axis_info(PJ_CONTEXT *ctx, const PJ *cs, int index, const char **out_name, const char **out_abbrev, const char **out_direction, double *out_unit_conv_factor, const char **out_unit_name, const char **out_unit_auth_name, const char **out_unit_code) {
  return tc_proj.proj_cs_get_axis_info(ctx, cs, index, out_name, out_abbrev, out_direction, out_unit_conv_factor, out_unit_name, out_unit_auth_name, out_unit_code);
}
static inline PJ *tc_proj_destroy(PJ *P) {
  return tc_proj.proj_destroy(P);
}
static inline int tc_proj_errno_reset(const PJ *P) {
  return tc_proj.proj_errno_reset(P);
}
static inline const char *tc_proj_get_id_auth_name(const PJ *obj, int index) {
  return tc_proj.proj_get_id_auth_name(obj, index);
}
static inline const char *tc_proj_get_id_code(const PJ *obj, int index) {
  return tc_proj.proj_get_id_code(obj, index);
}
static inline const char *tc_proj_get_name(const PJ *obj) {
  return tc_proj.proj_get_name(obj);
}
static inline PJ_TYPE tc_proj_get_type(const PJ *obj) {
  return tc_proj.proj_get_type(obj);
}
static inline int tc_proj_is_crs(const PJ *obj) {
  return tc_proj.proj_is_crs(obj);
}
static inline int tc_proj_is_equivalent_to_with_ctx(PJ_CONTEXT *ctx, const PJ *obj, const PJ *other, PJ_COMPARISON_CRITERION criterion) {
  return tc_proj.proj_is_equivalent_to_with_ctx(ctx, obj, other, criterion);
}
static inline void tc_proj_list_destroy(PJ_OBJ_LIST *result) {
  tc_proj.proj_list_destroy(result);
}
static inline PJ *tc_proj_list_get(PJ_CONTEXT *ctx, const PJ_OBJ_LIST *result, int index) {
  return tc_proj.proj_list_get(ctx, result, index);
}
static inline int tc_proj_list_get_count(const PJ_OBJ_LIST *result) {
  return tc_proj.proj_list_get_count(result);
}
static inline PJ_LOG_LEVEL tc_proj_log_level(PJ_CONTEXT *ctx, PJ_LOG_LEVEL log_level) {
  return tc_proj.proj_log_level(ctx, log_level);
}
static inline PJ *tc_proj_normalize_for_visualization(PJ_CONTEXT *ctx, const PJ* obj) {
  return tc_proj.proj_normalize_for_visualization(ctx, obj);
}
static inline void tc_proj_operation_factory_context_destroy(PJ_OPERATION_FACTORY_CONTEXT *ctx) {
  tc_proj.proj_operation_factory_context_destroy(ctx);
}
static inline void tc_proj_operation_factory_context_set_area_of_interest(PJ_CONTEXT *ctx, PJ_OPERATION_FACTORY_CONTEXT *factory_ctx, double west_lon_degree, double south_lat_degree, double east_lon_degree, double north_lat_degree) {
  tc_proj.proj_operation_factory_context_set_area_of_interest(ctx, factory_ctx, west_lon_degree, south_lat_degree, east_lon_degree, north_lat_degree);
}
static inline void tc_proj_operation_factory_context_set_grid_availability_use(PJ_CONTEXT *ctx, PJ_OPERATION_FACTORY_CONTEXT *factory_ctx, PROJ_GRID_AVAILABILITY_USE use) {
  tc_proj.proj_operation_factory_context_set_grid_availability_use(ctx, factory_ctx, use);
}
static inline void tc_proj_operation_factory_context_set_spatial_criterion(PJ_CONTEXT *ctx, PJ_OPERATION_FACTORY_CONTEXT *factory_ctx, PROJ_SPATIAL_CRITERION criterion) {
  tc_proj.proj_operation_factory_context_set_spatial_criterion(ctx, factory_ctx, criterion);
}
static inline PJ_COORD tc_proj_trans(PJ *P, PJ_DIRECTION direction, PJ_COORD coord) {
  return tc_proj.proj_trans(P, direction, coord);
}
static inline size_t tc_proj_trans_generic(PJ *P, PJ_DIRECTION direction, double *x, size_t sx, size_t nx, double *y, size_t sy, size_t ny, double *z, size_t sz, size_t nz, double *t, size_t st, size_t nt) {
  return tc_proj.proj_trans_generic(P, direction, x, sx, nx, y, sy, ny, z, sz, nz, t, st, nt);
}
static inline PJ *tc_proj_trans_get_last_used_operation(PJ* P) {
  return tc_proj.proj_trans_get_last_used_operation(P);
}

#endif
