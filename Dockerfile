# The page for a class, in a container:
#   docker build -t backprop . && docker run --rm -p 8501:8501 backprop
FROM python:3.11-slim-bookworm

# dot lays the graph out once per expression for every visitor, and draws the whole-pass exports; rsvg-convert
# (librsvg2-bin) makes their slides into the PDF's pages and the deck's pictures
RUN apt-get update \
 && apt-get install -y --no-install-recommends graphviz librsvg2-bin fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid 10001 app
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir --disable-pip-version-check -r requirements.txt
COPY --chown=app:app . .
USER app

EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD python -c "import urllib.request as u; u.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4)"
CMD ["python", "-m", "streamlit", "run", "main.py", \
     "--server.address=0.0.0.0", "--server.port=8501", "--server.headless=true", \
     "--server.fileWatcherType=none", "--browser.gatherUsageStats=false"]
