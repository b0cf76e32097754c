#ifndef TILECUT_BUILD_INFO_H
#define TILECUT_BUILD_INFO_H

#ifdef __cplusplus
extern "C" {
#endif

/* The commit the binary was built from, as `make` links it in ("290a01b", or
 * "290a01b-dirty" from a tree with uncommitted changes), or "" from a build that
 * did not (plain `swift build`, the SwiftPM plugins, a tarball without git).
 *
 * How: BuildCommitDefault.c defines tc_build_commit_id as a weak symbol holding "";
 * the Makefile compiles .build/commit/<id>.o, whose strong definition of the same
 * symbol the linker prefers (`swift build -Xlinker .build/commit/<id>.o`). Nothing
 * is generated into the source tree, so the tree stays clean, and only the link
 * step sees the flag: a new commit relinks, it recompiles nothing. */
const char *tc_build_commit(void);

#ifdef __cplusplus
}
#endif

#endif
