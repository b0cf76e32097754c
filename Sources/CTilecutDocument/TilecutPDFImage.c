#include "TilecutPDF.h"

#include <glib.h>
#include <math.h>
#include <poppler.h>
#include <qpdf/qpdf-c.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "TilecutJPEGScan.h"

/* Images on one page read directly; a page of more (strips of a scanner) is rendered. */
#define TC_MAX_IMAGES 16
/* Decoded bytes of a Flate or LZW image held in memory; a larger one is rendered by poppler. */
#define TC_MAX_RAW_BYTES ((size_t)256 << 20)
/* q nesting and /Parent chains deeper than this are refused. */
#define TC_MAX_DEPTH 32

/* A PDF matrix [a b c d e f]: x' = a x + c y + e, y' = b x + d y + f. */
typedef struct {
  double a, b, c, d, e, f;
} TcMatrix;

/* `m`, then `n`. */
static TcMatrix then(TcMatrix m, TcMatrix n) {
  return (TcMatrix){m.a * n.a + m.b * n.c, m.a * n.b + m.b * n.d, m.c * n.a + m.d * n.c,
                    m.c * n.b + m.d * n.d, m.e * n.a + m.f * n.c + n.e, m.e * n.b + m.f * n.d + n.f};
}

/* One image XObject drawn on the page. */
typedef struct {
  /* the image's unit square to user space: the CTM at its Do */
  TcMatrix place;
  int width, height, components;
  /* 1: `data` is the JPEG of a DCT stream; 0: raw 8-bit samples, rows top to bottom */
  int dct;
  /* /Interpolate true: poppler smooths the image however much it is enlarged */
  int interpolate;
  unsigned char *data;
  size_t length;
} TcPlacedImage;

typedef struct {
  TcPlacedImage images[TC_MAX_IMAGES];
  int count;
  /* the crop box within the media box: x0, y0, x1, y1 */
  double box[4];
  int rotate;
  /* a mixed page (read with `allow_rest`): where the content stops being images
   * drawn in order (an offset into the content, at a statement with no state
   * saved) and the CTM there; `rest` equals the content's length on an image page */
  size_t rest;
  TcMatrix rest_ctm;
  /* a mixed page: the document again, this page's content only what follows `rest` */
  GBytes *rest_pdf;
} TcImagePage;

static void image_page_clear(TcImagePage *p) {
  for (int i = 0; i < p->count; i++)
    free(p->images[i].data);
  p->count = 0;
  if (p->rest_pdf)
    g_bytes_unref(p->rest_pdf);
  p->rest_pdf = NULL;
}

/* A key of a page, or of the nearest /Pages node above it that has it (the
 * inheritable attributes); an uninitialised handle when none has it. */
static qpdf_oh inherited(qpdf_data q, qpdf_oh page, const char *key) {
  qpdf_oh node = page;
  for (int depth = 0; depth < TC_MAX_DEPTH && qpdf_oh_is_dictionary(q, node); depth++) {
    if (qpdf_oh_has_key(q, node, key))
      return qpdf_oh_get_key(q, node, key);
    node = qpdf_oh_get_key(q, node, "/Parent");
  }
  return qpdf_oh_new_uninitialized(q);
}

/* A rectangle [x0 y0 x1 y1], normalised; 0 when `oh` is not one. */
static int read_box(qpdf_data q, qpdf_oh oh, double box[4]) {
  if (!qpdf_oh_is_array(q, oh) || qpdf_oh_get_array_n_items(q, oh) != 4)
    return 0;
  double v[4];
  for (int i = 0; i < 4; i++) {
    qpdf_oh item = qpdf_oh_get_array_item(q, oh, i);
    if (!qpdf_oh_is_number(q, item))
      return 0;
    v[i] = qpdf_oh_get_numeric_value(q, item);
    if (!isfinite(v[i]))
      return 0;
  }
  box[0] = fmin(v[0], v[2]);
  box[1] = fmin(v[1], v[3]);
  box[2] = fmax(v[0], v[2]);
  box[3] = fmax(v[1], v[3]);
  return 1;
}

static int name_is(qpdf_data q, qpdf_oh oh, const char *name) { return qpdf_oh_is_name_and_equals(q, oh, name); }

/* A positive integer, at most `max`; 0 otherwise. */
static int positive_int(qpdf_data q, qpdf_oh oh, int max) {
  if (!qpdf_oh_is_integer(q, oh))
    return 0;
  long long v = qpdf_oh_get_int_value(q, oh);
  return v >= 1 && v <= max ? (int)v : 0;
}

/* Reads an image XObject this reader fully understands into `im`: 8 bits a sample,
 * DeviceGray or DeviceRGB, one filter of DCT, Flate or LZW (or none), and nothing
 * that changes how its samples are drawn. 0 for anything else. */
