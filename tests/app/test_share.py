"""The share panel's links: a page opened on the lecturer's machine (localhost) also gives the address students on
other machines open, as `streamlit run` prints it, with the QR code of that one; any other page keeps its own link.
The choice over hosts, ports and base paths, where the address comes from, and what the panel shows under AppTest."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit import config, net_util
from streamlit.testing.v1 import AppTest

from components.share import (
    FOR_HERE,
    FOR_HERE_ONLY,
    FOR_OTHERS,
    RUN_ON_THE_NETWORK,
    Link,
    link_url,
    links_to_share,
    network_url,
)

APP = str(Path(__file__).resolve().parents[2] / 'app.py')
WORDS = (FOR_OTHERS, FOR_HERE, FOR_HERE_ONLY)
QUERY = {'expr': 'custom', 'formula': 'L = a*b + a/c', 'v.a': '1.5', 'step': '5'}
QUERY_TEXT = 'expr=custom&formula=L%20%3D%20a%2Ab%20%2B%20a%2Fc&v.a=1.5&step=5'  # by hand: RFC 3986 escapes

# as they stand between // and the port in a page's address
LOOPBACK_HOSTS = ['127.0.0.1', '127.0.1.1', '127.255.255.254', 'localhost', 'LocalHost', 'localhost.', 'app.localhost',
                  '[::1]', '[0:0:0:0:0:0:0:1]', '[::ffff:127.0.0.1]', '0.0.0.0', '[::]']  # fmt: skip
OTHER_HOSTS = ['192.168.1.20', '10.0.0.7', '8.8.8.8', '[fd00::2]', '[fe80::1%25eth0]', 'backprop.example.org',
               'localhost.example.org', 'notlocalhost', '127.0.0.1.nip.io', 'lecture-laptop.local']  # fmt: skip
PORTS = ['', ':8501', ':80', ':8600']
BASE_PATHS = ['', '/', '/lecture/', '/a/b']
NETWORKS = ['http://192.168.1.20:8501', 'http://192.168.1.20:8600/lecture', 'https://10.0.0.7:443', 'http://[fd00::2]:8501',
            'http://lecture-laptop.local:8501']  # fmt: skip
NO_NETWORKS = [None, '', 'http://127.0.0.1:8501', 'http://localhost:8501', 'http://[::1]:8501', 'http://0.0.0.0:8501']


def test_a_link_keeps_its_query_escaped_as_a_link_holds_it():
    assert link_url('http://localhost:8501/', QUERY) == f'http://localhost:8501/?{QUERY_TEXT}'


def in_turn(hosts, networks):
    """(host, port, base path, network): each host once, the ports, base paths and networks taken in turn, so that
    every value of every axis appears, and each port with each base path."""
    n = max(len(hosts), len(networks), len(PORTS) * len(BASE_PATHS))
    return [
        (hosts[i % len(hosts)], PORTS[i % len(PORTS)], BASE_PATHS[(i + i // len(PORTS)) % len(BASE_PATHS)],
         networks[i % len(networks)])
        for i in range(n)
    ]  # fmt: skip


# the axes' combinations at random, beyond the table; pinned (derandomize): each run tries the same ones
ANY = settings(max_examples=150, derandomize=True, database=None, deadline=None)


def gives_students_the_networks_address(host, port, path, network):
    link = link_url(f'http://{host}{port}{path}', QUERY)
    scheme, rest = network.split('://')
    links, warning = links_to_share(link, network)
    assert links == [
        Link(f'{scheme}://{rest.split("/")[0]}{path}?{QUERY_TEXT}', FOR_OTHERS, scan=True),  # the network's host:port
        Link(f'http://{host}{port}{path}?{QUERY_TEXT}', FOR_HERE, scan=False),
    ]
    assert warning is None


@pytest.mark.parametrize(('host', 'port', 'path', 'network'), in_turn(LOOPBACK_HOSTS, NETWORKS))
def test_a_page_opened_on_this_machine_gives_students_the_networks_address_with_the_same_path_and_query(
    host, port, path, network
):
    gives_students_the_networks_address(host, port, path, network)


@pytest.mark.parametrize(
    ('page', 'network', 'for_others'),
    [
        ('http://localhost:8501/', 'http://192.168.1.20:8501', 'http://192.168.1.20:8501/'),
        ('http://[::1]:8501/lecture/', 'http://192.168.1.20:8600/lecture', 'http://192.168.1.20:8600/lecture/'),
        ('http://127.0.0.1/a/b', 'https://10.0.0.7:443', 'https://10.0.0.7:443/a/b'),  # the network's scheme too
        ('http://0.0.0.0:8600', 'http://[fd00::2]:8501', 'http://[fd00::2]:8501'),
        ('http://app.localhost.:80/', 'http://lecture-laptop.local:8501', 'http://lecture-laptop.local:8501/'),
        ('http://[::ffff:127.0.0.1]:8501/', 'http://192.168.1.20:8501', 'http://192.168.1.20:8501/'),
    ],
)
def test_the_students_link_is_the_pages_path_and_query_at_the_networks_scheme_host_and_port(page, network, for_others):
    # written out by hand, not made as the code makes it: the page's path, never the network's
    here = link_url(page, QUERY)
    assert here == f'{page}?{QUERY_TEXT}'
    assert links_to_share(here, network) == (
        [Link(f'{for_others}?{QUERY_TEXT}', FOR_OTHERS, scan=True), Link(here, FOR_HERE, scan=False)],
        None,
    )


@ANY
@given(
    host=st.sampled_from(LOOPBACK_HOSTS),
    port=st.sampled_from(PORTS),
    path=st.sampled_from(BASE_PATHS),
    network=st.sampled_from(NETWORKS),
)
def test_any_page_on_this_machine_with_a_network_address_gives_students_that_address(host, port, path, network):
    gives_students_the_networks_address(host, port, path, network)


def keeps_its_link_for_this_machine(host, port, path, network):
    link = link_url(f'http://{host}{port}{path}', QUERY)
    links, warning = links_to_share(link, network)
    assert links == [Link(link, FOR_HERE_ONLY, scan=True)]
    assert f'Students on other machines cannot open `{host.lower()}`' in warning  # the host as the link has it
    assert 'run the page with the command below, or host it' in warning


@pytest.mark.parametrize(('host', 'port', 'path', 'network'), in_turn(LOOPBACK_HOSTS, NO_NETWORKS))
def test_a_page_on_this_machine_without_a_network_address_keeps_its_link_for_this_machine_and_says_why(
    host, port, path, network
):
    keeps_its_link_for_this_machine(host, port, path, network)


@ANY
@given(
    host=st.sampled_from(LOOPBACK_HOSTS),
    port=st.sampled_from(PORTS),
    path=st.sampled_from(BASE_PATHS),
    network=st.sampled_from(NO_NETWORKS),
)
def test_any_page_on_this_machine_without_a_network_address_keeps_its_link_and_says_why(host, port, path, network):
    keeps_its_link_for_this_machine(host, port, path, network)


def keeps_its_one_link(host, port, path, network):
    for scheme in ('http', 'https'):
        link = link_url(f'{scheme}://{host}{port}{path}', QUERY)
        assert links_to_share(link, network) == ([Link(link)], None)


@pytest.mark.parametrize(('host', 'port', 'path', 'network'), in_turn(OTHER_HOSTS, NETWORKS + NO_NETWORKS))
def test_a_page_opened_at_any_other_host_keeps_its_one_link_whatever_the_server_thinks_its_address_is(
    host, port, path, network
):
    keeps_its_one_link(host, port, path, network)


@ANY
@given(
    host=st.sampled_from(OTHER_HOSTS),
    port=st.sampled_from(PORTS),
    path=st.sampled_from(BASE_PATHS),
    network=st.sampled_from(NETWORKS + NO_NETWORKS),
)
def test_any_page_at_another_host_keeps_its_one_link(host, port, path, network):
    keeps_its_one_link(host, port, path, network)


@pytest.mark.parametrize('network', NETWORKS + NO_NETWORKS)
def test_a_page_whose_address_is_unknown_keeps_its_link(network):
    link = link_url('', QUERY)  # st.context.url is None under AppTest, and in a browser that sent none
    assert link == f'?{QUERY_TEXT}'
    assert links_to_share(link, network) == ([Link(link)], None)


@pytest.mark.parametrize(
    ('page', 'network', 'for_others'),
    [
        # haproxy on the lecturer's machine at :8080 in front of replicas at :8501 and :8502: the proxy's port
        ('http://localhost:8080/', 'http://192.168.1.20:8501', 'http://192.168.1.20:8080/'),
        ('http://127.0.0.1:8080/course/', 'http://192.168.1.20:8502/course', 'http://192.168.1.20:8080/course/'),
        ('https://localhost/', 'http://192.168.1.20:8501', 'https://192.168.1.20/'),  # the proxy's TLS, on 443
        ('http://[::1]:8080/', 'http://[fd00::2]:8501', 'http://[fd00::2]:8080/'),
    ],
)  # fmt: skip
def test_a_page_that_came_through_a_proxy_gives_students_the_proxys_port_never_a_replicas(page, network, for_others):
    here = link_url(page, QUERY)
    assert links_to_share(here, network, proxied=True) == (
        [Link(f'{for_others}?{QUERY_TEXT}', FOR_OTHERS, scan=True), Link(here, FOR_HERE, scan=False)],
        None,
    )


@pytest.mark.parametrize(
    ('page', 'public', 'links'),
    [
        # opened on this machine: the public address for students, the page's own for this machine
        ('http://localhost:8080/', 'https://backprop.example.edu', ['https://backprop.example.edu/', 'here']),
        ('http://127.0.0.1:8501/course/', 'http://10.1.2.3:80/', ['http://10.1.2.3:80/course/', 'here']),
        # opened anywhere else (a replica's own port, a hosted name): the public address alone
        ('http://192.168.1.20:8502/', 'https://backprop.example.edu', ['https://backprop.example.edu/']),
        ('https://backprop.example.edu/', 'https://backprop.example.edu', ['https://backprop.example.edu/']),
    ],
)  # fmt: skip
def test_a_public_address_set_for_the_server_is_the_students_link_wherever_the_page_is_opened(page, public, links):
    here = link_url(page, QUERY)
    for network, proxied in [('http://192.168.1.20:8501', False), (None, True)]:
        got, warning = links_to_share(here, network, public, proxied)
        assert [link.url if link.words != FOR_HERE else 'here' for link in got] == [
            link if link == 'here' else f'{link}?{QUERY_TEXT}' for link in links
        ]
        assert got[0].scan and warning is None


@pytest.mark.parametrize('public', ['', 'backprop.example.edu', 'ftp://backprop.example.edu', 'https://'])
def test_a_public_address_that_is_no_web_address_is_not_used(public):
    here = link_url('http://localhost:8501/', QUERY)
    assert links_to_share(here, 'http://192.168.1.20:8501', public) == links_to_share(here, 'http://192.168.1.20:8501')


# --- where the network's address comes from: Streamlit's own choice, as `streamlit run` prints it -----------------


@pytest.fixture
def streamlit_options():
    """Set Streamlit's config options as `streamlit run --server.address ...` does; each is put back after the test."""
    saved = {}

    def set_options(options):
        for key, value in options.items():
            saved.setdefault(key, (config.get_option(key), config.get_where_defined(key)))
            config.set_option(key, value, 'command-line argument')

    yield set_options
    for key, (value, where) in saved.items():
        config.set_option(key, value, where)


