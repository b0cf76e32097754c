#include "TilecutDXF.h"
#include "TilecutBands.h"
#include <vips/vips.h>
#include "TilecutDrawing.h"
#include "TilecutDXFWipeout.h"
#include "TilecutGDAL.h"

#include <cairo.h>
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A drawing's display list, shared by the readers of one run: the header's measure and
 * each zoom's render read the same file, and GDAL parses it once. An entry is the file
 * (device, inode, size, modification time), its layers and its bounds; `users` images
 * draw from it. An entry no image uses is kept for the next reader until another file
 * is read (at most one such entry is held) or tc_dxf_forget. */
typedef struct TcDrawingEntry {
  struct TcDrawingEntry *next;
  char *path, *layers;
  int dwg, shared;
  size_t max_bytes, max_text;
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime;
  int users;
  tc_drawing drawing;
} TcDrawingEntry;

static pthread_mutex_t entries_lock = PTHREAD_MUTEX_INITIALIZER;
static TcDrawingEntry *entries;

static void entry_free(TcDrawingEntry *e) {
  tc_drawing_free(&e->drawing);
  free(e->path);
  free(e->layers);
  free(e);
}

static int same_text(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

static int entry_matches(const TcDrawingEntry *e, const char *path, int dwg, const char *layers, size_t max_bytes, size_t max_text,
                         const struct stat *st) {
  return e->dwg == dwg && e->max_bytes == max_bytes && e->max_text == max_text && e->dev == st->st_dev && e->ino == st->st_ino &&
         e->size == st->st_size && e->mtime.tv_sec == st->st_mtim.tv_sec && e->mtime.tv_nsec == st->st_mtim.tv_nsec &&
         strcmp(e->path, path) == 0 && same_text(e->layers, layers);
}

/* Frees the entries no image uses, but `keep`; the lock is held. */
static void drop_unused(const TcDrawingEntry *keep, const char *path) {
  for (TcDrawingEntry **at = &entries; *at;) {
    TcDrawingEntry *e = *at;
    if (e != keep && e->users == 0 && (!path || strcmp(e->path, path) == 0)) {
      *at = e->next;
      entry_free(e);
    } else {
      at = &e->next;
    }
  }
}

static void wait_read_ahead(const char *path, int dwg, const char *layers, size_t max_bytes, size_t max_text);

/* drawing_acquire, without waiting for a read ahead (the read ahead's own). */
static int drawing_acquire_now(const char *path, int dwg, const char *layers, size_t max_bytes, size_t max_text,
                               TcDrawingEntry **out, char **error);

/* The display list of `path` as tc_drawing_read reads it, from the entries or read now;
 * when tc_dxf_read_ahead is reading the same, once it is done (its entry, or a read of
 * its own when it failed). 0 and *out (release it with drawing_release); else
 * tc_drawing_read's status and *error (to free(), may be NULL). */
static int drawing_acquire(const char *path, int dwg, const char *layers, size_t max_bytes, size_t max_text, TcDrawingEntry **out,
                           char **error) {
  wait_read_ahead(path, dwg, layers, max_bytes, max_text);
  return drawing_acquire_now(path, dwg, layers, max_bytes, max_text, out, error);
}

static int drawing_acquire_now(const char *path, int dwg, const char *layers, size_t max_bytes, size_t max_text,
                               TcDrawingEntry **out, char **error) {
  *out = NULL;
  *error = NULL;
  struct stat st;
  int known = stat(path, &st) == 0;
  if (known) {
    pthread_mutex_lock(&entries_lock);
    for (TcDrawingEntry *e = entries; e; e = e->next) {
      if (entry_matches(e, path, dwg, layers, max_bytes, max_text, &st)) {
        e->users++;
        pthread_mutex_unlock(&entries_lock);
        *out = e;
        return 0;
      }
    }
    pthread_mutex_unlock(&entries_lock);
  }
  TcDrawingEntry *e = calloc(1, sizeof *e);
  if (!e) {
    *error = strdup("out of memory");
    return 1;
  }
  /* read without the lock: another floor's drawing may be read meanwhile */
  int status = tc_drawing_read(path, dwg, layers, max_bytes, max_text, &e->drawing);
  if (status) {
    *error = e->drawing.error ? strdup(e->drawing.error) : NULL;
    entry_free(e);
    return status;
  }
  e->users = 1;
  e->dwg = dwg;
  e->max_bytes = max_bytes;
  e->max_text = max_text;
  e->path = strdup(path);
  e->layers = layers ? strdup(layers) : NULL;
  if (known && e->path && (!layers || e->layers)) {
    e->dev = st.st_dev;
    e->ino = st.st_ino;
    e->size = st.st_size;
    e->mtime = st.st_mtim;
    e->shared = 1;
    pthread_mutex_lock(&entries_lock);
    drop_unused(NULL, NULL);
    e->next = entries;
    entries = e;
    pthread_mutex_unlock(&entries_lock);
  }
  *out = e;
  return 0;
}

static void drawing_release(TcDrawingEntry *e) {
  if (!e)
    return;
  if (!e->shared) {
    entry_free(e);
    return;
  }
  pthread_mutex_lock(&entries_lock);
  e->users--;
  pthread_mutex_unlock(&entries_lock);
}

void tc_dxf_forget(const char *path) {
  pthread_mutex_lock(&entries_lock);
  drop_unused(NULL, path);
  pthread_mutex_unlock(&entries_lock);
}

/* A drawing read into its display list, and where it lands in the image. */
typedef struct {
  TcDrawingEntry *entry;
  /* drawing point → image pixel, and back */
  cairo_matrix_t to_pixel, to_drawing;
  /* image pixels a drawing unit (the map's scale, √|det|), and a millimetre of lineweight */
  double k, px_per_mm;
  /* texts are drawn at least this many pixels high (0: as the drawing has them) */
  double min_text_px;
  /* the frame's outline in image pixels, drawn within (clip_points 0: not clipped) */
  double clip[8];
  int clip_points;
} TcDxf;

static void dxf_free(void *p) {
  TcDxf *s = p;
  if (!s)
    return;
  drawing_release(s->entry);
  free(s);
}

static void source(cairo_t *cr, const uint8_t rgba[4]) {
  cairo_set_source_rgba(cr, rgba[0] / 255.0, rgba[1] / 255.0, rgba[2] / 255.0, rgba[3] / 255.0);
}

/* Calls `line` for each line of `text` as drawn: its '\n' breaks, and, with a
 * `limit` (user-space width, 0 for none), breaks between words so that no line
 * is wider (an MTEXT's column width); a word wider than the limit is a line. The
 * number of lines. */
static int each_line(cairo_t *cr, const char *text, double limit, void (*line)(cairo_t *, const char *, int, void *),
                     void *ctx) {
  char buffer[4096];
  int count = 0;
  const char *p = text;
  for (;;) {
    const char *end = strchr(p, '\n');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    size_t start = 0;
    do {
      /* the longest run of words from `start` that fits */
      size_t take = n - start;
      if (limit > 0) {
        size_t best = 0;
        for (size_t k = start; k <= n; k++) {
          if (k == n || p[k] == ' ') {
            size_t length = k - start < sizeof buffer - 1 ? k - start : sizeof buffer - 1;
            memcpy(buffer, p + start, length);
            buffer[length] = 0;
            cairo_text_extents_t e;
            cairo_text_extents(cr, buffer, &e);
            if (e.x_advance > limit && best > 0)
              break;
            best = k - start;
            if (e.x_advance > limit)
              break;
          }
        }
        take = best > 0 ? best : n - start;
      }
      size_t kept = take < sizeof buffer - 1 ? take : sizeof buffer - 1;
      /* never cut a UTF-8 sequence */
      while (kept > 0 && kept < take && ((unsigned char)p[start + kept] & 0xC0) == 0x80)
        kept--;
      memcpy(buffer, p + start, kept);
      buffer[kept] = 0;
      if (line)
        line(cr, buffer, count, ctx);
      count++;
      start += take;
      while (start < n && p[start] == ' ')
        start++;
    } while (start < n);
    if (!end)
      break;
    p = end + 1;
  }
  return count;
}

/* Where each line of a text goes: its column (0 left, 1 centre, 2 right), the
 * first baseline and the spacing, in the text's own space. */
typedef struct {
  int column;
  double first, spacing;
  /* the ink's box in device space (min x, min y, max x, max y), when measured */
  double box[4];
} TcTextLayout;

static void draw_line(cairo_t *cr, const char *line, int index, void *ctx) {
  const TcTextLayout *layout = ctx;
  cairo_text_extents_t extents;
  cairo_text_extents(cr, line, &extents);
  cairo_move_to(cr, -layout->column * extents.x_advance / 2, layout->first + index * layout->spacing);
  cairo_show_text(cr, line);
}

/* Adds a line's ink box (its glyphs' extents, not its advance), turned as drawn, to the layout's box. */
static void measure_line(cairo_t *cr, const char *line, int index, void *ctx) {
  TcTextLayout *layout = ctx;
  cairo_text_extents_t e;
  cairo_text_extents(cr, line, &e);
  if (!(e.width > 0 || e.height > 0))
    return;
  double x = -layout->column * e.x_advance / 2 + e.x_bearing, y = layout->first + index * layout->spacing + e.y_bearing;
  double corners[4][2] = {{x, y}, {x + e.width, y}, {x, y + e.height}, {x + e.width, y + e.height}};
  for (int c = 0; c < 4; c++) {
    cairo_user_to_device(cr, &corners[c][0], &corners[c][1]);
    layout->box[0] = fmin(layout->box[0], corners[c][0]);
    layout->box[1] = fmin(layout->box[1], corners[c][1]);
    layout->box[2] = fmax(layout->box[2], corners[c][0]);
    layout->box[3] = fmax(layout->box[3], corners[c][1]);
  }
}

/* An MTEXT's lines flowing through its columns, as ezdxf's layout engine places
 * them: each paragraph wrapped to the column width, line after line into the current
 * column while the column's height holds it (the rest of the paragraph goes on at
 * the top of the next), a column break ('\f', MTEXT's \N) starting the next column;
 * columns past those the text lists are as high as its last. Positions in the
 * text's own space from the layout's top left; `mode` 1 draws each line at (left,
 * first_top) + its place, 2 measures its ink there, 0 finds only the layout's size. */
typedef struct {
  double width, gutter, cap, lead;
  const double *heights; /* text-space heights, negative: as high as the text needs */
  int listed;
  int align;      /* 0 left, 1 centre, 2 right: each line in its column */
  int column;     /* the current column */
  double limit;   /* its height, negative for none */
  double top;     /* where its next paragraph starts */
  double used;    /* its height used before the current paragraph (ezdxf's used content height) */
  double taken;   /* the current paragraph's lines in it, their leading */
  int lines;      /* and their count */
  int empty;      /* the current paragraph is empty: one line's height, never split */
  double tallest; /* the columns' heights so far */
  double left, first_top;
  int mode; /* 0 size only, 1 draw, 2 measure */
  double box[4];
} TcColumnFlow;

/* The most columns one text flows into: an overfull text stops moving on and overflows its last. */
#define TC_TEXT_MAX_COLUMNS 100

static double column_limit(const TcColumnFlow *f, int column) {
  return f->listed > 0 ? f->heights[column < f->listed ? column : f->listed - 1] : -1;
}

/* The height the current column takes in the layout. */
static double column_height(const TcColumnFlow *f) {
  if (f->limit >= 0)
    return f->limit;
  return f->lines > 0 ? f->top + (f->lines - 1) * f->lead + f->cap : f->used;
}

static void next_column(TcColumnFlow *f) {
  f->tallest = fmax(f->tallest, column_height(f));
  f->column++;
  f->limit = column_limit(f, f->column);
  f->top = f->used = f->taken = 0;
  f->lines = 0;
}

static void flow_line(cairo_t *cr, const char *line, int index, void *ctx) {
  TcColumnFlow *f = ctx;
  (void)index;
  while (!f->empty && f->limit >= 0 && f->taken + f->cap > f->limit - f->used + 1e-9 && f->column < TC_TEXT_MAX_COLUMNS - 1) {
    next_column(f);
  }
  double top = f->top + f->taken, baseline = top + f->cap;
  f->taken += f->lead;
  f->lines++;
  if (f->mode == 0 || !*line)
    return;
  cairo_text_extents_t e;
  cairo_text_extents(cr, line, &e);
  double x = f->left + f->column * (f->width + f->gutter) + f->align * (f->width - e.x_advance) / 2;
  double y = f->first_top + baseline;
  if (f->mode == 1) {
    cairo_move_to(cr, x, y);
    cairo_show_text(cr, line);
    return;
  }
  if (!(e.width > 0 || e.height > 0))
    return;
  x += e.x_bearing;
  y += e.y_bearing;
  double corners[4][2] = {{x, y}, {x + e.width, y}, {x, y + e.height}, {x + e.width, y + e.height}};
  for (int c = 0; c < 4; c++) {
    cairo_user_to_device(cr, &corners[c][0], &corners[c][1]);
    f->box[0] = fmin(f->box[0], corners[c][0]);
    f->box[1] = fmin(f->box[1], corners[c][1]);
    f->box[2] = fmax(f->box[2], corners[c][0]);
    f->box[3] = fmax(f->box[3], corners[c][1]);
  }
}

/* Flows `text` (paragraphs split by '\n', columns by '\f'; it is cut and mended in
 * place) through the columns; the layout's width and height. */
static void flow_columns(cairo_t *cr, char *text, TcColumnFlow *f, double *width, double *height) {
  f->column = 0;
  f->limit = column_limit(f, 0);
  f->top = f->used = f->taken = f->tallest = 0;
  f->lines = 0;
  char *p = text;
  for (;;) {
    size_t n = strcspn(p, "\n\f");
    char end = p[n];
    /* a last paragraph with nothing in it is none */
    if (n > 0 || end) {
      p[n] = 0;
      f->empty = n == 0;
      f->taken = 0;
      f->lines = 0;
      each_line(cr, p, f->width, flow_line, f);
      p[n] = end;
      /* the paragraph's lines and the spacing after them */
      if (f->lines > 0) {
        f->used = f->top + (f->lines - 1) * f->lead + f->cap;
        f->top += f->lines * f->lead;
      }
      f->lines = 0;
      f->taken = 0;
    }
    if (end == '\f' && f->column < TC_TEXT_MAX_COLUMNS - 1)
      next_column(f);
    if (!end)
      break;
    p += n + 1;
  }
  f->tallest = fmax(f->tallest, column_height(f));
  int columns = f->column + 1 > f->listed ? f->column + 1 : f->listed;
  for (int c = f->column + 1; c < f->listed; c++)
    f->tallest = fmax(f->tallest, f->heights[c]);
  *width = columns * f->width + (columns - 1) * f->gutter;
  *height = f->tallest;
}

/* How many times its size a text may be drawn to reach the minimum height. */
#define TC_TEXT_MAX_GROWTH 3

/* An MTEXT with columns, in its text space (the anchor at the origin, `scale` device
 * pixels a drawing unit, `height` its capital letters' height there, `width` a
 * column's width): the layout placed by its anchor as ezdxf places it, each line
 * drawn, or with a `box` its ink measured into it. */
static void place_columns(const tc_drawing *d, cairo_t *cr, const tc_drawing_item *item, double scale, double height,
                          double width, double *box) {
  double heights[255];
  int listed = item->column_count;
  for (int c = 0; c < listed; c++) {
    double h = d->column_heights[item->column_first + (uint32_t)c];
    heights[c] = h < 0 ? -1 : h * scale;
  }
  char *text = strdup(d->text + item->text_offset);
  if (!text)
    return;
  int anchor = item->anchor;
  double spacing = item->line_spacing > 0 ? item->line_spacing : 1;
  TcColumnFlow f = {.width = width, .gutter = item->gutter * scale / fabs(item->stretch), .cap = height,
                    .lead = height * 5.0 / 3.0 * spacing, .heights = heights, .listed = listed,
                    .align = anchor >= 10 ? anchor - 10 : (anchor - 1) % 3,
                    .box = {INFINITY, INFINITY, -INFINITY, -INFINITY}};
  double layout_width, layout_height;
  flow_columns(cr, text, &f, &layout_width, &layout_height);
  /* the layout's top left from its anchor: OGR's 7-9 its top, 4-6 its middle, else its bottom */
  f.left = -f.align * layout_width / 2;
  f.first_top = anchor >= 7 && anchor <= 9 ? 0 : anchor >= 4 && anchor <= 6 ? -layout_height / 2 : -layout_height;
  f.mode = box ? 2 : 1;
  if (!box)
    source(cr, item->rgba);
  flow_columns(cr, text, &f, &layout_width, &layout_height);
  if (box)
    memcpy(box, f.box, sizeof f.box);
  free(text);
}

/* An MTEXT's raw content (item->rich), its inline codes read and its runs laid out as
 * ezdxf's MTEXT renderer (its text layout engine) lays them out: words, spaces and
 * stacked fractions (\S: a over b with a line, "#" slanted, "^" without a line, each
 * part as high as the text around it, the fraction 1.2 times the two high) in cells;
 * cells glued into words where nothing breaks them; lines filled word by word up to
 * the width and as high as their highest cell, the cells on its bottom (\A: its
 * middle or top); lines 1.667 times their height (times the spacing factor) apart;
 * paragraphs set left, centred, right or justified (\pq: each line but the last
 * spread to the width by its spaces), indented (\pi, \pl, \pr) and tabbed (\pt
 * stops, then the default ones) as ezdxf's paragraphs are.
 * Heights (\H), width factors (\W), oblique angles (\Q) and colours (\C an ACI, 7
 * drawn dark as the note's own colour is, 0 and 256 the note's own; \c a true colour,
 * its bytes blue, green, red) and strokes (\L \l under, \O \o over, \K \k through
 * its words, a line a fifth of their height from them) hold to the end of their
 * braces; fonts change nothing drawn here. */

typedef struct {
  double cap, wf, oblique;
  uint8_t rgba[4]; /* its colour */
  /* 1 underlined (\L), 2 struck through (\K), 4 overlined (\O); 8 its strokes run
   * on over the spaces after it (while a stroke is on, as ezdxf's parser has it) */
  uint8_t stroke;
  int valign; /* 0 bottom, 1 middle, 2 top */
  int align;  /* its paragraph's: 0 left, 1 centred, 2 right, 3 justified */
  /* its paragraph's indents (\pi first line, \pl left, \pr right, in the note's
   * heights) and tab stops (\pt: tab_count of TcRichText's stops from tab_first) */
  double indent, left, right;
  uint32_t tab_first, tab_count;
} TcRichStyle;

enum { TC_RICH_TEXT, TC_RICH_SPACE, TC_RICH_GLUE, TC_RICH_FRACTION, TC_RICH_PARAGRAPH, TC_RICH_TAB };

typedef struct {
  uint8_t kind;
  uint8_t rigid; /* glue between a word and a fraction: never widened */
  char stacking; /* a fraction's: '/', '#' or '^' */
  uint32_t text, text2; /* words[] offsets: a text, or a fraction's parts */
  TcRichStyle style;
  double width, height, top_width, bottom_width;
  double x; /* where it stands in its line */
} TcRichCell;

/* A tab stop: where (in the note's heights), and 'l' left, 'c' centred or 'r' right. */
typedef struct {
  double at;
  char kind;
} TcRichStop;

typedef struct {
  TcRichCell *cells;
  size_t count, cap;
  char *words;
  size_t used, words_cap;
  TcRichStop *stops;
  size_t stop_count, stop_cap;
  int failed;
} TcRichText;

/* The most tab stops one text sets (a line looks through them at each tab): further
 * ones are left out. */
#define TC_RICH_MAX_STOPS 256

/* The most cells and braces one text is read into. */
#define TC_RICH_MAX_CELLS 100000
#define TC_RICH_MAX_DEPTH 64

static uint32_t rich_word(TcRichText *t, const char *s, size_t n) {
  if (t->failed)
    return 0;
  if (t->used + n + 1 > t->words_cap) {
    size_t cap = (t->words_cap ? t->words_cap * 2 : 1024);
    while (cap < t->used + n + 1)
      cap *= 2;
    char *words = realloc(t->words, cap);
    if (!words) {
      t->failed = 1;
      return 0;
    }
    t->words = words;
    t->words_cap = cap;
  }
  uint32_t at = (uint32_t)t->used;
  memcpy(t->words + at, s, n);
  t->words[at + n] = 0;
  t->used += n + 1;
  return at;
}

static TcRichCell *rich_cell(TcRichText *t, int kind, const TcRichStyle *style) {
  if (t->failed || t->count >= TC_RICH_MAX_CELLS)
    return NULL;
  if (t->count == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 64;
    TcRichCell *cells = realloc(t->cells, cap * sizeof *cells);
    if (!cells) {
      t->failed = 1;
      return NULL;
    }
    t->cells = cells;
    t->cap = cap;
  }
  TcRichCell *c = &t->cells[t->count++];
  memset(c, 0, sizeof *c);
  c->kind = (uint8_t)kind;
  c->style = *style;
  return c;
}

/* A word or fraction: glued to a word or fraction just before it, as ezdxf glues them. */
static TcRichCell *rich_content(TcRichText *t, int kind, const TcRichStyle *style) {
  if (t->count > 0 && (t->cells[t->count - 1].kind == TC_RICH_TEXT || t->cells[t->count - 1].kind == TC_RICH_FRACTION)) {
    TcRichCell *glue = rich_cell(t, TC_RICH_GLUE, style);
    if (glue)
      glue->width = -1, glue->rigid = 1; /* no width: not a space */
  }
  return rich_cell(t, kind, style);
}

/* Appends code point `c` as UTF-8. */
static size_t put_utf8(char *out, unsigned long c) {
  if (c < 0x80) {
    out[0] = (char)c;
    return 1;
  }
  if (c < 0x800) {
    out[0] = (char)(0xC0 | (c >> 6));
    out[1] = (char)(0x80 | (c & 0x3F));
    return 2;
  }
  if (c < 0x10000) {
    out[0] = (char)(0xE0 | (c >> 12));
    out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[2] = (char)(0x80 | (c & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (c >> 18));
  out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
  out[3] = (char)(0x80 | (c & 0x3F));
  return 4;
}

/* The code point at `p` (UTF-8, else a byte of Windows' Latin-1, as older DXFs hold
 * them) and its length. */
static unsigned long get_utf8(const unsigned char *p, size_t *n) {
  int len = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3 : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
  for (int i = 1; i < len; i++)
    if ((p[i] & 0xC0) != 0x80)
      len = 0;
  if (len == 0) {
    *n = 1;
    return p[0];
  }
  *n = (size_t)len;
  if (len == 1)
    return p[0];
  unsigned long c = p[0] & (0x7F >> len);
  for (int i = 1; i < len; i++)
    c = (c << 6) | (p[i] & 0x3F);
  return c;
}

/* Code point `c`, or U+FFFD (the replacement character) for one cairo does not draw:
 * a surrogate, a noncharacter (U+FDD0 to U+FDEF, U+FFFE, U+FFFF and their like in every
 * plane) or a code past U+10FFFF. */
static unsigned long drawable(unsigned long c) {
  int bad = c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF) || (c >= 0xFDD0 && c <= 0xFDEF) || (c & 0xFFFE) == 0xFFFE;
  return bad ? 0xFFFD : c;
}

/* The content as ezdxf reads it: valid UTF-8, caret notation decoded (^X is the
 * character 64 before X, modulo 126: "^J" a line feed, "^ " a caret), \U+XXXX
 * escapes decoded (one that names no character, \U+D800, drawn as U+FFFD). NULL when
 * out of memory. */
static char *rich_decode(const char *content) {
  size_t length = strlen(content);
  char *out = malloc(4 * length + 1);
  if (!out)
    return NULL;
  const unsigned char *p = (const unsigned char *)content;
  size_t o = 0;
  while (*p) {
    size_t n;
    if (p[0] == '^' && p[1]) {
      unsigned long c = get_utf8(p + 1, &n);
      long r = (((long)c - 64) % 126 + 126) % 126;
      out[o++] = r ? (char)r : ' ';
      p += 1 + n;
      continue;
    }
    if (p[0] == '\\' && (p[1] == 'U' || p[1] == 'u') && p[2] == '+' && isxdigit(p[3]) && isxdigit(p[4]) && isxdigit(p[5]) &&
        isxdigit(p[6])) {
      char hex[5] = {(char)p[3], (char)p[4], (char)p[5], (char)p[6], 0};
      unsigned long c = strtoul(hex, NULL, 16);
      o += put_utf8(out + o, c ? drawable(c) : ' ');
      p += 7;
      continue;
    }
    unsigned long c = get_utf8(p, &n);
    o += put_utf8(out + o, drawable(c));
    p += n;
  }
  out[o] = 0;
  return out;
}

/* A number as ezdxf reads an inline code's ([+-]digits[.digits][e±digits]), and a
 * trailing 'x' when `relative`: the characters read, 0 for none. */
static size_t rich_number(const char *p, int relative, double *value, int *factor) {
  const char *q = p;
  if (*q == '+' || *q == '-')
    q++;
  const char *digits = q;
  while (isdigit((unsigned char)*q))
    q++;
  if (*q == '.' && (q > digits || isdigit((unsigned char)q[1]))) {
    q++;
    while (isdigit((unsigned char)*q))
      q++;
  }
  if (q == digits)
    return 0;
  if ((*q == 'e' || *q == 'E') && (isdigit((unsigned char)q[1]) || ((q[1] == '+' || q[1] == '-') && isdigit((unsigned char)q[2])))) {
    q += 2;
    while (isdigit((unsigned char)*q))
      q++;
  }
  *value = strtod(p, NULL);
  if (!isfinite(*value))
    *value = 0;
  *factor = 0;
  if (relative && *q == 'x') {
    *factor = 1;
    q++;
  }
  return (size_t)(q - p);
}

/* Reads decoded content `s` into cells; `base` the style it starts with, `unit` text
 * pixels a drawing unit of an absolute \H. */
static void rich_parse(const char *s, const TcRichStyle *base, double unit, TcRichText *t) {
  TcRichStyle stack[TC_RICH_MAX_DEPTH], style = *base;
  int depth = 0, skipped = 0, run_on = 0;
  size_t length = strlen(s);
  /* a word, and a fraction's two parts in its two halves */
  char *word = malloc(2 * length + 2);
  if (!word) {
    t->failed = 1;
    return;
  }
  size_t w = 0;
#define FLUSH()                                                                                                                  \
  do {                                                                                                                           \
    if (w) {                                                                                                                     \
      TcRichCell *c_ = rich_content(t, TC_RICH_TEXT, &style);                                                                    \
      if (c_)                                                                                                                    \
        c_->text = rich_word(t, word, w);                                                                                        \
      w = 0;                                                                                                                     \
    }                                                                                                                            \
  } while (0)
  const char *p = s;
  while (*p && !t->failed) {
    char letter = *p;
    if (letter == '\\' && p[1] && strchr("\\{}", p[1])) {
      word[w++] = p[1];
      p += 2;
      continue;
    }
    if (letter == '\\' && p[1]) {
      FLUSH();
      char cmd = p[1];
      p += 2;
      switch (cmd) {
      case '~':
        rich_cell(t, TC_RICH_GLUE, &style);
        break;
      case 'P':
      case 'N':
        rich_cell(t, TC_RICH_PARAGRAPH, &style);
        break;
      case 'X':
        break;
      case 'L': case 'l': case 'O': case 'o': case 'K': case 'k': {
        uint8_t bit = cmd == 'L' || cmd == 'l' ? 1 : cmd == 'K' || cmd == 'k' ? 2 : 4;
        if (isupper((unsigned char)cmd)) {
          style.stroke |= bit;
          run_on = 1;
        } else {
          style.stroke &= (uint8_t)~bit;
          if (!(style.stroke & 7))
            run_on = 0;
        }
        break;
      }
      case 'S': {
        /* to the next ';' not escaped: numerator, a stacking character, denominator */
        char *top = word, *bottom = word + length + 1;
        size_t nt = 0, nb = 0;
        char stacking = 0;
        while (*p && *p != ';') {
          char c = *p;
          int escaped = 0;
          if (c == '\\' && p[1]) {
            escaped = 1;
            p++;
            c = *p;
          }
          p++;
          if ((unsigned char)c < 32)
            c = ' ';
          if (!stacking && !escaped && (c == '^' || c == '/' || c == '#'))
            stacking = c;
          else if (!stacking)
            top[nt++] = c;
          else
            bottom[nb++] = c;
        }
        if (*p == ';')
          p++;
        TcRichCell *c = rich_content(t, stacking ? TC_RICH_FRACTION : TC_RICH_TEXT, &style);
        if (c) {
          c->text = rich_word(t, top, nt);
          c->text2 = stacking ? rich_word(t, bottom, nb) : 0;
          c->stacking = stacking;
        }
        break;
      }
      case 'A': {
        char c = *p;
        if (c)
          p++;
        style.valign = c == '1' ? 1 : c == '2' ? 2 : 0;
        if (*p == ';')
          p++;
        break;
      }
      case 'H': case 'W': case 'T': case 'Q': case 'C': case 'c': {
        double v = 0;
        int factor = 0;
        size_t n = rich_number(p, cmd != 'Q' && cmd != 'C' && cmd != 'c', &v, &factor);
        p += n;
        if (n && (cmd == 'C' || cmd == 'c') && fabs(v) < 1e9) {
          long value = lround(v);
          uint8_t rgb[3];
          if (cmd == 'C' && (value == 0 || value == 256)) {
            memcpy(style.rgba, base->rgba, 3);
          } else if (cmd == 'C' && value >= 1 && value <= 255) {
            tc_aci_rgb((int)value, rgb);
            memcpy(style.rgba, rgb, 3);
          } else if (cmd == 'c') {
            style.rgba[0] = (uint8_t)(value & 0xFF);
            style.rgba[1] = (uint8_t)((value >> 8) & 0xFF);
            style.rgba[2] = (uint8_t)((value >> 16) & 0xFF);
          }
          /* white (ACI 7) drawn dark, as the note's own colour is */
          if (style.rgba[0] == 255 && style.rgba[1] == 255 && style.rgba[2] == 255)
            style.rgba[0] = style.rgba[1] = style.rgba[2] = 0;
        }
        if (n && cmd == 'H') {
          double cap = factor ? style.cap * fabs(v) : fabs(v) * unit;
          style.cap = fmin(fmax(cap, base->cap * 1e-3), base->cap * 1e3);
        } else if (n && cmd == 'W') {
          style.wf = fmin(fmax(factor ? style.wf * fabs(v) : fabs(v), 0.01), 100);
        } else if (n && cmd == 'Q') {
          style.oblique = fmin(fmax(v, -85), 85);
        }
        if (*p == ';')
          p++;
        break;
      }
      case 'p': {
        /* a paragraph's properties, as ezdxf reads them: alignment (q, then l, r, c,
         * j or d; any other: left), indents (i, l, r and a number), tab stops (t and
         * numbers, each with an optional c or r before it, to the end) */
        const char *semi = strchr(p, ';'), *end = semi ? semi : p + strlen(p);
        for (const char *q = p; q < end;) {
          char c = *q++;
          double v = 0;
          int factor = 0;
          if (c == 'i' || c == 'l' || c == 'r') {
            size_t n = rich_number(q, 0, &v, &factor);
            q += n;
            v = fmin(fmax(v, -1e4), 1e4);
            if (c == 'i')
              style.indent = v;
            else if (c == 'l')
              style.left = v;
            else
              style.right = v;
          } else if (c == 'q') {
            char a = q < end ? *q++ : 0;
            style.align = a == 'c' ? 1 : a == 'r' ? 2 : a == 'j' || a == 'd' ? 3 : 0;
          } else if (c == 't') {
            style.tab_first = (uint32_t)t->stop_count;
            style.tab_count = 0;
            while (q < end) {
              char kind = *q == 'c' || *q == 'r' ? *q++ : 'l';
              size_t n = rich_number(q, 0, &v, &factor);
              if (!n) {
                if (kind == 'l')
                  q++;
                continue;
              }
              q += n;
              if (t->stop_count >= TC_RICH_MAX_STOPS)
                continue;
              if (t->stop_count == t->stop_cap) {
                size_t cap = t->stop_cap ? t->stop_cap * 2 : 16;
                TcRichStop *stops = realloc(t->stops, cap * sizeof *stops);
                if (!stops) {
                  t->failed = 1;
                  break;
                }
                t->stops = stops;
                t->stop_cap = cap;
              }
              t->stops[t->stop_count++] = (TcRichStop){v, kind};
              style.tab_count++;
            }
          }
          while (q < end && *q == ',')
            q++;
        }
        p = semi ? semi + 1 : end;
        break;
      }
      case 'f': case 'F': {
        /* to the next ';' */
        const char *semi = strchr(p, ';');
        p = semi ? semi + 1 : p + strlen(p);
        break;
      }
      default:
        /* not a code: drawn as written */
        word[w++] = '\\';
        word[w++] = cmd;
        break;
      }
      /* a formatting code sets whether strokes run on from here */
      if (strchr("LlOoKkACcHWQTpfF", cmd))
        style.stroke = (uint8_t)((style.stroke & 7) | (run_on ? 8 : 0));
      continue;
    }
    if ((unsigned char)letter < 32) {
      FLUSH();
      p++;
      rich_cell(t, letter == '\n' ? TC_RICH_PARAGRAPH : letter == '\t' ? TC_RICH_TAB : TC_RICH_SPACE, &style);
      continue;
    }
    if (letter == '%' && p[1] == '%' && p[2] && strchr("cdpCDP%", p[2])) {
      const char *special = strchr("cC", p[2]) ? "\xC3\x98" : strchr("dD", p[2]) ? "\xC2\xB0" : strchr("pP", p[2]) ? "\xC2\xB1" : "%";
      size_t n = strlen(special);
      memcpy(word + w, special, n);
      w += n;
      p += 3;
      continue;
    }
    if (letter == ' ') {
      FLUSH();
      rich_cell(t, TC_RICH_SPACE, &style);
      p++;
      continue;
    }
    if (letter == '{') {
      FLUSH();
      if (depth < TC_RICH_MAX_DEPTH)
        stack[depth++] = style;
      else
        skipped++;
      p++;
      continue;
    }
    if (letter == '}') {
      FLUSH();
      if (skipped)
        skipped--;
      else if (depth > 0)
        style = stack[--depth];
      p++;
      continue;
    }
    word[w++] = letter;
    p++;
  }
  FLUSH();
#undef FLUSH
  free(word);
}

/* The widest em a rich text's glyph is given, device pixels (FreeType's limit is
 * 65535), and the width factor past which its glyphs are filled as paths. */
#define TC_RICH_MAX_EM_PX 60000.0
#define TC_RICH_MAX_GLYPH_WF 10.0

/* A word in style `st`: its width; drawn (mode 1) with its baseline's left end at (x,
 * baseline), or its ink measured into `box` (mode 2). */
static double rich_show(cairo_t *cr, const char *s, const TcRichStyle *st, double cap_ratio, double x, double baseline, int mode,
                        double *box) {
  cairo_save(cr);
  cairo_translate(cr, x, baseline);
  /* the font size and the width factor, at most what keeps an em under
   * TC_RICH_MAX_EM_PX device pixels high (its slant included) and wide: FreeType sizes
   * no larger font, and cairo's context would fail, and the drawing with it */
  cairo_matrix_t ctm;
  cairo_get_matrix(cr, &ctm);
  double slant = tan(st->oblique * M_PI / 180), size = st->cap / cap_ratio, wf = st->wf;
  double device = fmax(hypot(ctm.xx, ctm.yx), hypot(ctm.xy, ctm.yy));
  if (size * device * hypot(1, slant) > TC_RICH_MAX_EM_PX)
    size = TC_RICH_MAX_EM_PX / (device * hypot(1, slant));
  if (size * device * wf > TC_RICH_MAX_EM_PX)
    wf = TC_RICH_MAX_EM_PX / (size * device);
  cairo_matrix_t m;
  /* the width factor, and the oblique angle slanting up to the right */
  cairo_matrix_init(&m, wf, 0, -slant, 1, 0, 0);
  cairo_transform(cr, &m);
  cairo_set_font_size(cr, size);
  cairo_text_extents_t e;
  cairo_text_extents(cr, s, &e);
  if (mode == 1 && *s && wf > TC_RICH_MAX_GLYPH_WF) {
    /* glyphs stretched this wide are drawn as paths: FreeType's rasterizer fails on
     * some (a word of \W30 at 300 pixels an em) */
    source(cr, st->rgba);
    cairo_move_to(cr, 0, 0);
    cairo_text_path(cr, s);
    cairo_fill(cr);
  } else if (mode == 1 && *s) {
    source(cr, st->rgba);
    cairo_move_to(cr, 0, 0);
    cairo_show_text(cr, s);
  } else if (mode == 2 && (e.width > 0 || e.height > 0)) {
    double corners[4][2] = {{e.x_bearing, e.y_bearing},
                            {e.x_bearing + e.width, e.y_bearing},
                            {e.x_bearing, e.y_bearing + e.height},
                            {e.x_bearing + e.width, e.y_bearing + e.height}};
    for (int c = 0; c < 4; c++) {
      cairo_user_to_device(cr, &corners[c][0], &corners[c][1]);
      box[0] = fmin(box[0], corners[c][0]);
      box[1] = fmin(box[1], corners[c][1]);
      box[2] = fmax(box[2], corners[c][0]);
      box[3] = fmax(box[3], corners[c][1]);
    }
  }
  cairo_restore(cr);
  return e.x_advance * wf;
}

/* A fraction's divider from (x0, y0) to (x1, y1), a pixel wide, drawn or measured. */
static void rich_rule(cairo_t *cr, const TcRichStyle *st, double x0, double y0, double x1, double y1, int mode, double *box) {
  if (mode == 2) {
    double points[2][2] = {{x0, y0}, {x1, y1}};
    for (int c = 0; c < 2; c++) {
      cairo_user_to_device(cr, &points[c][0], &points[c][1]);
      box[0] = fmin(box[0], points[c][0]);
      box[1] = fmin(box[1], points[c][1]);
      box[2] = fmax(box[2], points[c][0]);
      box[3] = fmax(box[3], points[c][1]);
    }
    return;
  }
  cairo_save(cr);
  source(cr, st->rgba);
  cairo_new_path(cr);
  cairo_move_to(cr, x0, y0);
  cairo_line_to(cr, x1, y1);
  cairo_identity_matrix(cr);
  cairo_set_line_width(cr, 1);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
  cairo_stroke(cr);
  cairo_restore(cr);
}

/* The strokes of a word `c` whose top is at `top` and left end at `x`, run on by `more`
 * to the right: under its baseline, through its middle, over its top, each a fifth of
 * its height from it. */
static void rich_strokes(cairo_t *cr, const TcRichCell *c, double x, double top, double more, int mode, double *box) {
  double h = c->style.cap, right = x + c->width + more;
  if (c->style.stroke & 1)
    rich_rule(cr, &c->style, x, top + h + h / 5, right, top + h + h / 5, mode, box);
  if (c->style.stroke & 2)
    rich_rule(cr, &c->style, x, top + h / 2, right, top + h / 2, mode, box);
  if (c->style.stroke & 4)
    rich_rule(cr, &c->style, x, top - h / 5, right, top - h / 5, mode, box);
}

/* A line of a paragraph: cells [first, end), as high and wide as they are. */
typedef struct {
  size_t first, end;
  double height, width;
  int align;
  double indent, room; /* its left indent and the width it has (limited notes) */
} TcRichLine;

/* Room for `need` lines; -1 when out of memory. */
static int rich_grow_lines(TcRichLine **lines, size_t *cap, size_t need) {
  if (need <= *cap)
    return 0;
  size_t n = *cap ? *cap * 2 : 16;
  TcRichLine *grown = realloc(*lines, n * sizeof *grown);
  if (!grown)
    return -1;
  *lines = grown;
  *cap = n;
  return 0;
}

static int rich_glued(const TcRichCell *c) { return c->kind == TC_RICH_TEXT || c->kind == TC_RICH_GLUE; }

/* Where the cells from `i` on (before `end`) that break no line end: a run of words
 * and the glue between them, else the one cell. */
static size_t rich_unit(const TcRichCell *cells, size_t i, size_t end) {
  size_t j = i + 1;
  if (rich_glued(&cells[i]))
    while (j < end && rich_glued(&cells[j]))
      j++;
  return j;
}

/* The tab stop a line of paragraph style `ps` sets the cells from offset `lo` (as wide
 * as `hi` - `lo`) at, as ezdxf finds it: its stops (where they are short of the note's
 * width `width`) in their order, then the default stops past the last of them, every
 * 4 times the note's height `cap`, all shifted by the line's indent and within its
 * width `room`; a left stop past `lo`, a centred one past the middle, a right one past
 * `hi`. 0 for none. */
static int next_stop(const TcRichText *t, const TcRichStyle *ps, double cap, double width, double indent, double room,
                     double lo, double hi, double *at, char *kind) {
  double last = 0;
  for (uint32_t k = 0; k < ps->tab_count && ps->tab_first + k < t->stop_count; k++) {
    const TcRichStop *stop = &t->stops[ps->tab_first + k];
    double p = stop->at * cap;
    if (!(p < width))
      continue;
    last = p;
    double s = p - indent;
    if (!(s > 0 && s <= room))
      continue;
    if (stop->kind == 'l' ? s > lo : stop->kind == 'c' ? s > (lo + hi) / 2 : s > hi) {
      *at = s;
      *kind = stop->kind;
      return 1;
    }
  }
  double step = 4 * cap, k = floor((lo + indent) / step) + 1;
  if (k * step <= last)
    k = floor(last / step) + 1;
  double p = k * step;
  if (p < width && p - indent > 0 && p - indent <= room) {
    *at = p - indent;
    *kind = 'l';
    return 1;
  }
  return 0;
}

/* Lays out and draws (mode 1) or measures into `box` (mode 2) an item's raw MTEXT
 * content in its text space (the anchor at the origin, y down): `cap` its capital
 * height there, `unit` the text-space length of a drawing unit, `limit` the width it
 * wraps at (0 for none). */
static void place_rich(const tc_drawing_item *item, const char *content, cairo_t *cr, double cap, double unit, double limit,
                       double cap_ratio, int mode, double *box) {
  char *decoded = rich_decode(content);
  if (!decoded)
    return;
  TcRichText t = {0};
  int align = item->anchor >= 10 ? item->anchor - 10 : (item->anchor - 1) % 3;
  TcRichStyle base = {.cap = cap, .wf = 1, .oblique = 0, .valign = 0, .align = align};
  memcpy(base.rgba, item->rgba, 4);
  rich_parse(decoded, &base, unit * (item->code_scale > 0 ? item->code_scale : 1), &t);
  free(decoded);
  TcRichLine *lines = NULL;
  size_t line_count = 0, line_cap = 0;
  if (t.failed)
    goto done;
  /* each cell's size */
  for (size_t i = 0; i < t.count; i++) {
    TcRichCell *c = &t.cells[i];
    const TcRichStyle *st = &c->style;
    switch (c->kind) {
    case TC_RICH_TEXT:
      c->width = rich_show(cr, t.words + c->text, st, cap_ratio, 0, 0, 0, NULL);
      c->height = st->cap;
      break;
    case TC_RICH_SPACE:
    case TC_RICH_GLUE:
    case TC_RICH_TAB:
      c->width = c->width < 0 ? 0 : rich_show(cr, " ", st, cap_ratio, 0, 0, 0, NULL);
      break;
    case TC_RICH_FRACTION:
      c->top_width = rich_show(cr, t.words + c->text, st, cap_ratio, 0, 0, 0, NULL);
      c->bottom_width = rich_show(cr, t.words + c->text2, st, cap_ratio, 0, 0, 0, NULL);
      if (c->stacking == '#') {
        c->width = c->top_width + c->bottom_width;
        c->height = 2 * st->cap;
      } else {
        c->width = fmax(c->top_width, c->bottom_width);
        c->height = 1.2 * 2 * st->cap;
      }
      break;
    default:
      break;
    }
  }
  double spacing = 1.667 * (item->line_spacing > 0 ? item->line_spacing : 1);
  double width = limit > 0 ? limit : INFINITY;
  /* paragraphs into lines */
  for (size_t start = 0; start <= t.count;) {
    size_t end = start;
    while (end < t.count && t.cells[end].kind != TC_RICH_PARAGRAPH)
      end++;
    if (end == start && end < t.count) {
      /* an empty paragraph: a line as high as the text then is, nothing in it */
      if (rich_grow_lines(&lines, &line_cap, line_count + 1))
        goto done;
      lines[line_count++] = (TcRichLine){start, start, t.cells[end].style.cap, 0, align, 0, 0};
    }
    /* glue between a word and what is no word is a space; none ends a paragraph */
    for (size_t i = start; i < end; i++) {
      TcRichCell *c = &t.cells[i];
      if (c->kind != TC_RICH_GLUE)
        continue;
      int before = i > start && rich_glued(&t.cells[i - 1]), after = i + 1 < end && rich_glued(&t.cells[i + 1]);
      if (!before || !after) {
        c->kind = TC_RICH_SPACE;
        for (size_t j = i; j > start && t.cells[j - 1].kind == TC_RICH_GLUE; j--)
          t.cells[j - 1].kind = TC_RICH_SPACE;
      }
    }
    /* the paragraph's alignment as it stands at its end, within the width (none: the anchor's) */
    const TcRichStyle *ps = end > start ? (end < t.count ? &t.cells[end].style : &t.cells[end - 1].style) : NULL;
    int palign = limit > 0 && ps ? ps->align : align;
    /* its indents, within the width */
    double first_indent = limit > 0 && ps ? (ps->left + ps->indent) * cap : 0, left_indent = limit > 0 && ps ? ps->left * cap : 0,
           right_indent = limit > 0 && ps ? ps->right * cap : 0;
    int first_line = 1;
    size_t last = end;
    while (last > start && (t.cells[last - 1].kind == TC_RICH_SPACE || t.cells[last - 1].kind == TC_RICH_GLUE ||
                            t.cells[last - 1].kind == TC_RICH_TAB))
      last--;
    for (size_t i = start; i < last;) {
      size_t first = i, kept = i, locked = i;
      double offset = 0, height = 0, kept_width = 0;
      double indent = first_line ? first_indent : left_indent, room = width - indent - right_indent;
      int content = 0;
      while (i < last) {
        /* a tab (in a left-aligned or justified line) sets what follows at the next
         * tab stop (else a space before it) */
        int tab = t.cells[i].kind == TC_RICH_TAB && (palign == 0 || palign == 3) && i + 1 < last;
        size_t from = tab ? i + 1 : i, j = rich_unit(t.cells, from, last);
        double w = 0, h = 0;
        for (size_t k = from; k < j; k++)
          w += t.cells[k].width, h = fmax(h, t.cells[k].height);
        double at = offset;
        int fits;
        if (tab) {
          double stop = 0;
          char kind = 0;
          fits = offset + w <= room;
          if (fits && next_stop(&t, ps, cap, width, indent, room, offset, offset + w, &stop, &kind)) {
            /* a centred or right stop the cells reach past: set on where they are */
            if (kind == 'l')
              fits = stop + w <= room, at = stop;
            else if (kind == 'c' && offset + w / 2 <= stop)
              fits = stop + w / 2 <= room, at = stop - w / 2;
            else if (kind == 'r' && offset + w <= stop)
              at = stop - w;
            if (fits && at != offset)
              locked = from;
          } else if (fits) {
            at = offset + t.cells[i].width;
            fits = at + w <= room;
          }
          if (!fits) {
            /* the tab is dropped at the start of a line */
            if (!content)
              i++;
            break;
          }
        } else {
          if (t.cells[i].kind == TC_RICH_TAB)
            t.cells[i].kind = TC_RICH_SPACE;
          /* a left-aligned or justified line takes what reaches its end, a centred or
           * right one less */
          fits = palign == 0 || palign == 3 ? offset + w <= room : offset + w < room;
          if (!fits && content)
            break;
        }
        if (tab)
          t.cells[i].x = offset, t.cells[i].width = at - offset;
        for (size_t k = from; k < j; k++) {
          t.cells[k].x = at;
          at += t.cells[k].width;
        }
        offset = at;
        height = fmax(height, h);
        i = j;
        content = 1;
        if (t.cells[j - 1].kind != TC_RICH_SPACE)
          kept = j, kept_width = offset;
        if (!fits)
          break;
      }
      /* the space the line breaks at is dropped */
      if (i < last && t.cells[i].kind == TC_RICH_SPACE)
        i++;
      if (!content)
        continue;
      if (palign == 3 && i < last) {
        /* justified, but for its last line: the spaces after its first cells (or the
         * last set at a tab stop) widened alike to fill its width */
        size_t from = locked == first ? rich_unit(t.cells, first, kept) : rich_unit(t.cells, locked, kept), growable = 0;
        for (size_t k = from; k < kept; k++)
          growable += (t.cells[k].kind == TC_RICH_SPACE || t.cells[k].kind == TC_RICH_GLUE) && !t.cells[k].rigid;
        double delta = growable ? (room - kept_width) / (double)growable : 0;
        if (delta > 1e-9) {
          double shift = 0;
          for (size_t k = from; k < kept; k++) {
            t.cells[k].x += shift;
            if ((t.cells[k].kind == TC_RICH_SPACE || t.cells[k].kind == TC_RICH_GLUE) && !t.cells[k].rigid)
              t.cells[k].width += delta, shift += delta;
          }
          kept_width += shift;
        }
      }
      if (rich_grow_lines(&lines, &line_cap, line_count + 1))
        goto done;
      lines[line_count++] = (TcRichLine){first, kept, height, kept_width, palign, indent, room};
      first_line = 0;
    }
    if (end >= t.count)
      break;
    start = end + 1;
  }
  if (!line_count)
    goto done;
  /* the layout's height, and its top from the anchor: OGR's 7-9 its top, 4-6 its middle, else its bottom */
  double total = lines[line_count - 1].height;
  for (size_t l = 0; l + 1 < line_count; l++)
    total += lines[l].height * spacing;
  int anchor = item->anchor;
  double y = anchor >= 7 && anchor <= 9 ? 0 : anchor >= 4 && anchor <= 6 ? -total / 2 : -total;
  for (size_t l = 0; l < line_count; l++) {
    const TcRichLine *line = &lines[l];
    /* in the layout, as wide as the text's width and placed by its anchor */
    double left = line->align == align ? -align * line->width / 2 : -align * limit / 2 + line->align * (limit - line->width) / 2;
    if (limit > 0 && (line->indent != 0 || line->room != limit || line->align == 3)) {
      /* indented, or justified: in its room within the width */
      int a = line->align == 3 ? 0 : line->align;
      left = -align * limit / 2 + line->indent + a * (line->room - line->width) / 2;
    }
    double h = line->height;
    for (size_t i = line->first; i < line->end;) {
      size_t j = rich_unit(t.cells, i, line->end);
      const TcRichCell *c = &t.cells[i];
      double x = left + c->x;
      if (j - i > 1) {
        /* words glued together: their tops on one line, on the line's bottom */
        double gh = 0;
        for (size_t k = i; k < j; k++)
          gh = fmax(gh, t.cells[k].height);
        double top = y + h - gh;
        for (size_t k = i; k < j; k++) {
          const TcRichCell *g = &t.cells[k];
          if (g->kind == TC_RICH_TEXT)
            rich_show(cr, t.words + g->text, &g->style, cap_ratio, left + g->x, top + g->style.cap, mode, box);
        }
        /* strokes run on over the glue that follows them in the words */
        for (size_t k = i; k < j; k++) {
          const TcRichCell *g = &t.cells[k];
          if (g->kind != TC_RICH_TEXT || !(g->style.stroke & 7))
            continue;
          double more = 0;
          for (size_t m = k + 1; (g->style.stroke & 8) && m < j && t.cells[m].kind == TC_RICH_GLUE; m++)
            more += t.cells[m].width;
          rich_strokes(cr, g, left + g->x, top, more, mode, box);
        }
      } else if (c->kind == TC_RICH_TEXT) {
        double top = c->style.valign == 2 ? y : c->style.valign == 1 ? y + (h - c->height) / 2 : y + h - c->height;
        rich_show(cr, t.words + c->text, &c->style, cap_ratio, x, top + c->style.cap, mode, box);
        if (c->style.stroke & 7) {
          /* run on over the spaces that follow it in the line */
          double more = 0;
          for (size_t m = i + 1; (c->style.stroke & 8) && m < line->end &&
                                 (t.cells[m].kind == TC_RICH_SPACE || t.cells[m].kind == TC_RICH_GLUE || t.cells[m].kind == TC_RICH_TAB);
               m++)
            more += t.cells[m].width;
          rich_strokes(cr, c, x, top, more, mode, box);
        }
      } else if (c->kind == TC_RICH_FRACTION) {
        double top = y + h - c->height, cap_height = c->style.cap, bottom = top + c->height;
        if (c->stacking == '#') {
          rich_show(cr, t.words + c->text, &c->style, cap_ratio, x, top + cap_height, mode, box);
          rich_show(cr, t.words + c->text2, &c->style, cap_ratio, x + c->width - c->bottom_width, bottom, mode, box);
          double delta = fmin(c->width, c->height) / 2, cx = x + c->top_width, cy = top + cap_height;
          rich_rule(cr, &c->style, cx - delta, cy + delta, cx + delta, cy - delta, mode, box);
        } else {
          double centre = x + c->width / 2;
          rich_show(cr, t.words + c->text, &c->style, cap_ratio, centre - c->top_width / 2, top + cap_height, mode, box);
          rich_show(cr, t.words + c->text2, &c->style, cap_ratio, centre - c->bottom_width / 2, bottom, mode, box);
          if (c->stacking == '/')
            rich_rule(cr, &c->style, x, top + c->height / 2, x + c->width, top + c->height / 2, mode, box);
        }
      }
      i = j;
    }
    y += h * spacing;
  }
done:
  free(lines);
  free(t.cells);
  free(t.words);
  free(t.stops);
}

/* A text from its anchor point, as OGR's label anchors place it: 1-9 a keypad
 * from the bottom left, 10-12 the baseline; lines 5/3 of the height apart
 * (MTEXT's default spacing) times its spacing factor, the height the capital
 * letters' height. `k` device pixels a drawing unit; drawn, or with a `box` not
 * drawn but its ink's box in device space measured into it (min x, min y, max x,
 * max y; left alone when no ink). */
static void place_text(const tc_drawing *d, cairo_t *cr, const tc_drawing_item *item, double k, double x, double y,
                       double cap_ratio, double min_px, double *box) {
  const char *text = d->text + item->text_offset;
  double height = item->size * k;
  /* smaller than half a pixel: no glyph is legible; past 10^8 pixels cairo's font
   * matrix would not be invertible (and no glyph would be seen whole) */
  if (!(height >= 0.5 && height <= 1e8))
    return;
  /* at a zoom where the drawing is small, a text is drawn large enough to read, about
   * its anchor, if that takes at most TC_TEXT_MAX_GROWTH times its size: one smaller
   * still would cover its neighbours, and is drawn as the drawing has it */
  double grow = height < min_px && height * TC_TEXT_MAX_GROWTH >= min_px ? min_px / height : 1;
  height *= grow;
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_rotate(cr, -item->angle * M_PI / 180);
  cairo_scale(cr, item->stretch, 1);
  cairo_set_font_size(cr, height / cap_ratio);
  double limit = item->column_width > 0 ? item->column_width * k * grow / fabs(item->stretch) : 0;
  if (item->column_count > 0 && limit > 0) {
    place_columns(d, cr, item, k * grow, height, limit, box);
    cairo_restore(cr);
    return;
  }
  if (item->rich) {
    if (!box)
      source(cr, item->rgba);
    place_rich(item, text, cr, height, k * grow, limit, cap_ratio, box ? 2 : 1, box);
    cairo_restore(cr);
    return;
  }
  /* a TEXT aligned or fitted between two points: its line stretched across them */
  if (item->fit_length > 0 && !strchr(text, '\n')) {
    cairo_text_extents_t e;
    cairo_text_extents(cr, text, &e);
    double fit = item->fit_length * k * grow / (e.x_advance * fabs(item->stretch));
    if (e.x_advance > 0)
      cairo_scale(cr, fit, item->fit_uniform ? fit : 1);
  }
  int lines = each_line(cr, text, limit, NULL, NULL);
  int anchor = item->anchor;
  double spacing = height * 5.0 / 3.0 * (item->line_spacing > 0 ? item->line_spacing : 1);
  TcTextLayout layout = {anchor >= 10 ? anchor - 10 : (anchor - 1) % 3, 0, spacing, {INFINITY, INFINITY, -INFINITY, -INFINITY}};
  if (anchor >= 10)
    layout.first = -(lines - 1) * layout.spacing;
  else if (anchor >= 7)
    layout.first = height;
  else if (anchor >= 4) {
    /* a plain MTEXT's middle: halfway between its first line's x-height and its last
     * baseline (ezdxf's), a TEXT's its capitals' */
    double middle = height;
    if (item->plain_mtext) {
      cairo_text_extents_t x;
      cairo_text_extents(cr, "x", &x);
      if (x.y_bearing < 0)
        middle = -x.y_bearing;
    }
    layout.first = middle - (middle + (lines - 1) * layout.spacing) / 2;
  } else {
    layout.first = -(lines - 1) * layout.spacing - 0.3 * height;
  }
  if (box) {
    each_line(cr, text, limit, measure_line, &layout);
    memcpy(box, layout.box, sizeof layout.box);
  } else {
    source(cr, item->rgba);
    each_line(cr, text, limit, draw_line, &layout);
  }
  cairo_restore(cr);
}

/* The face CAD texts are drawn in: a condensed sans, as narrow as the SHX fonts most
 * drawings use (txt, simplex, romans) and the face ezdxf substitutes for them and for
 * TrueType fonts it lacks; GDAL names every text style's font "Arial", whatever the
 * style's font file. fontconfig falls back to sans-serif where it is not installed. */
#define TC_DXF_FONT "DejaVu Sans Condensed"

/* Selects the face texts are drawn in and returns its capital letters' height over
 * the font size. Metrics unhinted: a text's advances, and so where its lines wrap
 * and its ink's box, are the same at every zoom and when measured for the frame. */
static double select_font(cairo_t *cr) {
  cairo_select_font_face(cr, TC_DXF_FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_font_options_t *options = cairo_font_options_create();
  cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF);
  cairo_set_font_options(cr, options);
  cairo_font_options_destroy(options);
  cairo_set_font_size(cr, 100);
  cairo_text_extents_t capital;
  cairo_text_extents(cr, "H", &capital);
  return capital.y_bearing < 0 ? -capital.y_bearing / 100 : 0.72;
}

/* Lines a hatch may draw in a band: past this its pattern is drawn as a solid fill. */
#define TC_PATTERN_MAX_LINES 20000

/* A pattern hatch's line families, clipped to the current path (its rings, which it
 * consumes), in a band where drawing point p is device point `to_device`·p and `k`
 * device pixels a drawing unit; `to_drawing` the inverse map.
 * 0 when drawn; -1 when its lines are under 2 pixels apart or more than
 * TC_PATTERN_MAX_LINES: the caller fills the path instead. */
static int draw_pattern(cairo_t *cr, const double *p, uint32_t count, const cairo_matrix_t *to_device,
                        const cairo_matrix_t *to_drawing, double k) {
  double x0, y0, x1, y1;
  cairo_save(cr);
  cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD);
  cairo_path_t *path = cairo_copy_path(cr);
  cairo_clip(cr);
  cairo_clip_extents(cr, &x0, &y0, &x1, &y1);
  /* the band's clipped box in drawing units */
  double corners[4][2] = {{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}};
  for (int c = 0; c < 4; c++)
    cairo_matrix_transform_point(to_drawing, &corners[c][0], &corners[c][1]);
  long lines = 0;
  int dense = 0;
  /* first pass counts, second draws */
  for (int pass = 0; pass < 2 && !dense; pass++) {
    for (uint32_t at = 0; at + 6 <= count;) {
      double angle = p[at] * M_PI / 180, bx = p[at + 1], by = p[at + 2], dx = p[at + 3], dy = p[at + 4];
      uint32_t n = (uint32_t)p[at + 5];
      const double *dashes = p + at + 6;
      at += 6 + n;
      if (at > count)
        break;
      double ux = cos(angle), uy = sin(angle), nx = -uy, ny = ux;
      double step = dx * nx + dy * ny, shift = dx * ux + dy * uy;
      if (!(fabs(step) * k >= 2)) {
        dense = 1;
        break;
      }
      double nmin = INFINITY, nmax = -INFINITY, tmin = INFINITY, tmax = -INFINITY;
      for (int c = 0; c < 4; c++) {
        double nn = corners[c][0] * nx + corners[c][1] * ny, tt = corners[c][0] * ux + corners[c][1] * uy;
        nmin = fmin(nmin, nn), nmax = fmax(nmax, nn), tmin = fmin(tmin, tt), tmax = fmax(tmax, tt);
      }
      double base = bx * nx + by * ny, along = bx * ux + by * uy;
      double m0 = (nmin - base) / step, m1 = (nmax - base) / step;
      long first = (long)ceil(fmin(m0, m1)), last = (long)floor(fmax(m0, m1));
      if (last < first)
        continue;
      if (pass == 0) {
        lines += last - first + 1;
        if (lines > TC_PATTERN_MAX_LINES)
          dense = 1;
        continue;
      }
      /* cairo's dashes: on, off, ... from the DXF's (positive a dash, negative a gap, 0 a dot) */
      double on_off[34];
      int m = 0;
      double period = 0;
      for (uint32_t j = 0; j < n && m < 32; j++) {
        int gap = dashes[j] < 0;
        double length = fabs(dashes[j]) * k;
        if (!gap && length < 1)
          length = 1;
        if (m == 0 && gap)
          on_off[m++] = 0;
        /* a dash after a dash, or a gap after a gap, lengthens it */
        if (m > 0 && (m % 2 == 1) == !gap) {
          on_off[m - 1] += length;
        } else {
          on_off[m++] = length;
        }
        period += length;
      }
      if (m % 2 == 1)
        on_off[m++] = 0;
      for (long i = first; i <= last; i++) {
        /* the line through the base point shifted i offsets; its dashes start there */
        double px = bx + i * dx, py = by + i * dy, start = along + i * shift;
        double ax = px + (tmin - start) * ux, ay = py + (tmin - start) * uy;
        double ex = px + (tmax - start) * ux, ey = py + (tmax - start) * uy;
        double phase = period > 0 ? fmod((tmin - start) * k, period) : 0;
        if (phase < 0)
          phase += period;
        cairo_set_dash(cr, on_off, period > 0 ? m : 0, phase);
        cairo_matrix_transform_point(to_device, &ax, &ay);
        cairo_matrix_transform_point(to_device, &ex, &ey);
        cairo_move_to(cr, ax, ay);
        cairo_line_to(cr, ex, ey);
        cairo_stroke(cr);
      }
    }
  }
  cairo_set_dash(cr, NULL, 0, 0);
  cairo_restore(cr);
  cairo_new_path(cr);
  if (dense && path->status == CAIRO_STATUS_SUCCESS)
    cairo_append_path(cr, path);
  cairo_path_destroy(path);
  return dense ? -1 : 0;
}

/* The shortest dash, gap or dot of a linetype, in drawing units: ezdxf's drawing
 * add-on (Configuration.min_dash_length) draws a dot as a dash this long. */
#define TC_MIN_DASH_UNITS 0.1

/* Moves to (`line` 0) or draws a line to drawing point (x, y), mapped by `m`. */
static void path_to(cairo_t *cr, const cairo_matrix_t *m, double x, double y, int line) {
  cairo_matrix_transform_point(m, &x, &y);
  if (line)
    cairo_line_to(cr, x, y);
  else
    cairo_move_to(cr, x, y);
}

/* Whether points xy[0 .. n), mapped by `m`, have a box that meets [x0, x1] × [y0, y1]. */
static int points_meet(const cairo_matrix_t *m, const double *xy, uint32_t n, double x0, double y0, double x1, double y1) {
  double lo_x = INFINITY, lo_y = INFINITY, hi_x = -INFINITY, hi_y = -INFINITY;
  for (uint32_t j = 0; j < n; j++) {
    double x = xy[2 * j], y = xy[2 * j + 1];
    cairo_matrix_transform_point(m, &x, &y);
    lo_x = fmin(lo_x, x), hi_x = fmax(hi_x, x), lo_y = fmin(lo_y, y), hi_y = fmax(hi_y, y);
  }
  /* NaN corners meet: such an item is left to cairo, as before */
  return !(hi_x < x0 || lo_x > x1 || hi_y < y0 || lo_y > y1);
}

/* Draws the display list onto a band whose top-left corner is image pixel (left, top).
 * Points are mapped by the drawing's map and the path built in device space, so that
 * line widths, dashes and dots stay in pixels whatever the map; a text is drawn in
 * the map's linear part over its scale (a turn, and a mirror: drawing y grows up),
 * about its anchor. */
static int dxf_draw(void *ctx, cairo_t *cr, int left, int top) {
  TcDxf *s = ctx;
  const tc_drawing *d = &s->entry->drawing;
  double k = s->k;
  cairo_matrix_t m = s->to_pixel, inverse = s->to_drawing, shift;
  cairo_matrix_init_translate(&shift, -left, -top);
  cairo_matrix_multiply(&m, &m, &shift);
  cairo_matrix_init_translate(&shift, left, top);
  cairo_matrix_multiply(&inverse, &shift, &inverse);
  /* a text's own space (y down, a pixel a unit) in device space: the linear part over
   * k, after the flip of y; the identity for a north-up map */
  cairo_matrix_t text_space;
  cairo_matrix_init(&text_space, m.xx / k, m.yx / k, -m.xy / k, -m.yy / k, 0, 0);
#define DX(X, Y) (m.xx * (X) + m.xy * (Y) + m.x0)
#define DY(X, Y) (m.yx * (X) + m.yy * (Y) + m.y0)
  /* what the band holds, in this space: a stroke or fill that ends more than its reach
   * (half its width, and 2 pixels of antialiasing and round joins) outside it is left
   * out, as it would leave no pixel there: a drawing of many bands strokes each item in
   * the bands it meets, not in all */
  double box_x0, box_y0, box_x1, box_y1;
  cairo_clip_extents(cr, &box_x0, &box_y0, &box_x1, &box_y1);
  double cap_ratio = select_font(cr);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  if (s->clip_points >= 3) {
    cairo_new_path(cr);
    for (int c = 0; c < s->clip_points; c++)
      cairo_line_to(cr, s->clip[2 * c] - left, s->clip[2 * c + 1] - top);
    cairo_close_path(cr);
    cairo_clip(cr);
  }
  for (size_t i = 0; i < d->item_count; i++) {
    const tc_drawing_item *item = &d->items[i];
    const double *xy = d->xy + 2 * (size_t)item->first;
    if (item->count == 0)
      continue;
    switch (item->kind) {
    case TC_DRAWING_STROKE: {
      double mm = item->lineweight_mm > 0 ? item->lineweight_mm : 0.25;
      double width = mm * s->px_per_mm;
      if (item->width_units * k > width)
        width = item->width_units * k;
      double reach = (width > 1 ? width : 1) / 2 + 2;
      if (!points_meet(&m, xy, item->count, box_x0 - reach, box_y0 - reach, box_x1 + reach, box_y1 + reach))
        break;
      cairo_new_path(cr);
      for (uint32_t j = 0; j < item->count; j++)
        path_to(cr, &m, xy[2 * j], xy[2 * j + 1], j > 0);
      cairo_set_line_width(cr, width > 1 ? width : 1);
      cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
      double dashes[16];
      double period = 0, on = 0, total = 0;
      int n = item->dash_count <= 16 ? (int)item->dash_count : 0;
      /* as ezdxf's linetype renderer: dashes and gaps in pairs (an odd last one
       * dropped), each at least TC_MIN_DASH_UNITS long, a dot too */
      n -= n % 2;
      for (int j = 0; j < n; j++) {
        double length = fmax(d->dashes[item->dash_first + (uint32_t)j], TC_MIN_DASH_UNITS);
        total += length;
        on += j % 2 == 0 ? length : 0;
        dashes[j] = length * k;
        period += dashes[j];
      }
      /* a pattern finer than a few pixels reads as a line, as dark as its dashes
       * are on average (their share of the pattern): a line of dots far finer than
       * their spacing all but vanishes, as in ezdxf */
      int dashed = n >= 2 && period >= 4;
      cairo_set_dash(cr, dashes, dashed ? n : 0, 0);
      uint8_t rgba[4] = {item->rgba[0], item->rgba[1], item->rgba[2], item->rgba[3]};
      if (n >= 2 && !dashed && total > 0 && on < total)
        rgba[3] = (uint8_t)lround(rgba[3] * on / total);
      source(cr, rgba);
      cairo_stroke(cr);
      cairo_set_dash(cr, NULL, 0, 0);
      break;
    }
    case TC_DRAWING_FILL:
    case TC_DRAWING_PATTERN:
    case TC_DRAWING_MASK: {
      if (!points_meet(&m, xy, item->count, box_x0 - 2, box_y0 - 2, box_x1 + 2, box_y1 + 2))
        break;
      cairo_new_path(cr);
      uint32_t at = 0;
      for (uint32_t r = 0; r < item->ring_count; r++) {
        uint32_t n = d->rings[item->ring_first + r];
        for (uint32_t j = 0; j < n && at + j < item->count; j++)
          path_to(cr, &m, xy[2 * (at + j)], xy[2 * (at + j) + 1], j > 0);
        cairo_close_path(cr);
        at += n;
      }
      cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD);
      source(cr, item->rgba);
      if (item->kind == TC_DRAWING_PATTERN) {
        cairo_set_line_width(cr, 1);
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
        if (item->dash_first + (uint64_t)item->dash_count <= d->dash_count &&
            draw_pattern(cr, d->dashes + item->dash_first, item->dash_count, &m, &inverse, k) == 0)
          break;
      }
      /* a wipeout clears what is drawn beneath it to the (transparent) background */
      if (item->kind == TC_DRAWING_MASK)
        cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR);
      cairo_fill(cr);
      cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
      break;
    }
    case TC_DRAWING_TEXT:
      cairo_save(cr);
      cairo_translate(cr, DX(xy[0], xy[1]), DY(xy[0], xy[1]));
      cairo_transform(cr, &text_space);
      place_text(d, cr, item, k, 0, 0, cap_ratio, s->min_text_px, NULL);
      cairo_restore(cr);
      break;
    case TC_DRAWING_DOT:
      cairo_rectangle(cr, floor(DX(xy[0], xy[1])), floor(DY(xy[0], xy[1])), 1, 1);
      source(cr, item->rgba);
      cairo_fill(cr);
      break;
    default:
      break;
    }
  }