static int read_image(qpdf_data q, qpdf_oh xobject, TcPlacedImage *im) {
  if (!qpdf_oh_is_stream(q, xobject))
    return 0;
  qpdf_oh dict = qpdf_oh_get_dict(q, xobject);
  if (!name_is(q, qpdf_oh_get_key(q, dict, "/Subtype"), "/Image"))
    return 0;
  static const char *const refused[] = {"/SMask", "/Mask", "/Decode", "/OC", "/SMaskInData", "/Alternates", "/OPI"};
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
    if (qpdf_oh_has_key(q, dict, refused[i]) && !qpdf_oh_is_null(q, qpdf_oh_get_key(q, dict, refused[i])))
      return 0;
  if (qpdf_oh_has_key(q, dict, "/ImageMask")) {
    QPDF_BOOL mask = QPDF_FALSE;
    if (!qpdf_oh_get_value_as_bool(q, qpdf_oh_get_key(q, dict, "/ImageMask"), &mask) || mask)
      return 0;
  }
  im->width = positive_int(q, qpdf_oh_get_key(q, dict, "/Width"), 1 << 20);
  im->height = positive_int(q, qpdf_oh_get_key(q, dict, "/Height"), 1 << 20);
  if (!im->width || !im->height || positive_int(q, qpdf_oh_get_key(q, dict, "/BitsPerComponent"), 16) != 8)
    return 0;
  /* anything but a boolean true is false to poppler too */
  QPDF_BOOL smooth = QPDF_FALSE;
  im->interpolate = qpdf_oh_has_key(q, dict, "/Interpolate") &&
                    qpdf_oh_get_value_as_bool(q, qpdf_oh_get_key(q, dict, "/Interpolate"), &smooth) && smooth;
  qpdf_oh space = qpdf_oh_get_key(q, dict, "/ColorSpace");
  if (name_is(q, space, "/DeviceGray"))
    im->components = 1;
  else if (name_is(q, space, "/DeviceRGB"))
    im->components = 3;
  else
    return 0;
  qpdf_oh filter = qpdf_oh_get_key(q, dict, "/Filter");
  if (qpdf_oh_is_array(q, filter)) {
    if (qpdf_oh_get_array_n_items(q, filter) > 1)
      return 0;
    filter = qpdf_oh_get_array_n_items(q, filter) == 1 ? qpdf_oh_get_array_item(q, filter, 0) : qpdf_oh_new_null(q);
  }
  qpdf_oh parms = qpdf_oh_get_key(q, dict, "/DecodeParms");
  int no_parms = !qpdf_oh_has_key(q, dict, "/DecodeParms") || qpdf_oh_is_null(q, parms) ||
                 (qpdf_oh_is_array(q, parms) && qpdf_oh_get_array_n_items(q, parms) == 1 &&
                  qpdf_oh_is_null(q, qpdf_oh_get_array_item(q, parms, 0)));
  QPDF_BOOL filtered = QPDF_FALSE;
  if (name_is(q, filter, "/DCTDecode")) {
    /* a /ColorTransform overrides the JPEG's own markers: poppler's business */
    if (!no_parms)
      return 0;
    im->dct = 1;
    return qpdf_oh_get_stream_data(q, xobject, qpdf_dl_none, NULL, &im->data, &im->length) == QPDF_SUCCESS &&
           im->data && im->length > 0;
  }
  if (!(qpdf_oh_is_null(q, filter) || name_is(q, filter, "/FlateDecode") || name_is(q, filter, "/LZWDecode")))
    return 0;
  size_t need = (size_t)im->width * (size_t)im->height * (size_t)im->components;
  if (need > TC_MAX_RAW_BYTES)
    return 0;
  im->dct = 0;
  if (qpdf_oh_get_stream_data(q, xobject, qpdf_dl_generalized, &filtered, &im->data, &im->length) != QPDF_SUCCESS ||
      !filtered || !im->data || im->length < need) {
    free(im->data);
    im->data = NULL;
    return 0;
  }
  return 1;
}

/* Walks the page's content stream, which may hold nothing but q, Q, cm and Do of
 * image XObjects (and white space and comments): anything else, even an operator
 * that would draw nothing, and the page is not an image page. With `allow_rest`, a
 * page whose content starts so and then goes on with anything else is read up to
 * the last statement before it where no graphics state was saved (out->rest):
 * the images drawn before that point, under whatever follows. */
static int read_content(qpdf_data q, qpdf_oh page, const unsigned char *s, size_t n, int allow_rest,
                        TcImagePage *out) {
  qpdf_oh resources = inherited(q, page, "/Resources");
  int has_xobjects = qpdf_oh_is_dictionary(q, resources) && qpdf_oh_has_key(q, resources, "/XObject");
  qpdf_oh xobjects = has_xobjects ? qpdf_oh_get_key(q, resources, "/XObject") : qpdf_oh_new_null(q);
  TcMatrix stack[TC_MAX_DEPTH];
  int depth = 0;
  TcMatrix ctm = {1, 0, 0, 1, 0, 0};
  double numbers[6];
  int count = 0;
  char name[128];
  int has_name = 0;
  /* the last statement boundary with no state saved: the images before it, its CTM */
  size_t mark = 0;
  int mark_count = 0;
  TcMatrix mark_ctm = ctm;
  size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0) {
      i++;
      continue;
    }
    if (c == '%') {
      while (i < n && s[i] != '\n' && s[i] != '\r')
        i++;
      continue;
    }
    size_t start = i;
    if (depth == 0 && !count && !has_name) {
      mark = start;
      mark_count = out->count;
      mark_ctm = ctm;
    }
    if (c == '/') {
      i++;
      while (i < n && !strchr(" \n\r\t\f/[]<>(){}%", s[i]) && s[i] != 0)
        i++;
      size_t len = i - start - 1;
      if (has_name || count || len == 0 || len >= sizeof name || memchr(s + start + 1, '#', len))
        goto rest;
      memcpy(name, s + start + 1, len);
      name[len] = 0;
      has_name = 1;
      continue;
    }
    if (c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9')) {
      char text[64];
      while (i < n && (s[i] == '+' || s[i] == '-' || s[i] == '.' || (s[i] >= '0' && s[i] <= '9')))
        i++;
      size_t len = i - start;
      if (count >= 6 || has_name || len >= sizeof text)
        goto rest;
      memcpy(text, s + start, len);
      text[len] = 0;
      char *end = NULL;
      double v = strtod(text, &end);
      if (end != text + len || !isfinite(v))
        goto rest;
      numbers[count++] = v;
      continue;
    }
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
      goto rest; /* strings, arrays, dictionaries: no operator of an image page takes them */
    while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
      i++;
    size_t len = i - start;
    if (len == 1 && s[start] == 'q' && !count && !has_name) {
      if (depth >= TC_MAX_DEPTH)
        goto rest;
      stack[depth++] = ctm;
    } else if (len == 1 && s[start] == 'Q' && !count && !has_name) {
      if (depth == 0)
        goto rest;
      ctm = stack[--depth];
    } else if (len == 2 && !memcmp(s + start, "cm", 2) && count == 6 && !has_name) {
      TcMatrix m = {numbers[0], numbers[1], numbers[2], numbers[3], numbers[4], numbers[5]};
      ctm = then(m, ctm);
    } else if (len == 2 && !memcmp(s + start, "Do", 2) && !count && has_name) {
      if (out->count >= TC_MAX_IMAGES || !qpdf_oh_is_dictionary(q, xobjects))
        goto rest;
      char key[130];
      snprintf(key, sizeof key, "/%s", name);
      if (!qpdf_oh_has_key(q, xobjects, key))
        goto rest;
      TcPlacedImage *im = &out->images[out->count];
      memset(im, 0, sizeof *im);
      if (!read_image(q, qpdf_oh_get_key(q, xobjects, key), im))
        goto rest;
      im->place = ctm;
      out->count++;
    } else {
      goto rest;
    }
    count = 0;
    has_name = 0;
  }
  if (count || has_name)
    goto rest;
  out->rest = n;
  return out->count > 0;
