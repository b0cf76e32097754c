#ifndef TILECUT_CHECK_H
#define TILECUT_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* What a file's header declares, read before any decoder allocates for it, and,
 * when the file is damaged, why. */
typedef struct {
  uint32_t width, height;
  /* bytes a decoder must hold for the whole image before it gives the first row
   * (a progressive JPEG's coefficients, an interlaced PNG); 0 when rows stream */
  uint64_t whole_image_bytes;
  /* what that buffer is, for the error line: "progressive JPEG", "interlaced PNG" */
  const char *whole_image_kind;
  char reason[200];
} TcFileCheck;

/* Bytes of pixel data a PNG's stream may inflate to beyond the filtered rows
 * its header declares before it is refused as damaged (libpng warns "Too much
 * image data" and drops them; a stream inflating to gigabytes would be inflated
 * to its end for nothing). */
#define TC_PNG_EXCESS_SLACK 4096u

/* A PNG's chunks, without decoding: every chunk fits in the file, every chunk
 * but IDAT has a good CRC, IEND is there. `verify_stream`: also inflate the
 * pixel data (in 64 KB pieces) and check the IDAT CRCs, that the stream holds
 * every row and no more (TC_PNG_EXCESS_SLACK), and that its Adler-32 is right. 0: sound; -1: `reason` says why. */
/* Writes the reason into out and returns -1: the one way the checks refuse a file. */
int tc_check_refuse(TcFileCheck *out, const char *format, ...);

int tc_check_png(const char *filename, int verify_stream, TcFileCheck *out);
/* The same checks of a PNG held in memory (a KMZ's entry). */
int tc_check_png_buffer(const void *data, size_t length, int verify_stream, TcFileCheck *out);

/* A JPEG's markers up to its first scan: the frame's size and components, and
 * what a progressive or multi-scan decoder holds for it. 0 or -1 as above. */
int tc_check_jpeg(const char *filename, TcFileCheck *out);

/* A GIF's blocks to its trailer, each frame's LZW data decoded counting pixels
 * (no pixel buffer; time follows the file's size): a frame holding fewer pixels
 * than it declares, a code outside the table or a file ending before its trailer
 * is refused. whole_image_bytes: the logical screen or the largest frame, 4 bytes
 * a pixel, which libvips' loader holds whole. 0 or -1 as above; a buffer (an
 * image embedded in an SVG) or a file. */
int tc_check_gif(const char *filename, TcFileCheck *out);
int tc_check_gif_buffer(const void *data, size_t length, TcFileCheck *out);

/* A TIFF page's strips or tiles lie inside the file, and each Deflate one
 * inflates to its end with a good Adler-32 (libtiff stops when it has the rows
 * it wants and never reaches the checksum). 0 or -1 as above. */
int tc_check_tiff(const char *filename, int page, TcFileCheck *out);

/* The deepest nesting of q (save graphics state) over a PDF's content streams
 * (unfiltered or Flate), read in file order, inflating at most `max_inflated`
 * bytes; -1 when the file cannot be read. poppler copies its whole graphics
 * state for each q: a million of them take gigabytes (or end in bad_alloc).
 * The fallback, with tc_pdf_check_jpegs, for a file qpdf cannot read: every other
 * PDF is read page by page, whatever its filters, by tc_pdf_scan (TilecutPDFScan.h). */
long tc_pdf_q_depth(const char *filename, uint64_t max_inflated);

/* Every image in a PDF whose only filter is DCTDecode (a scan, as img2pdf and
 * scanners write them) decoded by libjpeg without a warning (TilecutJPEGScan.h):
 * poppler would draw a damaged one with its damage. 0, or -1 with `reason`. */
int tc_pdf_check_jpegs(const char *filename, char *reason, size_t reason_size);

#endif
