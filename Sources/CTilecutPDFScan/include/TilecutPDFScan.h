#ifndef TILECUT_PDF_SCAN_H
#define TILECUT_PDF_SCAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What poppler would be asked to hold for a PDF, read page by page through qpdf
 * (which decodes every standard filter, reads object streams and opens a file
 * encrypted with an empty user password), before poppler sees the file. */
typedef struct {
  /* the deepest nesting of q (save graphics state) on a page, its forms, tiling
   * patterns, Type 3 glyphs and annotation appearances counted on top of the
   * content that draws them, and the page it is on (from 0) */
  long q_depth;
  int q_page;
  /* 1: a page's content streams (with its forms') decode to more than `max_decoded` bytes */
  int over_decoded;
  int decoded_page;
  /* the largest image a page draws (an XObject, in a form or inline) by what it
   * declares, and what poppler holds decoded for it (4 bytes a pixel); a JPEG whose
   * whole scan decodes is what it holds, not a declaration, and is left out, but a
   * progressive one counts its coefficients */
  uint32_t image_width, image_height;
  uint64_t image_bytes;
  int image_page;
  /* 1: that image is a progressive JPEG (its bytes are its coefficients) */
  int image_progressive;
  /* a content stream in a filter qpdf cannot decode (CCITT, JBIG2, JPX, a crypt
   * filter), which poppler would still read: its first filter's name, and the page */
  char undecodable[40];
  int undecodable_page;
  /* 1: drawing a page would take poppler as long as walking more than
   * `max_walked` bytes of content: its content, with its forms, images,
   * shadings and tiling patterns' cells counted each time they are drawn (an
   * image's pixels, a mesh's vertices as the bytes of content they take as long
   * as): how much (at least), and the page */
  int over_walked;
  int walked_page;
  uint64_t walked_bytes;
  /* something a page uses that poppler holds whole, past `max_image_bytes`: a
   * mesh shading's vertices or patches, a sampled function's samples, a
   * resource stream (a font, an ICC profile) that decodes past the bound, a
   * JBIG2 image's declared bitmaps, the rows /DecodeParms /Columns asks for.
   * What it is ("has a type 4 mesh shading (object 5) of … vertices, which
   * poppler holds as 2013 MB"), its page and size; empty when none */
  char held[240];
  int held_page;
  uint64_t held_bytes;
  /* a JPEG image that libjpeg warns about: why, and its page; empty when none */
  char jpeg_reason[200];
  int jpeg_page;
  /* an image or content stream whose data is damaged, which poppler would draw
   * half decoded or padded without a word: "image (object 12) is damaged: its
   * Flate data ends early", and its page; empty when none */
  char damaged[240];
  int damaged_page;
} TcPDFScan;

/* Reads every page of `filename` with qpdf and stops at the first page over a
 * bound: q nesting deeper than `max_depth`, content decoding to more than
 * `max_decoded` bytes (or, its forms counted as often as they are drawn, to
 * more than `max_walked`), an
 * image or anything else poppler would hold whole needing more than
 * `max_image_bytes`, content in
 * a filter qpdf cannot decode, or (when `check_jpegs`) a damaged JPEG, a damaged
 * image (Flate data cut short or failing its checksum, data shorter than its
 * dictionary says, a JPEG 2000 codestream cut short or of another size) or
 * damaged content. 0 when
 * the file was read (the fields say what was found); 1 when qpdf cannot read it
 * (poppler may still repair it: the caller falls back to reading the file's
 * bytes in order). Never throws, never prints. */
int tc_pdf_scan(const char *filename, uint64_t max_decoded, uint64_t max_walked, long max_depth,
                uint64_t max_image_bytes, int check_jpegs, TcPDFScan *out);

/* A drawing scale a page states in its viewports (ISO 32000 `/VP`, a `/Measure` of
 * `/Subtype /RL`, as AutoCAD's plots write it): not georeferencing, but how many of a
 * ground unit one point of the page is. */
typedef struct {
  /* viewports on the page with an /RL measure, and how many of them give another
   * scale than the first (or another along y than along x) */
  int viewports;
  int disagreeing;
  /* the first one's /X number format: units per point (/C) and the unit (/U, as
   * written, e.g. "ft", "m", or blank) */
  double units_per_point;
  char unit[32];
  /* its /R, the scale as written ("1 in = 10 ft"), may be empty */
  char ratio[96];
  /* its /BBox in default user space (points): x0, y0, x1, y1 */
  double bbox[4];
} TcPDFMeasure;

/* Reads page `page` (from 0) of `filename` with qpdf for its /RL viewports. 0 when
 * read (`viewports` may be 0), 1 when qpdf cannot read the file or there is no such
 * page. Never throws, never prints. */
int tc_pdf_measure(const char *filename, int page, TcPDFMeasure *out);

#ifdef __cplusplus
}
#endif

#endif