#undef DX
#undef DY
  if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
    vips_error("dxfload", "cannot draw the drawing (%s)", cairo_status_to_string(cairo_status(cr)));
    return -1;
  }
  return 0;
}

/* The image of `width` × `height` pixels a drawing draws into through `to_pixel`
 * (drawing point → image pixel), clipped to `clip` (n_clip points, or none). */
static int open_mapped(const char *filename, int dwg, const char *layers, const cairo_matrix_t *to_pixel, const double *clip,
                       int n_clip, int width, int height, double px_per_mm, double min_text_px, int band_rows, size_t max_bytes,
                       size_t max_text, VipsImage **out) {
  *out = NULL;
  cairo_matrix_t inverse = *to_pixel;
  double det = to_pixel->xx * to_pixel->yy - to_pixel->xy * to_pixel->yx;
  if (!(isfinite(det) && det != 0) || cairo_matrix_invert(&inverse) != CAIRO_STATUS_SUCCESS || n_clip < 0 || n_clip > 4) {
    vips_error("dxfload", "the drawing's placement is degenerate");
    return -1;
  }
  TcDxf *s = calloc(1, sizeof *s);
  if (!s) {
    vips_error("dxfload", "out of memory");
    return -1;
  }
  char *error = NULL;
  if (drawing_acquire(filename, dwg, layers, max_bytes, max_text, &s->entry, &error)) {
    vips_error("dxfload", "%s", error ? error : "GDAL cannot read the drawing");
    free(error);
    dxf_free(s);
    return -1;
  }
  s->to_pixel = *to_pixel;
  s->to_drawing = inverse;
  s->k = sqrt(fabs(det));
  s->px_per_mm = px_per_mm;
  s->min_text_px = min_text_px > 0 ? min_text_px : 0;
  if (clip && n_clip >= 3) {
    memcpy(s->clip, clip, 2 * (size_t)n_clip * sizeof *clip);
    s->clip_points = n_clip;
  }
  return tc_bands_open("dxfload", width, height, band_rows, 0, dxf_draw, s, dxf_free, TC_UNPREMULTIPLY_ROUND, out);
}