rest:
  if (!allow_rest)
    return 0;
  /* the images after the mark are the rest's to draw */
  for (int k = mark_count; k < out->count; k++) {
    free(out->images[k].data);
    out->images[k].data = NULL;
  }
  out->count = mark_count;
  out->rest = mark;
  out->rest_ctm = mark_ctm;
  return out->count > 0;
}

/* The document with page `page`'s content replaced by `content` (after a `cm` of
 * `ctm` where that is not the identity), written by qpdf into memory. */
static GBytes *with_content(qpdf_data q, qpdf_oh page, const unsigned char *content, size_t length, TcMatrix ctm) {
  char prefix[200] = "";
  if (!(ctm.a == 1 && ctm.b == 0 && ctm.c == 0 && ctm.d == 1 && ctm.e == 0 && ctm.f == 0))
    snprintf(prefix, sizeof prefix, "%.17g %.17g %.17g %.17g %.17g %.17g cm\n", ctm.a, ctm.b, ctm.c, ctm.d, ctm.e,
             ctm.f);
  size_t plen = strlen(prefix);
  unsigned char *data = malloc(plen + length);
  if (!data)
    return NULL;
  memcpy(data, prefix, plen);
  memcpy(data + plen, content, length);
  qpdf_oh stream = qpdf_oh_new_stream(q);
  qpdf_oh_replace_stream_data(q, stream, data, plen + length, qpdf_oh_new_null(q), qpdf_oh_new_null(q));
  free(data);
  qpdf_oh_replace_key(q, page, "/Contents", stream);
  if (qpdf_init_write_memory(q) & QPDF_ERRORS)
    return NULL;
  if (qpdf_write(q) & QPDF_ERRORS)
    return NULL;
  size_t size = qpdf_get_buffer_length(q);
  const unsigned char *buffer = qpdf_get_buffer(q);
  return buffer && size ? g_bytes_new(buffer, size) : NULL;
}

/* Reads what an image page is made of with qpdf; 0 when it is not one. With
 * `allow_rest`, a page whose content goes on past its images (see read_content)
 * is read too, with out->rest_pdf the document of what follows them; such a page
 * may have annotations (poppler draws them with the rest). */
static int read_page(const char *filename, int page_index, int allow_rest, TcImagePage *out) {
  memset(out, 0, sizeof *out);
  qpdf_data q = qpdf_init();
  qpdf_silence_errors(q);
  qpdf_set_suppress_warnings(q, QPDF_TRUE);
  int ok = 0;
  unsigned char *content = NULL;
  size_t length = 0;
  if (qpdf_read(q, filename, NULL) & QPDF_ERRORS)
    goto done;
  /* a file qpdf had to repair is left to poppler, which repairs it its own way */
  if (qpdf_more_warnings(q))
    goto done;
  if (page_index < 0 || page_index >= qpdf_get_num_pages(q))
    goto done;
  qpdf_oh page = qpdf_get_page_n(q, (size_t)page_index);
  if (!qpdf_oh_is_dictionary(q, page))
    goto done;
  /* annotations are drawn over the page; a user unit scales it */
  qpdf_oh annots = qpdf_oh_get_key(q, page, "/Annots");
  if ((!allow_rest && ((qpdf_oh_is_array(q, annots) && qpdf_oh_get_array_n_items(q, annots) > 0) ||
                        (!qpdf_oh_is_null(q, annots) && !qpdf_oh_is_array(q, annots)))) ||
      qpdf_oh_has_key(q, page, "/UserUnit"))
    goto done;
  double media[4], crop[4];
  if (!read_box(q, inherited(q, page, "/MediaBox"), media))
    goto done;
  qpdf_oh crop_oh = inherited(q, page, "/CropBox");
  if (!qpdf_oh_is_initialized(q, crop_oh) || qpdf_oh_is_null(q, crop_oh))
    memcpy(crop, media, sizeof crop);
  else if (!read_box(q, crop_oh, crop))
    goto done;
  out->box[0] = fmax(crop[0], media[0]);
  out->box[1] = fmax(crop[1], media[1]);
  out->box[2] = fmin(crop[2], media[2]);
  out->box[3] = fmin(crop[3], media[3]);
  if (!(out->box[2] > out->box[0] && out->box[3] > out->box[1]))
    goto done;
  qpdf_oh rotate = inherited(q, page, "/Rotate");
  long long r = 0;
  if (qpdf_oh_is_initialized(q, rotate) && !qpdf_oh_is_null(q, rotate)) {
    if (!qpdf_oh_is_integer(q, rotate))
      goto done;
    r = qpdf_oh_get_int_value(q, rotate);
  }
  if (r % 90)
    goto done;
  out->rotate = (int)(((r % 360) + 360) % 360);
  if (qpdf_oh_get_page_content_data(q, page, &content, &length) != QPDF_SUCCESS || !content)
    goto done;
  ok = read_content(q, page, content, length, allow_rest, out) && !qpdf_more_warnings(q);
  if (ok && allow_rest && out->rest < length)
    ok = (out->rest_pdf = with_content(q, page, content + out->rest, length - out->rest, out->rest_ctm)) != NULL &&
         !qpdf_more_warnings(q);
done:
  free(content);
  if (!ok)
    image_page_clear(out);
  qpdf_cleanup(&q);
  return ok;
}

