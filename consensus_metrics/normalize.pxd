# Cython declarations for the compiled build of normalize.py (see _native.py); the pure-Python
# package ignores this file. They make Tokens and _Builder extension types with C-level
# attributes and their methods C calls -- the same code, about 1/3 less time per token.
# A method's arguments here must match normalize.py (a mismatch fails the compile, and
# tests/test_native.py then fails: the compiled build is required wherever Cython is installed).
# Python semantics are kept: positions and counters are Py_ssize_t (offsets into a str), flags
# bint, everything else stays a Python object (str subclasses are accepted).

cimport cython

cdef class Tokens:
    cdef public list keys, kinds, starts, ends, spaced, breaks, implicit

    cpdef append(self, key, kind, start, end, spaced=*, brk=*, implicit=*)
    cpdef truncate(self, Py_ssize_t n)
    cpdef list take(self, Py_ssize_t n)


cdef class _Builder:
    cdef public object text, deadline
    cdef public list raw, opens
    cdef public Tokens out
    cdef public bint spaced, brk, barrier, ran_out
    cdef public Py_ssize_t i, steps, floor
    cdef public int prose

    cdef _push(self, key, kind, start, end, no_mult=*, implicit=*)
    cdef _drop_unit_words(self, bint relation=*)
    cdef bint _merge_fraction(self, key, start, end)
    cdef _emit_tokens(self, toks, bint wrap, start=*, end=*)
    cdef _append_tuples(self, toks)
    @cython.locals(i=Py_ssize_t, n=Py_ssize_t)
    cdef _sequence(self, int depth, bint in_group)
    cdef bint _prose_run(self, Py_ssize_t i, run, start, ws)
    cdef _one(self, int depth)
    cdef _number(self, s, start, end)
    cdef _skip_temperature_unit(self)
    cdef bint _is_label_number(self, start)
    cdef _raw_neighbour(self, Py_ssize_t offset)
    cdef bint _mathy(self, tok)
    cdef _word(self, w, start, end, int depth)
    cdef bint _word_operator(self, lw, start, end)
    cdef bint _next_is_word(self)
    cdef bint _between_numbers(self)
    cdef list _arg(self, int depth, bint whole_number, bint to_brace=*)
    cdef _command(self, name, start, end, int depth)
    cdef _wrapped(self, int depth, int prose, bint operator)
    cdef _fraction(self, start, int depth)
    cdef bint _digit_fraction(self, start)
    cdef _rational(self, a, b, start, end)
    cdef _emit_den(self, den)
    cdef _sqrt(self, start, end, key, int depth)
    cdef _prime(self, start, end)
    cdef _operator(self, s, start, end, int depth)
    cdef bint _is_power_stars(self)
    cdef _close(self, s, start, end)
    cdef _exponent(self, start, end, int depth)
    cdef _subscript(self, start, end, int depth)
    cdef _escape(self, ch, start, end)
    cdef _other(self, s, start, end, int depth)