int tc_dxf_open_banded(const char *filename, int dwg, const char *layers, double x0, double y_top, double units_per_pixel,
                       int width, int height, double scale, double px_per_mm, double min_text_px, int band_rows,
                       size_t max_bytes, size_t max_text, void **result) {
  VipsImage **out = (VipsImage **)result;
  *out = NULL;
  if (!(scale > 0) || !(units_per_pixel > 0) || band_rows < 1 || width < 1 || height < 1) {
    vips_error("dxfload", "bad scale, frame or band height");
    return -1;
  }
  double w = floor(width * scale + 0.5), h = floor(height * scale + 0.5);
  if (!(w >= 1 && h >= 1 && w <= INT_MAX / 8 && h <= INT_MAX)) {
    vips_error("dxfload", "the drawing cannot be rendered %g × %g pixels", w, h);
    return -1;
  }
  /* north up: drawing point (x0, y_top) at the image's top-left corner */
  double k = scale / units_per_pixel;
  cairo_matrix_t to_pixel;
  cairo_matrix_init(&to_pixel, k, 0, 0, -k, -x0 * k, y_top * k);
  return open_mapped(filename, dwg, layers, &to_pixel, NULL, 0, (int)w, (int)h, px_per_mm * scale, min_text_px, band_rows,
                     max_bytes, max_text, out);
}

