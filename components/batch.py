"""Learning from a batch, the page's parts: the point whose graph the player shows, the dataset (the example, typed,
or a CSV file, each checked, the last good one kept), the steps taken on the mean, and below the player what each
point's backward adds to the parameters' grads, the step, and the plots (view/batch.py builds them)."""

import streamlit as st

from components.learning import step_buttons
from components.markdown import md
from components.player import link_toast
from engine import batch
from engine.batch import DataError
from view.batch import BatchLearning, collected_lines, dataset_spec, loss_spec, points_table, step_lines, sums_table
from view.numbers import fmt

DESCENT = 'batch_descent'  # session state: the last descent, (what it is of, learn.Descent), extended step by step
DATA_ERROR = 'data_error'  # session state: what was wrong with the data last given, shown until the next is good
DATA_TEXT = 'data_text'  # session state: the data box's text


def dataset_in_use(expression, text, from_link):
    """The dataset `text` holds (state's `data`; '' the example's). One a link holds that cannot be read is the
    example's, with a toast saying why: the page's own writes are always good."""
    if not text:
        return batch.example(expression)
    try:
        return batch.read_text(text, batch.data_names(expression))
    except DataError as error:
        st.session_state.data = ''
        if from_link:
            link_toast(f'The link’s data could not be read, so the example’s is shown: {md(str(error))}',
                       icon=':material/link:')  # fmt: skip
        return batch.example(expression)


def _descent(expression, start, dataset, lr, steps):
    """batch.descend's, kept from the last run: a step more costs one step's passes, not all of them again."""
    s = st.session_state
    key = (expression.key, dataset, lr, tuple(start.items()))
    kept = s.get(DESCENT)
    descent = kept[1] if kept and kept[0] == key else batch.descend(expression, start, dataset, lr, 0)
    taken = len(descent.losses) - 1
    if taken < steps:
        more = batch.descend(expression, descent.values[-1], dataset, lr, steps - taken)
        descent = type(descent)([*descent.values, *more.values[1:]], [*descent.losses[:-1], *more.losses])
    s[DESCENT] = (key, descent)
    return type(descent)(descent.values[: steps + 1], descent.losses[: steps + 1])


def batch_learning(expression, values, dataset, point, lr, steps):
    """BatchLearning: from the parameters in `values` (the sidebar's), `steps` steps on the dataset's mean loss (at
    most batch.most_steps), every point's pass at where they took the parameters, and the step that follows."""
    most = batch.most_steps(dataset)
    start = {name: values[name] for name in expression.params}
    descent = _descent(expression, start, dataset, lr, min(steps, most))
    update = batch.step(expression, descent.values[-1], dataset, lr)
    point = min(max(point, 1), len(dataset)) - 1
    return BatchLearning(dataset, point, lr, descent, update, capped=steps > most)


def point_control(box, n, compact=False):
    """The point whose graph is shown, 1 to n, in `box` (the sidebar's, or the presentation view's row)."""
    s = st.session_state
    s.point = min(max(s.get('point', 1), 1), n)
    if box is not None and n > 1:
        box.number_input(f'Point (of {n})', min_value=1, max_value=n, step=1, key='point',
                         label_visibility='collapsed' if compact else 'visible',
                         help=None if compact else 'The data point whose pass the graph shows.')  # fmt: skip


def show_params(box, learning):
    """Under the parameters' boxes: where the steps took them, which the graph shows."""
    taken = learning.steps_taken
    shown = ', '.join(f'{md(name)} = {fmt(v)}' for name, v in learning.params.items())
    if taken:
        box.caption(f'**The graph shows the parameters after {taken} steps on the batch:** {shown}. The boxes hold '
                    'where learning started.')  # fmt: skip


def _next(n, by):
    s = st.session_state
    s.point = min(max(s.point + by, 1), n)