/* The page's size in points as poppler gives it (crop box, turned by /Rotate), which
 * must be the size read here: a disagreement and the page is left to poppler. */
static int poppler_size(const char *filename, int page, double *width, double *height) {
  GError *error = NULL;
  char *absolute = realpath(filename, NULL);
  char *uri = absolute ? g_filename_to_uri(absolute, NULL, &error) : NULL;
  free(absolute);
  PopplerDocument *doc = uri ? poppler_document_new_from_file(uri, NULL, &error) : NULL;
  g_free(uri);
  if (error)
    g_error_free(error);
  if (!doc)
    return 0;
  int ok = 0;
  if (page >= 0 && page < poppler_document_get_n_pages(doc)) {
    PopplerPage *p = poppler_document_get_page(doc, page);
    if (p) {
      poppler_page_get_size(p, width, height);
      g_object_unref(p);
      ok = 1;
    }
  }
  g_object_unref(doc);
  return ok;
}

static int free_blob_data(void *data, void *unused) {
  (void)unused;
  free(data);
  return 0;
}

static void free_raw(VipsImage *image, void *data) {
  (void)image;
  free(data);
}

/* How much of each page pixel an image's rectangle covers, as poppler's clip to the
 * image's unit square gives it: the product of the column's and the row's share. */
typedef struct {
  int width;
  float *columns;
  float *rows;
} TcCoverage;

static void coverage_free(VipsImage *image, TcCoverage *c) {
  (void)image;
  free(c->columns);
  free(c->rows);
  free(c);
}

static int coverage_generate(VipsRegion *region, void *seq, void *a, void *b, gboolean *stop) {
  (void)seq;
  (void)b;
  (void)stop;
  TcCoverage *c = a;
  VipsRect *r = &region->valid;
  for (int y = r->top; y < VIPS_RECT_BOTTOM(r); y++) {
    uint8_t *p = (uint8_t *)VIPS_REGION_ADDR(region, r->left, y);
    float row = c->rows[y];
    for (int x = 0; x < r->width; x++)
      p[x] = (uint8_t)(255.0f * row * c->columns[r->left + x] + 0.5f);
  }
  return 0;
}

/* The share of each of `n` pixels [i, i + 1) that [from, to) covers. */
static float *shares(int n, double from, double to) {
  float *v = malloc(sizeof(float) * (size_t)n);
  if (!v)
    return NULL;
  for (int i = 0; i < n; i++) {
    double s = fmin(i + 1.0, to) - fmax((double)i, from);
    v[i] = s <= 0 ? 0.0f : s >= 1 ? 1.0f : (float)s;
  }
  return v;
}

/* A one-band uchar image of the page's size: 255 × the share of each pixel inside
 * [x0, x1) × [y0, y1). */
static int coverage_image(int width, int height, double x0, double y0, double x1, double y1, VipsImage **out) {
  TcCoverage *c = calloc(1, sizeof *c);
  if (!c || !(c->columns = shares(width, x0, x1)) || !(c->rows = shares(height, y0, y1))) {
    if (c)
      coverage_free(NULL, c);
    vips_error("pdfload", "out of memory");
    return -1;
  }
  c->width = width;
  VipsImage *image = vips_image_new();
  vips_image_init_fields(image, width, height, 1, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE, VIPS_INTERPRETATION_B_W, 1, 1);
  g_signal_connect(image, "close", G_CALLBACK(coverage_free), c);
  if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, NULL) ||
      vips_image_generate(image, NULL, coverage_generate, NULL, c, NULL)) {
    g_object_unref(image);
    return -1;
  }
  *out = image;
  return 0;
}

/* An upright image made smaller on the page, averaged over each page pixel's area
 * (as poppler's box prescale does): per page column and row, the source pixels it
 * covers and their shares. Separable, one pass over the source rows. */
typedef struct {
  /* the source, held while the reduced image lives */
  VipsImage *in;
  int bands;
  int taps_x, taps_y;
  int *col_first, *row_first;
  int *col_count, *row_count;
  float *col_weight, *row_weight;
  /* the share of each page column and row inside the image */
  float *col_cover, *row_cover;
} TcBoxMap;

static void box_free(VipsImage *image, TcBoxMap *m) {
  (void)image;
  if (m->in)
    g_object_unref(m->in);
  free(m->col_first);
  free(m->row_first);
  free(m->col_count);
  free(m->row_count);
  free(m->col_weight);
  free(m->row_weight);
  free(m->col_cover);
  free(m->row_cover);
  free(m);
}

/* Taps of `n` page pixels [i, i + 1) over `size` source pixels that stand for an
 * image `extent` pixels long, the page pixel i covering source
 * [(i - offset) / scale, (i + 1 - offset) / scale): the shares of the part inside
 * the image, or its nearest pixel when none is. A JPEG shrunk on load is a pixel
 * short of its image's extent (libvips rounds its size down) or a part of one over
 * it: the image's own extent is what the page covers, beyond `size` the last pixel. */
