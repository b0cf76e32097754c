/* The commit of a build that did not name one: empty. A strong definition linked in
 * by the Makefile (.build/commit/<id>.o) takes its place; see TilecutBuildInfo.h. */
__attribute__((weak)) const char tc_build_commit_id[] = "";
