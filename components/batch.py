"""Learning from a batch, the page's parts: the point whose graph the player shows, the dataset (the example, typed,
or a CSV file, each checked, the last good one kept), the steps taken on the mean, and below the player what each
point's backward adds to the parameters' grads, the step, and the plots (view/batch.py builds them)."""

import streamlit as st

import state
from components.learning import step_buttons
from components.markdown import md
from components.player import link_toast
from engine import batch
from engine.batch import DataError
from exports.plots import data_png, loss_png
from server.live import ROOMS
from server.rooms import RoomError, batch_round
from view.batch import (
    BatchLearning,
    collected_lines,
    dataset_spec,
    loss_spec,
    points_table,
    room_lines,
    step_lines,
)
from view.numbers import fmt

DESCENT = 'batch_descent'  # session state: the last descent, (what it is of, learn.Descent), extended step by step
DATA_ERROR = 'data_error'  # session state: what was wrong with the data last given, shown until the next is good
DATA_TEXT = 'data_text'  # session state: the data box's text
DATA_SHOWN = 'data_shown'  # session state: the dataset's text the box was last given
PLACE = 'class_place'  # session state: (class code, the phone's place among those handed a point), learning together
CLASS_LOSSES = 'class_losses'  # session state: the lecturer's, the mean loss over the data after each class step
KEPT_IN_CLASS = 'kept_in_class'  # session state: (class code, data mark) of the dataset the lecturer's class keeps
KEPT = 'kept_data'  # session state: {mark: text} of the datasets too long for a link (state.data_mark) this page has


def dataset_in_use(expression, text, from_link, room=''):
    """The dataset `text` holds (state's `data`; '' the example's). A dataset too long for a link is its mark there
    (state.data_mark): the page's own, kept in its session, or the class's it follows (`room`, its code), which keeps
    it. One a link holds that cannot be read, or whose mark neither knows, is the example's, with a toast saying why
    where a link brought it: the page's own writes are always good."""
    s = st.session_state
    if not text:
        return batch.example(expression)
    try:
        if text.startswith('@'):
            text = _kept_text(text, room)
        return batch.read_text(text, batch.data_names(expression))
    except (DataError, RoomError) as error:
        if not text.startswith('@'):  # a mark stays: a reloaded lecturer's page finds its class's data a run later
            s.data = ''
        if from_link:
            link_toast(f'The link’s data could not be read, so the example’s is shown: {md(str(error))}',
                       icon=':material/link:')  # fmt: skip
        return batch.example(expression)


def _kept_text(mark, room):
    """The text of a dataset's mark: this page's own (KEPT), or the class's it follows; DataError for neither."""
    s = st.session_state
    kept = s.setdefault(KEPT, {})
    if mark not in kept and room:
        text = ROOMS.data(room)
        if state.data_mark(text) == mark:
            kept[mark] = text
    if mark not in kept:
        raise DataError('its data was kept with a class this page does not follow.')
    return kept[mark]


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


def class_point(page, n):
    """A phone learning together: the point it was handed (1-based; round-robin, so points are shared when the
    phones outnumber them), once the room has handed it one; else None."""
    place = st.session_state.get(PLACE)
    if not (page.together and page.room and not page.present) or place is None or place[0] != page.room:
        return None
    return place[1] % n + 1


def point_control(box, n, compact=False):
    """The point whose graph is shown, 1 to n, in `box` (the sidebar's, or the presentation view's row)."""
    s = st.session_state
    s.point = min(max(s.get('point', 1), 1), n)
    if box is None or n < 2:
        return
    if compact:  # the presentation view's row: the words in the box
        box.selectbox('Point', range(1, n + 1), key='point', format_func=lambda k: f'Point {k} of {n}',
                      label_visibility='collapsed')  # fmt: skip
    else:
        box.number_input(f'Point (of {n})', min_value=1, max_value=n, step=1, key='point',
                         help='The data point whose pass the graph shows.')  # fmt: skip


def show_params(box, learning):
    """Under the parameters' boxes: where the steps took them, which the graph shows."""
    taken = learning.steps_taken
    shown = ', '.join(f'{md(name)} = {fmt(v)}' for name, v in learning.params.items())
    if taken:
        box.caption(f'**The graph shows the parameters after {taken} steps on the batch:** {shown}. The boxes hold '
                    'where learning started.')  # fmt: skip