@pytest.fixture
def machine_on_a_network(monkeypatch):
    """This machine's address on its network, as Streamlit finds it (net_util.get_internal_ip): a documentation
    address (RFC 5737), so that the test does not depend on the machine's network."""
    monkeypatch.setattr(net_util, 'get_internal_ip', lambda: '192.0.2.7')


@pytest.mark.parametrize(
    ('options', 'expected'),
    [
        ({'server.port': 8600}, 'http://192.0.2.7:8600'),  # server.address unset: every interface
        ({'server.port': 8600, 'server.address': '0.0.0.0'}, 'http://192.0.2.7:8600'),
        ({'server.port': 8600, 'server.address': '::'}, 'http://192.0.2.7:8600'),
        ({'server.port': 8600, 'server.baseUrlPath': '/lecture/'}, 'http://192.0.2.7:8600/lecture'),
        ({'server.port': 8600, 'server.address': '127.0.0.1'}, 'http://127.0.0.1:8600'),  # bound to this machine
        ({'server.port': 8600, 'server.address': '::1'}, 'http://[::1]:8600'),
        ({'server.port': 8600, 'server.address': '192.168.1.20'}, 'http://192.168.1.20:8600'),
        ({'server.port': 8600, 'server.address': 'unix:///tmp/backprop.sock'}, None),  # only a proxy reaches it
        ({'server.port': 8600, 'browser.serverAddress': 'lecture-laptop.local'}, 'http://lecture-laptop.local:8600'),
        (
            {'server.port': 8600, 'server.address': '127.0.0.1', 'browser.serverAddress': 'lecture-laptop.local'},
            'http://lecture-laptop.local:8600',
        ),
    ],  # fmt: skip
)
def test_the_network_address_is_the_one_streamlit_run_prints(
    options, expected, streamlit_options, machine_on_a_network
):
    streamlit_options(options)
    assert network_url() == expected


