"""The current frame in words and numbers: the op's own _backward lines, with the values plugged in."""

import functools
import inspect
import re
import textwrap

import streamlit as st

from components.markdown import md
from components.numbers import fmt

INFIX = {'+': '+', '-': '−', '*': '×', '/': '÷'}


def paren(name):
    return f'({name})' if re.search(r'[\s+\-*/]', name) else name


def formula(trace, i, numbers=False):
    """How node i is computed from its inputs: by name ('a × b') or with their data ('2.0000 × -3.0000')."""
    node = trace.nodes[i]
    args = [fmt(trace.nodes[c].data) if numbers else paren(trace.nodes[c].name) for c in node.children]
    if node.op in INFIX:
        return f' {INFIX[node.op]} '.join(args)
    if node.op == 'neg':
        return f'−{args[0]}'
    if node.op.startswith('**'):
        return f'{args[0]}**{node.op[2:]}'
    return f'{node.op}({args[0]})'


@functools.lru_cache(maxsize=64)
def _source(code):
    lines = inspect.getsource(code).splitlines()
    return textwrap.dedent('\n'.join(lines)).strip()


def backward_source(fn):
    """The closure's own source, as the engine has it."""
    return _source(fn.__code__)


def captured_numbers(fn):
    """The numbers the closure closed over in the forward pass, e.g. t = tanh(n)."""
    cells = zip(fn.__code__.co_freevars, fn.__closure__ or ())
    return {name: cell.cell_contents for name, cell in cells if isinstance(cell.cell_contents, (int, float))}


def chain_rule_lines(trace, step):
    """One line per contribution, e.g. 'a.grad += b.data × L.grad = -2.0000 × 1.0000 = -2.0000'."""
    fn = trace.backward_fn(step.node)
    node = trace.nodes[step.node]
    code_lines = [line.strip() for line in backward_source(fn).splitlines() if '.grad +=' in line]
    names = {'out': paren(node.name)}
    names.update(zip(('self', 'other'), (paren(trace.nodes[c].name) for c in node.children)))
    lines = []
    for c, code in zip(step.contributions, code_lines):
        symbolic = re.sub(r'\b(self|other|out)\b', lambda m: names[m.group(1)], code).replace(' * ', ' × ')
        lines.append(f'{symbolic} = {fmt(c.local_grad)} × {fmt(step.out_grad)} = {fmt(c.amount)}')
    return lines


def caption(trace, frame):
    """Frame k in a few words, for under the slider (plain text)."""
    node = trace.nodes[frame.node] if frame.node >= 0 else None
    if frame.kind == 'inputs':
        return 'forward pass: the inputs are set'
    if frame.kind == 'forward':
        return f'forward pass: {node.name} = {formula(trace, frame.node)}'
    if frame.kind == 'seed':
        return f'backward pass starts: {node.name}.grad = 1'
    if not node.op:
        return f'backward pass: {node.name} is a leaf, nothing to pass on'
    return f'backward pass: {node.name} = {formula(trace, frame.node)} passes its grad back'


def explain(trace, frame):
    """[(kind, text)] with kind 'md' or 'code': what the explanation panel shows."""
    node = trace.nodes[frame.node] if frame.node >= 0 else None
    output = trace.nodes[-1].name
    if frame.kind == 'inputs':
        inputs = ', '.join(f'{md(n.name)} = {fmt(n.data)}' for n in trace.nodes if n.is_input)
        return [('md', f'**Forward pass.** The inputs are set: {inputs}. '
                       'Each op will now compute its data from its inputs, in topological order.')]  # fmt: skip
    if frame.kind == 'forward':
        return [('md', f'**Forward pass.** `{node.name} = {formula(trace, frame.node)}` '
                       f'= {formula(trace, frame.node, numbers=True)} = **{fmt(node.data)}**')]  # fmt: skip
    if frame.kind == 'seed':
        return [('md', f'**Backward pass starts.** `{output}.grad = 1`: the output changes one-for-one with itself. '
                       "Now each node's `_backward` runs in reverse topological order, passing its grad "
                       'to its inputs, each scaled by the local gradient.')]  # fmt: skip
    step = trace.steps[frame.steps_done - 1]
    final_after = trace.final_after()
    if not node.op:
        kind = 'an input' if node.is_input else 'a constant'
        return [('md', f'**{md(node.name)}** is {kind} (a leaf): its `_backward` does nothing. '
                       f'Its grad, **{fmt(step.out_grad)}**, is ∂{md(output)}/∂{md(node.name)}.')]  # fmt: skip
    fn = trace.backward_fn(step.node)
    known = ', '.join(f'{k} = {fmt(v)}' for k, v in captured_numbers(fn).items())
    parts = [
        (
            'md',
            f'**`{node.name} = {formula(trace, step.node)}`** passes its grad, {md(paren(node.name))}.grad '
            f'= **{fmt(step.out_grad)}**, back to its inputs. Its `_backward`:',
        ),  # fmt: skip
        ('code', backward_source(fn)),
    ]
    where = [f'self = {trace.nodes[node.children[0]].name}']
    if len(node.children) > 1:
        where.append(f'other = {trace.nodes[node.children[1]].name}')
    where.append(f'out = {node.name}')
    parts.append(('md', '*where* ' + ', '.join(f'`{w}`' for w in where) + (f', and `{known}`' if known else '')))
    rows = []
    for c, line in zip(step.contributions, chain_rule_lines(trace, step)):
        child = trace.nodes[c.child].name
        status = 'final' if final_after[c.child] == frame.steps_done else 'more to come'
        rows.append(f'- `{line}`  \n  {md(paren(child))}.grad: {fmt(c.before)} → **{fmt(c.after)}** ({status})')
    parts.append(('md', '\n'.join(rows)))
    return parts


def show_explanation(parts):
    for kind, text in parts:
        if kind == 'code':
            st.code(text, language='python')
        else:
            st.markdown(text)