def png_button(label, make, name, learning):
    """A plot as a PNG for slides, drawn when clicked (exports/plots.py)."""
    st.download_button(label, data=make, file_name=f'batch-{name}-step-{learning.steps_taken}.png', mime='image/png',
                       on_click='ignore', icon=':material/download:', key=f'png_{name}')  # fmt: skip


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
    before = {0: 'the first point', 1: 'after the point before it'}.get(k, f'after the {k} points before it')
    st.markdown(f'**What point {k + 1}’s backward adds** ({before}):')
    st.code('\n'.join(collected_lines(learning)), language=None, wrap_lines=True)
    plots = st.columns(2)
    with plots[0]:
        st.markdown('**The data**')
        st.vega_lite_chart(dataset_spec(learning), width='stretch')
        png_button('The data (PNG)', lambda: data_png(learning), 'data', learning)
    with plots[1]:
        st.markdown(f'**The mean loss over the {n} points, step by step**')
        st.vega_lite_chart(loss_spec(learning.descent.losses), width='stretch')
        png_button('The loss (PNG)', lambda: loss_png(learning.descent.losses), 'loss', learning)
    st.markdown(f'**After all {n} points: the mean, and the step** (step {learning.steps_taken + 1}, '
                f'lr = {learning.lr:g})')  # fmt: skip
    st.code('\n'.join(step_lines(learning)), language=None, wrap_lines=True)
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
    s.setdefault(KEPT, {})[state.data_mark(s.data)] = s.data  # its link may hold its mark alone
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
        # the box shows the data in use when it changes, and not on every run: what is typed and not yet sent stays,
        # as does a bad text, to be put right
        if s.get(DATA_SHOWN) != dataset.text() and not s.get(DATA_ERROR):
            s[DATA_TEXT] = s[DATA_SHOWN] = dataset.text()
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
            st.caption(f'This data is longer than a link holds ({batch.MAX_LINK:,} characters): this page keeps it, '
                       'and a class you lead keeps it for the phones; the link alone opens the example’s.')  # fmt: skip


# --- learning together: the room is the minibatch ---------------------------------------------------------------


def together_panel(learning, room, student):
    """A phone's part in learning together, below its graph: the point it was handed, and what its backward adds
    (the player's box under its bar sends the grads: components/player, the class's /grads route)."""
    s = st.session_state
    n = len(learning.dataset)
    st.subheader('Learning together: the room is the minibatch', anchor=False)
    if not student:
        st.caption('Joining the class: your point comes in a moment.')
        return
    if s.get(PLACE, (None,))[0] != s.get('room'):
        try:
            place = ROOMS.point_of(room['code'], student)
        except RoomError as error:
            st.warning(md(error), icon=':material/error:')
            return
        s[PLACE] = (s.get('room'), place)
        st.rerun()  # the graph of the point handed out, and its player told the point (components/modes.py's room)
    k = learning.point
    try:
        sharing = len(range(k, ROOMS.phones(room['code']), n)) - 1
    except RoomError:
        sharing = 0  # the player says what the class is up to
    others = f'{sharing} other phone was' if sharing == 1 else f'{sharing} other phones were'
    shared = (f' {others} handed this point too: the class has more phones than the data has points, and counts '
              'each point once.') if sharing else ''  # fmt: skip
    data = ', '.join(f'{md(name)} = {fmt(v)}' for name, v in learning.dataset.point(k).items())
    st.markdown(f'Your point: **{k + 1} of {n}** ({data}).{shared} Step through its pass: the grads it ends with are '
                'your share of the batch. *Send my grads* under the player’s buttons sends them; the projector adds '
                'every phone’s, and its step brings every phone the new parameters.')  # fmt: skip
    share = learning.update.points[k]
    st.code('\n'.join(f'{name}.grad += {fmt(g)}' for name, g in share.grads.items()), language=None)


def together_room(page, learning):
    """What the player of a phone learning together is told of it: its point and the points (the box that sends its
    grads says them), or None."""
    if not (page.together and page.room and not page.present) or class_point(page, len(learning.dataset)) is None:
        return None
    return {'point': learning.point + 1, 'of': len(learning.dataset)}


STEPPED_FROM = 'class_stepped_from'  # session state: the round (rooms.batch_round) the lecturer's last step was from


def class_data(code, secret):
    """The lecturer's dataset too long for a link, kept with the class whenever the class does not hold it yet (its
    mark names it): each phone reads it there."""
    s = st.session_state
    if len(s.get('data', '')) > batch.MAX_LINK and s.get(KEPT_IN_CLASS) != (code, state.data_mark(s.data)):
        ROOMS.keep_data(code, secret, s.data)
        s[KEPT_IN_CLASS] = (code, state.data_mark(s.data))


