#include "CVipsShim.h"

#include <gmodule.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "TilecutPlatform.h"

/* A decoder's warning that the data is damaged, kept for the thread that decoded it
 * (libvips decodes on the thread that asks for pixels): libtiff's JPEG codec passes
 * libjpeg's "Corrupt JPEG data" on as a warning only, and the strip is drawn anyway. */
static __thread char damage[200];

static int says_damaged(const char *message) {
  static const char *const signs[] = {"Corrupt JPEG data", "Premature end of JPEG", "Invalid SOS parameters",
                                      "Inconsistent progression", "Bogus Huffman", "Huffman table"};
  for (size_t i = 0; i < sizeof signs / sizeof signs[0]; i++)
    if (strstr(message, signs[i]))
      return 1;
  return 0;
}

/* A fatal GLib message (g_error: a failed g_malloc's "failed to allocate N bytes"),
 * written to fd 2 as GLib would, with write(2) alone (memory may be what ran out):
 * the breakpoint that follows ends the process, and tilecut's handler names it
 * from this line (tc_capture_library_stderr keeps what reaches fd 2). */
static void say_fatal(const gchar *domain, const gchar *message) {
  if (domain) {
    (void)tc_write_all(2, domain, strlen(domain));
    (void)tc_write_all(2, "-", 1);
  }
  (void)tc_write_all(2, "ERROR **: ", 10);
  if (message)
    (void)tc_write_all(2, message, strlen(message));
  (void)tc_write_all(2, "\n", 1);
}

/* libvips reports problems twice: in its error buffer, which tilecut turns into one
 * clear line, and as GLib warnings on stderr. The second copy is noise, except a
 * decoder's word that the data is damaged, which tc_fetch turns into an error. */
static void quiet_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
  (void)data;
  if (level & G_LOG_LEVEL_ERROR)
    say_fatal(domain, message);
  if ((level & (G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL)) && message && !damage[0] && says_damaged(message))
    snprintf(damage, sizeof damage, "%s", message);
}

/* Structured GLib logging (g_log_structured, and g_log in libraries that route
 * through the writer) bypasses the handlers above. */
static GLogWriterOutput quiet_writer(GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data) {
  (void)data;
  if (level & G_LOG_LEVEL_ERROR) {
    const gchar *domain = NULL, *message = NULL;
    for (gsize i = 0; i < n_fields; i++) {
      if (fields[i].length < 0 && strcmp(fields[i].key, "GLIB_DOMAIN") == 0)
        domain = fields[i].value;
      else if (fields[i].length < 0 && strcmp(fields[i].key, "MESSAGE") == 0)
        message = fields[i].value;
    }
    say_fatal(domain, message);
  }
  return G_LOG_WRITER_HANDLED;
}

/* vips_init loads every module in libvips' modules directory (Debian's 8.14: heif,
 * jxl, magick, openslide, poppler), and with them ImageMagick, OpenSlide and libjxl
 * with their dependencies: about a tenth of the CPU of a short run, spent on code
 * tilecut never runs (its allow-list blocks those loaders). libvips looks for them
 * under $VIPSHOME (which it sets itself when unset): for its init, VIPSHOME names a
 * prefix that can hold no directory, then is put back as it was. */
static int init_without_modules(const char *argv0) {
  const char *was = getenv("VIPSHOME");
  char *saved = was ? g_strdup(was) : NULL;
  setenv("VIPSHOME", "/dev/null", 1);
  int status = VIPS_INIT(argv0);
  if (saved)
    setenv("VIPSHOME", saved, 1);
  else
    unsetenv("VIPSHOME");
  g_free(saved);
  return status;
}

/* Opens libvips' module `name` from the modules directory beside libvips itself, as
 * vips_init would have; 1 when it is now in the process. A module that is not there
 * or fails leaves its loader missing: tilecut then says which format this libvips
 * cannot read, as when it was built without it. */
static int load_module(const char *name) {
  char file[128], path[4096];
  if (snprintf(file, sizeof file, "vips-modules-%d.%d/vips-%s.%s", VIPS_MAJOR_VERSION, VIPS_MINOR_VERSION, name,
               G_MODULE_SUFFIX) >= (int)sizeof file)
    return 0;
  if (!tc_library_beside("vips_init", file, path, sizeof path))
    return 0;
  GModule *module = g_module_open(path, G_MODULE_BIND_LAZY);
  if (!module)
    return 0;
  g_module_make_resident(module);
  return 1;
}

