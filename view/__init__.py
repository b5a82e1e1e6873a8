"""What the page shows, made as plain data, text, DOT and HTML: pure builders with no Streamlit in them, for
components/ to draw, the player to send, and exports/ to save."""
