#ifndef TILECUT_RESOURCES_H
#define TILECUT_RESOURCES_H

#include <stddef.h>

// The data files of Sources/CTilecutResources, compiled into the binary with C23's #embed:
// tilecut reads them from memory and needs no file beside it at run time. Each function
// returns a file's bytes (UTF-8, not NUL-terminated) and sets *length to their count.

/// gazetteer/places.tsv: name, country, latitude, longitude; one place a line, largest first
const char *_Nonnull tc_resource_gazetteer_places(size_t *_Nonnull length);
/// gazetteer/countries.tsv: name, then rings of "lon,lat" points separated by "|"
const char *_Nonnull tc_resource_gazetteer_countries(size_t *_Nonnull length);
/// pages/preview.html: preview.html's template (PreviewPage)
const char *_Nonnull tc_resource_preview_page(size_t *_Nonnull length);
/// pages/georef.html: georef.html's template (GeorefPage)
const char *_Nonnull tc_resource_georef_page(size_t *_Nonnull length);
/// pages/mercator.js: Web Mercator and the graticule, for both pages
const char *_Nonnull tc_resource_mercator_script(size_t *_Nonnull length);

#endif