static GMutex module_lock;
/* tc_block_untrusted(1) was called (--no-vector) */
static int vectors_blocked;
static void block_vectors(void);

/* The module of a loader tilecut allows, opened the first time that loader (or, for
 * the tests' fixtures, HEIF's saver) is named:
 * HEIF (libheif with its codecs) and PDF through libvips (poppler), neither of which
 * a PNG or JPEG plan needs; nothing for any other nickname, or when libvips already
 * has the loader (built in, or opened before). A module's operations arrive unblocked,
 * so the walls go up again over them. */
static void need_loader(const char *nickname) {
  const char *name, *type;
  if (g_str_has_prefix(nickname, "heifload") || g_str_has_prefix(nickname, "heifsave")) {
    name = "heif";
    type = "VipsForeignLoadHeif";
  } else if (g_str_has_prefix(nickname, "pdfload")) {
    name = "poppler";
    type = "VipsForeignLoadPdf";
  } else {
    return;
  }
  if (g_type_from_name(type))
    return;
  g_mutex_lock(&module_lock);
  if (!g_type_from_name(type) && load_module(name)) {
    tc_block_foreign_loaders();
    if (vectors_blocked)
      block_vectors();
  }
  g_mutex_unlock(&module_lock);
}

int tc_init(const char *argv0) {
  g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO, quiet_log, NULL);
  /* every other library's GLib chatter too (GLib-GObject, librsvg, poppler-glib,
   * GIO): a failure reaches the user as tilecut's one line, through the error it
   * returns; the messages beside it would only repeat or confuse it */
  g_log_set_default_handler(quiet_log, NULL);
  g_log_set_writer_func(quiet_writer, NULL, NULL);
  /* Tiles and strips are large, short-lived buffers: keep them in the heap
   * (glibc's mallopt; nothing on macOS, see TilecutPlatform.h). */
  tc_tune_malloc();
  if (init_without_modules(argv0))
    return -1;
  tc_block_foreign_loaders();
  /* Tiles are produced in Dispatch workers; libvips must not add its own. */
  vips_concurrency_set(1);
  /* Every pipeline is built once and read once: the operation cache only
   * holds memory. */
  vips_cache_set_max(0);
  return 0;
}

/* --no-vector: the document loaders too. Unblocking is never needed (and would
 * reopen the untrusted loaders the allow-list closed). */
static void block_vectors(void) {
#if VIPS_MAJOR_VERSION > 8 || (VIPS_MAJOR_VERSION == 8 && VIPS_MINOR_VERSION >= 13)
  vips_block_untrusted_set(TRUE);
  vips_operation_block_set("VipsForeignLoadSvg", TRUE);
  vips_operation_block_set("VipsForeignLoadPdf", TRUE);
#endif
}

void tc_block_untrusted(int block) {
  if (!block)
    return;
  g_mutex_lock(&module_lock);
  vectors_blocked = 1;
  block_vectors();
  g_mutex_unlock(&module_lock);
}

/* Loaders outside tilecut's allow-list never run, whatever a file's bytes say:
 * a second wall behind the byte sniffing in Swift (ImageMagick would start
 * other programs for some formats). */
void tc_block_foreign_loaders(void) {
#if VIPS_MAJOR_VERSION > 8 || (VIPS_MAJOR_VERSION == 8 && VIPS_MINOR_VERSION >= 13)
  /* libvips' own wall first (ImageMagick, OpenSlide, Matlab, FITS, ... are
   * marked untrusted), then every loader off and the allow-list back on */
  vips_block_untrusted_set(TRUE);
  vips_operation_block_set("VipsForeignLoad", TRUE);
  static const char *allowed[] = {"VipsForeignLoadPng", "VipsForeignLoadJpeg", "VipsForeignLoadWebp",
                                  "VipsForeignLoadTiff", "VipsForeignLoadNsgif", "VipsForeignLoadGif",
                                  "VipsForeignLoadHeif", "VipsForeignLoadPdf", "VipsForeignLoadSvg", NULL};
  for (int i = 0; allowed[i]; i++) {
    if (g_type_from_name(allowed[i]))
      vips_operation_block_set(allowed[i], FALSE);
  }
#endif
}

