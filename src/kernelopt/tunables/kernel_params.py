"""The kernel a launch starts when it subscripts a parameter of the function it is written in (pure, over the file's
syntax tree).

Kernl launches its layer norm as ``implementation[(M,)](...)`` inside an ``autograd.Function``'s ``forward``, the
kernel a parameter that ``layer_norm(..., implementation: JITFunction = _layer_norm_fwd_fused_single_pass)`` passes
through ``LayerNorm.apply``. Read by its parameter's name, such a launch had no kernel: what discovery reads in a
kernel's body (a block that covers a row with one block, a launch option's default) was lost, and ``tune`` searched
blocks the kernel cannot run. The parameter is followed through the file's calls of its function (plain calls by
name, ``Cls.apply(...)`` for a ``forward`` of class ``Cls``, ``ctx`` not passed, and a method's calls through an
attribute, ``self._run(x, kernel=k)``, ``self`` not passed) to each value it can take: a
call's argument or the parameter's default, a parameter of the caller followed in turn. The launch starts a kernel
when every value is the same ``@triton.jit`` function of the file; otherwise (two kernels, a value built by code,
no call and no default, a function passed on as a value, whose calls no call shows: ``functools.partial(_launch,
kernel=_row_one)``) it stays unknown, as before.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import libcst as cst

from kernelopt.tunables.signature import params_of

#: how many callers deep a parameter is followed
DEPTH_MOST = 4


@dataclass(frozen=True)
class _Def:
    node: cst.FunctionDef
    cls: str | None  # the class it is a method of, if any


@dataclass(frozen=True)
class _Call:
    call: cst.Call
    caller: cst.FunctionDef | None  # the function the call is written in (None at module level)


class _Collector(cst.CSTVisitor):
    def __init__(self) -> None:
        self.defs: dict[str, list[_Def]] = {}
        self.calls: list[_Call] = []
        self.classes: list[str | None] = [None]
        self.funcs: list[cst.FunctionDef] = []
        self.named: set[cst.Name] = set()  # names that call, define or are an attribute or keyword: no reference
        self.passed: set[str] = set()  # names read as a value (a function so read is called where no call shows)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.classes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.defs.setdefault(node.name.value, []).append(_Def(node, self.classes[-1]))
        self.named.add(node.name)
        self.funcs.append(node)
        self.classes.append(None)  # a class defined inside a function is no method's class here

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.funcs.pop()
        self.classes.pop()

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(_Call(node, self.funcs[-1] if self.funcs else None))
        if isinstance(node.func, cst.Name):
            self.named.add(node.func)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.named.add(node.attr)

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.named.add(node.keyword)

    def visit_Param(self, node: cst.Param) -> None:
        self.named.add(node.name)

    def visit_Name(self, node: cst.Name) -> None:
        if node not in self.named:  # a function passed on as a value (functools.partial, an alias, a callback)
            self.passed.add(node.value)


def _static(fn: cst.FunctionDef) -> bool:
    """A ``@staticmethod``: called through its class or an instance, it takes no ``self``."""
    return any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in fn.decorators)


def _param(fn: cst.FunctionDef, name: str) -> cst.Param | None:
    every = params_of(fn, posonly=True, kwonly=True)
    return next((p for p in every if p.name.value == name), None)


class _Resolver:
    def __init__(self, module: cst.Module, kernels: Collection[str]) -> None:
        found = _Collector()
        module.visit(found)
        self.defs, self.calls, self.kernels = found.defs, found.calls, set(kernels)
        self.passed = found.passed

    def _callers(self, fn: cst.FunctionDef) -> list[tuple[_Call, int]] | None:
        """The calls of ``fn`` with the offset of its positional parameters in their arguments (``ctx`` of an
        ``apply``); ``None`` when ``fn``'s name is defined more than once."""
        defs = self.defs.get(fn.name.value, [])
        if len(defs) != 1 or (defs[0].cls is None and fn.name.value in self.passed):
            return None  # defined twice, or passed on as a value (``functools.partial(fn, kernel=k)``: break16 b15)
        cls = defs[0].cls
        out: list[tuple[_Call, int]] = []
        for c in self.calls:
            func = c.call.func
            if isinstance(func, cst.Name) and func.value == fn.name.value and cls is None:
                out.append((c, 0))
            elif (
                fn.name.value == "forward"
                and cls is not None
                and isinstance(func, cst.Attribute)
                and func.attr.value == "apply"
                and isinstance(func.value, cst.Name)
                and func.value.value == cls
            ):
                out.append((c, 1))  # ``Cls.apply(x, ...)`` calls ``forward(ctx, x, ...)``
            elif cls is not None and isinstance(func, cst.Attribute) and func.attr.value == fn.name.value:
                out.append((c, 0 if _static(fn) else 1))  # ``self._run(x, kernel=k)``: ``self`` not passed (b15)
        return out

    def values(self, fn: cst.FunctionDef, name: str, depth: int) -> set[str] | None:
        """The kernels ``fn``'s parameter ``name`` can be, or ``None`` when one of its values is no kernel's name."""
        param = _param(fn, name)
        callers = self._callers(fn)
        if param is None or callers is None or depth > DEPTH_MOST:
            return None
        positional = params_of(fn, posonly=True)
        index = next((i for i, q in enumerate(positional) if q is param), None)
        out: set[str] = set()
        defaulted = not callers
        for c, offset in callers:
            if any(a.star for a in c.call.args):
                return None
            given = [a.value for a in c.call.args if a.keyword is not None and a.keyword.value == name]
            plain = [a.value for a in c.call.args if a.keyword is None]
            at = index - offset if index is not None else None
            if given:
                value: cst.BaseExpression = given[0]
            elif at is not None and 0 <= at < len(plain):
                value = plain[at]
            else:
                defaulted = True
                continue
            got = self._value(value, c.caller, depth)
            if got is None:
                return None
            out |= got
        if defaulted:
            if param.default is None:
                return None
            got = self._value(param.default, None, depth)
            if got is None:
                return None
            out |= got
        return out

    def _value(self, expr: cst.BaseExpression, caller: cst.FunctionDef | None, depth: int) -> set[str] | None:
        if not isinstance(expr, cst.Name):
            return None
        if caller is not None and _param(caller, expr.value) is not None:
            return self.values(caller, expr.value, depth + 1)
        return {expr.value} if expr.value in self.kernels else None


def parameter_kernel(module: cst.Module, fn: cst.FunctionDef, name: str, kernels: Collection[str]) -> str | None:
    """The one kernel of ``kernels`` (the file's ``@triton.jit`` functions) that ``fn``'s parameter ``name`` is at
    every call of the file (see the module docstring), or ``None``."""
    found = _Resolver(module, kernels).values(fn, name, 0)
    return next(iter(found)) if found is not None and len(found) == 1 else None
