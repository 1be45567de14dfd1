#!/usr/bin/env python3
"""gen-tparg.py - which tracepoint record field holds which argument.

Usage: scripts/gen-tparg.py LINUX_SOURCE_DIR >compiler/resolve/resolve_tparg.def

SystemTap's kernel.trace() probes see the tracepoint's arguments
(TP_PROTO: $prev, $next ...), ktap sees the event record that tracefs
delivers.  This reads the kernel's own TRACE_EVENT definitions
(include/trace/events/*.h and arch/x86/include/asm/trace/*.h) and writes,
for every event class, its prototype and every record field that holds
exactly one argument expression (compiler/resolve/resolve_tparg.c reads
the result):

  TPARG_EVENT(SYSTEM, EVENT, CLASS, "PROTO")
  TPARG_MAP(CLASS, "ARG->MEMBER...", FIELD, KIND)

KIND is 0 for a value (`__entry->F = EXPR;`; `entry->` is the same) and 1 for a string copied
from EXPR (`__assign_str(F, EXPR)`, `memcpy(__entry->F, EXPR, N)` into a
char array, strscpy/strncpy/strlcpy).  Only exact copies count: EXPR
must be an argument or a member chain of one (no casts, no arithmetic,
no calls but the member accessors of ACCESSORS below), the statement must be at the top level of TP_fast_assign (not
under an if), and the field must be written nowhere else.  '.' and '->'
are both written '->', as in SystemTap's syntax.

Run over linux-source-6.1 (apt-get install linux-source-6.1; unpack
include/trace/events and arch/x86/include/asm/trace): the running
kernel's event formats are checked against the table at compile time.
"""
import os
import re
import sys

CHAIN = re.compile(r'^[A-Za-z_]\w*(?:(?:->|\.)[A-Za-z_]\w*)*$')
IDENT = re.compile(r'[A-Za-z_]\w*$')
STRCOPY = ('memcpy', 'strscpy', 'strscpy_pad', 'strncpy', 'strlcpy')
# The kernel's one-argument inline accessors that read one member (as
# 6.1 defines them for x86_64: task_cpu() reads thread_info's cpu with
# THREAD_INFO_IN_TASK), and READ_ONCE(), which reads its argument: a copy
# of ACCESSOR(CHAIN) is a copy of the member chain, so a tapset function
# such as task_cpu($p) finds the field (sched_migrate_task's orig_cpu).
ACCESSORS = {
    'READ_ONCE': '%s',
    'task_cpu': '%s->thread_info->cpu',
    'task_pid_nr': '%s->pid',
    'task_tgid_nr': '%s->tgid',
}


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', lambda m: ' ' * 0 + '\n' * m.group(0).count('\n'),
                  text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)


def directives_out(text):
    """Preprocessor lines blanked; TRACE_SYSTEM defines kept as markers."""
    out, cont = [], False
    for line in text.split('\n'):
        s = line.strip()
        if cont or s.startswith('#'):
            m = re.match(r'#\s*define\s+TRACE_SYSTEM\s+(\w+)\s*$', s)
            out.append('@TRACE_SYSTEM %s@' % m.group(1) if m else '')
            cont = s.endswith('\\')
        else:
            out.append(line)
    return '\n'.join(out)


def split_args(text, start):
    """The top-level arguments of the call whose '(' is at @start; end."""
    depth, args, cur, i = 0, [], start + 1, start
    while i < len(text):
        ch = text[i]
        if ch in '([{':
            depth += 1
        elif ch in ')]}':
            depth -= 1
            if depth == 0:
                args.append(text[cur:i])
                return args, i + 1
        elif ch == ',' and depth == 1:
            args.append(text[cur:i])
            cur = i + 1
        elif ch == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == '\\' else 1
        i += 1
    return None, len(text)


def inner(arg, name):
    """The inside of NAME(...) in @arg, or None."""
    arg = arg.strip()
    if not arg.startswith(name):
        return None
    rest = arg[len(name):].strip()
    if not rest.startswith('(') or not rest.endswith(')'):
        return None
    return rest[1:-1]


def proto_names(proto):
    names = []
    for p in split_top(proto, ','):
        p = p.strip()
        m = IDENT.search(p.split('[')[0].strip())
        if p and p != 'void' and m:
            names.append(m.group(0))
    return names


def split_top(text, sep):
    parts, depth, cur = [], 0, ''
    for ch in text:
        if ch in '([{':
            depth += 1
        elif ch in ')]}':
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ''
        else:
            cur += ch
    parts.append(cur)
    return parts


def char_fields(struct):
    """Record fields that hold a string: __array(char, F, N), __string(F, ...)."""
    out = set()
    for m in re.finditer(r'__array\(\s*(?:unsigned\s+)?char\s*,\s*(\w+)\s*,', struct):
        out.add(m.group(1))
    for m in re.finditer(r'__string(?:_len)?\(\s*(\w+)\s*,', struct):
        out.add(m.group(1))
    return out


def norm(expr):
    return re.sub(r'\s+', '', expr).replace('.', '->')


def statements(assign):
    """Top-level statements of TP_fast_assign; blocks and ifs as one each."""
    out, depth, cur = [], 0, ''
    for ch in assign:
        cur += ch
        if ch in '([{':
            depth += 1
        elif ch in ')]}':
            depth -= 1
            if ch == '}' and depth == 0:
                out.append(cur)
                cur = ''
        elif ch == ';' and depth == 0:
            out.append(cur)
            cur = ''
    out.append(cur)
    return [s.strip() for s in out if s.strip()]