static int box_taps(int n, int size, double extent, double scale, double offset, int taps, int **first, int **count,
                    float **weight, float **cover) {
  *first = malloc(sizeof(int) * (size_t)n);
  *count = malloc(sizeof(int) * (size_t)n);
  *weight = malloc(sizeof(float) * (size_t)n * (size_t)taps);
  *cover = malloc(sizeof(float) * (size_t)n);
  if (!*first || !*count || !*weight || !*cover)
    return -1;
  for (int i = 0; i < n; i++) {
    double u0 = fmax(0.0, (i - offset) / scale), u1 = fmin(extent, (i + 1 - offset) / scale);
    float *w = *weight + (size_t)i * (size_t)taps;
    if (!(u1 > u0)) {
      double c = (i + 0.5 - offset) / scale;
      (*first)[i] = c < 0 ? 0 : c >= size ? size - 1 : (int)c;
      (*count)[i] = 1;
      w[0] = 1;
      (*cover)[i] = 0;
      continue;
    }
    int a = (int)floor(u0), b = (int)ceil(u1) - 1;
    if (a >= size)
      a = size - 1;
    if (b >= size)
      b = size - 1;
    if (b - a + 1 > taps)
      b = a + taps - 1;
    (*first)[i] = a;
    (*count)[i] = b - a + 1;
    /* the last tap takes the rest of the span: past `size`, the image's edge */
    double total = 0;
    for (int k = a; k <= b; k++)
      total += (k == b ? u1 : fmin(k + 1.0, u1)) - fmax((double)k, u0);
    for (int k = a; k <= b; k++)
      w[k - a] = (float)(((k == b ? u1 : fmin(k + 1.0, u1)) - fmax((double)k, u0)) / total);
    (*cover)[i] = (float)fmin(1.0, (u1 - u0) * scale);
  }
  return 0;
}

static inline uint8_t clamp_byte(float v) { return (uint8_t)(v <= 0 ? 0 : v >= 255 ? 255 : v + 0.5f); }

static int box_generate(VipsRegion *out, void *seq, void *a, void *b, gboolean *stop) {
  (void)a;
  (void)stop;
  VipsRegion *in = seq;
  TcBoxMap *m = b;
  VipsRect *r = &out->valid;
  int right = r->left + r->width - 1, bottom = r->top + r->height - 1;
  /* rows the image does not reach are transparent: nothing read for them */
  int first = r->top, last = bottom;
  while (first <= bottom && m->row_cover[first] <= 0)
    first++;
  while (last >= first && m->row_cover[last] <= 0)
    last--;
  for (int y = r->top; y <= bottom; y++)
    if (y < first || y > last)
      memset(VIPS_REGION_ADDR(out, r->left, y), 0, 4 * (size_t)r->width);
  if (first > last)
    return 0;
  int left = m->col_first[r->left], top = m->row_first[first];
  VipsRect need = {left, top, m->col_first[right] + m->col_count[right] - left,
                   m->row_first[last] + m->row_count[last] - top};
  if (vips_region_prepare(in, &need))
    return -1;
  int bands = m->bands;
  size_t span = (size_t)need.width * (size_t)bands;
  float *acc = malloc(sizeof(float) * span);
  if (!acc) {
    vips_error("pdfload", "out of memory");
    return -1;
  }
  for (int y = first; y <= last; y++) {
    const float *wy = m->row_weight + (size_t)y * (size_t)m->taps_y;
    for (int k = 0; k < m->row_count[y]; k++) {
      const uint8_t *p = (const uint8_t *)VIPS_REGION_ADDR(in, left, m->row_first[y] + k);
      float w = wy[k];
      /* the first row sets the sums (no clearing pass), the others add to them */
      if (k == 0)
        for (size_t i = 0; i < span; i++)
          acc[i] = w * p[i];
      else
        for (size_t i = 0; i < span; i++)
          acc[i] += w * p[i];
    }
    uint8_t *q = (uint8_t *)VIPS_REGION_ADDR(out, r->left, y);
    float row_cover = 255.0f * m->row_cover[y];
    /* the three colours summed side by side (three independent chains, not one
     * after another: this loop was a third of a scanned page's time) */
    for (int x = r->left; x <= right; x++, q += 4) {
      const float *wx = m->col_weight + (size_t)x * (size_t)m->taps_x;
      const float *s = acc + (size_t)(m->col_first[x] - left) * (size_t)bands;
      int n = m->col_count[x];
      float v0 = 0, v1 = 0, v2 = 0;
      if (bands == 3) {
        for (int k = 0; k < n; k++, s += 3) {
          float w = wx[k];
          v0 += w * s[0];
          v1 += w * s[1];
          v2 += w * s[2];
        }
      } else {
        for (int k = 0; k < n; k++)
          v0 += wx[k] * s[k];
        v1 = v2 = v0;
      }
      q[0] = clamp_byte(v0);
      q[1] = clamp_byte(v1);
      q[2] = clamp_byte(v2);
      q[3] = (uint8_t)(row_cover * m->col_cover[x] + 0.5f);
    }
  }
  free(acc);
  return 0;
}

/* `in` (uchar, grey or RGB) made smaller onto a `width` × `height` page by
 * x' = sx x + ox, y' = sy y + oy (sx, sy in (0, 1]), the image `extent_x` ×
 * `extent_y` of `in`'s pixels (see box_taps): straight RGBA, each page pixel the
 * average of what it covers, its alpha the share of it inside the image. */
static int box_reduce(VipsImage *in, double sx, double ox, double sy, double oy, double extent_x, double extent_y,
                      int width, int height, VipsImage **out) {
  TcBoxMap *m = calloc(1, sizeof *m);
  if (!m) {
    vips_error("pdfload", "out of memory");
    return -1;
  }
  m->in = in;
  g_object_ref(in);
  m->bands = in->Bands;
  m->taps_x = (int)ceil(1 / sx) + 2;
  m->taps_y = (int)ceil(1 / sy) + 2;
  if (box_taps(width, in->Xsize, extent_x, sx, ox, m->taps_x, &m->col_first, &m->col_count, &m->col_weight,
               &m->col_cover) ||
      box_taps(height, in->Ysize, extent_y, sy, oy, m->taps_y, &m->row_first, &m->row_count, &m->row_weight,
               &m->row_cover)) {
    box_free(NULL, m);
    vips_error("pdfload", "out of memory");
    return -1;
  }
  VipsImage *image = vips_image_new();
  g_signal_connect(image, "close", G_CALLBACK(box_free), m);
  /* the pipeline first: it copies the input's fields, which the page's size then replaces */
  if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, in, NULL)) {
    g_object_unref(image);
    return -1;
  }
  vips_image_init_fields(image, width, height, 4, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE, VIPS_INTERPRETATION_sRGB, 1, 1);
  if (vips_image_generate(image, vips_start_one, box_generate, vips_stop_one, in, m)) {
    g_object_unref(image);
    return -1;
  }
  *out = image;
  return 0;
}