int tc_has_operation(const char *nickname) {
  need_loader(nickname);
  return vips_type_find("VipsOperation", nickname) != 0;
}

/* Builds a load operation and takes its image (NULL and -1 when it fails); the
 * operation is released either way. */
static int build_load(VipsOperation *op, VipsImage **out) {
  if (vips_cache_operation_buildp(&op)) {
    vips_object_unref_outputs(VIPS_OBJECT(op));
    g_object_unref(op);
    return -1;
  }
  g_object_get(op, "out", out, NULL);
  vips_object_unref_outputs(VIPS_OBJECT(op));
  g_object_unref(op);
  return *out ? 0 : -1;
}

/* Runs one named loader ("svgload", "pdfload", "pngload", ...) on a file: never
 * libvips' own guess from the first bytes. `page` < 0 and `scale` <= 0 mean unset. */
int tc_load_named(const char *loader, const char *filename, int page, double scale, int sequential,
                  VipsImage **out) {
  *out = NULL;
  need_loader(loader);
  VipsOperation *op = vips_operation_new(loader);
  if (!op)
    return -1;
  GObjectClass *klass = G_OBJECT_GET_CLASS(op);
  g_object_set(op, "filename", filename, NULL);
  if (g_object_class_find_property(klass, "access"))
    g_object_set(op, "access", sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM, NULL);
  if (g_object_class_find_property(klass, "fail_on"))
    g_object_set(op, "fail_on", VIPS_FAIL_ON_WARNING, NULL);
  if (page >= 0 && g_object_class_find_property(klass, "page"))
    g_object_set(op, "page", page, NULL);
  if (scale > 0 && g_object_class_find_property(klass, "scale"))
    g_object_set(op, "scale", scale, NULL);
  if (strcmp(loader, "pdfload") == 0) {
    /* keep a transparent page transparent: pdfload paints white by default */
    VipsArrayDouble *clear = vips_array_double_newv(4, 0.0, 0.0, 0.0, 0.0);
    g_object_set(op, "background", clear, NULL);
    vips_area_unref(VIPS_AREA(clear));
  }
  return build_load(op, out);
}

static VipsAccess access_of(int sequential) {
  return sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM;
}

/* A truncated or corrupt file is an error, never a picture padded with black. */
#define FAIL_ON "fail_on", VIPS_FAIL_ON_WARNING

int tc_has_alpha(const char *loader, const char *filename, int page, int *alpha) {
  VipsImage *image = NULL;
  if (tc_load_named(loader, filename, page, 0, 0, &image))
    return -1;
  *alpha = vips_image_hasalpha(image) ? 1 : 0;
  g_object_unref(image);
  return 0;
}

int tc_load_buffer(const void *data, size_t length, VipsImage **out) {
  /* a truncated or damaged tile is an error, not an image padded with black */
  *out = vips_image_new_from_buffer(data, length, "", FAIL_ON, NULL);
  return *out ? 0 : -1;
}

static int free_copied(void *data, void *area) {
  (void)area;
  g_free(data);
  return 0;
}

int tc_load_named_buffer(const char *loader, const void *data, size_t length, int sequential, VipsImage **out) {
  *out = NULL;
  char name[64];
  if (snprintf(name, sizeof name, "%s_buffer", loader) >= (int)sizeof name)
    return -1;
  need_loader(name);
  VipsOperation *op = vips_operation_new(name);
  if (!op)
    return -1;
  void *copy = g_malloc(length ? length : 1);
  memcpy(copy, data, length);
  /* the blob owns the copy; the loader's source holds the blob as long as the image reads */
  VipsBlob *blob = vips_blob_new(free_copied, copy, length);
  GObjectClass *klass = G_OBJECT_GET_CLASS(op);
  g_object_set(op, "buffer", blob, NULL);
  vips_area_unref(VIPS_AREA(blob));
  if (g_object_class_find_property(klass, "access"))
    g_object_set(op, "access", sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM, NULL);
  if (g_object_class_find_property(klass, "fail_on"))
    g_object_set(op, "fail_on", VIPS_FAIL_ON_WARNING, NULL);
  return build_load(op, out);
}

