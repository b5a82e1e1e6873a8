"""One step of learning: gradient descent on an Expression's params, `p.data += -lr * p.grad`, as micrograd's
training loop does it, and the loss over many steps. Pure Python."""

from dataclasses import dataclass

DEFAULT_LR = 0.1  # the loss goes down at each of 10 steps at it, on the regression and on the MLP
LEARNING_RATES = (0.01, 0.03, 0.1, 0.3, 1.0)  # the page's choices; 1.0 overshoots the regression, and its loss grows
# each step is a build and a backward of a small graph, so the most a link can ask for costs the server little
MAX_STEPS = 500


@dataclass(frozen=True)
class ParamStep:
    """One parameter's update: new = old + -lr * grad."""

    name: str
    old: float
    grad: float
    new: float


@dataclass(frozen=True)
class Update:
    loss: float  # the output's data before the step
    params: tuple  # a ParamStep for each of the expression's params, in their order
    values: dict  # every input after the step: the params' new data, the data unchanged


@dataclass(frozen=True)
class Descent:
    values: list  # the inputs after 0, 1, ..., steps updates
    losses: list  # losses[k] is the output's data at values[k]


def applies(expression):
    """Whether the expression has params to learn: a typed formula or a preset without a loss has none."""
    return bool(expression.params)


def step(expression, values, lr):
    """One update of every param, from `values` (name -> number; a missing name takes its default).

    Never raises: a nan or inf grad makes a nan or inf param, as the floats do.
    """
    leaves, out = expression.build(values)
    out.backward()
    by_name = dict(zip(expression.defaults, leaves))
    params = []
    for name in expression.params:
        p = by_name[name]
        old = p.data
        p.data += -lr * p.grad  # the training loop's line, on the graph's own leaf
        params.append(ParamStep(name, old, p.grad, p.data))
    new_values = {name: leaf.data for name, leaf in by_name.items()}
    return Update(out.data, tuple(params), new_values)


def loss(expression, values):
    """The output's data at `values`: a forward pass only."""
    return expression.build(values)[1].data


def descend(expression, values, lr, steps):
    """The inputs and the loss after 0, 1, ..., steps updates; at most MAX_STEPS of them."""
    all_values, losses = [{**expression.defaults, **values}], []
    for _ in range(max(0, min(steps, MAX_STEPS))):
        update = step(expression, all_values[-1], lr)
        losses.append(update.loss)
        all_values.append(update.values)
    losses.append(loss(expression, all_values[-1]))
    return Descent(all_values, losses)
