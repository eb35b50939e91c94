"""The names of Cython's pure-Python mode that ``consensus_metrics`` uses, as no-ops, for where
Cython is not installed (it is needed to compile the package, not to run it).

A module of the compiled build (``consensus_metrics._native``) declares its C types with
decorators and ``cython.declare`` in its own ``.py`` file::

    try:
        import cython
    except ImportError:
        from . import _cython_shadow as cython

Compiled, Cython reads them; run as Python, they come from Cython's own ``cython`` module where
Cython is installed, else from here, and change nothing. ``tests/test_native.py`` checks that
every name the sources use is here.

>>> @cclass
... class Box:
...     size = declare(Py_ssize_t, visibility="public")
...     @cfunc
...     @locals(n=Py_ssize_t)
...     def grow(self, n):
...         return n + 1
>>> Box().grow(2), Box.size, compiled
(3, None, False)
"""

#: False: this module stands in for Cython when nothing is compiled.
compiled = False

#: C types, named in declarations only.
bint = int = Py_ssize_t = Py_UCS4 = object


def _identity(function):
    return function


cclass = final = cfunc = ccall = _identity


def locals(**types):  # noqa: A001  (Cython's name)
    """``@cython.locals(name=type, ...)``: the C types of arguments and local variables."""
    return _identity


def returns(type_):
    """``@cython.returns(type)``: the C type a function returns."""
    return _identity


def declare(type_=None, **options):
    """``name = cython.declare(type, visibility=...)``: a C attribute of an extension type
    (``None`` at class level in Python: every instance sets its own)."""
    return None