int tc_dxf_open_placed(const char *filename, int dwg, const char *layers, const double map[6], const double clip[8], int width,
                       int height, double px_per_mm, double min_text_px, int band_rows, size_t max_bytes, size_t max_text,
                       void **result) {
  VipsImage **out = (VipsImage **)result;
  *out = NULL;
  if (band_rows < 1 || width < 1 || height < 1 || width > INT_MAX / 8 || !(px_per_mm >= 0)) {
    vips_error("dxfload", "bad size, lineweight scale or band height");
    return -1;
  }
  for (int i = 0; i < 6; i++) {
    if (!isfinite(map[i])) {
      vips_error("dxfload", "the drawing's placement is degenerate");
      return -1;
    }
  }
  cairo_matrix_t to_pixel;
  cairo_matrix_init(&to_pixel, map[0], map[3], map[1], map[4], map[2], map[5]);
  return open_mapped(filename, dwg, layers, &to_pixel, clip, clip ? 4 : 0, width, height, px_per_mm, min_text_px, band_rows,
                     max_bytes, max_text, out);
}

/* The threads tc_dxf_preload and tc_dxf_read_ahead started that still run: exit() must
 * not run libgdal's destructors under them */
static pthread_mutex_t preload_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t preload_done = PTHREAD_COND_INITIALIZER;
static int preload_pending;

