#ifndef TILECUT_DXF_SCAN_H
#define TILECUT_DXF_SCAN_H

#include <stddef.h>

/* The entities a text DXF's model space makes once its block inserts are inlined
 * (INSERTs multiplied through nested blocks, MINSERT rows and columns counted),
 * read from the DXF text in one pass before GDAL opens it; an insert of a block into
 * itself adds nothing (GDAL skips it), nesting past 1000 levels is INFINITY.
 * -1 when it cannot be read or is a binary DXF.
 *
 * The same pass bounds each single entity before GDAL spends minutes or gigabytes on
 * it: edges per hatch boundary path and vertices per polyline past what GDAL reads in
 * seconds, the points GDAL makes of arcs, bulges and MLINE elements past --max-memory
 * (twice `max_bytes`, the half of it a drawing's list may hold), a model-space insert
 * whose entities GDAL would hold together past `max_bytes` (TC_NESTED_ENTITY_BYTES
 * each; a block's counted up to GDAL's DXF_FEATURE_LIMIT_PER_BLOCK, as GDAL makes them),
 * a text past `max_text` bytes (GDAL cuts long texts short, so tilecut's own check on
 * its features never sees them). The first entity past a bound is described in
 * `refusal` (its type, handle and what to do; empty when none is). `*needs_raw` (unless
 * NULL) is set to 0 when tilecut's own scan gives all it reads of GDAL's raw code values
 * (tc_raw_entry), which are then not asked for: an LWPOLYLINE's vertex widths, which GDAL
 * lists in time that grows with their square, are bounded only when they are. `crossed` (unless
 * NULL) is called with `context` as soon as one is crossed, before its entity is read
 * to its end. */
double tc_dxf_inlined_entities(const char *path, size_t max_bytes, size_t max_text, char *refusal, size_t refusal_size,
                               int *needs_raw, void (*crossed)(void *), void *context);

/* Entities a drawing may make once its blocks are inlined: a million-entity plan
 * and more, never the 10^8 that nested inserts of inserts make from a few lines. */
#define TC_DRAWING_MAX_FEATURES 4000000

/* Bytes GDAL holds for each entity a model-space insert makes: it makes them all before
 * giving the first, up to DXF_FEATURE_LIMIT_PER_BLOCK (10,000) of each block, nested
 * blocks multiplying. Measured with the release build, one insert of ten blocks of ten
 * … of one LINE, against 10^4 inserts of 100 (the same 10^6 lines): 912 against 246 MB
 * peak RSS, about 670 bytes an entity. */
#define TC_NESTED_ENTITY_BYTES 700

#endif
