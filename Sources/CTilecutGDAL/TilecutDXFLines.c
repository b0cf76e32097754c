#include "TilecutDXFLines.h"

#include <stdlib.h>
#include <string.h>

int tc_grow_array(void **array, size_t *capacity, size_t need, size_t size, size_t first) {
  if (need <= *capacity)
    return 0;
  size_t next = *capacity ? *capacity : first;
  while (next < need)
    next *= 2;
  void *p = realloc(*array, next * size);
  if (!p)
    return -1;
  *array = p;
  *capacity = next;
  return 0;
}

char *tc_trim_line(char *line) {
  while (*line == ' ' || *line == '\t')
    line++;
  size_t n = strlen(line);
  while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
    line[--n] = 0;
  return line;
}