def _fold(expression, learning, code, secret):
    """The lecturer's page starts learning together: the parameters its graph shows become its inputs (no steps of
    its own), so that the class's scenario names them, and every phone's page computes from them."""
    s = st.session_state
    class_data(code, secret)
    for name, value in learning.params.items():
        s[state.input_key(s.expr, name)] = value
    s.learned = 0
    s.together = True
    s[CLASS_LOSSES] = [batch.mean_loss(expression, learning.params, learning.dataset)]


def forget_together():
    """A class ends, or another starts: learning together starts again with the next *Learn together*."""
    s = st.session_state
    s.together = False
    for key in (CLASS_LOSSES, STEPPED_FROM, KEPT_IN_CLASS):
        s.pop(key, None)


def _class_step(expression, code, secret):
    """The class's step: `p.data += -lr * mean grad` over the points reported, from the parameters the class shows
    (read with the shares, at once), into the page's inputs with no steps of its own."""
    s = st.session_state
    try:
        scenario, shares, _ = ROOMS.batch_now(code, secret)
        kept = ROOMS.data(code) if scenario.get('data', '').startswith('@') else ''
    except RoomError as error:
        st.toast(md(error), icon=':material/error:')
        return
    held = state.batch_in(scenario, kept)
    if held is None or not shares:
        return
    _, params, dataset, lr = held
    update = batch.step_on(params, batch.sums_of(shares, expression.params), len(shares), lr)
    for name, value in update.items():
        s[state.input_key(s.expr, name)] = value
    s.learned = 0
    s[STEPPED_FROM] = batch_round(scenario)  # no second step from it: the class has not had this one yet
    s[CLASS_LOSSES] = [*s.get(CLASS_LOSSES, []), batch.mean_loss(expression, update, dataset)]


def class_together(scene, code, secret):
    """The projector's panel in a batch: *Learn together*, then the batch as phones report (n of N points, each
    grad's sum and mean), *Step*, the data with the points in, and the mean loss over the data after each step."""
    learning, expression = scene.batch, scene.expression
    s = st.session_state
    if not s.get('together'):
        said = 'Each phone is handed a point of the data, computes its grads, and sends them; the projector adds them.'
        if st.button('Learn together', icon=':material/groups:', key='learn_together', type='primary', help=said):
            try:
                _fold(expression, learning, code, secret)
            except RoomError as error:
                st.warning(md(error), icon=':material/error:')
                return
            st.rerun(scope='app')  # the page's link names the class's parameters: the phones follow it
        return
    try:
        class_data(code, secret)  # the lecturer's data changed, or the page was reloaded
        scenario, reports, phones = ROOMS.batch_now(code, secret)
        handed = ROOMS.phones(code)
    except RoomError as error:
        st.warning(md(error), icon=':material/cloud_off:')
        return
    n = len(learning.dataset)
    losses = s.setdefault(CLASS_LOSSES, [batch.mean_loss(expression, learning.params, learning.dataset)])
    shared = ' (more phones than points: some share one)' if handed > n else ''
    st.markdown(f'**Learning together** · step {len(losses)} · **{len(reports)} of {n} points in**, from {phones} '
                f'phone{"s" if phones != 1 else ""}{shared}')  # fmt: skip
    st.code('\n'.join(room_lines(reports, expression.params, n)), language=None, wrap_lines=True)
    step, stop = st.columns(2)
    waiting = s.get(STEPPED_FROM) == batch_round(scenario)  # the last step has not reached the class yet
    said = f'p.data += -lr * mean grad, lr = {learning.lr:g}, over the points in; the phones follow.'
    if step.button('Step on the mean', icon=':material/trending_down:', type='primary', help=said, key='class_step',
                   disabled=not reports or waiting, width='stretch'):  # fmt: skip
        _class_step(expression, code, secret)
        st.rerun(scope='app')
    if stop.button('Stop learning together', key='stop_together', width='stretch'):
        st.session_state.together = False
        st.rerun(scope='app')
    st.vega_lite_chart(dataset_spec(learning, arrived=set(reports), big=True), width='stretch')
    st.markdown(f'**The mean loss over the {n} points, after each step**')
    st.vega_lite_chart(loss_spec(losses, big=True), width='stretch')
    data, loss = st.columns(2)
    with data:
        png_button('The data (PNG)', lambda: data_png(learning, set(reports)), 'class_data', learning)
    with loss:
        png_button('The loss (PNG)', lambda: loss_png(losses), 'class_loss', learning)