/* The drawing tc_dxf_read_ahead reads (at most one a process), with the bounds it reads
 * it under, and whether it is still being read; all under preload_lock. */
static char *ahead_path;
static size_t ahead_bytes, ahead_text;
static int ahead_running;

static void wait_read_ahead(const char *path, int dwg, const char *layers, size_t max_bytes, size_t max_text) {
  if (dwg || layers)
    return;
  pthread_mutex_lock(&preload_lock);
  while (ahead_running && ahead_bytes == max_bytes && ahead_text == max_text && strcmp(ahead_path, path) == 0)
    pthread_cond_wait(&preload_done, &preload_lock);
  pthread_mutex_unlock(&preload_lock);
}

static void *read_ahead(void *unused) {
  (void)unused;
  TcDrawingEntry *e = NULL;
  char *error = NULL;
  /* kept among the entries for the header's measure and the levels' drawings */
  if (drawing_acquire_now(ahead_path, 0, NULL, ahead_bytes, ahead_text, &e, &error) == 0)
    drawing_release(e);
  free(error);
  pthread_mutex_lock(&preload_lock);
  ahead_running = 0;
  preload_pending--;
  pthread_cond_broadcast(&preload_done);
  pthread_mutex_unlock(&preload_lock);
  return NULL;
}

void tc_dxf_read_ahead(const char *path, size_t max_bytes, size_t max_text) {
  pthread_mutex_lock(&preload_lock);
  if (!ahead_path && path && (ahead_path = strdup(path))) {
    ahead_bytes = max_bytes;
    ahead_text = max_text;
    pthread_attr_t attributes;
    pthread_t thread;
    if (pthread_attr_init(&attributes) == 0) {
      pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
      ahead_running = pthread_create(&thread, &attributes, read_ahead, NULL) == 0;
      preload_pending += ahead_running;
      pthread_attr_destroy(&attributes);
    }
  }
  pthread_mutex_unlock(&preload_lock);
}