/* One image placed on the page's pixels: straight RGBA8 of the page's size, its
 * colour the image's nearest edge beyond it (poppler paints an image padded) and its
 * alpha the share of each pixel the image covers (poppler clips it to its
 * rectangle). `t` maps the image's pixel coordinates (GDAL's convention: (0,0) the
 * top-left corner) to the page's. Takes the image's data. */
static int place_image(TcPlacedImage *im, TcMatrix t, int width, int height, int sequential, VipsImage **out) {
  VipsObject *scope = VIPS_OBJECT(vips_image_new());
  VipsImage **v = (VipsImage **)vips_object_local_array(scope, 11);
  int result = -1;
  /* page pixels one image pixel spans along each of the image's axes */
  double gx = hypot(t.a, t.b), gy = hypot(t.c, t.d);
  int fx = gx < 1 ? (int)floor(1 / gx + 1e-9) : 1, fy = gy < 1 ? (int)floor(1 / gy + 1e-9) : 1;
  int load_shrink = 1;
  if (im->dct)
    for (int j = 8; j > 1; j /= 2)
      if (fx >= j && fy >= j) {
        load_shrink = j;
        break;
      }
  int rx = fx / load_shrink, ry = fy / load_shrink;
  /* read top to bottom when the page is and the image is upright on it */
  int upright = sequential && t.b == 0 && t.c == 0 && t.a > 0 && t.d > 0;
  if (im->dct) {
    /* jpegload's fail_on lets a warning in the last rows through: the scan is
     * decoded once, and any warning refuses the page */
    char said[200];
    if (tc_verify_jpeg_buffer(im->data, im->length, said, sizeof said)) {
      vips_error("pdfload", "an image's JPEG data is damaged (libjpeg: %s)", said);
      goto done;
    }
    VipsBlob *blob = vips_blob_new(free_blob_data, im->data, im->length);
    im->data = NULL;
    int failed = vips_call("jpegload_buffer", blob, &v[0], "shrink", load_shrink, "access",
                           upright ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM, "fail_on", VIPS_FAIL_ON_WARNING, NULL);
    vips_area_unref(VIPS_AREA(blob));
    if (failed)
      goto done;
    /* libjpeg rounds a shrunk size up, libvips (8.14) down: either, as long as the
     * image is the dictionary's */
    int floor_w = im->width / load_shrink, floor_h = im->height / load_shrink;
    int ceil_w = (im->width + load_shrink - 1) / load_shrink, ceil_h = (im->height + load_shrink - 1) / load_shrink;
    if ((v[0]->Xsize != floor_w && v[0]->Xsize != ceil_w) || (v[0]->Ysize != floor_h && v[0]->Ysize != ceil_h) ||
        v[0]->Xsize < 1 || v[0]->Ysize < 1 || v[0]->Bands != im->components || v[0]->BandFmt != VIPS_FORMAT_UCHAR) {
      vips_error("pdfload", "an image's JPEG does not match its PDF dictionary");
      goto done;
    }
  } else {
    v[0] = vips_image_new_from_memory(im->data, im->length, im->width, im->height, im->components,
                                      VIPS_FORMAT_UCHAR);
    if (!v[0])
      goto done;
    g_signal_connect(v[0], "postclose", G_CALLBACK(free_raw), im->data);
    im->data = NULL;
  }
  VipsImage *cur = v[0];
  /* a loaded pixel stands for `load_shrink` image pixels along each axis (the
   * last one may be cut short or dropped: see box_taps) */
  if (gx < 1 && gy < 1) {
    /* smaller: averaged over each page pixel, in one pass, as poppler's box
     * prescale does whichever way the image stands. An image turned or mirrored is
     * reduced upright onto the page's grid (its transpose when turned a quarter),
     * then its pixels moved: a bilinear affine averages too few of them. */
    double k = load_shrink;
    int across = t.a == 0;
    double ua = across ? t.b : t.a, ue = across ? t.f : t.e, ud = across ? t.c : t.d, uf = across ? t.e : t.f;
    int grid_w = across ? height : width, grid_h = across ? width : height;
    int flip_x = ua < 0, flip_y = ud < 0;
    if (flip_x) {
      ua = -ua;
      ue = grid_w - ue;
    }
    if (flip_y) {
      ud = -ud;
      uf = grid_h - uf;
    }
    if (box_reduce(cur, ua * k, ue, ud * k, uf, im->width / k, im->height / k, grid_w, grid_h, &v[6]))
      goto done;
    cur = v[6];
    if (flip_x && vips_flip(cur, &v[7], VIPS_DIRECTION_HORIZONTAL, NULL))
      goto done;
    cur = flip_x ? v[7] : cur;
    if (flip_y && vips_flip(cur, &v[8], VIPS_DIRECTION_VERTICAL, NULL))
      goto done;
    cur = flip_y ? v[8] : cur;
    /* the transpose: a quarter turn clockwise, then mirrored */
    if (across && (vips_rot(cur, &v[9], VIPS_ANGLE_D90, NULL) || vips_flip(v[9], &v[10], VIPS_DIRECTION_HORIZONTAL, NULL)))
      goto done;
    cur = across ? v[10] : cur;
    g_object_ref(cur);
    *out = cur;
    result = 0;
    goto done;
  } else {
    if (rx > 1 || ry > 1) {
      if (vips_shrink(cur, &v[1], rx, ry, NULL))
        goto done;
      cur = v[1];
    }
    /* from the loaded (shrunk) image's pixels, rx × ry loaded pixels each (beyond
     * its last one, its edge), to the page's */
    double kx = (double)load_shrink * rx, ky = (double)load_shrink * ry;
    TcMatrix m = {t.a * kx, t.b * kx, t.c * ky, t.d * ky, t.e, t.f};
    /* poppler draws an image enlarged 4 times or more without interpolation, unless
     * the image asks for it (cairo's filter, CairoOutputDev::getFilterForSurface) */
    int nearest = !im->interpolate && (gx >= 4 || gy >= 4);
    /* the bilinear interpolator sees pixel centres at integers, and the page pixel x
     * at x: from the centre (x + 0.5) of one to the other's, half a pixel each way;
     * the nearest one takes the pixel whose [i, i + 1) holds the point it is given,
     * and is given the page pixel's centre in the image's corner coordinates */
    double odx = nearest ? m.e - 0.5 : m.e + 0.5 * (m.a + m.c) - 0.5;
    double ody = nearest ? m.f - 0.5 : m.f + 0.5 * (m.b + m.d) - 0.5;
    VipsInterpolate *interp = vips_interpolate_new(nearest ? "nearest" : "bilinear");
    VipsArrayInt *area = vips_array_int_newv(4, 0, 0, width, height);
    int failed = vips_affine(cur, &v[2], m.a, m.c, m.b, m.d, "interpolate", interp, "oarea", area, "odx", odx,
                             "ody", ody, "extend", VIPS_EXTEND_COPY, NULL);
    vips_area_unref(VIPS_AREA(area));
    g_object_unref(interp);
    if (failed)
      goto done;
    cur = v[2];
  }
  if (cur->Bands == 1) {
    VipsImage *grey[3] = {cur, cur, cur};
    if (vips_bandjoin(grey, &v[3], 3, NULL))
      goto done;
    cur = v[3];
  }
  /* the image's rectangle on the page: the corners (0,0) and (W,H) mapped */
  double ax = t.e, ay = t.f, bx = t.a * im->width + t.c * im->height + t.e, by = t.b * im->width + t.d * im->height + t.f;
  if (coverage_image(width, height, fmin(ax, bx), fmin(ay, by), fmax(ax, bx), fmax(ay, by), &v[4]))
    goto done;
  VipsImage *bands[2] = {cur, v[4]};
  if (vips_bandjoin(bands, &v[5], 2, NULL) ||
      vips_copy(v[5], out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL))
    goto done;
  result = 0;
done:
  g_object_unref(scope);
  return result;
}

