#include "TilecutJPEGScan.h"
#include "CVipsShim.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <jpeglib.h>
#include <jerror.h>
#include <vips/vips.h>

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

/* A decompressor (zeroed) whose first warning or error longjmps to errors->jump
 * (the caller's setjmp, left as it is) with libjpeg's words in errors->message. */
static void stop_at_first_warning(struct jpeg_decompress_struct *cinfo, TcScanErrors *errors) {
  memset(cinfo, 0, sizeof *cinfo);
  errors->message[0] = 0;
  cinfo->err = jpeg_std_error(&errors->pub);
  errors->pub.error_exit = scan_error_exit;
  errors->pub.emit_message = scan_emit_message;
  errors->pub.output_message = scan_output_message;
}

static int verify(FILE *file, const void *data, size_t length, char *reason, size_t reason_size) {
  struct jpeg_decompress_struct cinfo;
  TcScanErrors errors;
  stop_at_first_warning(&cinfo, &errors);
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

/* The SHA-256 of every buffer that decoded without a warning: a PDF's DCT image is
 * checked by the pre-scan and again when a level reads it, and is decoded once. */
static GMutex verified_lock;
static guint8 (*verified_digests)[32];
static size_t verified_count, verified_capacity;

static int digest_known(const guint8 digest[32]) {
  for (size_t i = 0; i < verified_count; i++)
    if (!memcmp(verified_digests[i], digest, 32))
      return 1;
  return 0;
}

int tc_verify_jpeg_buffer(const void *data, size_t length, char *reason, size_t reason_size) {
  guint8 digest[32];
  gsize digest_length = sizeof digest;
  GChecksum *checksum = g_checksum_new(G_CHECKSUM_SHA256);
  g_checksum_update(checksum, data, (gssize)length);
  g_checksum_get_digest(checksum, digest, &digest_length);
  g_checksum_free(checksum);
  g_mutex_lock(&verified_lock);
  int known = digest_known(digest);
  g_mutex_unlock(&verified_lock);
  if (known)
    return 0;
  int result = verify(NULL, data, length, reason, reason_size);
  if (result == 0) {
    g_mutex_lock(&verified_lock);
    if (!digest_known(digest)) {
      if (verified_count == verified_capacity) {
        size_t capacity = verified_capacity ? 2 * verified_capacity : 16;
        guint8(*grown)[32] = realloc(verified_digests, capacity * sizeof *grown);
        if (grown) {
          verified_digests = grown;
          verified_capacity = capacity;
        }
      }
      if (verified_count < verified_capacity)
        memcpy(verified_digests[verified_count++], digest, 32);
    }
    g_mutex_unlock(&verified_lock);
  }
  return result;
}

/* ---- tilecut's JPEG reader: the pixels, checked as they are decoded ---- */

/* A libvips image whose rows libjpeg decodes in order as they are asked for, with
 * the same settings as libvips' jpegload (islow DCT, fancy upsampling), so the
 * pixels are jpegload's followed by tc_to_srgba. Every warning libjpeg gives, to
 * the end of the scan (jpeg_finish_decompress reads to EOI), fails the read:
 * the damage is found by the decode that tiles the file, not by a second decode
 * before it. */
typedef struct {
  GMutex lock;
  char *filename;
  FILE *file;
  struct jpeg_decompress_struct cinfo;
  TcScanErrors errors;
  int started;
  int failed;
  uint32_t width, height, next_row;
  int components;
  JSAMPLE *line;
} TcJpegReader;

/* The JPEGs this reader takes: 8-bit greyscale, or three components libjpeg turns
 * into RGB (YCbCr, or RGB itself); CMYK and YCCK go to libvips, which converts them
 * through a profile. */
static int reader_takes(const struct jpeg_decompress_struct *cinfo) {
  if (cinfo->data_precision != 8)
    return 0;
  if (cinfo->num_components == 1)
    return cinfo->jpeg_color_space == JCS_GRAYSCALE;
  if (cinfo->num_components == 3)
    return cinfo->jpeg_color_space == JCS_YCbCr || cinfo->jpeg_color_space == JCS_RGB;
  return 0;
}

static void reader_stop(TcJpegReader *r) {
  if (r->started)
    jpeg_destroy_decompress(&r->cinfo);
  r->started = 0;
  if (r->file)
    fclose(r->file);
  r->file = NULL;
}

/* Opens the file and starts libjpeg on it: 0, or -1 with libvips' error set. Only
 * called inside a setjmp on r->errors.jump. */
static int reader_start(TcJpegReader *r) {
  reader_stop(r);
  r->file = fopen(r->filename, "rbe");
  if (!r->file) {
    vips_error("jpegload", "cannot open the file again");
    return -1;
  }
  stop_at_first_warning(&r->cinfo, &r->errors);
  jpeg_create_decompress(&r->cinfo);
  r->started = 1;
  jpeg_stdio_src(&r->cinfo, r->file);
  jpeg_read_header(&r->cinfo, TRUE);
  if (!reader_takes(&r->cinfo) || r->cinfo.image_width != r->width || r->cinfo.image_height != r->height) {
    vips_error("jpegload", "the file changed while it was read");
    return -1;
  }
  /* libjpeg-turbo writes RGBA itself (alpha 255), straight into libvips' region */
  r->cinfo.out_color_space = r->components == 1 ? JCS_GRAYSCALE : JCS_EXT_RGBA;
  r->cinfo.dct_method = JDCT_ISLOW;
  r->cinfo.do_fancy_upsampling = TRUE;
  jpeg_start_decompress(&r->cinfo);
  r->next_row = 0;
  return 0;
}

/* The files the reader decoded to their end without a warning, by device, inode,
 * size and modification time: a job that read only some rows of a file (a crop, a
 * level that ends above its last rows) has it scanned before it publishes. */
typedef struct {
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec modified;
} TcFileVersion;

static GMutex finished_lock;
static TcFileVersion *finished_files;
static size_t finished_count, finished_capacity;

static int same_version(const TcFileVersion *a, const struct stat *st) {
  return a->dev == st->st_dev && a->ino == st->st_ino && a->size == st->st_size &&
         a->modified.tv_sec == st->st_mtim.tv_sec && a->modified.tv_nsec == st->st_mtim.tv_nsec;
}

static void record_finished(FILE *file) {
  struct stat st;
  if (!file || fstat(fileno(file), &st))
    return;
  g_mutex_lock(&finished_lock);
  int known = 0;
  for (size_t i = 0; i < finished_count && !known; i++)
    known = same_version(&finished_files[i], &st);
  if (!known && finished_count == finished_capacity) {
    size_t capacity = finished_capacity ? 2 * finished_capacity : 16;
    TcFileVersion *grown = realloc(finished_files, capacity * sizeof *grown);
    if (grown) {
      finished_files = grown;
      finished_capacity = capacity;
    }
  }
  if (!known && finished_count < finished_capacity)
    finished_files[finished_count++] = (TcFileVersion){st.st_dev, st.st_ino, st.st_size, st.st_mtim};
  g_mutex_unlock(&finished_lock);
}

int tc_jpeg_read_whole(const char *filename) {
  struct stat st;
  if (stat(filename, &st))
    return 0;
  g_mutex_lock(&finished_lock);
  int found = 0;
  for (size_t i = 0; i < finished_count && !found; i++)
    found = same_version(&finished_files[i], &st);
  g_mutex_unlock(&finished_lock);
  return found;
}

static void reader_free(TcJpegReader *r) {
  if (!r)
    return;
  reader_stop(r);
  free(r->filename);
  free(r->line);
  g_mutex_clear(&r->lock);
  free(r);
}

/* The row r->next_row into `into` (r->line when NULL); at the last row the rest of
 * the file is read to its end marker, so that damage after the last row fails too.
 * Only called inside a setjmp on r->errors.jump. */
static void reader_next_row(TcJpegReader *r, JSAMPLE *into) {
  JSAMPROW row = into ? into : r->line;
  if (jpeg_read_scanlines(&r->cinfo, &row, 1) != 1)
    ERREXIT(&r->cinfo, JERR_BAD_STATE);
  r->next_row++;
  if (r->next_row == r->height) {
    jpeg_finish_decompress(&r->cinfo);
    record_finished(r->file);
  }
}

/* r->line's pixels `left` to `left + width` as RGBA */
static void reader_expand(const TcJpegReader *r, int left, int width, VipsPel *out) {
  if (r->components == 1) {
    const JSAMPLE *in = r->line + left;
    for (int x = 0; x < width; x++, out += 4) {
      out[0] = out[1] = out[2] = in[x];
      out[3] = 255;
    }
  } else {
    memcpy(out, r->line + 4 * (size_t)left, 4 * (size_t)width);
  }
}

static int reader_generate(VipsRegion *region, void *seq, void *a, void *b, gboolean *stop) {
  (void)seq;
  (void)b;
  (void)stop;
  TcJpegReader *r = a;
  VipsRect *want = &region->valid;
  int result = -1;
  g_mutex_lock(&r->lock);
  if (r->failed) {
    vips_error("libjpeg", "%s", r->errors.message);
    goto done;
  }
  if (setjmp(r->errors.jump)) {
    r->failed = 1;
    reader_stop(r);
    vips_error("libjpeg", "%s", r->errors.message);
    goto done;
  }
  if (!r->started || (uint32_t)want->top < r->next_row) {
    if (reader_start(r))
      goto done;
  }
  while (r->next_row < (uint32_t)want->top)
    reader_next_row(r, NULL);
  /* whole RGBA rows are decoded in place */
  int direct = r->components == 3 && want->left == 0 && (uint32_t)want->width == r->width;
  for (int y = 0; y < want->height; y++) {
    VipsPel *out = VIPS_REGION_ADDR(region, want->left, want->top + y);
    reader_next_row(r, direct ? out : NULL);
    if (!direct)
      reader_expand(r, want->left, want->width, out);
  }
  if (r->next_row == r->height)
    reader_stop(r);
  result = 0;
done:
  g_mutex_unlock(&r->lock);
  return result;
}

/* The header of a file this reader takes: 1 with its size and components, else 0. */
static int reader_header(const char *filename, uint32_t *width, uint32_t *height, int *components) {
  FILE *f = fopen(filename, "rbe");
  if (!f)
    return 0;
  struct jpeg_decompress_struct cinfo;
  TcScanErrors errors;
  stop_at_first_warning(&cinfo, &errors);
  if (setjmp(errors.jump)) {
    jpeg_destroy_decompress(&cinfo);
    fclose(f);
    return 0;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_stdio_src(&cinfo, f);
  jpeg_read_header(&cinfo, TRUE);
  int takes = reader_takes(&cinfo) && cinfo.image_width > 0 && cinfo.image_height > 0;
  *width = cinfo.image_width;
  *height = cinfo.image_height;
  *components = cinfo.num_components;
  jpeg_destroy_decompress(&cinfo);
  fclose(f);
  return takes;
}

int tc_jpeg_reads(const char *filename) {
  uint32_t width, height;
  int components;
  return reader_header(filename, &width, &height, &components);
}

int tc_jpeg_open(const char *filename, VipsImage **out) {
  uint32_t width, height;
  int components;
  if (!reader_header(filename, &width, &height, &components))
    return 0;
  TcJpegReader *r = calloc(1, sizeof *r);
  if (!r)
    return 0;
  g_mutex_init(&r->lock);
  r->filename = strdup(filename);
  r->width = width;
  r->height = height;
  r->components = components;
  r->line = malloc((size_t)width * (components == 1 ? 1 : 4));
  if (!r->filename || !r->line) {
    reader_free(r);
    return 0;
  }
  VipsImage *image = tc_rows_image((int)width, (int)height, reader_generate, r, (void (*)(void *))reader_free);
  if (!image)
    return 0;
  *out = image;
  return 1;
}
