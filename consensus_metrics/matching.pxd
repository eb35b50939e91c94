# Cython declarations for the compiled build of matching.py (see _native.py); the pure-Python
# package ignores this file. TextIndex (the tokens of one sentence and their lookups) becomes an
# extension type with C attributes. Attributes and arguments here must match matching.py (a
# mismatch fails the compile, and tests/test_native.py then fails).

cimport cython

# (no cimport from normalize: a compiled matching must load beside a normalize that runs from
# its edited source, see _native.py)
cdef class TextIndex:
    cdef public object text, deadline, toks
    cdef public object _joined, _token_at, _chains, _sides, _by_length
    cdef public dict _comm_cache, side_ids

    @cython.locals(i=Py_ssize_t, steps=Py_ssize_t, n=Py_ssize_t, at=Py_ssize_t)
    cpdef find_sequence(self, tuple keys, tuple kinds)
    cpdef bint _boundaries_ok(self, Py_ssize_t i, Py_ssize_t j, bint is_value)
