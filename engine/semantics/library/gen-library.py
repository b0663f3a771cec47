#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Expand library.def (the built-in signatures of Stan) into a C table.

Usage: gen-library.py library.def library-table.c [--stats] [--dump NAME]

The table encodes each signature as a compact string that library.c decodes
into interned types on first use:

  i r c v w m V W M   int real complex vector row_vector matrix and the
                      complex vector, row vector, matrix
  x                   void
  a<T>                array of T
  t<n><T...>          tuple of n members
  f<k><n><args><ret>  function of kind k (p plain, r rng, l lpdf, u lupdf,
                      t _lp, j _jacobian)
  <n><args><ret>      a signature; <n> is chr(ord('A') + count), every
                      argument is an optional `d` (data-only) and a type

Within a name, signatures are listed last-defined first, which is the order
the Stan compiler keeps them in and so the order its messages use for ties.
"""

import itertools
import re
import sys

BASICS = {
    'int': 'i', 'real': 'r', 'complex': 'c', 'vector': 'v', 'row_vector': 'w',
    'matrix': 'm', 'complex_vector': 'V', 'complex_row_vector': 'W',
    'complex_matrix': 'M', 'void': 'x',
}
REAL_OF_COMPLEX = {'complex': 'real', 'complex_vector': 'vector',
                   'complex_row_vector': 'row_vector', 'complex_matrix': 'matrix'}
COMPLEX_OF_REAL = {v: k for k, v in REAL_OF_COMPLEX.items()}
SUFFIXES = ('lpdf', 'lpmf', 'cdf', 'lcdf', 'lccdf', 'rng')


class DefError(Exception):
    pass


# ---------------------------------------------------------------- types
# Concrete types are tuples: ('int',), ('array', T), ('tuple', (T, ...)),
# ('fun', ((data, T), ...), RET).

def basic(name):
    return (name,)


def array_n(t, n):
    for _ in range(n):
        t = ('array', t)
    return t


def map_scalars(t, f):
    if t[0] == 'array':
        return ('array', map_scalars(t[1], f))
    if t[0] == 'tuple':
        return ('tuple', tuple(map_scalars(m, f) for m in t[1]))
    return f(t)


def real_of(t):
    return map_scalars(t, lambda b: basic('real') if b[0] == 'int' else b)


def real_part(t):
    return map_scalars(t, lambda b: basic(REAL_OF_COMPLEX.get(b[0], b[0])))


def complex_of(t):
    return map_scalars(t, lambda b: basic(COMPLEX_OF_REAL.get(b[0], b[0])))


def encode(t):
    if t[0] == 'array':
        return 'a' + encode(t[1])
    if t[0] == 'tuple':
        return 't' + chr(ord('0') + len(t[1])) + ''.join(encode(m) for m in t[1])
    if t[0] == 'fun':
        return 'fp' + encode_sig(t[1], t[2])
    return BASICS[t[0]]


def encode_sig(args, ret):
    return (chr(ord('A') + len(args))
            + ''.join(('d' if data else '') + encode(t) for data, t in args)
            + encode(ret))


def show(t):
    if t[0] == 'array':
        depth, base = 0, t
        while base[0] == 'array':
            depth, base = depth + 1, base[1]
        return 'array[%s] %s' % (',' * (depth - 1), show(base))
    if t[0] == 'tuple':
        return 'tuple(%s)' % ', '.join(show(m) for m in t[1])
    if t[0] == 'fun':
        return '(%s) => %s' % (', '.join(('data ' if d else '') + show(a)
                                         for d, a in t[1]), show(t[2]))
    return t[0]


# ------------------------------------------------------- type expressions

TOKEN = re.compile(r'\s*(=>|->|\.\.|[A-Za-z_][A-Za-z_0-9]*|\d+|[][(),^+|])')


def tokenize(text):
    pos, out = 0, []
    text = text.rstrip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise DefError('cannot read %r' % text[pos:])
        out.append(m.group(1))
        pos = m.end()
    return out


class Parser:
    """Type expressions of library.def, kept symbolic until expansion."""

    FUNCS = ('real_of', 'real_part', 'complex_of', 'vec')

    def __init__(self, tokens):
        self.toks, self.i = tokens, 0

    def peek(self, k=0):
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def take(self, expected=None):
        tok = self.peek()
        if tok is None or (expected is not None and tok != expected):
            raise DefError('expected %r, found %r' % (expected, tok))
        self.i += 1
        return tok

    def at_end(self):
        return self.i >= len(self.toks)

    def args(self):
        """A comma-separated argument list up to ')' or the end."""
        if self.peek() == '(' and self.peek(1) == ')' and self.peek(2) != '=>':
            self.i += 2
            return []
        out = [self.arg()]
        while self.peek() == ',':
            self.take(',')
            out.append(self.arg())
        return out

    def arg(self):
        data = False
        if self.peek() == 'data':
            self.take()
            data = True
        alts = [self.alt_item()]
        while self.peek() == '|':
            self.take('|')
            if self.peek() == 'data':
                self.take()
            alts.append(self.alt_item())
        return (data, alts)

    def alt_item(self):
        atom = self.atom()
        if self.peek() == '^':
            self.take('^')
            tok = self.take()
            if tok.isdigit():
                depth = (None, int(tok))
            else:
                off = 0
                if self.peek() == '+':
                    self.take('+')
                    off = int(self.take())
                depth = (tok, off)
            atom = ('arr', atom, depth)
        return atom

    def atom(self):
        tok = self.take()
        if tok == 'array':
            self.take('[')
            dims = 1
            while self.peek() == ',':
                self.take(',')
                dims += 1
            self.take(']')
            return ('arr', self.alt_item(), (None, dims))
        if tok == 'tuple':
            self.take('(')
            members = [self.alt_item()]
            while self.peek() == ',':
                self.take(',')
                members.append(self.alt_item())
            self.take(')')
            return ('tuple', members)
        if tok == '(':
            args = self.args()
            self.take(')')
            self.take('=>')
            return ('fun', args, self.alt_item())
        if tok in self.FUNCS:
            self.take('(')
            inner = self.alt_item()
            self.take(')')
            return ('call', tok, inner)
        if tok in BASICS:
            return ('basic', tok)
        if re.match(r'[A-Za-z_]', tok):
            return ('name', tok)
        raise DefError('unexpected %r' % tok)


def parse_args(text):
    p = Parser(tokenize(text))
    args = p.args()
    if not p.at_end():
        raise DefError('trailing text in %r' % text)
    return args


def parse_type(text):
    p = Parser(tokenize(text))
    t = p.alt_item()
    if not p.at_end():
        raise DefError('trailing text in %r' % text)
    return t


# ----------------------------------------------------------- evaluation

class Library:
    def __init__(self):
        self.sets = {}
        self.sigs = {}          # name -> [(args, ret)] in definition order
        self.variadics = []     # (name, control args, ret, fn args, fn ret, lpdf)
        self.reduce_sums = []
        self.deprecations = []  # (name, replacement, major, minor, removed)
        self.macros = {}

    def builtin_set(self, name):
        reals = [basic('real'), ('array', basic('real')), basic('vector'),
                 basic('row_vector')]
        ints = [basic('int'), ('array', basic('int'))]
        if name == 'reals':
            return reals
        if name == 'ints':
            return ints
        if name == 'reals_ints':
            return reals + ints
        if name == 'vectors':
            return [basic('vector'), ('array', basic('vector')),
                    basic('row_vector'), ('array', basic('row_vector'))]
        return self.sets.get(name)

    def eval_depth(self, depth, env):
        var, off = depth
        if var is None:
            return off
        if var not in env or not isinstance(env[var], int):
            raise DefError('unbound depth %r' % var)
        return env[var] + off

    def eval_alts(self, e, env):
        """All concrete types an expression stands for (sets expand)."""
        kind = e[0]
        if kind == 'basic':
            return [basic(e[1])]
        if kind == 'name':
            if e[1] in env:
                return [env[e[1]]]
            s = self.builtin_set(e[1])
            if s is None:
                raise DefError('unknown name %r' % e[1])
            return list(s)
        if kind == 'arr':
            n = self.eval_depth(e[2], env)
            return [array_n(t, n) for t in self.eval_alts(e[1], env)]
        if kind == 'tuple':
            choices = [self.eval_alts(m, env) for m in e[1]]
            return [('tuple', tuple(c)) for c in itertools.product(*choices)]
        if kind == 'fun':
            args = [(d, self.eval_single(a[0], env)) for d, a in e[1]]
            return [('fun', tuple(args), self.eval_single(e[2], env))]
        if kind == 'call':
            f = {'real_of': real_of, 'real_part': real_part,
                 'complex_of': complex_of}.get(e[1])
            if f is None:
                raise DefError('%s() only as a return type' % e[1])
            return [f(t) for t in self.eval_alts(e[2], env)]
        raise DefError('bad expression %r' % (e,))

    def eval_single(self, e, env):
        ts = self.eval_alts(e, env)
        if len(ts) != 1:
            raise DefError('expected one type, got %d' % len(ts))
        return ts[0]

    def eval_return(self, e, env, args):
        if e[0] == 'call' and e[1] == 'vec':
            t = self.eval_single(e[2], env)
            scalar = all(a[0] in ('int', 'real') for _, a in args)
            return t if scalar else ('array', t)
        return self.eval_single(e, env)

    def expand_args(self, args, env):
        """Every combination of alternatives, the first argument fastest."""
        choices = []
        for data, alts in args:
            ts = []
            for a in alts:
                ts.extend(self.eval_alts(a, env))
            choices.append([(data, t) for t in ts])
        combos = [[]]
        for choice in choices:
            combos = [c + [x] for x in choice for c in combos]
        return combos

    def envs(self, bindings):
        """Environments for `for` bindings, leftmost outermost."""
        domains = []
        for var, dom in bindings:
            if isinstance(dom, range):
                domains.append([(var, n) for n in dom])
            else:
                domains.append([(var, t) for t in dom])
        for combo in itertools.product(*domains):
            yield dict(combo)

    def add(self, name, args, ret):
        self.sigs.setdefault(name, []).append((tuple(args), ret))

    # ------------------------------------------------------------ lines

    def parse_bindings(self, text):
        out = []
        for part in split_top(text, ','):
            m = re.match(r'\s*(\w+)\s+in\s+(.*)$', part)
            if not m:
                raise DefError('bad binding %r' % part)
            var, dom = m.group(1), m.group(2).strip()
            r = re.match(r'(\d+)\.\.(\d+)$', dom)
            if r:
                out.append((var, range(int(r.group(1)), int(r.group(2)) + 1)))
            elif dom.startswith('('):
                types = [self.eval_single(parse_type(t), {})
                         for t in split_top(dom[1:-1], ',')]
                out.append((var, types))
            else:
                s = self.builtin_set(dom)
                if s is None:
                    raise DefError('unknown set %r' % dom)
                out.append((var, s))
        return out

    def function_line(self, line):
        names, rest = line.split(':', 1)
        pieces = split_top(rest, '->')
        if len(pieces) != 2:
            raise DefError('expected one "->"')
        args_text, ret_text = pieces
        bindings = []
        m = re.search(r'\sfor\s', ret_text)
        if m:
            bindings = self.parse_bindings(ret_text[m.end():])
            ret_text = ret_text[:m.start()]
        args = parse_args(args_text)
        ret = parse_type(ret_text)
        for name in names.split():
            for env in self.envs(bindings):
                for combo in self.expand_args(args, env):
                    self.add(name, combo, self.eval_return(ret, env, combo))

    def distribution_line(self, line):
        m = re.match(r'\s*(\w+)\s*~(.*)\[([\w\s]+)\]\s*$', line)
        if not m:
            raise DefError('bad distribution line')
        family, args_text, sfx = m.group(1), m.group(2), m.group(3).split()
        args = parse_args(args_text)
        for s in sfx:
            if s not in SUFFIXES:
                raise DefError('unknown suffix %r' % s)
        for s in sfx:
            if s == 'rng':
                self.distribution_rng(family, args)
            else:
                for combo in self.expand_args(args, {}):
                    self.add('%s_%s' % (family, s), combo, basic('real'))

    def distribution_rng(self, family, args):
        variate = args[0][1]
        ints = all(self.eval_alts(a, {})[0][0] == 'int'
                   or self.eval_alts(a, {})[0] == ('array', basic('int'))
                   for a in variate)
        scalar = basic('int') if ints else basic('real')
        params = [(d, [('name', 'reals_ints') if a == ('name', 'reals') else a
                       for a in alts]) for d, alts in args[1:]]
        for combo in self.expand_args(params, {}):
            prim = all(t[0] in ('int', 'real') for _, t in combo)
            self.add(family + '_rng', combo, scalar if prim else ('array', scalar))

    def variadic_line(self, line):
        m = re.match(r'(.*?):(.*)->(.*)\bcallback\b(.*)$', line)
        if not m:
            raise DefError('bad @variadic line')
        names, control, ret, cb = m.groups()
        lpdf = cb.strip().endswith('lpdf')
        if lpdf:
            cb = cb.strip()[:-4]
        control = [(d, self.eval_single(a[0], {})) for d, a in parse_args(control)]
        ret = self.eval_single(parse_type(ret), {})
        fn = self.eval_single(parse_type(cb), {})
        for name in names.split():
            self.variadics.append((name, control, ret, fn[1], fn[2], lpdf))

    def directive(self, line):
        word, _, rest = line[1:].partition(' ')
        if word == 'set':
            name, _, body = rest.partition('=')
            self.sets[name.strip()] = [self.eval_single(parse_type(t), {})
                                       for t in split_top(body, ',')]
        elif word == 'variadic':
            self.variadic_line(rest)
        elif word == 'reduce_sum':
            self.reduce_sums.extend(rest.split())
        elif word in ('deprecated', 'removed'):
            name, repl, version = rest.split()
            major, minor = version.split('.')
            self.deprecations.append((name, repl, int(major), int(minor),
                                      word == 'removed'))
        elif word in self.macros:
            for name in rest.split():
                for body in self.macros[word]:
                    self.line(body.replace('%', name))
        else:
            raise DefError('unknown directive @%s' % word)

    def line(self, line):
        if line.startswith('@'):
            self.directive(line)
        elif re.match(r'\s*\w+\s*~', line):
            self.distribution_line(line)
        else:
            self.function_line(line)

    def read(self, path):
        macro = None
        with open(path, encoding='utf-8') as f:
            for lineno, raw in enumerate(f, 1):
                line = raw.split('#', 1)[0].strip()
                if not line:
                    continue
                try:
                    if macro is not None:
                        if line == '@end':
                            macro = None
                        else:
                            self.macros[macro].append(line)
                    elif line.startswith('@macro '):
                        macro = line.split()[1]
                        self.macros[macro] = []
                    else:
                        self.line(line)
                except DefError as e:
                    raise DefError('%s:%d: %s' % (path, lineno, e)) from None


def split_top(text, sep):
    """Split at `sep` outside brackets and parentheses."""
    parts, depth, cur, i = [], 0, '', 0
    while i < len(text):
        c = text[i]
        if c in '([':
            depth += 1
        elif c in ')]':
            depth -= 1
        if depth == 0 and text.startswith(sep, i):
            parts.append(cur)
            cur, i = '', i + len(sep)
            continue
        cur += c
        i += 1
    parts.append(cur)
    return [p.strip() for p in parts]


# ---------------------------------------------------------------- output

def c_string(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def families_of(names):
    fams = {}
    for name in names:
        for bit, sfx in enumerate(SUFFIXES):
            if name.endswith('_' + sfx):
                fams.setdefault(name[:-len(sfx) - 1], 0)
                fams[name[:-len(sfx) - 1]] |= 1 << bit
    return fams


def emit(lib, out_path):
    names = sorted(lib.sigs)
    codes, code_index, sig_index, entries = [], {}, [], []
    for name in names:
        seen, sigs = set(), []
        # last-defined first, duplicates dropped
        for args, ret in reversed(lib.sigs[name]):
            code = encode_sig(args, ret)
            if code not in seen:
                seen.add(code)
                sigs.append(code)
        first = len(sig_index)
        for code in sigs:
            if code not in code_index:
                code_index[code] = len(codes)
                codes.append(code)
            sig_index.append(code_index[code])
        entries.append((name, first, len(sigs)))
    variadic_names = sorted(set(v[0] for v in lib.variadics) | set(lib.reduce_sums))
    fams = families_of(names)

    w = []
    w.append('/* SPDX-License-Identifier: GPL-3.0-or-later */')
    w.append('/* Generated by gen-library.py from library.def; do not edit. */')
    w.append('#define G_LOG_DOMAIN "tilde-engine"')
    w.append('#include "semantics/library/library-private.h"')
    w.append('')
    w.append('const char *const _tilde_lib_codes[] = {')
    for c in codes:
        w.append('  %s,' % c_string(c))
    w.append('};')
    w.append('const guint _tilde_lib_n_codes = %d;' % len(codes))
    w.append('')
    w.append('const guint32 _tilde_lib_sig_index[] = {')
    for i in range(0, len(sig_index), 16):
        w.append('  ' + ', '.join(str(x) for x in sig_index[i:i + 16]) + ',')
    w.append('};')
    w.append('')
    w.append('const TildeLibEntry _tilde_lib_entries[] = {')
    for name, first, count in entries:
        w.append('  { %s, %d, %d },' % (c_string(name), first, count))
    w.append('};')
    w.append('const guint _tilde_lib_n_entries = %d;' % len(entries))
    w.append('')
    w.append('const TildeLibFamilyDef _tilde_lib_families[] = {')
    for fam in sorted(fams):
        w.append('  { %s, 0x%x },' % (c_string(fam), fams[fam]))
    w.append('};')
    w.append('const guint _tilde_lib_n_families = %d;' % len(fams))
    w.append('')
    w.append('const TildeLibVariadicDef _tilde_lib_variadics[] = {')
    by_name = {v[0]: v for v in lib.variadics}
    for name in variadic_names:
        if name in by_name:
            _, control, ret, fn_args, fn_ret, lpdf = by_name[name]
            w.append('  { %s, %s, %s, %s, FALSE },' % (
                c_string(name), c_string(encode_sig(control, ret)),
                c_string(encode_sig(fn_args, fn_ret)), 'TRUE' if lpdf else 'FALSE'))
        else:
            w.append('  { %s, NULL, NULL, TRUE, TRUE },' % c_string(name))
    w.append('};')
    w.append('const guint _tilde_lib_n_variadics = %d;' % len(variadic_names))
    w.append('')
    w.append('const TildeLibDeprecationDef _tilde_lib_deprecations[] = {')
    for name, repl, major, minor, removed in sorted(lib.deprecations):
        w.append('  { %s, %s, %d, %d, %s },' % (c_string(name), c_string(repl),
                                              major, minor,
                                              'TRUE' if removed else 'FALSE'))
    w.append('};')
    w.append('const guint _tilde_lib_n_deprecations = %d;' % len(lib.deprecations))
    with open(out_path, 'w', encoding='utf-8') as f:
        f.write('\n'.join(w) + '\n')
    return len(entries), len(sig_index), len(codes), len(fams), len(variadic_names)


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    lib = Library()
    try:
        lib.read(argv[1])
    except (DefError, OSError) as e:
        sys.stderr.write('gen-library.py: %s\n' % e)
        return 1
    n_names, n_sigs, n_codes, n_fams, n_var = emit(lib, argv[2])
    if '--dump' in argv:
        name = argv[argv.index('--dump') + 1]
        for args, ret in reversed(lib.sigs.get(name, [])):
            print(show(('fun', args, ret)))
    if '--stats' in argv:
        print('%d names, %d signatures (%d distinct), %d families, %d variadic'
              % (n_names, n_sigs, n_codes, n_fams, n_var))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
