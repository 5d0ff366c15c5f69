# prdigest: the Slack app over HTTP on port 3000 (POST /slack/events, GET /healthz).
#   docker compose up -d          # with Redis; see docker-compose.yml and docs/deployment.md
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# openai's HTTP client (httpx2) verifies TLS against the OS trust store.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/*

# The package only (no dev extras), built from the source tree; the tree is not kept.
COPY pyproject.toml README.md /src/
COPY bot /src/bot
RUN pip install /src && rm -rf /src

RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin prdigest
WORKDIR /app
# The example config; docker compose mounts ./config over it, read-only.
COPY config /app/config
USER prdigest

EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:3000/healthz', timeout=3)"]
# Inside a container, loopback cannot be reached from outside it: the command binds every interface
# (`serve` alone listens on 127.0.0.1), and compose publishes the port on the host's 127.0.0.1 only.
CMD ["prdigest", "serve", "--http", "--host", "0.0.0.0", "--port", "3000"]
