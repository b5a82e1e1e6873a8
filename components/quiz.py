"""Predict the grad: at each op's backward step the page asks for the grads it writes, checks the answers, then
shows them with the chain rule. The score is kept in this session only.

The player is sent only the frames up to the step being asked (engine.frames' `ask` frames show its new grads as
'?'): the frames after it hold the answers, and whatever the browser is sent can be read."""

import html

import streamlit as st

from components.markdown import md
from components.player import send_to
from engine.answers import is_right
from view.explanation import chain_rule_lines, owner, slip_words
from view.numbers import number

QUIZ = 'quiz'  # session state: {'pass': what it is on, 'at': the frame shown last, 'marks': {ask frame: [bool]}}
ANSWER = 'quiz_answer'  # session state: 'quiz_answer:<frame>:<node>', an answer's box


def asked(trace, frame):
    """The nodes a step asks about: its inputs, each once (a*a writes a twice, and a's grad after it is asked)."""
    return list(dict.fromkeys(trace.nodes[frame.node].children))


def score(quiz):
    marks = [m for ms in quiz['marks'].values() for m in ms]
    return sum(marks), len(marks)


def quiz_panel(trace, all_frames, pass_name):
    """The question, or the answer to the last one, above the player. `all_frames` come with their `ask` frames;
    `pass_name` says what they are of. Returns how many frames the player may be sent: up to the one shown."""
    s = st.session_state
    asks = [k for k, f in enumerate(all_frames) if f.ask]
    quiz = s.get(QUIZ)
    if quiz is None or quiz['pass'] != pass_name:  # a new pass: a new quiz, its boxes blank
        for key in [k for k in s.keys() if str(k).startswith(ANSWER)]:
            del s[key]
        quiz = s[QUIZ] = {'pass': pass_name, 'at': asks[0] if asks else len(all_frames) - 1, 'marks': {}}
        send_to(quiz['at'])
    with st.container(border=True, key='quiz'):
        at = quiz['at']
        if all_frames[at].ask:
            _ask(trace, all_frames, asks, quiz)
        else:
            _answered(trace, all_frames, asks, quiz)
    return quiz['at'] + 1


def _ask(trace, all_frames, asks, quiz):
    at = quiz['at']
    frame = all_frames[at]
    node = trace.nodes[frame.node]
    right, total = score(quiz)
    so_far = f' · score {right} of {total}' if total else ''
    st.markdown(
        f'**Question {asks.index(at) + 1} of {len(asks)}**{so_far} · {md(node.name)}’s `_backward` runs. '
        'What is each grad after it? The graph shows ? where it writes.'
    )
    children = asked(trace, frame)
    with st.form(key=f'quiz_form:{at}', border=False):
        boxes = st.columns(min(len(children), 4))
        for j, child in enumerate(children):
            boxes[j % len(boxes)].number_input(
                f'{owner(trace.nodes[child].name)}.grad', value=None, step=0.1, format='%.4f',
                key=f'{ANSWER}:{at}:{child}', placeholder='your answer',
            )  # fmt: skip
        if st.form_submit_button('Check', type='primary', icon=':material/check:'):
            answers = [st.session_state[f'{ANSWER}:{at}:{child}'] for child in children]
            truths = trace.grads(frame.steps_done)
            quiz['marks'][at] = [is_right(a, truths[c]) for a, c in zip(answers, children)]
            quiz['answers'] = dict(zip(children, answers))
            quiz['at'] = at + 1  # the same step, shown
            send_to(quiz['at'])
            st.rerun()


def _answered(trace, all_frames, asks, quiz):
    at = quiz['at']
    right, total = score(quiz)
    later = [k for k in asks if k > at]
    if at - 1 in quiz['marks']:
        frame = all_frames[at - 1]
        truths, answers = trace.grads(frame.steps_done), quiz.get('answers', {})
        lines = chain_rule_lines(trace, trace.steps[frame.steps_done - 1])
        heard = []
        for child, mark in zip(asked(trace, frame), quiz['marks'][at - 1]):
            said = answers.get(child)
            yours = 'left blank' if said is None else f'you said {number(said)}'
            verdict = '✓ right' if mark else '✗ not quite'
            slip = '' if mark or said is None else slip_words(trace, frame.steps_done - 1, child, said)
            name = owner(trace.nodes[child].name)
            st.markdown(
                f'**{verdict}**: {md(name)}.grad = **{number(truths[child])}** ({yours})'
                + (f'  \n{md(slip)}' if slip else '')  # the likely slip, with its numbers (view.explanation)
            )
            heard.append(f'{verdict}: {name}.grad = {number(truths[child])} ({yours}). {slip}'.strip())
        score_words = f'Score so far: {right} of {total} right.' if later else f'Done: {right} of {total} grads right.'
        say_to_screen_reader(' '.join([*heard, score_words]))
        st.code('\n'.join(lines), language=None, wrap_lines=True)
    if later:
        st.markdown(f'Score so far: **{right} of {total}** right.')
        if st.button('Next question', type='primary', icon=':material/arrow_forward:', key='quiz_next'):
            quiz['at'] = later[0]
            send_to(quiz['at'])
            st.rerun()
    else:
        st.markdown(
            f'**Done:** {right} of {total} grads right. The grad check below compares them with finite differences.'
        )
        if quiz['at'] < len(all_frames) - 1:
            quiz['at'] = len(all_frames) - 1  # the leaves' steps after the last question: nothing left to ask
            send_to(quiz['at'])
    if total and st.button('Start again', icon=':material/restart_alt:', key='quiz_again'):
        del st.session_state[QUIZ]
        st.rerun()


# heard, not seen: a screen reader announces an alert as it appears (the verdict replaces the form, which had the
# focus; WCAG 4.1.3), and the page shows the same words in its own lines above
HEARD = '<div role="alert" style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)">{}</div>'


def say_to_screen_reader(text):
    st.html(HEARD.format(html.escape(text)))