def unwrap(expr):
    """EXPR with a known accessor call around a member chain replaced by the chain."""
    m = re.match(r'(\w+)\s*\((.*)\)$', expr, re.S)
    if m and m.group(1) in ACCESSORS and CHAIN.match(re.sub(r'\s+', '', m.group(2))):
        return ACCESSORS[m.group(1)] % m.group(2).strip()
    return expr


def one_copy(stmt, args, strings):
    """(FIELD, EXPR, KIND) when @stmt copies an argument expression exactly."""
    s = stmt.rstrip(';').strip()
    if re.match(r'(if|else|for|while|switch|do)\b', s) or '{' in s:
        return None
    m = re.match(r'(?:__)?entry->(\w+)\s*=\s*(.*)$', s, re.S)
    if m:
        field, expr, kind = m.group(1), m.group(2), 0
    else:
        m = re.match(r'(\w+)\s*\((.*)\)$', s, re.S)
        if not m:
            return None
        fn, parts = m.group(1), split_top(m.group(2), ',')
        if fn == '__assign_str' and len(parts) == 2:
            field, expr, kind = parts[0].strip(), parts[1], 1
        elif fn in STRCOPY and len(parts) == 3:
            d = re.match(r'\s*(?:__)?entry->(\w+)\s*$', parts[0])
            if not d or d.group(1) not in strings:
                return None
            field, expr, kind = d.group(1), parts[1], 1
        else:
            return None
    expr = unwrap(expr.strip())
    if not CHAIN.match(re.sub(r'\s+', '', expr)):
        return None
    root = re.match(r'\w+', expr).group(0)
    if root not in args or (kind == 1 and field not in strings) or (kind == 0 and field in strings):
        return None
    return field, norm(expr), kind


def field_uses(assign, field):
    return len(re.findall(r'(?:\b(?:__)?entry->|__assign_str\(\s*|__get_str\(\s*)%s\b' % field, assign))


def class_maps(proto, struct, assign):
    args, strings, maps = set(proto_names(proto)), char_fields(struct), []
    for stmt in statements(assign):
        got = one_copy(stmt, args, strings)
        if got and field_uses(assign, got[0]) == 1:
            maps.append(got)
    return maps


def parse_file(path, classes, events):
    text = directives_out(strip_comments(open(path, errors='replace').read()))
    pat = re.compile(r'@TRACE_SYSTEM (\w+)@|\b(TRACE_EVENT(?:_CONDITION|_FN|_FN_COND)?|'
                     r'DECLARE_EVENT_CLASS|DEFINE_EVENT(?:_FN|_CONDITION|_PRINT)?)\s*\(')
    system, pos = None, 0
    while True:
        m = pat.search(text, pos)
        if not m:
            return
        if m.group(1):
            system, pos = m.group(1), m.end()
            continue
        macro = m.group(2)
        args, pos = split_args(text, m.end() - 1)
        if not args or not system:
            continue
        args = [a.strip() for a in args]
        proto = inner(args[1 if macro.startswith('TRACE') or macro == 'DECLARE_EVENT_CLASS'
                           else 2], 'TP_PROTO')
        if macro.startswith('DEFINE_EVENT'):
            events.append((system, args[1], args[0], proto))
            continue
        struct = next((inner(a, 'TP_STRUCT__entry') for a in args
                       if inner(a, 'TP_STRUCT__entry') is not None), None)
        assign = next((inner(a, 'TP_fast_assign') for a in args
                       if inner(a, 'TP_fast_assign') is not None), None)
        if proto is None or struct is None or assign is None:
            continue
        name = args[0]
        if name not in classes:
            classes[name] = (proto, class_maps(proto, struct, assign))
        if macro.startswith('TRACE_EVENT'):
            events.append((system, name, name, proto))


def c_str(s):
    return '"%s"' % re.sub(r'\s+', ' ', s).strip().replace('\\', '\\\\').replace('"', '\\"')


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: gen-tparg.py LINUX_SOURCE_DIR')
    src = sys.argv[1]
    dirs = ['include/trace/events', 'arch/x86/include/asm/trace']
    classes, events = {}, []
    for d in dirs:
        if not os.path.isdir(os.path.join(src, d)):
            continue
        for f in sorted(os.listdir(os.path.join(src, d))):
            if f.endswith('.h'):
                parse_file(os.path.join(src, d, f), classes, events)
    print('/* Generated by scripts/gen-tparg.py from %s (%s):'
          % (os.path.basename(os.path.abspath(src)), ', '.join(dirs)))
    print(' * each tracepoint event, its class and prototype, and the record fields')
    print(' * of each class that hold exactly one argument expression.  Do not edit. */')
    seen = set()
    for system, name, cls, proto in events:
        if (system, name) in seen or cls not in classes:
            continue
        seen.add((system, name))
        print('TPARG_EVENT("%s", "%s", "%s", %s)' % (system, name, cls, c_str(classes[cls][0])))
    for cls in sorted(classes):
        for field, expr, kind in classes[cls][1]:
            print('TPARG_MAP("%s", "%s", "%s", %d)' % (cls, expr, field, kind))


if __name__ == '__main__':
    main()
