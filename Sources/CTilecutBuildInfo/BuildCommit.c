#include "TilecutBuildInfo.h"

/* Defined weakly in BuildCommitDefault.c, strongly in the object the Makefile links
 * in; a separate file, so that the compiler cannot fold the weak default in here. */
extern const char tc_build_commit_id[];

const char *tc_build_commit(void) { return tc_build_commit_id; }
