/*
 * sema_refused_point.c - pass 2: probe points ktap knows and refuses,
 * each in one line saying why (and what sees the same events), after
 * nothing matched them: stap implements them in its kernel module (a
 * netfilter hook, a hardware breakpoint) or in a runtime for another
 * language.
 */
#include "sema_int.h"
#include "diag.h"

#include <string.h>

int sema_refused_point(struct sema_ctx *c, const struct ast_ppoint *p)
{
	static const char *const later[][2] = {
		{ "kernel", "" }, { "kprobe", "" }, { "module", "" }, { "process", "" },
		{ "perf", ": perf counters are not read by ktap" },
		{ "netfilter", ": stap registers a netfilter hook from its kernel module, "
			       "and ktap loads no module; its netfilter.ip*.*, netfilter.arp.*, "
			       "netfilter.bridge.* and netfilter.hook(\"HOOK\").pf(\"PF\") are "
			       "kprobes on the functions that hold the hooks (tapset/netfilter.stp)" },
		/* stap's tapset families that ktap's tapset does not have */
		{ "stap", ": these are the static markers of SystemTap's own programs" },
		{ "stapio", ": these are the static markers of SystemTap's own programs" },
		{ "staprun", ": these are the static markers of SystemTap's own programs" },
		{ "python", ": no Python runtime support" },
		{ "python2", ": no Python runtime support" },
		{ "python3", ": no Python runtime support" },
		{ "java", ": no Java runtime support" },
	};
	unsigned i;
	bool placed;

	/* kernel/kprobe/module/process points with a part ktap has no way to
	   place: the part, and why */
	placed = sema_point_is(p, 0, "kernel") || sema_point_is(p, 0, "kprobe") ||
		 sema_point_is(p, 0, "module") || sema_point_is(p, 0, "process");
	for (i = 1; placed && i < p->n; i++) {
		static const char *const part[][2] = {
			{ "inline", "ktap finds the inlined copies of process(\"PATH\") "
			  "functions in the program's DWARF; a kernel function's copies are "
			  "not read: probe the calling function" },
			{ "label", "ktap reads the labels of process(\"PATH\").function(\"NAME\") "
			  "from the program's DWARF; a kernel function's labels are not read: "
			  "probe the function, or an address in it with "
			  ".statement(\"FUNCTION+0xOFFSET\")" },
			{ "absolute", "an absolute address is stap's guru mode (-g): name the "
			  "place as .statement(\"FUNCTION+0xOFFSET\")" },
			{ "insn", "single-stepping is stap's utrace, which ktap does not have" },
			{ "callee", "callees are found through the caller's DWARF call sites, "
			  "which ktap does not read: probe the callee itself" },
			{ "callees", "callees are found through the caller's DWARF call sites, "
			  "which ktap does not read: probe the callees themselves" },
		};
		unsigned k;

		for (k = 0; k < sizeof(part) / sizeof(part[0]); k++)
			if (sema_point_is(p, i, part[k][0])) {
				diag_error(c->diag, p->span, "probe point '%s' is not supported "
					   "by this version of ktap: %s", sema_point_text(c, p),
					   part[k][1]);
				return -1;
			}
	}
	/* .maxactive(N): the kretprobe instances, after .return only */
	if (placed && sema_point_is(p, p->n - 1, "maxactive")) {
		const struct ast_expr *n = p->comps[p->n - 1].arg;

		if (!sema_point_is(p, p->n - 2, "return"))
			diag_error(c->diag, p->span, "probe point '%s': .maxactive(N) follows "
				   ".return only (it bounds a return probe's instances in flight)",
				   sema_point_text(c, p));
		else
			diag_error(c->diag, n ? n->span : p->span, "probe point '%s': .maxactive(N) "
				   "takes a number from 1 to 4096", sema_point_text(c, p));
		return -1;
	}
	/* A hardware breakpoint: one line saying why. */
	if (sema_point_is(p, 0, "kernel") && sema_point_is(p, 1, "data")) {
		diag_error(c->diag, p->span, "kernel.data() probes are hardware watchpoints, "
			   "which stap sets through perf's breakpoint events: ktap uses tracefs "
			   "only, and tracefs has no watchpoint events");
		return -1;
	}
	for (i = 0; i < sizeof(later) / sizeof(later[0]); i++) {
		if (strcmp(p->comps[0].name, later[i][0]) == 0) {
			diag_error(c->diag, p->span,
				   "probe point '%s' is not supported by this version of ktap%s",
				   sema_point_text(c, p), later[i][1]);
			return -1;
		}
	}
	return 0;
}