int tc_orientation(VipsImage *image, size_t *pixel_bytes) {
  *pixel_bytes = VIPS_IMAGE_SIZEOF_PEL(image);
  int orientation = vips_image_get_orientation(image);
  return orientation >= 1 && orientation <= 8 ? orientation : 1;
}

int tc_autorot(VipsImage *in, VipsImage **out) { return vips_autorot(in, out, NULL); }

/* The loader's own count (poppler's, libtiff's): vips_image_get_n_pages says 1
 * for anything above 10,000 pages, which would split page 1 into floors. */
int tc_header_pages(VipsImage *image) {
  int n = 1;
  if (vips_image_get_typeof(image, VIPS_META_N_PAGES) && !vips_image_get_int(image, VIPS_META_N_PAGES, &n) && n > 1)
    return n;
  return 1;
}

int tc_to_srgba(VipsImage *in, VipsImage **out) {
  VipsImage *t[4] = {NULL, NULL, NULL, NULL};
  int result = -1;
  VipsImage *cur = in;
  g_object_ref(cur);
  if (vips_image_get_interpretation(cur) != VIPS_INTERPRETATION_sRGB ||
      cur->BandFmt != VIPS_FORMAT_UCHAR) {
    VipsInterpretation want = VIPS_INTERPRETATION_sRGB;
    if (vips_colourspace(cur, &t[0], want, NULL))
      goto done;
    g_object_unref(cur);
    cur = t[0];
    t[0] = NULL;
  }
  if (cur->BandFmt != VIPS_FORMAT_UCHAR) {
    if (vips_cast(cur, &t[1], VIPS_FORMAT_UCHAR, NULL))
      goto done;
    g_object_unref(cur);
    cur = t[1];
    t[1] = NULL;
  }
  if (cur->Bands == 1 || cur->Bands == 2) {
    /* colourspace leaves some greyscale images alone: spread them by hand */
    VipsImage *grey = NULL, *rgb = NULL;
    if (vips_extract_band(cur, &grey, 0, NULL))
      goto done;
    VipsImage *three[3] = {grey, grey, grey};
    if (vips_bandjoin(three, &rgb, 3, NULL)) {
      g_object_unref(grey);
      goto done;
    }
    g_object_unref(grey);
    if (cur->Bands == 2) {
      VipsImage *alpha = NULL, *joined = NULL;
      if (vips_extract_band(cur, &alpha, 1, NULL)) {
        g_object_unref(rgb);
        goto done;
      }
      if (vips_bandjoin2(rgb, alpha, &joined, NULL)) {
        g_object_unref(rgb);
        g_object_unref(alpha);
        goto done;
      }
      g_object_unref(rgb);
      g_object_unref(alpha);
      rgb = joined;
    }
    g_object_unref(cur);
    cur = rgb;
  }
  if (cur->Bands == 3) {
    if (vips_bandjoin_const1(cur, &t[2], 255.0, NULL))
      goto done;
    g_object_unref(cur);
    cur = t[2];
    t[2] = NULL;
  } else if (cur->Bands > 4) {
    if (vips_extract_band(cur, &t[3], 0, "n", 4, NULL))
      goto done;
    g_object_unref(cur);
    cur = t[3];
    t[3] = NULL;
  }
  *out = cur;
  cur = NULL;
  result = 0;
done:
  if (cur)
    g_object_unref(cur);
  return result;
}

int tc_crop(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
  return vips_crop(in, out, left, top, width, height, NULL);
}

int tc_embed(VipsImage *in, VipsImage **out, int x, int y, int width, int height) {
  return vips_embed(in, out, x, y, width, height, "extend", VIPS_EXTEND_BLACK, NULL);
}

int tc_premultiply(VipsImage *in, VipsImage **out) { return vips_premultiply(in, out, NULL); }

int tc_unpremultiply_uchar(VipsImage *in, VipsImage **out) {
  VipsImage *u = NULL;
  if (vips_unpremultiply(in, &u, NULL))
    return -1;
  int r = vips_cast(u, out, VIPS_FORMAT_UCHAR, NULL);
  g_object_unref(u);
  return r;
}

