"""One step of learning: the steps taken, from the page's caches, and the panel below the player that takes more
(the frames after the pass are view/learning.py's, drawn by the player)."""

import streamlit as st

from engine import learn
from server import cache
from view.learning import Learning, steps_text


def learning_after(expression, values, lr, steps):
    """(Learning, the values of the pass to show): from `values` (the sidebar's), `steps` updates at `lr`, then the
    pass at those values and the update it leads to."""
    taken = learn.descend(expression, values, lr, steps)  # at most learn.MAX_STEPS, as a link may ask
    now = taken.values[-1]
    update = learn.step(expression, now, lr)  # and one more: the step the tail shows
    after = update.values
    descent = learn.Descent([*taken.values, after], [*taken.losses, learn.loss(expression, after)])
    after_trace = cache.traced(expression=expression, values=tuple(after.items()))[0]
    return Learning(lr, update, after_trace, descent), now


def _more(steps, most, on_step):
    s = st.session_state
    s.learned = min(s.learned + steps, most)
    on_step()


def _again(on_step):
    st.session_state.learned = 0
    on_step()


def step_buttons(steps_taken, on_step, most=learn.MAX_STEPS, one='1 more step'):
    """The learning rate, and buttons that take one or ten more steps (`one` names the first), up to `most`, or
    start again; `on_step` is called when one changes the steps taken."""
    lr, more, ten, again = st.columns([3, 1.3, 1.3, 1.3], vertical_alignment='bottom')
    lr.select_slider('Learning rate lr', options=learn.LEARNING_RATES, key='lr', format_func='{:g}'.format)
    full = steps_taken >= most
    more.button(one, on_click=_more, args=(1, most, on_step), key='learn_one', disabled=full, width='stretch')
    ten.button('10 more steps', on_click=_more, args=(10, most, on_step), key='learn_ten', disabled=full,
               width='stretch')  # fmt: skip
    again.button('Start again', on_click=_again, args=(on_step,), key='learn_again', disabled=steps_taken == 0,
                 width='stretch')  # fmt: skip


def learning_panel(learning, steps_taken, on_step=lambda: None):
    """Below the player: the learning rate and buttons for more steps (the loss over the steps is the player's, in
    the frames: drawn here it would show this step's loss while the pass is still going). `on_step` is called when a
    button changes the steps taken."""
    st.subheader('One step of learning', anchor=False)
    step_buttons(steps_taken, on_step)
    where = 'the inputs in the sidebar' if steps_taken == 0 else f'{steps_text(steps_taken)} from the sidebar’s inputs'
    st.markdown(
        f'The graph shows the pass at {where}; after its backward pass, step through the update, zero_grad and the '
        'forward pass again. The loss over the steps is drawn in the player, above its explanation: each point '
        'appears at the frame that computes it.'
    )
