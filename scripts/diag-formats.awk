# scripts/diag-formats.awk - the format strings passed to the diagnostic
# functions in C, lex and yacc sources (mawk/gawk/POSIX awk).
#
# In: source files (awk -f diag-formats.awk -v funcs="NAME:ARG ..." FILES),
# where each NAME:ARG is a function (or macro) taking a printf format as
# its ARG-th argument.  Out: one line per call, FILE:LINE, a tab, and the
# format as written between the quotes (adjacent literals joined, escapes
# kept as written); a call whose format is not a string literal prints
# FILE:LINE, a tab and "!" followed by the argument's text.  Definitions,
# prototypes ("const char *fmt") and #define lines are not calls.
BEGIN {
	n = split(funcs, fl, " ")
	for (i = 1; i <= n; i++) {
		split(fl[i], p, ":")
		argno[p[1]] = p[2] + 0
	}
}
FNR == 1 && NR > 1 { scan(prev_file, text) ; text = "" }
{ text = text $0 "\n"; prev_file = FILENAME }
END { if (NR) scan(prev_file, text) }

# Comments become blanks (newlines kept, so line numbers stay right);
# strings and character constants are kept as they are.
function decomment(s,   out, i, c, c2, len, q) {
	out = ""; len = length(s); i = 1
	while (i <= len) {
		c = substr(s, i, 1); c2 = substr(s, i, 2)
		if (c2 == "/*") {
			i += 2
			while (i <= len && substr(s, i, 2) != "*/") {
				out = out (substr(s, i, 1) == "\n" ? "\n" : " "); i++
			}
			out = out "  "; i += 2
		} else if (c2 == "//") {
			while (i <= len && substr(s, i, 1) != "\n") { out = out " "; i++ }
		} else if (c == "\"" || c == "'") {
			q = c; out = out c; i++
			while (i <= len && substr(s, i, 1) != q) {
				if (substr(s, i, 1) == "\\") { out = out substr(s, i, 2); i += 2 }
				else { out = out substr(s, i, 1); i++ }
			}
			out = out q; i++
		} else { out = out c; i++ }
	}
	return out
}

function lineof(s, pos,   t) {
	t = substr(s, 1, pos)
	return gsub(/\n/, "\n", t) + 1
}

# The text of argument k of the call whose "(" is at pos, or "" when the
# call has fewer arguments.
function arg(s, pos, k,   i, c, depth, cur, nth, len) {
	depth = 0; cur = ""; nth = 1; len = length(s)
	for (i = pos; i <= len; i++) {
		c = substr(s, i, 1)
		if (c == "\"" || c == "'") {
			q = c; cur = cur c; i++
			while (i <= len && substr(s, i, 1) != q) {
				if (substr(s, i, 1) == "\\") { cur = cur substr(s, i, 2); i += 2 }
				else { cur = cur substr(s, i, 1); i++ }
			}
			cur = cur q
			continue
		}
		if (c == "(" || c == "[" || c == "{") {
			depth++
			if (depth == 1) continue
		} else if (c == ")" || c == "]" || c == "}") {
			depth--
			if (depth == 0) return nth == k ? cur : ""
		} else if (c == "," && depth == 1) {
			if (nth == k) return cur
			nth++; cur = ""; continue
		}
		cur = cur c
	}
	return ""
}

# The joined contents of a sequence of string literals, or "!" and the
# text when @a is anything else.
function literal(a,   t, out, i, len, c) {
	t = a; gsub(/^[ \t\n]+|[ \t\n]+$/, "", t)
	out = ""; len = length(t); i = 1
	while (i <= len) {
		c = substr(t, i, 1)
		if (c ~ /[ \t\n]/) { i++; continue }
		if (c != "\"") { gsub(/[ \t\n]+/, " ", t); return "!" t }
		i++
		while (i <= len && substr(t, i, 1) != "\"") {
			if (substr(t, i, 1) == "\\") { out = out substr(t, i, 2); i += 2 }
			else { out = out substr(t, i, 1); i++ }
		}
		i++
	}
	return out
}

# Split "COND ? A : B" at its first top-level "?" and the ":" after it
# (outside strings and brackets) into tern_a and tern_b; 0 if it is not.
function split_ternary(a,   i, c, len, depth, q, qpos) {
	len = length(a); depth = 0; qpos = 0
	for (i = 1; i <= len; i++) {
		c = substr(a, i, 1)
		if (c == "\"" || c == "'") {
			q = c; i++
			while (i <= len && substr(a, i, 1) != q)
				i += substr(a, i, 1) == "\\" ? 2 : 1
			continue
		}
		if (c == "(" || c == "[") depth++
		else if (c == ")" || c == "]") depth--
		else if (depth == 0 && c == "?" && !qpos) qpos = i
		else if (depth == 0 && c == ":" && qpos) {
			tern_a = substr(a, qpos + 1, i - qpos - 1)
			tern_b = substr(a, i + 1)
			return 1
		}
	}
	return 0
}

function scan(file, s,   rest, off, name, m, before, bol, a, k, line) {
	s = decomment(s)
	off = 0
	rest = s
	while (match(rest, /[A-Za-z_][A-Za-z_0-9]*[ \t\n]*\(/)) {
		name = substr(rest, RSTART, RLENGTH)
		sub(/[ \t\n]*\($/, "", name)
		m = off + RSTART + RLENGTH - 1	# the "(" in s
		before = substr(s, 1, off + RSTART - 1)
		off += RSTART + RLENGTH - 1
		rest = substr(s, off + 1)
		if (!(name in argno))
			continue
		bol = before; sub(/.*\n/, "", bol)
		if (bol ~ /^[ \t]*#/)
			continue
		a = arg(s, m, argno[name])
		if (a ~ /^[ \t\n]*const[ \t\n]+char/)
			continue
		if (a ~ /^[ \t\n]*__VA_ARGS__[ \t\n]*$/)
			continue	# a macro's body (diag.h)
		line = lineof(s, m)
		# COND ? "a" : "b" passes one of two literal formats.
		k = literal(a)
		if (k ~ /^!/ && split_ternary(a)) {
			k = literal(tern_a)
			if (k !~ /^!/) k2 = literal(tern_b)
			if (k !~ /^!/ && k2 !~ /^!/) {
				printf "%s:%d\t%s\n", file, line, k
				k = k2
			} else
				k = literal(a)
		}
		printf "%s:%d\t%s\n", file, line, k
	}
}
