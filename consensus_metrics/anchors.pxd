# Cython declarations for the compiled build of anchors.py (see _native.py); the pure-Python
# package ignores this file. Offsets are Py_ssize_t and the searched text an exact str, so that
# the character tests of _is_numeral run in C. A str subclass (numpy.str_) is copied to a plain
# str where text enters the package (matching.match_nodes_ex).
# A function's arguments here must match anchors.py (a mismatch fails the compile, and
# tests/test_native.py then fails).

cimport cython

@cython.locals(j=Py_ssize_t, d=Py_ssize_t, dots=Py_ssize_t, k=Py_ssize_t)
cpdef bint _is_numeral(str text, Py_ssize_t at, Py_ssize_t end)
@cython.locals(lo=Py_ssize_t)
cpdef bint _after_tex_command(str text, Py_ssize_t at, bint one_arg)
@cython.locals(size=Py_ssize_t, at=Py_ssize_t, end=Py_ssize_t)
cpdef Py_ssize_t find_anchor(str text, str alt, Py_ssize_t pos=*)
@cython.locals(first=Py_ssize_t, at=Py_ssize_t)
cpdef Py_ssize_t _find_vulgar(str text, Py_ssize_t pos)
@cython.locals(total=Py_ssize_t)
cpdef Py_ssize_t occurrence_bound(str text, alts, lowered=*)
cpdef bint text_may_contain(str text, groups, lowered=*)
