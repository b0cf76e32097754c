#include "TilecutJPEGScan.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <jpeglib.h>

/* Why this file exists: libvips' jpegload with fail_on=warning fails only on a
 * warning libjpeg gives before the last strip it reads; a warning in the last
 * rows ("premature end of data segment" after one flipped bit) or at the end of
 * the scan ("extraneous bytes before marker") lets the damaged image through.
 * Here libjpeg decodes the whole entropy-coded scan at 1/8 scale (DC only: no
 * full IDCT, one row of 1/8 width in memory), and its first warning stops it. */

typedef struct {
  struct jpeg_error_mgr pub;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
} TcScanErrors;

static void scan_error_exit(j_common_ptr cinfo) {
  TcScanErrors *e = (TcScanErrors *)cinfo->err;
  (*cinfo->err->format_message)(cinfo, e->message);
  longjmp(e->jump, 1);
}

static void scan_emit_message(j_common_ptr cinfo, int level) {
  if (level >= 0)
    return; /* trace messages */
  TcScanErrors *e = (TcScanErrors *)cinfo->err;
  (*cinfo->err->format_message)(cinfo, e->message);
  longjmp(e->jump, 1);
}

static void scan_output_message(j_common_ptr cinfo) { (void)cinfo; }

static int verify(FILE *file, const void *data, size_t length, char *reason, size_t reason_size) {
  struct jpeg_decompress_struct cinfo;
  TcScanErrors errors;
  memset(&cinfo, 0, sizeof cinfo);
  memset(&errors, 0, sizeof errors);
  cinfo.err = jpeg_std_error(&errors.pub);
  errors.pub.error_exit = scan_error_exit;
  errors.pub.emit_message = scan_emit_message;
  errors.pub.output_message = scan_output_message;
  /* volatile: read after longjmp */
  JSAMPARRAY volatile rows = NULL;
  if (setjmp(errors.jump)) {
    snprintf(reason, reason_size, "%s", errors.message);
    jpeg_destroy_decompress(&cinfo);
    return -1;
  }
  jpeg_create_decompress(&cinfo);
  if (file)
    jpeg_stdio_src(&cinfo, file);
  else
    jpeg_mem_src(&cinfo, (const unsigned char *)data, (unsigned long)length);
  jpeg_read_header(&cinfo, TRUE);
  cinfo.scale_num = 1;
  cinfo.scale_denom = 8;
  cinfo.dct_method = JDCT_IFAST;
  cinfo.do_fancy_upsampling = FALSE;
  cinfo.do_block_smoothing = FALSE;
  cinfo.buffered_image = FALSE;
  jpeg_start_decompress(&cinfo);
  rows = (*cinfo.mem->alloc_sarray)((j_common_ptr)&cinfo, JPOOL_IMAGE,
                                     cinfo.output_width * (JDIMENSION)cinfo.output_components,
                                     (JDIMENSION)cinfo.rec_outbuf_height);
  while (cinfo.output_scanline < cinfo.output_height)
    jpeg_read_scanlines(&cinfo, rows, (JDIMENSION)cinfo.rec_outbuf_height);
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return 0;
}

int tc_verify_jpeg_file(const char *filename, char *reason, size_t reason_size) {
  FILE *f = fopen(filename, "rbe");
  if (!f) {
    snprintf(reason, reason_size, "cannot be read (%s)", strerror(errno));
    return -1;
  }
  int r = verify(f, NULL, 0, reason, reason_size);
  fclose(f);
  return r;
}

int tc_verify_jpeg_buffer(const void *data, size_t length, char *reason, size_t reason_size) {
  return verify(NULL, data, length, reason, reason_size);
}
