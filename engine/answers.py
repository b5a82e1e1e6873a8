"""A number a student gives for a grad, read against the right one: right to 3 significant figures, or the mistake
that gives it (each mistake's value worked out from the trace, as the op's own code computes the grad)."""

import math

SIGNIFICANT = 3  # an answer right to this many significant figures is right


def is_right(answer, truth):
    """Whether `answer` is `truth` to 3 significant figures: within half a unit of the third one (0.707 and 0.7071
    for 0.70710678, not 0.71). Nothing is 0 to 3 significant figures but 0 itself, give or take rounding."""
    if answer is None or not math.isfinite(answer):
        return False
    if truth == 0:
        return abs(answer) < 1e-9
    half_unit = 0.5 * 10 ** (math.floor(math.log10(abs(truth))) - (SIGNIFICANT - 1))
    return abs(answer - truth) <= half_unit * (1 + 1e-9)  # the margin: 0.7075 typed for 0.70745 is still right


def classify(answer, candidates):
    """Which of `candidates` (`[['right', 6.0], ['forgot', 3.0], ...]`, the right value first, then the values each
    mistake gives) `answer` is: the first group whose value it is right for (is_right), 'blank' when there is no
    answer (None), else 'other'."""
    if answer is None:
        return 'blank'
    for group, value in candidates:
        if is_right(answer, value):
            return group
    return 'other'
