#ifndef TILECUT_DXF_SCAN_H
#define TILECUT_DXF_SCAN_H

/* The entities a text DXF's model space makes once its block inserts are inlined
 * (INSERTs multiplied through nested blocks, MINSERT rows and columns counted),
 * read from the DXF text in one pass before GDAL opens it; an insert of a block into
 * itself adds nothing (GDAL skips it), nesting past 1000 levels is INFINITY.
 * -1 when it cannot be read or is a binary DXF. */
double tc_dxf_inlined_entities(const char *path);

#endif
