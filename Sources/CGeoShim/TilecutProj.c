#include "TilecutProj.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "TilecutGeoTIFFTable.h"
#include "TilecutPlatform.h"

tc_proj_table tc_proj;
tc_geotiff_table tc_geotiff;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];

/* The first of `names` (a library's sonames, newest first, then its development link)
 * that loads, alone or beside libvips; `symbol` already in the process (a build that
 * links the library) takes the process itself. */
static void *open_library(const char *symbol, const char *const *names, const char **last) {
  if (dlsym(RTLD_DEFAULT, symbol))
    return dlopen(NULL, RTLD_NOW);
  for (const char *const *name = names; *name; name++) {
    char path[1024];
    const char *candidates[2] = {*name, tc_library_beside("vips_init", *name, path, sizeof path) ? path : NULL};
    for (int i = 0; i < 2 && candidates[i]; i++) {
      void *handle = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
      if (handle)
        return handle;
      *last = dlerror();
    }
  }
  return NULL;
}

static void load(void) {
#if defined(__APPLE__)
  static const char *const proj_names[] = {"libproj.25.dylib", "libproj.dylib", NULL};
  static const char *const geotiff_names[] = {"libgeotiff.5.dylib", "libgeotiff.dylib", NULL};
#else
  /* PROJ 9's soname is 25 (8's was 22); libgeotiff 1.6 and 1.7's is 5 */
  static const char *const proj_names[] = {"libproj.so.25", "libproj.so.22", "libproj.so", NULL};
  static const char *const geotiff_names[] = {"libgeotiff.so.5", "libgeotiff.so", NULL};
#endif
  const char *last = "not found";
  void *proj = open_library("proj_context_create", proj_names, &last);
  if (!proj) {
    snprintf(load_error, sizeof load_error, "PROJ could not be loaded (%s); install PROJ %d (Debian: libproj-dev)", last,
             PROJ_VERSION_MAJOR);
    return;
  }
#define TC_PROJ_LOAD(name)                                                                                  \
  tc_proj.name = (__typeof__(&name))dlsym(proj, #name);                                                    \
  if (!tc_proj.name) {                                                                                     \
    snprintf(load_error, sizeof load_error, "PROJ has no %s; install PROJ %d.%d or newer", #name, PROJ_VERSION_MAJOR, \
             PROJ_VERSION_MINOR);                                                                          \
    return;                                                                                                \
  }
  TC_PROJ_FUNCTIONS(TC_PROJ_LOAD)
#undef TC_PROJ_LOAD
  void *geotiff = open_library("GTIFNewEx", geotiff_names, &last);
  if (!geotiff) {
    snprintf(load_error, sizeof load_error, "libgeotiff could not be loaded (%s); install libgeotiff (Debian: libgeotiff-dev)", last);
    return;
  }
#define TC_GEOTIFF_LOAD(name)                                                                           \
  tc_geotiff.name = (__typeof__(&name))dlsym(geotiff, #name);                                          \
  if (!tc_geotiff.name) {                                                                              \
    snprintf(load_error, sizeof load_error, "libgeotiff has no %s; install libgeotiff 1.6 or newer", #name); \
    return;                                                                                            \
  }
  TC_GEOTIFF_FUNCTIONS(TC_GEOTIFF_LOAD)
#undef TC_GEOTIFF_LOAD
}

const char *tc_proj_load(void) {
  pthread_once(&load_once, load);
  return load_error[0] ? load_error : NULL;
}
