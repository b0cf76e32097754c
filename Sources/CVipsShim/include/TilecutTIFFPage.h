#ifndef TILECUT_TIFF_PAGE_H
#define TILECUT_TIFF_PAGE_H

#include <stdint.h>
#include <vips/vips.h>

/* Opens page `page` of a TIFF with libvips' tiffload, seen as a one-page file, so
 * that opening it reads the directories before it once and none after it.
 * 0: *out is the page; -1: libvips failed (its error buffer says why); 1: this
 * reader cannot find the page in the chain: open it with libvips' own loader. */
int tc_tiff_page_open(const char *filename, int page, int sequential, VipsImage **out);

/* Pages in a TIFF's directory chain, walked by offsets only; -1 if it cannot be walked. */
int tc_tiff_page_count(const char *filename);

/* The offset of page `page`'s directory in the TIFF open as `fd`, from the same
 * walk of the chain (done once per file); -1 when the chain does not reach it. */
int tc_tiff_directory(int fd, int page, uint64_t *ifd);

/* How many directory chains were walked in this process (each file once while it
 * is among the last few looked up): for tests that count work. */
unsigned long tc_tiff_chain_walks(void);

#endif