def batch_panel(learning, example, on_step):
    """Below the player: what the shown point's backward adds, every point's share, the step on the mean, the plots,
    the buttons that take steps, and the data."""
    n, k = len(learning.dataset), learning.point
    st.subheader('Learn from a batch', anchor=False)
    st.markdown(
        f'The graph is the pass of **point {k + 1} of {n}** alone: the grads it shows are this point’s share. In a '
        'batch no zero_grad comes between the points, so each point’s backward adds its share to `p.grad`, as each '
        'use of a value adds its own. After the last point, the grads are divided by the points (the loss is their '
        'mean) and the step is taken.'
    )
    back, forth, _ = st.columns([1, 1, 3])
    back.button('◂ Previous point', on_click=_next, args=(n, -1), disabled=k == 0, width='stretch')
    forth.button('Next point ▸', on_click=_next, args=(n, 1), disabled=k == n - 1, width='stretch')
    st.markdown(f'**What point {k + 1}’s backward adds** (after the {k} points before it):')
    st.code('\n'.join(collected_lines(learning)), language=None, wrap_lines=True)
    plots = st.columns(2)
    with plots[0]:
        st.markdown('**The data**')
        st.vega_lite_chart(dataset_spec(learning), width='stretch')
    with plots[1]:
        st.markdown(f'**The mean loss over the {n} points, step by step**')
        st.vega_lite_chart(loss_spec(learning), width='stretch')
    st.markdown(f'**After all {n} points: the mean, and the step** (step {learning.steps_taken + 1}, '
                f'lr = {learning.lr:g})')  # fmt: skip
    st.code('\n'.join(step_lines(learning)), language=None, wrap_lines=True)
    st.dataframe(sums_table(learning), hide_index=True)
    if learning.capped:
        st.info(f'With {n} points the page takes at most {batch.most_steps(learning.dataset)} steps.',
                icon=':material/timer:')  # fmt: skip
    step_buttons(learning.steps_taken, on_step, most=batch.most_steps(learning.dataset), one='Take this step')
    with st.expander(f'Every point’s share ({n} points)'):
        st.dataframe(points_table(learning), hide_index=True)
    data_editor(learning.dataset, example)


def _use_text(columns):
    s = st.session_state
    try:
        dataset = batch.read_text(s[DATA_TEXT], columns)
    except DataError as error:
        s[DATA_ERROR] = str(error)
        return
    _use(dataset)


def _use_file(columns):
    s = st.session_state
    upload = s.get('data_file')
    if upload is None:
        return
    try:
        dataset = batch.read_csv(upload.getvalue(), columns)
    except DataError as error:
        s[DATA_ERROR] = f'{upload.name}: {error}'
        return
    _use(dataset)


def _use(dataset):
    s = st.session_state
    s[DATA_ERROR] = None
    s.data = dataset.text()
    s[DATA_TEXT] = s.data
    s.point = 1
    s.learned = 0


def _use_example(text):
    s = st.session_state
    s[DATA_ERROR] = None
    s.data = ''
    s[DATA_TEXT] = text
    s.point = 1
    s.learned = 0


def data_editor(dataset, example):
    """The data: its text to edit, a CSV file to upload, the example back. Bad data is named by its line and column,
    and the page keeps its last good dataset."""
    s = st.session_state
    ours = s.get('data', '') == ''
    with st.expander(f'The data: {len(dataset)} points, {"the example’s" if ours else "yours"}'):
        if s.get(DATA_ERROR):
            st.error(f'{md(s[DATA_ERROR])} The page keeps the last good data.', icon=':material/error:')
        if not s.get(DATA_ERROR):  # a bad text stays in the box, to be put right
            s[DATA_TEXT] = dataset.text()
        columns = dataset.columns
        with st.form('data_form', border=False):
            st.text_area(f'A line a point: {", ".join(columns)} (a first line of names is optional)', key=DATA_TEXT,
                         height=180)  # fmt: skip
            st.form_submit_button('Use this data', on_click=_use_text, args=(columns,))
        st.file_uploader(f'Or a CSV file with the columns {", ".join(columns)} (at most {batch.MAX_BYTES // 1000} kB, '
                         f'{batch.MAX_POINTS} points)', type=['csv', 'txt'], key='data_file', on_change=_use_file,
                         args=(columns,))  # fmt: skip
        st.button('Back to the example’s data', on_click=_use_example, args=(example.text(),), disabled=ours)
        if len(s.get('data', '')) > batch.MAX_LINK:
            st.caption(f'This data is longer than a link holds ({batch.MAX_LINK:,} characters): the page’s link '
                       'opens the example’s data.')  # fmt: skip
