/*
 * tapset.h - lazy loading of the tapset library (pass 1).
 *
 * Parsing every tapset file on every run costs more than everything else
 * ktap does before a `probe begin` runs, so pass 1 parses only the files
 * a script needs, as stap's elaboration pulls in only the files that
 * define what a script refers to:
 *
 *   1. tapset_add() scans the text of each .stp file (no lexer, no
 *      parser) for what it may provide: function names, global names,
 *      probe alias names.  The scan errs on the side of providing too
 *      much: text it cannot follow (a declaration built by a macro, a
 *      conditional inside an alias name) makes the file "always needed";
 *   2. the script's preprocessed tokens and probe points say what it
 *      needs (tapset_need_tokens(), tapset_need_points()); a name the
 *      script defines itself is never looked up (tapset_exclude());
 *   3. session.c parses the needed files in index order
 *      (tapset_next()), and what they need in turn, until nothing new.
 *
 * Everything lives in the compilation's arena.
 */
#ifndef KTAP_TAPSET_H
#define KTAP_TAPSET_H

#include <stdbool.h>
#include <stddef.h>

#include "token.h"

struct arena;
struct ast_file;
struct tapset_index;

/* An empty index; its storage comes from @a. */
struct tapset_index *tapset_new(struct arena *a);

/*
 * Scan @text (@len bytes) of tapset file @path (copied) for what it
 * provides and add it as the next file.  Returns its index.
 */
unsigned tapset_add(struct tapset_index *ix, const char *path,
		    const char *text, size_t len);

/* Files added so far. */
unsigned tapset_count(const struct tapset_index *ix);

/* The path of file @i as given to tapset_add(). */
const char *tapset_path(const struct tapset_index *ix, unsigned i);

/*
 * Names the script defines (its functions and globals): the script's
 * own definition wins over the tapset's (sema.c), so they pull nothing.
 */
void tapset_exclude(struct tapset_index *ix, const struct ast_file *script);

/*
 * What @n preprocessed tokens refer to: an identifier before '(' may be
 * a tapset function, any other identifier a tapset global.
 */
void tapset_need_tokens(struct tapset_index *ix, const struct token *v,
			size_t n);

/* What the probe points of @f's probes and aliases may match. */
void tapset_need_points(struct tapset_index *ix, const struct ast_file *f);

/*
 * Whether a probe point's first component @name is (@glob: as an
 * fnmatch pattern, matches) a family of system-call points.  stap has
 * several: syscall and nd_syscall, and the back ends behind them,
 * dw_syscall (DWARF), nd1_syscall/nd2_syscall (kprobes on the call and
 * on its __x64_sys_ wrapper) and tp_syscall (the raw_syscalls
 * tracepoints).  For ktap they are one family on the syscalls:*
 * tracepoints, with stap's variables (sema_syscall.c).
 */
bool tapset_syscall_family(const char *name, bool glob);

/*
 * The first needed file that was not handed out yet (marked handed out),
 * or -1 when there is none.
 */
int tapset_next(struct tapset_index *ix);

/* Mark every file needed (tapset_next() then hands out all of them). */
void tapset_need_all(struct tapset_index *ix);

#endif