/* `top` over `bottom`, both straight RGBA8 of one size, as vips_composite2's OVER
 * gives it rounded to 8 bits, in one pass of integer-sized float arithmetic per
 * pixel: libvips' composite works in floats over premultiplied copies and took
 * most of a marked scan page's time. */
static int over_generate(VipsRegion *out, void *seq, void *a, void *b, gboolean *stop) {
  (void)a;
  (void)b;
  (void)stop;
  VipsRegion **in = seq;
  VipsRect *r = &out->valid;
  if (vips_region_prepare(in[0], r) || vips_region_prepare(in[1], r))
    return -1;
  for (int y = r->top; y < r->top + r->height; y++) {
    const uint8_t *d = (const uint8_t *)VIPS_REGION_ADDR(in[0], r->left, y);
    const uint8_t *s = (const uint8_t *)VIPS_REGION_ADDR(in[1], r->left, y);
    uint8_t *q = (uint8_t *)VIPS_REGION_ADDR(out, r->left, y);
    for (int x = 0; x < r->width; x++, d += 4, s += 4, q += 4) {
      unsigned sa = s[3], da = d[3];
      if (sa == 0 && da == 0) {
        /* nothing: transparent black, as libvips' composite leaves it */
        memset(q, 0, 4);
        continue;
      }
      if (sa == 255 || da == 0) {
        memcpy(q, s, 4);
        continue;
      }
      if (sa == 0) {
        memcpy(q, d, 4);
        continue;
      }
      /* in units of 1/255: the share of the bottom that shows, and the alpha left */
      float fs = sa / 255.0f, fd = da / 255.0f * (1.0f - fs), fa = fs + fd;
      float ks = fs / fa, kd = fd / fa;
      for (int c = 0; c < 3; c++) {
        float v = ks * s[c] + kd * d[c];
        q[c] = (uint8_t)(v >= 255 ? 255 : v + 0.5f);
      }
      float alpha = 255.0f * fa;
      q[3] = (uint8_t)(alpha >= 255 ? 255 : alpha + 0.5f);
    }
  }
  return 0;
}

