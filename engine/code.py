"""A `_backward`'s code, as the page reads and shows it: an op's own, from engine/value.py's source (or
engine/assign.py's rewrite of it), or a student's body (engine/exercise.py), which its closure carries as `source`.

Read as a tree (ast), never run. The trace reads from it which input each line writes, and how (`+=`, `-=` or `=`);
the explanation shows it and works its numbers out from it.
"""

import ast
import functools
import inspect
import textwrap

INPUTS = ('self', 'other')  # a _backward's inputs, in _prev order; `out` is the node itself
HOW = {ast.Add: '+=', ast.Sub: '-='}


@functools.lru_cache(maxsize=256)
def _own_source(code):
    return textwrap.dedent(inspect.getsource(code)).strip()


@functools.lru_cache(maxsize=1024)
def _tree(source):
    return ast.parse(source).body[0]


def backward_source(fn):
    """The closure's code, its def and body, dedented: a student's body where it carries one."""
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


def grad_writes(fn):
    """[(slot, how, statement)]: the lines of the closure `fn` that write a grad, in the order they run (no line of a
    _backward branches or loops), each with the input it writes (0 self, 1 other) and how ('+=', '-=' or '=')."""
    tree, out = function_tree(fn), []
    for s in tree.body if isinstance(tree, ast.FunctionDef) else ():  # a leaf's _backward is a lambda: it writes none
        if isinstance(s, ast.AugAssign) and type(s.op) in HOW:
            target, how = s.target, HOW[type(s.op)]
        elif isinstance(s, ast.Assign) and len(s.targets) == 1:
            target, how = s.targets[0], '='
        else:
            continue
        if getattr(target, 'attr', '') == 'grad' and getattr(target.value, 'id', '') in INPUTS:
            out.append((INPUTS.index(target.value.id), how, s))
    return out
