"""How numbers are written on the page: one fixed width per graph, so that no node moves between frames."""

import math

NOT_COMPUTED = '·'
HIDDEN = '?'  # a grad the class is asked to work out (engine.frames.HIDE)


def fmt(x):
    """4 decimals, or 3 significant digits in e-notation where 4 decimals would mislead; nan, inf and −inf as such."""
    if x is None:
        return NOT_COMPUTED
    if math.isnan(x):
        return 'nan'
    if math.isinf(x):
        return 'inf' if x > 0 else '−inf'  # a true minus sign, as the page writes −inf in words too
    if x != 0 and (abs(x) >= 1e6 or abs(x) < 1e-4):
        return f'{x:.3e}'
    return f'{x:.4f}'


def number_width(trace):
    """The widest number any frame of this trace will show, nan and ±inf included."""
    numbers = [node.data for node in trace.nodes] + [1.0] + trace.final_grads()
    numbers += [x for step in trace.steps for c in step.contributions for x in (c.amount, c.after)]
    return max(len(fmt(x)) for x in numbers)


def padded(x, width):
    """Right-aligned to width; "not computed" in the middle, where it is easier to see."""
    return fmt(x).rjust(width) if x is not None else NOT_COMPUTED.center(width)
