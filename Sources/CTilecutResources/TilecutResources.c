#include "TilecutResources.h"

// #embed is C23; clang 19 and later (Swift 6.1+ toolchains) take it in any language mode.
// SwiftPM compiles C targets as gnu11, where clang names it an extension.
#if !defined(__has_embed)
#error "tilecut's data files need a C compiler with #embed (clang 19 or later, Swift 6.1+)"
#endif
#pragma clang diagnostic ignored "-Wc23-extensions"

static const char gazetteer_places[] = {
#embed "gazetteer/places.tsv"
};
static const char gazetteer_countries[] = {
#embed "gazetteer/countries.tsv"
};
static const char preview_page[] = {
#embed "pages/preview.html"
};
static const char georef_page[] = {
#embed "pages/georef.html"
};
static const char mercator_script[] = {
#embed "pages/mercator.js"
};

const char *tc_resource_gazetteer_places(size_t *length) {
  *length = sizeof gazetteer_places;
  return gazetteer_places;
}

const char *tc_resource_gazetteer_countries(size_t *length) {
  *length = sizeof gazetteer_countries;
  return gazetteer_countries;
}

const char *tc_resource_preview_page(size_t *length) {
  *length = sizeof preview_page;
  return preview_page;
}

const char *tc_resource_georef_page(size_t *length) {
  *length = sizeof georef_page;
  return georef_page;
}

const char *tc_resource_mercator_script(size_t *length) {
  *length = sizeof mercator_script;
  return mercator_script;
}
