"""A `_backward`'s code, as the page reads and shows it: an op's own, from engine/value.py's source (or
engine/assign.py's rewrite of it), or a student's body (engine/exercise.py), which its closure carries as `source`.

Read as a tree (ast), never run. The trace reads from it which input each line writes, and how (`+=`, `-=` or `=`);
the explanation shows it and works its numbers out from it. A student's body may name a number first and use it
after (`local = other.data * out.grad`, then `self.grad += local`): each line that writes a grad is read with the
names it uses written out (`self.grad += other.data * out.grad`), so the page works its arithmetic out as for an
op's own line; `self.grad = self.grad + E` is `self.grad += E`, written out.
"""

import ast
import copy
import functools
import inspect
import textwrap

INPUTS = ('self', 'other')  # a _backward's inputs, in _prev order; `out` is the node itself
HOW = {ast.Add: '+=', ast.Sub: '-='}
MAX_WRITTEN_OUT = 60  # nodes: a name whose value is larger is left as its name (a chain of squares doubles a line)


@functools.lru_cache(maxsize=256)
def _own_source(code):
    return textwrap.dedent(inspect.getsource(code)).strip()


@functools.lru_cache(maxsize=1024)
def _tree(source):
    return ast.parse(source).body[0]  # a student's: a body with a line of code, refused otherwise (engine/sandbox.py)


def backward_source(fn):
    """The closure's code, its def and body, dedented: a student's body where it carries one (engine/sandbox.py's
    Body.source: its text as every reader of it takes it, sandbox.normalised, under `def _backward():`)."""
    source = getattr(fn, 'source', None)
    return source if source is not None else _own_source(fn.__code__)


def shown_source(fn):
    """What the page prints as the op's code at a step: the closure's `shown` where it carries one (microgpt's form:
    the method with its local_grads tuple, and backward()'s loop, engine/local_grads.py), else its `_backward`."""
    shown = getattr(fn, 'shown', None)
    return shown if shown is not None else backward_source(fn)


def _is_out_grad(e):
    return isinstance(e, ast.Attribute) and e.attr == 'grad' and getattr(e.value, 'id', '') == 'out'


def factor(statement):
    """What a grad-writing line multiplies out.grad by: `other.data` in `self.grad += other.data * out.grad`, 1 in
    `self.grad += out.grad`, −1 in `other.grad += -out.grad`; None where it is not such a product."""
    e = statement.value
    if _is_out_grad(e):
        return ast.Constant(1.0)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and _is_out_grad(e.operand):
        return ast.Constant(-1.0)
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Mult):
        if _is_out_grad(e.right):
            return e.left
        if _is_out_grad(e.left):
            return e.right
    return None


def function_tree(fn):
    """The def of a closure or method `fn`, as ast."""
    return _tree(backward_source(fn))


def grad_of(node):
    """'self' for `self.grad` (any X for `X.grad`), else None."""
    if isinstance(node, ast.Attribute) and node.attr == 'grad' and isinstance(node.value, ast.Name):
        return node.value.id
    return None


def grad_write(s):
    """(X, how, E) for a line that writes `X.grad`: `X.grad += E`, `-= E` or `= E`; `X.grad = X.grad + E` and
    `X.grad = E + X.grad` are `+= E`, and `X.grad = X.grad - E` is `-= E`, written out. None for any other line."""
    if isinstance(s, ast.AugAssign) and type(s.op) in HOW:
        target, how, value = s.target, HOW[type(s.op)], s.value
    elif isinstance(s, ast.Assign) and len(s.targets) == 1:
        target, how, value = s.targets[0], '=', s.value
        x = grad_of(target)
        if x is not None and isinstance(value, ast.BinOp) and type(value.op) in HOW:
            if grad_of(value.left) == x:
                how, value = HOW[type(value.op)], value.right
            elif isinstance(value.op, ast.Add) and grad_of(value.right) == x:
                how, value = '+=', value.left
    else:
        return None
    x = grad_of(target)
    return None if x is None else (x, how, value)


def local_name(s):
    """(name, the op of an augmented line or None, E) for a line that gives a plain name a number: `g = E`,
    `g += E`, `g: float = E`; else None."""
    if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
        return s.targets[0].id, None, s.value
    if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value is not None:
        return s.target.id, None, s.value
    if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
        return s.target.id, s.op, s.value
    return None


def _size(e):
    return sum(1 for _ in ast.walk(e))


class _WriteOut(ast.NodeTransformer):
    """A copy of E with each name a line above gave a number written out as that number's expression."""

    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        return self.names.get(node.id, node)


def _written_out(e, names):
    """E with the names in `names` written out; E itself where it uses none of them."""
    if not any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(e)):
        return e
    return _WriteOut(names).visit(copy.deepcopy(e))


@functools.lru_cache(maxsize=1024)
def _writes_of(source):
    tree, out, names = _tree(source), [], {}
    for s in tree.body if isinstance(tree, ast.FunctionDef) else ():  # a leaf's _backward is a lambda: it writes none
        write = grad_write(s)
        if write is not None:
            x, how, value = write
            if x in INPUTS:
                out.append((INPUTS.index(x), how, _as_written(s, how, _written_out(value, names))))
            continue
        local = local_name(s)
        if local is not None:
            name, op, value = local
            value = _written_out(value, names)
            if op is not None:
                value = ast.BinOp(left=names.get(name, ast.Name(name, ast.Load())), op=op, right=value)
            if _size(value) <= MAX_WRITTEN_OUT:
                names[name] = value
            else:
                names.pop(name, None)  # left as its name: the page shows its number alone
    return tuple(out)


def _as_written(s, how, value):
    """The line s as `X.grad += E` (`-=`; `X.grad = E`), E `value`, where s stands: s itself where it is that."""
    if value is getattr(s, 'value', None) and (how == '=') == isinstance(s, ast.Assign):
        return s
    target = s.target if isinstance(s, ast.AugAssign) else s.targets[0]
    if how == '=':
        line = ast.Assign(targets=[target], value=value)
    else:
        line = ast.AugAssign(target=target, op=ast.Sub() if how == '-=' else ast.Add(), value=value)
    return ast.fix_missing_locations(ast.copy_location(line, s))


def grad_writes(fn):
    """[(slot, how, statement)]: the lines of the closure `fn` that write a grad, in the order they run (no line of a
    _backward branches or loops), each with the input it writes (0 self, 1 other) and how ('+=', '-=' or '='). Each
    statement is `X.grad += E` (`-=`, or `X.grad = E`) where the line stands in the code, with E as it runs: the
    names a line above gave numbers written out, and `X.grad = X.grad + E` read as `X.grad += E`."""
    return list(_writes_of(backward_source(fn)))