/* `top` over `bottom` (straight RGBA8, one size) into *out: 0, or -1 with a libvips error. */
static int over(VipsImage *bottom, VipsImage *top, VipsImage **out) {
  if (bottom->Bands != 4 || top->Bands != 4 || bottom->BandFmt != VIPS_FORMAT_UCHAR ||
      top->BandFmt != VIPS_FORMAT_UCHAR || bottom->Xsize != top->Xsize || bottom->Ysize != top->Ysize) {
    VipsImage *f = NULL;
    if (vips_composite2(bottom, top, &f, VIPS_BLEND_MODE_OVER, NULL))
      return -1;
    int failed = vips_cast(f, out, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(f);
    return failed;
  }
  VipsImage *image = vips_image_new();
  /* the array is freed with the image */
  VipsImage **both = vips_allocate_input_array(image, bottom, top, NULL);
  if (!both || vips_image_pipeline_array(image, VIPS_DEMAND_STYLE_THINSTRIP, both)) {
    g_object_unref(image);
    return -1;
  }
  /* the inputs live while the image does */
  g_object_ref(bottom);
  g_object_ref(top);
  g_signal_connect_swapped(image, "close", G_CALLBACK(g_object_unref), bottom);
  g_signal_connect_swapped(image, "close", G_CALLBACK(g_object_unref), top);
  if (vips_image_generate(image, vips_start_many, over_generate, vips_stop_many, both, NULL)) {
    g_object_unref(image);
    return -1;
  }
  *out = image;
  return 0;
}

/* The images of a page read by read_page, placed at `scale` and composited in
 * order: 1 with *out set (RGBA8), 0 when the page's geometry is not one this
 * reader follows (nothing set), -1 with a libvips error. Takes the images' data. */
static int compose_images(const char *filename, int page, TcImagePage *p, double scale, int sequential,
                          VipsImage **out) {
  double bw = p->box[2] - p->box[0], bh = p->box[3] - p->box[1];
  int turned = p->rotate == 90 || p->rotate == 270;
  double pw = 0, ph = 0;
  if (!poppler_size(filename, page, &pw, &ph) || fabs(pw - (turned ? bh : bw)) > 1e-3 ||
      fabs(ph - (turned ? bw : bh)) > 1e-3)
    return 0;
  /* rounded to nearest, as tc_pdf_open_banded and libvips' pdfload size a page */
  double width = rint(pw * scale), height = rint(ph * scale);
  if (!(width >= 1 && height >= 1 && width <= INT_MAX / 8 && height <= INT_MAX))
    return 0;
  /* user space to the page's pixels: the crop box's top-left corner (after /Rotate,
   * which turns the page clockwise) at the origin, y down, `scale` pixels a point */
  double x0 = p->box[0], y0 = p->box[1], x1 = p->box[2], y1 = p->box[3];
  TcMatrix device;
  switch (p->rotate) {
  case 90:
    device = (TcMatrix){0, 1, 1, 0, -y0, -x0};
    break;
  case 180:
    device = (TcMatrix){-1, 0, 0, 1, x1, -y0};
    break;
  case 270:
    device = (TcMatrix){0, -1, -1, 0, y1, x1};
    break;
  default:
    device = (TcMatrix){1, 0, 0, -1, -x0, y1};
  }
  device = then(device, (TcMatrix){scale, 0, 0, scale, 0, 0});
  /* every image must stand square on the page: turned by a multiple of 90° at most */
  TcMatrix placed[TC_MAX_IMAGES];
  for (int i = 0; i < p->count; i++) {
    TcPlacedImage *im = &p->images[i];
    TcMatrix pixels = {1.0 / im->width, 0, 0, -1.0 / im->height, 0, 1};
    TcMatrix t = then(then(pixels, im->place), device);
    double norm = fmax(fmax(fabs(t.a), fabs(t.b)), fmax(fabs(t.c), fabs(t.d)));
    int straight = fabs(t.b) <= 1e-9 * norm && fabs(t.c) <= 1e-9 * norm;
    int across = fabs(t.a) <= 1e-9 * norm && fabs(t.d) <= 1e-9 * norm;
    if (!(norm > 0) || !(straight || across) || fabs(t.a * t.d - t.b * t.c) < 1e-12)
      return 0;
    if (straight)
      t.b = t.c = 0;
    else
      t.a = t.d = 0;
    placed[i] = t;
  }
  VipsImage *page_image = NULL;
  for (int i = 0; i < p->count; i++) {
    VipsImage *one = NULL;
    if (place_image(&p->images[i], placed[i], (int)width, (int)height, sequential, &one)) {
      if (page_image)
        g_object_unref(page_image);
      return -1;
    }
    if (!page_image) {
      page_image = one;
      continue;
    }
    VipsImage *both = NULL;
    int failed = over(page_image, one, &both);
    g_object_unref(page_image);
    g_object_unref(one);
    if (failed)
      return -1;
    page_image = both;
  }
  *out = page_image;
  return 1;
}

int tc_pdf_open_image_page(const char *filename, int page, double scale, int sequential, VipsImage **out) {
  *out = NULL;
  if (!(scale > 0 && isfinite(scale)))
    return 0;
  TcImagePage p;
  if (!read_page(filename, page, 0, &p))
    return 0;
  int result = compose_images(filename, page, &p, scale, sequential, out);
  image_page_clear(&p);
  return result;
}

int tc_pdf_open_mixed_page(const char *filename, int page, double scale, int sequential, int band_rows,
                           uint64_t min_image_bytes, VipsImage **out) {
  *out = NULL;
  if (!(scale > 0 && isfinite(scale)) || band_rows < 1)
    return 0;
  TcImagePage p;
  if (!read_page(filename, page, 1, &p))
    return 0;
  uint64_t bytes = 0;
  for (int i = 0; i < p.count; i++)
    bytes += 4 * (uint64_t)p.images[i].width * (uint64_t)p.images[i].height;
  if (!p.rest_pdf || bytes < min_image_bytes) {
    image_page_clear(&p);
    return 0;
  }
  GBytes *rest = g_bytes_ref(p.rest_pdf);
  VipsImage *images = NULL, *vectors = NULL;
  int result = compose_images(filename, page, &p, scale, sequential, &images);
  image_page_clear(&p);
  if (result == 1 && tc_pdf_open_banded_bytes(rest, page, scale, band_rows, &vectors))
    result = -1;
  g_bytes_unref(rest);
  if (result == 1 && (vectors->Xsize != images->Xsize || vectors->Ysize != images->Ysize))
    result = 0; /* poppler sizes the page otherwise: it renders the whole page */
  /* the drawing over the images, as poppler paints it over them */
  if (result == 1 && over(images, vectors, out))
    result = -1;
  if (images)
    g_object_unref(images);
  if (vectors)
    g_object_unref(vectors);
  return result;
}