def test_a_machine_on_no_network_has_no_address_for_students(streamlit_options, monkeypatch):
    monkeypatch.setattr(net_util, 'get_internal_ip', lambda: '127.0.0.1')  # what Streamlit says when it finds none
    streamlit_options({'server.port': 8600})
    link = link_url('http://localhost:8600/', QUERY)
    links, warning = links_to_share(link, network_url())
    assert links == [Link(link, FOR_HERE_ONLY)] and 'cannot open `localhost`' in warning


# --- the panel under AppTest --------------------------------------------------------------------------------------


def panel():
    """The share dialog for frame 6 of a custom formula, at the page's address (st.context.url)."""
    import streamlit as st

    from components.share import link_url, share_dialog

    query = {'expr': 'custom', 'formula': 'L = a*b + a/c', 'v.a': '1.5', 'step': '5'}
    share_dialog(link_url(st.context.url or '', query), 'Frame 6 of 10', lambda: st.markdown('the exports'))


def shown(url=None):
    """(the code blocks: links and commands, the words above the links, the warnings, how many QR codes) as the
    panel shows them."""
    at = AppTest.from_function(panel, default_timeout=30)
    if url is not None:
        at.context = {'url': url}
    at.run()
    assert not at.exception
    words = [m.value for m in at.markdown]
    assert words[0] == '**A link to this picture** — Frame 6 of 10' and words[-1] == 'the exports'
    return [c.value for c in at.code], words[1:-1], [w.value for w in at.warning], len(at.get('image'))


