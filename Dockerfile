# relaybay in a container (§10). Publish the port on the host's loopback only:
#   docker run -d -p 127.0.0.1:8765:8765 -v relaybay-data:/data relaybay
# Requests then carry Host: 127.0.0.1, which the Host allow-list accepts.
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    RELAYBAY_HOME=/data \
    RELAYBAY_HOST=0.0.0.0 \
    RELAYBAY_PORT=8765

WORKDIR /src
COPY . /src
RUN pip install --no-cache-dir /src \
 && useradd --create-home --uid 10001 relaybay \
 && mkdir -p /data && chown relaybay:relaybay /data

USER relaybay
VOLUME ["/data"]
EXPOSE 8765
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=2)"
CMD ["relaybay", "serve"]
