"""A class exporting at once: 20 sessions click the same whole-pass export together, against one `streamlit run
app.py` on 127.0.0.1, as a lecturer's "everyone, download the slides" does.

    python -m bench.bench_class_exports            # ~5 min; writes bench/results/class_exports.{txt,json}
    python -m bench.bench_class_exports --sessions 5 --phases mlp-same --out /tmp/class_exports

Each session is bench/bench_load.py's WsSession (Streamlit's protocol over its websocket, as a browser speaks it). It
opens the page, clicks the player's Share button (the trigger the player sends), and waits for the share panel's
"Make the …" button. When every session has it, all click it at once; a session's time to file runs from its click
to the last byte of the file, fetched from the download button's URL as the browser fetches it. Phases (--phases):
the MLP's PowerPoint deck and the neuron's GIF, each with every session on the same scenario (the preset's inputs)
and with 20 different ones (one input moved by a little per session). While the class waits, --probes sessions open
a typed formula never seen before: the page's own first layout, which must not wait behind the class's exports.
Every wait has a timeout, and --max-minutes bounds the run.
"""

import argparse
import asyncio
import json
import time
import urllib.request
from urllib.parse import quote

from streamlit.proto.WidgetStates_pb2 import WidgetState

from bench import readme_tables
from bench.bench_load import Errors, Server, WsSession, quiet, summary
from tests.support.serve import serve_app

PHASES = {  # name: (preset, the input moved for different scenarios, its preset value, the file's label, extension)
    'mlp-same': ('mlp', None, None, 'PowerPoint', 'pptx'),
    'mlp-different': ('mlp', 'x1', 2.0, 'PowerPoint', 'pptx'),
    'neuron-same': ('neuron', None, None, 'GIF', 'gif'),
    'neuron-different': ('neuron', 'x1', 2.0, 'GIF', 'gif'),
}
MAGIC = {'pptx': b'PK', 'gif': b'GIF8'}
GOAL_P95_S = 30  # issue 19: every session gets its file, 95 % of them within 30 s on the 2-core machine
FILE_TIMEOUT_S = 420  # a session with no file by then counts as unfinished: 20 of the mlp's decks take ~350 s
READY_TIMEOUT_S = 120


class ExportSession(WsSession):
    """A WsSession that also keeps what the share panel shows: its buttons, progress texts, warnings and downloads."""

    def __init__(self, server, query, errors):
        super().__init__(server, query, errors)
        self.buttons = {}  # label -> (widget id, fragment id)
        self.downloads = {}  # label -> url
        self.texts = []  # (time, progress bar text), in order
        self.alerts = []  # warning texts, in order

    def _element(self, element, fragment_id):
        super()._element(element, fragment_id)
        kind = element.WhichOneof('type')
        if kind == 'button':
            self.buttons[element.button.label] = (element.button.id, fragment_id)
        elif kind == 'download_button':
            self.downloads[element.download_button.label] = element.download_button.url
        elif kind == 'progress':
            if not self.texts or self.texts[-1][1] != element.progress.text:
                self.texts.append((time.perf_counter(), element.progress.text))
        elif kind == 'alert':
            self.alerts.append(element.alert.body)

    def share(self):
        """The player's Share button at the first frame: a trigger on its component, as player.js sends it."""
        events = f'$$STREAMLIT_INTERNAL_KEY_{self.graph_id}__events'
        trigger = WidgetState(id=events, json_trigger_value=json.dumps([{'event': 'share', 'value': 0}]))
        self._sent(self.rerun(fragment_id=self.graph_fragment or '', widgets=[trigger]))

    def click(self, label):
        widget_id, fragment_id = self.buttons[label]
        self._sent(self.rerun(fragment_id=fragment_id, widgets=[WidgetState(id=widget_id, trigger_value=True)]))

    def _sent(self, rerun):
        """Send a rerun without waiting for its end: what the page shows is watched instead."""
        task = asyncio.ensure_future(rerun)
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # a closed session's rerun is let go


async def until(check, timeout, every=0.05):
    """Wait until check() is true; whether it became so within `timeout` s."""
    deadline = time.perf_counter() + timeout
    while not check():
        if time.perf_counter() > deadline:
            return False
        await asyncio.sleep(every)
    return True


def fetch(url):
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.read()


async def ready(server, query, make, errors):
    """A session on `query` with the share panel open at its "Make the …" button, or None."""
    session = ExportSession(server, query, errors)
    try:
        await session.open()
        session.share()
        if await until(lambda: make in session.buttons, READY_TIMEOUT_S):
            return session
        errors.add(f'no "{make}" button in the share panel')
    except (TimeoutError, OSError, ConnectionError) as e:
        errors.add(f'session did not open: {type(e).__name__}')
    await session.close()
    return None


