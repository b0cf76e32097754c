/* What the DXF readers of this target share (not a public header): growing an array
   and trimming a group-code line. */
#ifndef TILECUT_DXF_LINES_H
#define TILECUT_DXF_LINES_H

#include <stddef.h>

/* Grows `*array` of `*capacity` elements of `size` bytes to hold `need`, doubling from
   `*capacity` (or from `first` when it is 0); 0 on success, -1 when out of memory. */
int tc_grow_array(void **array, size_t *capacity, size_t need, size_t size, size_t first);

/* One line without its end-of-line and surrounding blanks, in place. */
char *tc_trim_line(char *line);

#endif