def test_under_apptest_without_the_pages_address_the_panel_shows_the_link_as_it_is():
    assert shown() == ([f'?{QUERY_TEXT}'], [], [], 1)


def test_under_apptest_a_page_on_localhost_shows_the_students_link_first_and_this_machines_second(
    streamlit_options, machine_on_a_network
):
    streamlit_options({'server.port': 8501})
    assert shown('http://localhost:8501') == (
        [f'http://192.0.2.7:8501?{QUERY_TEXT}', f'http://localhost:8501?{QUERY_TEXT}'],
        [FOR_OTHERS, FOR_HERE],
        [],
        1,
    )


def test_under_apptest_a_server_bound_to_this_machine_says_students_cannot_open_its_link(
    streamlit_options, machine_on_a_network
):
    streamlit_options({'server.port': 8501, 'server.address': '127.0.0.1'})
    links, words, warnings, codes = shown('http://127.0.0.1:8501')
    assert (links, words, codes) == ([RUN_ON_THE_NETWORK, f'http://127.0.0.1:8501?{QUERY_TEXT}'], [FOR_HERE_ONLY], 1)
    assert len(warnings) == 1 and 'cannot open `127.0.0.1`' in warnings[0]


def test_under_apptest_a_hosted_page_shows_its_one_link(streamlit_options, machine_on_a_network):
    streamlit_options({'server.port': 8501})
    assert shown('https://backprop.example.org/lecture') == (
        [f'https://backprop.example.org/lecture?{QUERY_TEXT}'],
        [],
        [],
        1,
    )


def the_pages_panel(url=None):
    """The links app.py's share panel shows when Share is clicked at frame 4 of the neuron (as the player sends it:
    tests/app/test_frame_numbers.py), for a page at `url` (st.context.url; None: none, as under AppTest by default)."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params['expr'] = 'neuron'
    if url is not None:
        at.context = {'url': url}
    at.run()
    at.session_state['graph'] = {'share': 3}
    at.run()
    assert not at.exception
    return [c.value for c in at.code if '?' in c.value], [m.value for m in at.markdown if m.value in WORDS]


def test_the_pages_share_panel_without_its_address_shows_its_one_link():
    (link,), words = the_pages_panel()
    assert link.startswith('?') and 'expr=neuron' in link and 'step=3' in link and words == []


def test_the_pages_share_panel_on_localhost_gives_students_the_same_link_at_the_networks_address(
    streamlit_options, machine_on_a_network
):
    streamlit_options({'server.port': 8501})
    (for_others, here), words = the_pages_panel('http://localhost:8501')
    query = here.removeprefix('http://localhost:8501?')
    assert 'expr=neuron' in query and 'step=3' in query
    assert for_others == f'http://192.0.2.7:8501?{query}' and words == [FOR_OTHERS, FOR_HERE]