async def class_exports(server, phase, n, probes, errors):
    """n sessions click the phase's export at once; what each got, and the probes' first layouts meanwhile."""
    expr, moved, start, label, ext = PHASES[phase]
    queries = [
        f'expr={expr}' if moved is None else f'expr={expr}&v.{moved}={quote(repr(start + (i + 1) / 64))}'
        for i in range(n)
    ]  # 1/64 is exact in binary: each session's input is the number its link says
    gate = asyncio.Semaphore(4)  # sessions opening at once: the class arrives over a few seconds

    async def arrive(query):
        async with gate:
            return await ready(server, query, f'Make the {label}', errors)

    sessions = [s for s in await asyncio.gather(*(arrive(q) for q in queries)) if s]
    await quiet(server)
    t0 = time.perf_counter()

    async def export(session):
        panel = set(session.alerts)  # what the panel says before the click (the share link's notes)
        session.texts, session.alerts = [], []
        clicked = time.perf_counter()
        session.click(f'Make the {label}')
        refused = lambda: [a for a in session.alerts if a not in panel]  # noqa: E731
        got = lambda: any(name.startswith(f'{label} (') for name in session.downloads) or refused()  # noqa: E731
        if not await until(got, FILE_TIMEOUT_S):
            return {'file': False, 'unfinished': True, 'texts': [t for _, t in session.texts]}
        if refused():
            return {'file': False, 'refused': refused()[-1], 'texts': [t for _, t in session.texts]}
        url = next(u for name, u in session.downloads.items() if name.startswith(f'{label} ('))
        data = await asyncio.to_thread(fetch, server.url + url)
        done = time.perf_counter()
        if not data.startswith(MAGIC[ext]):
            return {'file': False, 'refused': f'not a {ext}: {data[:20]!r}'}
        return {
            'file': True, 'seconds': done - clicked, 'bytes': len(data),
            'texts': [f'{t - clicked:.1f} s: {text}' for t, text in session.texts],
        }  # fmt: skip

    async def probe(i):
        """A first visit to a formula nobody asked for yet, while the class waits: a cold layout."""
        await asyncio.sleep(1 + 3 * i)
        formula = f'L = (a*b + c) * f{phase.replace("-", "")}{i}'
        session = ExportSession(server, f'expr=custom&formula={quote(formula)}', errors)
        try:
            opened = await session.open()
            busy = [a for a in session.alerts if 'busy' in a or 'used its' in a]
            return {'seconds': opened, 'after_click_s': time.perf_counter() - t0, 'refused': busy[0] if busy else None}
        except (TimeoutError, OSError, ConnectionError) as e:
            return {'seconds': None, 'refused': type(e).__name__}
        finally:
            await session.close()

    cpu0 = server.cpu()
    outcomes, probed = await asyncio.gather(
        asyncio.gather(*(export(s) for s in sessions)), asyncio.gather(*(probe(i) for i in range(probes)))
    )
    cpu1 = server.cpu()
    await asyncio.gather(*(s.close() for s in sessions))
    got = [o for o in outcomes if o['file']]
    refusals = {}
    for o in outcomes:
        if not o['file']:
            why = o.get('refused', 'no file within the timeout')
            refusals[why] = refusals.get(why, 0) + 1
    return {
        'phase': phase, 'sessions_asked': n, 'sessions': len(sessions), 'files': len(got),
        'seconds_to_file': summary([o['seconds'] for o in got], len(sessions) - len(got)),
        'bytes': sorted({o['bytes'] for o in got}), 'refused': refusals,
        'server_cpu_s': cpu1[0] - cpu0[0], 'dot_cpu_s': cpu1[1] - cpu0[1],
        'texts_seen': [o['texts'] for o in outcomes], 'probes': probed,
    }  # fmt: skip


async def run(args):
    errors, results = Errors(), []
    deadline = time.monotonic() + args.max_minutes * 60
    with serve_app(timeout=120) as url:
        server = Server(url)
        for phase in args.phases:
            if time.monotonic() > deadline:
                errors.add(f'{phase}: not run, past --max-minutes')
                continue
            result = await asyncio.wait_for(
                class_exports(server, phase, args.sessions, args.probes, errors), FILE_TIMEOUT_S + 300
            )
            results.append(result)
            print(json.dumps({k: v for k, v in result.items() if k != 'texts_seen'}), flush=True)
            await quiet(server)
    return results, dict(errors)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--sessions', type=int, default=20, help='sessions that click at once (20)')
    parser.add_argument('--probes', type=int, default=3, help='first layouts of new formulas while they wait (3)')
    parser.add_argument('--phases', default=','.join(PHASES), help=f'comma-separated, of {", ".join(PHASES)}')
    parser.add_argument('--max-minutes', type=float, default=20, help='start no phase after this long (20)')
    parser.add_argument('--out', help='a path stem to write .txt and .json to instead of bench/results/')
    args = parser.parse_args()
    args.phases = [p.strip() for p in args.phases.split(',')]
    rows, errors = asyncio.run(run(args))
    results = {'sessions': args.sessions, 'goal_p95_s': GOAL_P95_S, 'phases': rows, 'errors': errors}
    text = readme_tables.as_text('A class exporting at once: python -m bench.bench_class_exports', results)
    readme_tables.write_results('class_exports', text, results, out=args.out)


if __name__ == '__main__':
    main()
