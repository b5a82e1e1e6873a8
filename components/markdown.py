"""Text that goes into st.markdown from names a user chose or a link held."""

import re


def md(text):
    """Text for st.markdown: names such as x1*w1 must not turn into italics."""
    return re.sub(r'([*_\\`\[\]<>#|~$])', r'\\\1', text)
