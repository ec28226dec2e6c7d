"""The parameters a function's signature declares: the one reading of libcst's parameter lists in tunables.

A ``def`` (or ``lambda``) declares up to five kinds of parameter, which libcst keeps apart: positional-only (before
``/``), plain, keyword-only (after ``*``), ``*args`` and ``**kwargs``. Each reader asks for the kinds it reads, in
the order Python binds them: a call's positional arguments meet the positional-only and then the plain parameters
(``posonly=True``), a keyword meets a plain or a keyword-only one (``kwonly=True``), a function binds every name
(``stars=True`` as well). The plain parameters alone, the default, are a Triton kernel's (``@triton.jit`` kernels
declare no other kind, and the readers that walk a kernel's body ask for them as written).
Pure: libcst nodes in, nodes or names out.
"""

from __future__ import annotations

import libcst as cst

Declaring = cst.FunctionDef | cst.Lambda | cst.Parameters


def params_of(fn: Declaring, *, posonly: bool = False, kwonly: bool = False, stars: bool = False) -> list[cst.Param]:
    """The plain parameters ``fn`` declares, after its positional-only ones where ``posonly``, then its keyword-only
    ones where ``kwonly``, then ``*args`` and ``**kwargs`` where ``stars`` (a bare ``*`` is no parameter)."""
    given = fn if isinstance(fn, cst.Parameters) else fn.params
    out = [*(given.posonly_params if posonly else ()), *given.params, *(given.kwonly_params if kwonly else ())]
    if stars:
        out += [star for star in (given.star_arg, given.star_kwarg) if isinstance(star, cst.Param)]
    return out


def param_names(fn: Declaring, *, posonly: bool = False, kwonly: bool = False) -> list[str]:
    """The names of :func:`params_of` ``fn``, in the order it declares them."""
    return [p.name.value for p in params_of(fn, posonly=posonly, kwonly=kwonly)]