int tc_shrink(VipsImage *in, VipsImage **out, double hshrink, double vshrink) {
  return vips_shrink(in, out, hshrink, vshrink, NULL);
}

/* An index image whose x is affine in the column alone and whose y is read
 * from a table of one source row per output row. */
int tc_subsample(VipsImage *in, VipsImage **out, int xfac, int yfac) {
  return vips_subsample(in, out, xfac, yfac, NULL);
}

/* tc_subsample of a source read top to bottom. vips_subsample asks its input for one
 * row at a time, in pieces of 100 px or less (one pixel at a time when xfac > 10), and
 * tilecut's own readers (TilecutPNGRead.c, TilecutJPEGScan.c) decode again from the
 * top for a row they have passed: every piece after a row's first did. A line cache
 * between asks them for whole rows, once, in order. */
int tc_subsample_rows(VipsImage *in, VipsImage **out, int xfac, int yfac) {
  VipsImage *rows = NULL;
  if (vips_linecache(in, &rows, "tile_height", yfac, "access", VIPS_ACCESS_SEQUENTIAL, NULL))
    return -1;
  int result = vips_subsample(rows, out, xfac, yfac, NULL);
  g_object_unref(rows);
  return result;
}

int tc_row_index(int width, int height, const float *rows, const double xcoeff[3],
                 VipsImage **out) {
  VipsImage *column = NULL, *ys = NULL, *xy = NULL, *xs = NULL, *xband = NULL, *xlin = NULL;
  int r = -1;
  column = vips_image_new_from_memory_copy(rows, sizeof(float) * (size_t)height, 1, height, 1,
                                           VIPS_FORMAT_FLOAT);
  if (!column)
    goto done;
  if (vips_embed(column, &ys, 0, 0, width, height, "extend", VIPS_EXTEND_COPY, NULL))
    goto done;
  if (vips_xyz(&xy, width, height, NULL))
    goto done;
  if (vips_extract_band(xy, &xband, 0, NULL))
    goto done;
  if (vips_linear1(xband, &xlin, xcoeff[0], xcoeff[2], NULL))
    goto done;
  if (vips_cast(xlin, &xs, VIPS_FORMAT_FLOAT, NULL))
    goto done;
  r = vips_bandjoin2(xs, ys, out, NULL);
done:
  if (column)
    g_object_unref(column);
  if (ys)
    g_object_unref(ys);
  if (xy)
    g_object_unref(xy);
  if (xband)
    g_object_unref(xband);
  if (xlin)
    g_object_unref(xlin);
  if (xs)
    g_object_unref(xs);
  return r;
}

/* The affine map out = m·in + (odx, ody) in pixel-index coordinates, sampled
 * bilinearly over the output area (0, 0, width, height); outside is 0. */
int tc_affine(VipsImage *in, VipsImage **out, const double m[4], double odx, double ody, int width, int height,
              const char *interpolator) {
  VipsInterpolate *interp = vips_interpolate_new(interpolator);
  VipsArrayInt *area = vips_array_int_newv(4, 0, 0, width, height);
  int r = vips_affine(in, out, m[0], m[1], m[2], m[3], "interpolate", interp, "oarea", area, "odx", odx, "ody", ody,
                      "extend", VIPS_EXTEND_BLACK, NULL);
  vips_area_unref(VIPS_AREA(area));
  g_object_unref(interp);
  return r;
}

int tc_mapim(VipsImage *in, VipsImage *index, VipsImage **out, const char *interpolator) {
  VipsInterpolate *interp = vips_interpolate_new(interpolator);
  int r = vips_mapim(in, out, index, "interpolate", interp, NULL);
  g_object_unref(interp);
  return r;
}

/* Set by a signal: every later pixel request fails at once, and the image being
 * read is marked killed so libvips' own loops stop as well. */
static volatile int tc_cancelled = 0;

/* The images whose pixels are being computed right now, so that a signal can
 * set libvips' kill flag on each (its loops stop at the next tile). */
#define TC_BUSY_SLOTS 64
static VipsImage *tc_busy[TC_BUSY_SLOTS];
static GMutex tc_busy_lock;