static void *preload(void *unused) {
  (void)unused;
  tc_gdal_load();
  cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create(surface);
  select_font(cr);
  cairo_destroy(cr);
  cairo_surface_destroy(surface);
  pthread_mutex_lock(&preload_lock);
  preload_pending--;
  pthread_cond_broadcast(&preload_done);
  pthread_mutex_unlock(&preload_lock);
  return NULL;
}

static void start_preload(void) {
  pthread_attr_t attributes;
  if (pthread_attr_init(&attributes))
    return;
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  pthread_mutex_lock(&preload_lock);
  /* when no thread can be started, the drawing's first reader loads all as before */
  preload_pending += pthread_create(&thread, &attributes, preload, NULL) == 0;
  pthread_mutex_unlock(&preload_lock);
  pthread_attr_destroy(&attributes);
}

void tc_dxf_preload(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, start_preload);
}

void tc_dxf_preload_finish(void) {
  pthread_mutex_lock(&preload_lock);
  while (preload_pending)
    pthread_cond_wait(&preload_done, &preload_lock);
  pthread_mutex_unlock(&preload_lock);
}

/* Widens `extent` by the ink of each of `d`'s texts: their glyphs laid out as
 * drawn (lines, wrapping, anchor, turn, width factor), 100 pixels high. */
