#ifndef TILECUT_TIFF_PAGE_H
#define TILECUT_TIFF_PAGE_H

#include <vips/vips.h>

/* Opens page `page` of a TIFF with libvips' tiffload, seen as a one-page file, so
 * that opening it reads the directories before it once and none after it.
 * 0: *out is the page; -1: libvips failed (its error buffer says why); 1: this
 * reader cannot find the page in the chain: open it with libvips' own loader. */
int tc_tiff_page_open(const char *filename, int page, int sequential, VipsImage **out);

/* Pages in a TIFF's directory chain, walked by offsets only; -1 if it cannot be walked. */
int tc_tiff_page_count(const char *filename);

#endif