static int busy_enter(VipsImage *image) {
  g_mutex_lock(&tc_busy_lock);
  int slot = -1;
  for (int i = 0; i < TC_BUSY_SLOTS; i++) {
    if (!tc_busy[i]) {
      tc_busy[i] = image;
      slot = i;
      break;
    }
  }
  g_mutex_unlock(&tc_busy_lock);
  return slot;
}

static void busy_leave(int slot) {
  if (slot < 0)
    return;
  g_mutex_lock(&tc_busy_lock);
  tc_busy[slot] = NULL;
  g_mutex_unlock(&tc_busy_lock);
}

/* For readers that do not go through tc_fetch (TilecutPNGRead.c's whole reads). */
int tc_cancel_requested(void) { return tc_cancelled; }

void tc_cancel_all(void) {
  tc_cancelled = 1;
  g_mutex_lock(&tc_busy_lock);
  for (int i = 0; i < TC_BUSY_SLOTS; i++) {
    if (tc_busy[i])
      vips_image_set_kill(tc_busy[i], TRUE);
  }
  g_mutex_unlock(&tc_busy_lock);
}

int tc_fetch(VipsRegion *region, int left, int top, int width, int height, uint8_t *out) {
  VipsRect rect = {left, top, width, height};
  if (tc_cancelled) {
    vips_image_set_kill(region->im, TRUE);
    vips_error("tilecut", "interrupted");
    return -1;
  }
  int slot = busy_enter(region->im);
  damage[0] = 0;
  int failed = vips_region_prepare(region, &rect);
  busy_leave(slot);
  if (failed)
    return -1;
  if (damage[0]) {
    vips_error("tilecut", "the data is damaged (%s)", damage);
    damage[0] = 0;
    return -1;
  }
  size_t row_bytes = VIPS_IMAGE_SIZEOF_PEL(region->im) * (size_t)width;
  for (int y = 0; y < height; y++) {
    memcpy(out + row_bytes * (size_t)y, VIPS_REGION_ADDR(region, left, top + y), row_bytes);
  }
  return 0;
}

int tc_save_png(VipsImage *in, int compression, int palette, void **buffer, size_t *length) {
  if (palette)
    return vips_pngsave_buffer(in, buffer, length, "compression", compression, "palette", TRUE,
                               "strip", TRUE, NULL);
  return vips_pngsave_buffer(in, buffer, length, "compression", compression, "strip", TRUE, NULL);
}

int tc_save_webp(VipsImage *in, int quality, int lossless, void **buffer, size_t *length) {
  return vips_webpsave_buffer(in, buffer, length, "Q", quality, "lossless", lossless ? TRUE : FALSE,
                              "strip", TRUE, NULL);
}

int tc_save_jpeg(VipsImage *in, int quality, const double fill[3], void **buffer, size_t *length) {
  VipsImage *flat = NULL;
  VipsArrayDouble *colour = vips_array_double_newv(3, fill[0], fill[1], fill[2]);
  int r = vips_flatten(in, &flat, "background", colour, NULL);
  vips_area_unref(VIPS_AREA(colour));
  if (r)
    return -1;
  r = vips_jpegsave_buffer(flat, buffer, length, "Q", quality, "strip", TRUE, NULL);
  g_object_unref(flat);
  return r;
}



typedef struct {
  void *state;
  void (*release)(void *);
} TcRowsOwner;

static void rows_image_closed(VipsImage *image, TcRowsOwner *owner) {
  (void)image;
  owner->release(owner->state);
  g_free(owner);
}

VipsImage *tc_rows_image(int width, int height, VipsGenerateFn generate, void *state, void (*release)(void *)) {
  VipsImage *image = vips_image_new();
  TcRowsOwner *owner = g_new0(TcRowsOwner, 1);
  owner->state = state;
  owner->release = release;
  vips_image_init_fields(image, width, height, 4, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE, VIPS_INTERPRETATION_sRGB,
                         72.0 / 25.4, 72.0 / 25.4);
  g_signal_connect(image, "close", G_CALLBACK(rows_image_closed), owner);
  if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, NULL) ||
      vips_image_generate(image, NULL, generate, NULL, state, NULL)) {
    g_object_unref(image); /* closes it: state is released */
    return NULL;
  }
  return image;
}