static void add_text_ink(const tc_drawing *d, double extent[4]) {
  cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create(surface);
  double cap_ratio = select_font(cr);
  for (size_t i = 0; i < d->item_count; i++) {
    const tc_drawing_item *item = &d->items[i];
    if (item->kind != TC_DRAWING_TEXT || item->count == 0 || !(item->size > 0))
      continue;
    double k = 100 / item->size, ink[4] = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    place_text(d, cr, item, k, 0, 0, cap_ratio, 0, ink);
    double x0 = ink[0], y0 = ink[1], x1 = ink[2], y1 = ink[3];
    if (!(x1 >= x0 && y1 >= y0))
      continue;
    double ax = d->xy[2 * (size_t)item->first], ay = d->xy[2 * (size_t)item->first + 1];
    /* device y grows down, drawing y up */
    double box[4] = {ax + x0 / k, ay - y1 / k, ax + x1 / k, ay - y0 / k};
    if (!(isfinite(box[0]) && isfinite(box[1]) && isfinite(box[2]) && isfinite(box[3])))
      continue;
    extent[0] = fmin(extent[0], box[0]);
    extent[1] = fmin(extent[1], box[1]);
    extent[2] = fmax(extent[2], box[2]);
    extent[3] = fmax(extent[3], box[3]);
  }
  cairo_destroy(cr);
  cairo_surface_destroy(surface);
}

int tc_dxf_measure(const char *filename, int dwg, size_t max_bytes, size_t max_text, double extent[4], size_t *drawn,
                   size_t *features, size_t *hidden, size_t *not_drawn, char **warnings, size_t *warnings_dropped,
                   char **error) {
  TcDrawingEntry *e;
  int status = drawing_acquire(filename, dwg, NULL, max_bytes, max_text, &e, error);
  extent[0] = extent[1] = extent[2] = extent[3] = NAN;
  *drawn = *features = *hidden = *not_drawn = *warnings_dropped = 0;
  *warnings = NULL;
  if (status)
    return status;
  const tc_drawing *d = &e->drawing;
  extent[0] = d->min_x;
  extent[1] = d->min_y;
  extent[2] = d->max_x;
  extent[3] = d->max_y;
  add_text_ink(d, extent);
  *drawn = d->item_count;
  *features = d->features;
  *hidden = d->hidden;
  *not_drawn = d->refs_not_drawn;
  if (d->warnings)
    *warnings = strdup(d->warnings);
  *warnings_dropped = d->warnings_dropped;
  drawing_release(e);
  return 0;
}
